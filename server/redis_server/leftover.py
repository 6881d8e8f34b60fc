"""Stopping a redis-server that an earlier, killed owner left running on a data directory.

Never two servers on one append-only file: before a start, the redis-server named by the data
directory's pid file (or, from before pid files, the one serving its unix socket with its config
file) is stopped with SIGTERM, so it finishes its AOF and exits; SIGKILL follows only if it
ignores that. A pid is only believed if that process is a redis-server working in this very
directory: a pid file can outlive its process, and the pid be reused.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from .errors import EmbeddedRedisError
from .files import RedisFiles
from .probe import redis_info

__all__ = ["stop_leftover"]

_log = logging.getLogger("allfours.redis")


async def stop_leftover(files: RedisFiles, own_pid: int | None, grace: float) -> None:
    """Stop the redis-server left running in ``files.data_dir``, if any and not ``own_pid``;
    ``grace``: how many seconds it may take to exit on SIGTERM before it is killed."""
    pid = _read_pid(files.pid)
    if pid is None and files.socket is not None:
        info = await redis_info(files.socket, None)
        if info is not None and info.get("config_file") == str(files.config.resolve()):
            pid = _as_pid(info.get("process_id", ""))
    if pid is None or pid == own_pid or not _is_redis_in(pid, files.data_dir):
        return
    _log.warning(
        "a redis-server (pid %d) left running by an earlier server still holds %s: "
        "stopping it (its data stays) before starting a new one",
        pid,
        files.data_dir,
    )
    await asyncio.to_thread(_end_process, pid, grace)


def _read_pid(path: Path) -> int | None:
    try:
        return _as_pid(path.read_text())
    except OSError:
        return None


def _as_pid(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and int(text) > 0 else None


def _is_redis_in(pid: int, data_dir: Path) -> bool:
    """Whether ``pid`` is a live redis-server whose working directory is ``data_dir`` (redis
    changes into its ``dir``). Without /proc (macOS), its command name has to do."""
    proc = Path(f"/proc/{pid}")
    if Path("/proc/self").exists():
        try:
            exe = os.readlink(proc / "exe")
            cwd = os.readlink(proc / "cwd")
        except OSError:  # gone, a zombie, or not ours to look at
            return False
        return "redis-server" in Path(exe).name and Path(cwd) == data_dir.resolve()
    if not _alive(pid):
        return False
    command = subprocess.run(  # noqa: S603 - fixed argv, no shell
        ["ps", "-o", "comm=", "-p", str(pid)],  # noqa: S607 - ps from PATH
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return "redis-server" in command


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not: nobody may have reaped the orphan yet)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    if sys.platform.startswith("linux"):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        return stat.rsplit(")", 1)[-1].split()[0] != "Z"
    return True


def _end_process(pid: int, timeout: float) -> None:
    """SIGTERM (and SIGCONT, should it be stopped) ``pid``, SIGKILL it after ``timeout``; return
    once it is gone. Redis exits on SIGTERM after flushing its AOF, so nothing fsynced is lost
    either way."""
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
            os.kill(pid, signal.SIGCONT)
        deadline = time.monotonic() + wait
        while _alive(pid):
            if time.monotonic() > deadline:
                break
            time.sleep(0.02)
        else:
            return
    raise EmbeddedRedisError(f"redis-server pid {pid} survived SIGKILL")
