"""Waiting for a freshly spawned redis-server to serve, or failing with its log tail.

Ready means: the redis answering on the address is our child (by ``process_id``) and has
finished loading its AOF. A child that exits, or stays silent for the startup timeout, is a
failed start; a long AOF replay is not, as redis answers ``INFO`` while it loads.
"""

from __future__ import annotations

import asyncio
import time

from .child import RedisChild
from .errors import EmbeddedRedisError
from .files import RedisFiles
from .probe import redis_info

__all__ = ["await_ready"]


async def await_ready(
    child: RedisChild, files: RedisFiles, port: int | None, startup_timeout: float
) -> None:
    """Return once ``child`` serves on its socket (else on ``port``); raise (having killed it,
    if it still runs) when it exits or stays silent for ``startup_timeout`` seconds."""
    deadline = time.monotonic() + startup_timeout
    while True:
        code = child.poll()
        if code is not None:
            raise EmbeddedRedisError(
                f"redis-server exited during startup (code {code}); log tail:\n{files.log_tail()}"
            )
        # ``process_id`` proves that the server on the address is our child, not a stranger
        # that already held the port our child failed to bind.
        info = await redis_info(files.socket, port)
        if info is not None and info.get("process_id") == str(child.pid):
            if info.get("loading") == "0":
                return
            # Still replaying the AOF (INFO, unlike data commands, is served meanwhile):
            # alive and busy, however long a large file takes. The timeout is for silence.
            deadline = time.monotonic() + startup_timeout
        if time.monotonic() > deadline:
            child.kill()
            raise EmbeddedRedisError(
                f"redis-server did not answer PING within {startup_timeout}s; log tail:\n"
                f"{files.log_tail()}"
            )
        await asyncio.sleep(0.01)
