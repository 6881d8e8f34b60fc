"""Where an embedded redis-server keeps its files: all of them in its data directory.

One place names the config, log, pid file and unix socket, so the launcher, the config renderer
and the leftover check agree on them; it also reads the log's tail for error reports.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path

from .errors import EmbeddedRedisError

__all__ = ["RedisFiles"]

# Unix socket paths are limited to 108 bytes (sun_path) on Linux, 104 on macOS.
_MAX_UNIX_PATH = 100


@dataclass(frozen=True)
class RedisFiles:
    """The files of one redis-server in ``data_dir``; ``unix_socket``: whether it has one."""

    data_dir: Path
    unix_socket: bool

    @property
    def config(self) -> Path:
        return self.data_dir / "redis.conf"

    @property
    def log(self) -> Path:
        return self.data_dir / "redis.log"

    @property
    def pid(self) -> Path:
        """Where redis writes its pid (removed on a clean exit, left behind by a SIGKILL)."""
        return self.data_dir / "redis.pid"

    @property
    def socket(self) -> Path | None:
        return self.data_dir / "redis.sock" if self.unix_socket else None

    def check_socket_fits(self) -> None:
        """Raise if the OS could not bind the unix socket at its path (too long)."""
        path = self.socket
        if path is not None and len(str(path)) > _MAX_UNIX_PATH:
            raise EmbeddedRedisError(f"unix socket path too long for the OS: {path}")

    def log_tail(self, lines: int = 20) -> str:
        """The last ``lines`` lines of the log, or why there are none."""
        try:
            with self.log.open(errors="replace") as log:
                return "".join(deque(log, maxlen=lines))
        except OSError as exc:
            return f"(no log: {exc})"
