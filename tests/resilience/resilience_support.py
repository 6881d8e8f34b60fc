"""Helpers of the operations tests: ``allfours serve`` on its embedded Redis (no ``REDIS_URL``),
and what the OS says about its processes (read from /proc, not from the server's own files, so
the tests judge the server by an independent account)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import httpx
from support import SERVER_ENV, ServerProcess, allfours_command, free_port

READY_S = 30.0


def spawn_embedded(
    data_dir: Path, workdir: Path, env: Mapping[str, str] | None = None, port: int | None = None
) -> ServerProcess:
    """Start ``allfours serve`` with an embedded Redis in ``data_dir`` (not yet ready)."""
    workdir.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    log_path = workdir / f"server-{port}.log"
    child_env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    child_env.update(SERVER_ENV)
    child_env.update(env or {})
    child_env.update({"ALLFOURS_PORT": str(port), "ALLFOURS_DATA_DIR": str(data_dir)})
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [*allfours_command(), "serve"],
            env=child_env,
            cwd=workdir,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    return ServerProcess(f"http://127.0.0.1:{port}", proc, log_path)


async def start_embedded(
    data_dir: Path, workdir: Path, env: Mapping[str, str] | None = None, port: int | None = None
) -> ServerProcess:
    """``spawn_embedded``, once ``/readyz`` answers 200 (or fail with its log)."""
    server = spawn_embedded(data_dir, workdir, env, port)
    try:
        await wait_ready(server)
    except BaseException:
        stop_now(server)
        raise
    return server


async def wait_ready(server: ServerProcess, within_s: float = READY_S) -> None:
    deadline = time.monotonic() + within_s
    async with httpx.AsyncClient(base_url=server.url, timeout=1.0) as client:
        while True:
            server.check_alive()
            with contextlib.suppress(httpx.TransportError):
                if (await client.get("/readyz")).status_code == 200:
                    return
            if time.monotonic() > deadline:
                raise AssertionError(f"server not ready after {within_s}s:\n{server.log_tail()}")
            await asyncio.sleep(0.05)


def stop_now(server: ServerProcess) -> None:
    if server.proc.poll() is None:
        server.proc.kill()
        server.proc.wait()


async def eventually(
    check: Callable[[], bool], within_s: float, what: str, every_s: float = 0.05
) -> None:
    deadline = time.monotonic() + within_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {within_s}s: {what}")
        await asyncio.sleep(every_s)


# ---------------------------------------------------------------------------------------------
# processes, as /proc tells


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of a process, or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1])


def running(pid: int) -> bool:
    """Alive and not a zombie (an orphan nobody reaped yet is dead for our purposes)."""
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def children(pid: int) -> list[int]:
    """Running children of ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[1] == pid and stat[0] != "Z":
                found.append(int(entry.name))
    return sorted(found)


def workers_of(server: ServerProcess) -> list[int]:
    """The HTTP worker processes of a server: its Python children, minus multiprocessing's
    resource tracker, and no redis-server."""
    return [
        pid
        for pid in children(server.proc.pid)
        if "redis-server" not in cmdline(pid) and "resource_tracker" not in cmdline(pid)
    ]


def redis_servers_in(data_dir: Path) -> list[int]:
    """Every running redis-server whose working directory is ``data_dir`` (redis changes into
    its data directory), whoever started it."""
    found = []
    target = data_dir.resolve()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            exe = os.readlink(entry / "exe")
            cwd = Path(os.readlink(entry / "cwd"))
        except OSError:
            continue
        if "redis-server" in Path(exe).name and cwd == target and running(int(entry.name)):
            found.append(int(entry.name))
    return sorted(found)
