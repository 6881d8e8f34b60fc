"""Helpers shared by the benchmarks: a private Redis, percentiles, JSON lines, limits, a raw
asyncio HTTP/1.1 + SSE client, ``allfours serve`` as a child process, /proc accounting.

Not a benchmark itself (the leading underscore keeps it apart from the runnable scripts).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

ROOT = Path(__file__).resolve().parents[2]
"""The repository root (so the scripts run from anywhere)."""

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def emit(record: dict[str, Any]) -> None:
    """One JSON object per line, flushed at once (a run that is cut short keeps its lines)."""
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def note(message: str) -> None:
    """Progress for humans, on stderr so that stdout stays JSON lines."""
    sys.stderr.write(f"[{time.strftime('%H:%M:%S')}] {message}\n")
    sys.stderr.flush()


def percentile(samples: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank; NaN for no samples."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))
    return ordered[index]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def latency_summary(samples_s: Sequence[float], prefix: str = "") -> dict[str, float]:
    """p50/p99/max (ms) of latencies given in seconds."""
    return {
        f"{prefix}p50_ms": ms(percentile(samples_s, 0.50)),
        f"{prefix}p99_ms": ms(percentile(samples_s, 0.99)),
        f"{prefix}max_ms": ms(max(samples_s)) if samples_s else float("nan"),
    }


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def exit_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit, so that cleanups (``finally``, ``atexit``) stop the
    servers a benchmark started instead of leaving them behind."""

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)


def raise_fd_limit(wanted: int) -> int:
    """Raise the soft open-files limit towards ``wanted`` (capped by the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


def check_loopback(url: str) -> None:
    """The benchmarks only ever talk to this machine."""
    if url.startswith("unix://"):
        return
    host = url.split("://", 1)[-1].split("@")[-1].split("/")[0].rsplit(":", 1)[0]
    if host.strip("[]") not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"refusing to benchmark a non-loopback Redis: {url}")


@contextlib.asynccontextmanager
async def redis_for_bench(appendfsync: str, *, unix_socket: bool = True) -> AsyncIterator[str]:
    """``REDIS_URL`` if set (must be loopback), else a private embedded Redis for the run.

    The embedded one lives in a temporary directory on disk, so ``appendfsync always`` really
    fsyncs; it is stopped and its directory removed on exit.
    """
    external = os.environ.get("REDIS_URL")
    if external:
        check_loopback(external)
        yield external
        return
    from server.redis_server import EmbeddedRedis

    server = EmbeddedRedis(
        port=None if unix_socket else 0,
        unix_socket=unix_socket,
        appendfsync=appendfsync,  # type: ignore[arg-type]
    )
    await server.start()
    try:
        yield server.url
        server.check()
    finally:
        await server.close()


def fsync_label(appendfsync: str) -> str:
    return "external" if os.environ.get("REDIS_URL") else appendfsync


# --- a small HTTP/1.1 client ---------------------------------------------------------------
# Raw asyncio (on uvloop when the scripts run it): httpx would cost more CPU than the server.

HOST = "127.0.0.1"


class Created(msgspec.Struct):
    """What ``POST /v1/games`` answers (the fields the benchmarks use)."""

    game_id: str
    version: int


class Granted(msgspec.Struct):
    """What taking a seat answers (the fields the benchmarks use)."""

    token: str
    version: int


DECODE_CREATED = msgspec.json.Decoder(Created)
DECODE_GRANTED = msgspec.json.Decoder(Granted)


class HttpError(Exception):
    pass


class Conn:
    """One keep-alive HTTP/1.1 connection. Requests on it are sequential."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(HOST, self.port, limit=1 << 20)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(
        self, method: str, path: str, body: bytes | None = None, headers: bytes = b""
    ) -> tuple[int, bytes]:
        """Send one request; reconnect and resend once if an idle connection was closed
        (safe: reads are idempotent and commands carry an ``Idempotency-Key``)."""
        head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\n".encode() + headers
        if body is not None:
            head += b"Content-Type: application/json\r\nContent-Length: %d\r\n" % len(body)
        data = head + b"\r\n" + (body or b"")
        for attempt in (0, 1):
            if self.writer is None:
                await self.open()
            assert self.reader is not None and self.writer is not None
            try:
                self.writer.write(data)
                return await read_response(self.reader)
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")


