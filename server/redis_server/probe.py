"""Asking whatever redis answers on an address for its ``INFO``, without a client library.

Used to tell when our child serves (and is our child, not a stranger on the port), and to find
which process serves a data directory's socket. Never raises for a missing or odd server: no
answer is ``None``.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

__all__ = ["redis_info"]


async def redis_info(socket_path: Path | None, port: int | None) -> dict[str, str] | None:
    """``INFO`` of the redis on ``socket_path`` (if given) else on loopback ``port`` (fields by
    name), or None when nothing answers it."""
    try:
        if socket_path is not None:
            reader, writer = await asyncio.open_unix_connection(str(socket_path))
        elif port:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        else:
            return None
    except OSError:
        return None
    try:
        writer.write(b"INFO\r\n")
        await writer.drain()
        header = await asyncio.wait_for(reader.readline(), timeout=1.0)
        if not header.startswith(b"$"):
            return None  # an error reply
        body = await asyncio.wait_for(reader.readexactly(int(header[1:]) + 2), timeout=1.0)
    except (OSError, ValueError, TimeoutError, asyncio.IncompleteReadError):
        return None
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    lines = body.decode(errors="replace").splitlines()
    return dict(line.split(":", 1) for line in lines if ":" in line and line[0] != "#")
