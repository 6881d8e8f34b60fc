"""Where an embedded redis-server lives and answers: its data directory and its addresses.

:class:`RedisLocation` is the address half of :class:`~.embedded.EmbeddedRedis` (which adds
the process): the data directory, given or a temporary one made at the first start and removed
at close, the TCP port (``0``: picked at the first start, then kept) and the unix socket.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from .errors import EmbeddedRedisError
from .files import RedisFiles

__all__ = ["RedisLocation"]


class RedisLocation:
    """The data directory and the addresses of one embedded redis-server."""

    def __init__(
        self, data_dir: str | os.PathLike[str] | None, *, port: int | None, unix_socket: bool
    ) -> None:
        if port is None and not unix_socket:
            raise ValueError("EmbeddedRedis needs a TCP port or a unix socket")
        self._owns_dir = data_dir is None
        self._data_dir = Path(data_dir) if data_dir is not None else None
        self._port = port
        self._unix_socket = unix_socket

    @property
    def data_dir(self) -> Path:
        if self._data_dir is None:
            raise EmbeddedRedisError("not started: the temporary data dir is made by start()")
        return self._data_dir

    @property
    def port(self) -> int | None:
        """The TCP port (known after the first start when ``port=0`` was asked)."""
        return self._port

    @property
    def tcp_url(self) -> str:
        if not self._port:
            raise EmbeddedRedisError("no TCP port (port=None, or not started yet)")
        return f"redis://127.0.0.1:{self._port}"

    @property
    def socket_path(self) -> Path | None:
        """The unix socket, when one was asked for."""
        return self._files.socket

    @property
    def url(self) -> str:
        """URL for redis-py: the unix socket when enabled (cheaper), else loopback TCP."""
        path = self.socket_path
        return f"unix://{path}" if path is not None else self.tcp_url

    @property
    def log_path(self) -> Path:
        """redis-server's log, its stdout and stderr included (truncated at each start)."""
        return self._files.log

    @property
    def pid_path(self) -> Path:
        """Where redis writes its pid (removed on a clean exit, left behind by a SIGKILL)."""
        return self._files.pid

    def _make_data_dir(self) -> None:
        """Create the data directory (a temporary one if none was given) if it is missing."""
        if self._data_dir is None:
            self._data_dir = Path(tempfile.mkdtemp(prefix="allfours-redis-"))
        self._data_dir.mkdir(parents=True, exist_ok=True)

    def _remove_temporary_dir(self) -> None:
        """Remove the data directory if it is a temporary one we made."""
        if self._owns_dir and self._data_dir is not None:
            shutil.rmtree(self._data_dir, ignore_errors=True)
            self._data_dir = None

    @property
    def _files(self) -> RedisFiles:
        return RedisFiles(self.data_dir, self._unix_socket)
