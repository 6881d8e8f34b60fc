"""The embedded redis-server's lifecycle: :class:`EmbeddedRedis` starts, stops, restarts, kills
and watches one child.

It holds the settings and the current child, takes its data directory and addresses from
:class:`~.location.RedisLocation`, and delegates the work: rendering the config
(:mod:`.config`), spawning and ending the process (:mod:`.child`), waiting until it serves
(:mod:`.readiness`) and stopping a leftover server (:mod:`.leftover`).
"""

from __future__ import annotations

import os
from types import TracebackType
from typing import Self

from .child import RedisChild
from .config import AppendFsync, render_config
from .errors import EmbeddedRedisError, RedisCrashed
from .host import free_loopback_port
from .leftover import stop_leftover
from .location import RedisLocation
from .readiness import await_ready

__all__ = ["EmbeddedRedis"]

_PORT_ATTEMPTS = 5


class EmbeddedRedis(RedisLocation):
    """A ``redis-server`` child process with AOF persistence in ``data_dir``.

    ``port``: loopback TCP port; ``0`` picks a free one at the first start (then kept, so
    :meth:`restart` comes back on the same address), ``None`` disables TCP.
    ``unix_socket``: also listen on ``<data_dir>/redis.sock`` (used by :attr:`url` when enabled).
    ``data_dir``: where the AOF and the log live; a temporary directory (removed on
    :meth:`close` / context exit) when not given.
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str] | None = None,
        *,
        port: int | None = 0,
        unix_socket: bool = False,
        appendfsync: AppendFsync = "always",
        startup_timeout: float = 10.0,
        stop_timeout: float = 10.0,
        extra_config: dict[str, str] | None = None,
    ) -> None:
        super().__init__(data_dir, port=port, unix_socket=unix_socket)
        self.appendfsync: AppendFsync = appendfsync
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.extra_config = dict(extra_config or {})
        self._proc: RedisChild | None = None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    # -- lifecycle ---------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def start(self) -> None:
        """Start the server; return once it serves requests, or raise with its log tail."""
        if self._proc is not None and self._proc.poll() is None:
            raise EmbeddedRedisError("already running")
        self._make_data_dir()
        self._files.check_socket_fits()
        await stop_leftover(self._files, self.pid, self.stop_timeout)
        if self._port != 0:
            await self._launch()  # an explicit port, or the one picked at the first start
            return
        for attempt in range(1, _PORT_ATTEMPTS + 1):
            self._port = free_loopback_port()
            try:
                await self._launch()
                return
            except EmbeddedRedisError:
                # Another process may have taken the port between probe and bind: try another.
                if attempt == _PORT_ATTEMPTS or not self._port_in_use():
                    self._port = 0
                    raise

    async def stop(self) -> None:
        """Stop the server cleanly (SIGTERM: redis flushes the AOF), SIGKILL after a timeout.

        Raises :class:`RedisCrashed` if the child had already died on its own: a crash is
        reported at the latest here, never swallowed.
        """
        proc = self._proc
        if proc is None:
            return
        try:
            self.check()
            await proc.terminate(self.stop_timeout)
        finally:
            self._proc = None

    async def close(self) -> None:
        """Stop the server and remove the data directory if it is a temporary one we made."""
        try:
            await self.stop()
        finally:
            self._remove_temporary_dir()

    def kill(self) -> None:
        """SIGKILL the server (fault tests): no shutdown hook runs, only what was fsynced stays."""
        if self._proc is not None:
            self._proc.kill()
            self._proc = None

    async def restart(self) -> None:
        """Stop (cleanly, if still running) and start again on the same port and data directory.

        The AOF in the data directory is replayed, so everything fsynced before survives. After
        :meth:`kill` this just starts; after a crash it raises :class:`RedisCrashed` (as
        :meth:`stop` does) rather than quietly papering over it.
        """
        if self._proc is not None:
            await self.stop()
        await self.start()

    # -- health ------------------------------------------------------------------------------

    def poll(self) -> int | None:
        """The child's exit code if it has exited, else ``None`` (like ``Popen.poll``)."""
        return self._proc.poll() if self._proc is not None else None

    @property
    def returncode(self) -> int | None:
        return self.poll()

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def check(self) -> None:
        """Raise :class:`RedisCrashed` if the child exited without being asked to."""
        code = self._proc.crash_code() if self._proc is not None else None
        if code is not None:
            raise RedisCrashed(code, self.log_tail())

    async def wait(self) -> int:
        """Wait until the child exits (for a supervisor task) and return its exit code."""
        if self._proc is None:
            raise EmbeddedRedisError("not running")
        return await self._proc.wait()

    def log_tail(self, lines: int = 20) -> str:
        return self._files.log_tail(lines)

    # -- internals ---------------------------------------------------------------------------

    async def _launch(self) -> None:
        files = self._files
        files.config.write_text(
            render_config(
                files, port=self._port, appendfsync=self.appendfsync, extra_config=self.extra_config
            )
        )
        self._proc = await RedisChild.spawn(files.config, files.log)
        try:
            await await_ready(self._proc, files, self._port, self.startup_timeout)
        except EmbeddedRedisError:
            self._proc = None
            raise

    def _port_in_use(self) -> bool:
        return "Address already in use" in self.log_tail()