async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[bytes, bytes]]:
    raw = await reader.readuntil(b"\r\n\r\n")
    lines = raw.split(b"\r\n")
    status = int(lines[0].split(b" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
    return status, headers


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    status, headers = await read_head(reader)
    length = headers.get(b"content-length")
    if length is not None:
        return status, await reader.readexactly(int(length))
    if headers.get(b"transfer-encoding") == b"chunked":
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n"))[:-2], 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                return status, b"".join(parts)
            parts.append(chunk[:-2])
    return status, b""


def command_body(command: Any, expected_version: int | None = None) -> bytes:
    """The JSON body of a player command (a ``domain`` command: its tag is the API's
    ``type``), optionally with ``expected_version``."""
    tag = str(type(command).__struct_config__.tag)
    body = b'{"type":"%s"' % tag.encode()
    if tag == "play":
        body += b',"card":"%s"' % command.card.encode()
    if expected_version is not None:
        body += b',"expected_version":%d' % expected_version
    return body + b"}"


async def open_sse(
    port: int, path: str, headers: bytes = b""
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Open an SSE stream (``GET path``) and read its head; the body is left to
    :func:`sse_batches`. Raises :class:`HttpError` unless it is a 200 chunked stream."""
    reader, writer = await asyncio.open_connection(HOST, port, limit=1 << 20)
    try:
        writer.write(
            b"GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n%s\r\n"
            % (path.encode(), HOST.encode(), headers)
        )
        status, head = await read_head(reader)
        if status != 200 or head.get(b"transfer-encoding") != b"chunked":
            raise HttpError(f"stream {path}: {status} {head}")
    except BaseException:
        writer.close()
        raise
    return reader, writer


async def sse_batches(reader: asyncio.StreamReader) -> AsyncIterator[list[bytes]]:
    """The complete SSE messages (without their blank line) of each chunk as it arrives,
    comments and ``retry:`` included; ends when the server ends the stream."""
    buffer = b""
    while True:
        size = int((await reader.readuntil(b"\r\n"))[:-2], 16)
        chunk = await reader.readexactly(size + 2)
        if size == 0:
            return
        buffer += chunk[:-2]
        if b"\n\n" not in buffer:
            continue
        *frames, buffer = buffer.split(b"\n\n")
        yield frames


# --- processes: CPU and memory from /proc ------------------------------------------------------

TICK = os.sysconf("SC_CLK_TCK")


def proc_table() -> dict[int, tuple[int, str, float]]:
    """Every process: pid -> (parent pid, program name, CPU seconds user + system)."""
    table: dict[int, tuple[int, str, float]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            stat = proc_stat(int(entry))
            if stat is not None:
                table[int(entry)] = stat
    return table


def proc_stat(pid: int) -> tuple[int, str, float] | None:
    """(parent pid, program name, CPU seconds) of one process; None if it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    name = raw[raw.index("(") + 1 : raw.rindex(")")]
    fields = raw[raw.rindex(")") + 2 :].split()
    return int(fields[1]), name, (int(fields[11]) + int(fields[12])) / TICK


def descendants(root: int, table: Mapping[int, tuple[int, str, float]]) -> set[int]:
    """``root`` and every process below it."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    tree: set[int] = set()
    todo = [root]
    while todo:
        pid = todo.pop()
        if pid not in tree:
            tree.add(pid)
            todo.extend(children.get(pid, ()))
    return tree


def rss_bytes(pids: Iterable[int]) -> int:
    """Sum of the resident set sizes (``VmRSS``) of ``pids`` (gone ones count 0)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status", "rb") as status:
                for line in status:
                    if line.startswith(b"VmRSS:"):
                        total += int(line.split()[1]) * 1024
                        break
        except OSError:
            continue
    return total


STAT_COLUMNS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def machine_cpu() -> dict[str, float]:
    """CPU seconds of the whole machine (all cores, since boot) by /proc/stat column: user,
    nice, system, idle, iowait, irq, softirq, steal (time the hypervisor gave elsewhere)."""
    with open("/proc/stat", "rb") as stat:
        fields = stat.readline().split()[1 : 1 + len(STAT_COLUMNS)]
    return {name: int(value) / TICK for name, value in zip(STAT_COLUMNS, fields, strict=True)}


# --- the server under test -----------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


BENCH_LIMITS: Mapping[str, str] = {
    "ALLFOURS_TABLES_PER_HOUR": "0",
    "ALLFOURS_MAX_STREAMS_PER_ADDRESS": "100000",
    "ALLFOURS_MAX_CONNECTIONS_PER_ADDRESS": "100000",
    "ALLFOURS_MAX_CONNECTIONS": "100000",
}
"""Settings for a server that one bench client (one address) drives with many connections;
``max_connections`` is lowered by the server itself to fit its open-file limit."""


class Server:
    """``allfours serve`` as a child process in its own session (so it and its workers and
    Redis can be stopped together), with a temporary data directory.

    ``redis_url`` (else ``REDIS_URL`` from the environment, else the server's own embedded
    Redis) is the store; ``env`` adds settings to the child's environment.
    """

    def __init__(
        self,
        workers: int,
        appendfsync: str,
        *,
        redis_url: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.port = free_port()
        self.workers = workers
        self.appendfsync = appendfsync
        self.redis_url = redis_url
        self.env = dict(env or {})
        self.data_dir = Path(tempfile.mkdtemp(prefix="allfours-bench-"))
        self.proc: subprocess.Popen[bytes] | None = None

    def launch(self) -> None:
        env = dict(os.environ)
        env.update(
            ALLFOURS_RATE_LIMIT="0",
            ALLFOURS_LOG_LEVEL="warning",
            ALLFOURS_APPENDFSYNC=self.appendfsync,
            ALLFOURS_SHUTDOWN_GRACE_S="3",
            # Every bench client comes from one loopback address: lift the per-address abuse
            # limits (table quota, stream and connection caps) that would refuse it.
            **BENCH_LIMITS,
        )
        if self.redis_url is not None:
            env["REDIS_URL"] = self.redis_url
        env.update(self.env)
        if env.get("REDIS_URL"):
            check_loopback(env["REDIS_URL"])
        log = (self.data_dir / "server.log").open("wb")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server.cli",
                "serve",
                "--host",
                HOST,
                "--port",
                str(self.port),
                "--workers",
                str(self.workers),
                "--data-dir",
                str(self.data_dir / "redis"),
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        atexit.register(self.kill_leftover)

    def kill_leftover(self) -> None:
        """At exit, whatever happened: the server's whole session goes."""
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        shutil.rmtree(self.data_dir, ignore_errors=True)

    async def start(self) -> None:
        self.launch()
        assert self.proc is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited ({self.proc.returncode}):\n{self.log_tail()}")
            conn = Conn(self.port)
            try:
                status, _ = await conn.request("GET", "/readyz")
                if status == 200:
                    return
            except OSError:
                pass
            finally:
                conn.close()
            await asyncio.sleep(0.1)
        raise RuntimeError(f"server did not become ready:\n{self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        try:
            text = (self.data_dir / "server.log").read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        proc = self.proc
        if proc is not None:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)  # forwarded to the workers; Redis stops last
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    note("server ignored SIGTERM: killing its process group")
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)  # anything of ours still left (the session)
            proc.wait()
            self.proc = None
        shutil.rmtree(self.data_dir, ignore_errors=True)

    def pids(self, table: Mapping[int, tuple[int, str, float]] | None = None) -> set[int]:
        """The server's process tree (``serve``, its workers and embedded Redis, if any)."""
        if self.proc is None:
            return set()
        return descendants(self.proc.pid, proc_table() if table is None else table)

    def cpu_seconds(
        self, table: Mapping[int, tuple[int, str, float]] | None = None
    ) -> dict[str, float]:
        """CPU time (user + system) of the server's process tree, by program."""
        table = proc_table() if table is None else table
        out: dict[str, float] = {}
        for pid in self.pids(table):
            if pid in table:
                _, name, cpu = table[pid]
                kind = "redis" if "redis" in name else "python"
                out[kind] = out.get(kind, 0.0) + cpu
        return out


class CpuMeter:
    """Client and server CPU shares (of one core) over a phase."""

    def __init__(self, server: Server) -> None:
        self.server = server

    def __enter__(self) -> CpuMeter:
        self.wall = time.perf_counter()
        self.client = time.process_time()
        self.before = self.server.cpu_seconds()
        return self

    def __exit__(self, *exc: object) -> None:
        wall = time.perf_counter() - self.wall
        after = self.server.cpu_seconds()
        self.shares = {
            "client_cpu": round((time.process_time() - self.client) / wall, 2),
            **{
                f"server_{kind}_cpu": round((after[kind] - self.before.get(kind, 0.0)) / wall, 2)
                for kind in after
            },
        }
