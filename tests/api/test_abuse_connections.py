"""Many and slow connections against a real server: 1,040 idle sockets must not lock
``/livez`` out (the open-file limit was 1,024), and a request that trickles in is cut off."""

from __future__ import annotations

import asyncio
import contextlib
import json
import resource
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from support import ServerProcess, start_server

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

IDLE = 1_040
READ_TIMEOUT_S = 2.0


@contextlib.contextmanager
def open_file_limit(soft: int) -> Iterator[None]:
    """Children started inside inherit a soft open-file limit of ``soft`` (as on a default
    Linux account); this process gets its own back after."""
    before = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, before[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, before)


@pytest.fixture
async def server_1024(redis_url: str, tmp_path: Path) -> AsyncIterator[ServerProcess]:
    with open_file_limit(1_024):
        process = await start_server(
            redis_url, tmp_path, {"ALLFOURS_READ_TIMEOUT_S": str(READ_TIMEOUT_S)}
        )
    yield process
    assert await process.stop() == 0, process.log_tail()


def address(server: ServerProcess) -> tuple[str, int]:
    parts = urlsplit(server.url)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port


async def closed_by_server(reader: asyncio.StreamReader, received: bytearray | None = None) -> bool:
    """Whether the server has closed this connection (EOF or reset, without waiting); what it
    sent meanwhile is added to ``received``."""
    try:
        data = await asyncio.wait_for(reader.read(65536), 0.01)
        if received is not None:
            received += data
        return data == b""
    except TimeoutError:
        return False
    except ConnectionError:
        return True


async def test_idle_connections_do_not_lock_livez_out(server_1024: ServerProcess) -> None:
    host, port = address(server_1024)
    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < IDLE + 200:
        pytest.skip("this process may not open enough sockets")
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
    try:
        for _ in range(IDLE):
            idle.append(await asyncio.open_connection(host, port))
        started = time.monotonic()
        async with httpx.AsyncClient(base_url=server_1024.url, timeout=3.0) as client:
            for _ in range(5):
                assert (await client.get("/livez")).status_code == 200
                assert (await client.post("/v1/games", json={})).status_code == 201
        assert time.monotonic() - started < 3.0
        # The idle ones beyond the cap per address were closed to make room.
        closed = sum([await closed_by_server(reader) for reader, _ in idle])
        assert closed >= IDLE - 64, closed
    finally:
        for _, writer in idle:
            writer.close()
    server_1024.check_alive()


async def test_a_request_that_trickles_in_is_cut_off(server_1024: ServerProcess) -> None:
    """Slow headers (slowloris) and a slow body are answered 408 and closed after the read
    timeout; a quick request on the same server is served meanwhile. A connection that never
    sent a byte is closed without an answer."""
    host, port = address(server_1024)
    slow_headers = await asyncio.open_connection(host, port)
    slow_body = await asyncio.open_connection(host, port)
    slow_headers[1].write(b"GET /livez HTTP/1.1\r\nHost: x\r\n")
    slow_body[1].write(
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n{"
    )
    silent, _ = await asyncio.open_connection(host, port)
    started = time.monotonic()
    cut = {"headers": False, "body": False, "silent": False}
    received = {name: bytearray() for name in cut}
    while time.monotonic() - started < READ_TIMEOUT_S + 3 and not all(cut.values()):
        for name, (reader, writer) in (("headers", slow_headers), ("body", slow_body)):
            if cut[name]:
                continue
            with contextlib.suppress(ConnectionError):
                writer.write(b"X-Slow: 1\r\n" if name == "headers" else b" ")
                await writer.drain()
            cut[name] = await closed_by_server(reader, received[name])
        cut["silent"] = cut["silent"] or await closed_by_server(silent, received["silent"])
        await asyncio.sleep(0.25)
    elapsed = time.monotonic() - started
    assert all(cut.values()), cut
    assert READ_TIMEOUT_S - 0.5 <= elapsed <= READ_TIMEOUT_S + 3, elapsed
    for name in ("headers", "body"):
        head, _, body = bytes(received[name]).partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), (name, received[name])
        assert_answered_like_the_app(head)
        problem = json.loads(body)
        assert problem["code"] == "request_timeout" and problem["title"] == "Request timeout"
    assert received["silent"] == b"", received["silent"]
    # And a client that leaves in the middle of its body.
    _, leaving = await asyncio.open_connection(host, port)
    leaving.write(
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n{"
    )
    await leaving.drain()
    await asyncio.sleep(0.2)
    leaving.close()
    async with httpx.AsyncClient(base_url=server_1024.url, timeout=3.0) as client:
        assert (await client.get("/livez")).status_code == 200
        # Neither is the server's failure: the slow body is counted 408, the one that left
        # 499 (nginx's "client closed request"), where each was a 500 in the logs and the
        # error counts (an outside trial).
        series = await posts_counted(client, 2)
    assert series == {"408": 1.0, "499": 1.0}, series


async def posts_counted(client: httpx.AsyncClient, expected: int) -> dict[str, float]:
    """``POST /v1/games`` requests in ``/metrics`` by status, once ``expected`` are counted
    (a request is counted when the server has seen its connection end)."""
    counted: dict[str, float] = {}
    for _ in range(50):
        counted = {}
        for line in (await client.get("/metrics")).text.splitlines():
            labels = line.startswith("litestar_requests_total{") and 'method="POST"' in line
            if labels and 'path="/v1/games"' in line:
                status = line.split('status_code="')[1].split('"')[0]
                counted[status] = float(line.rsplit(" ", 1)[1])
        if sum(counted.values()) >= expected:
            break
        await asyncio.sleep(0.1)
    return counted


async def test_huge_headers_are_refused_with_431(server_1024: ServerProcess) -> None:
    host, port = address(server_1024)
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(b"GET /livez HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n")
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 5)
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 "), head
    assert_answered_like_the_app(head)
    assert json.loads(body)["code"] == "headers_too_large"


def assert_answered_like_the_app(head: bytes) -> None:
    """A refusal written by the connection carries a request id and a date, as the app's
    answers do (a trial found the 408 without them)."""
    fields = dict(line.split(b": ", 1) for line in head.split(b"\r\n")[1:])
    assert len(fields[b"x-request-id"]) == 16, fields
    assert fields[b"date"].endswith(b" GMT"), fields


async def test_many_pipelined_requests_in_one_write_are_all_answered(
    server_1024: ServerProcess,
) -> None:
    """1,000 requests pipelined in one 100 KB write: each is answered (a chunk of more than
    64 KiB was counted as one request's headers and refused 431, noted for several stops)."""
    host, port = address(server_1024)
    request = b"GET /livez HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 60 + b"\r\n\r\n"
    reader, writer = await asyncio.open_connection(host, port)
    answers = b""
    try:
        writer.write(request * 1_000)
        await writer.drain()
        while answers.count(b"HTTP/1.1 ") < 1_000:
            read = await asyncio.wait_for(reader.read(1 << 20), 10)
            if not read:  # closed by the server
                break
            answers += read
    finally:
        writer.close()
    assert answers.count(b"HTTP/1.1 200 ") == 1_000, answers.count(b"HTTP/1.1 ")


async def test_a_large_body_sent_with_its_headers_is_413_not_431(
    server_1024: ServerProcess,
) -> None:
    """A body over the size limit, read in one chunk with its headers, was counted as header
    bytes and refused 431 ``headers_too_large`` (an outside trial: 4 of 6 such requests)."""
    host, port = address(server_1024)
    body = b'{"type": "stand", "padding": "' + b"a" * 100_000 + b'"}'
    head = (
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(head + body)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        answer = await asyncio.wait_for(reader.readuntil(b"}"), 5)
    finally:
        writer.close()
    status, _, rest = answer.partition(b"\r\n")
    assert status.startswith(b"HTTP/1.1 413 "), answer
    assert b'"code":"payload_too_large"' in rest, answer


async def test_connections_beyond_the_cap_when_none_is_idle_are_refused(
    redis_url: str, tmp_path: Path
) -> None:
    """Busy connections (open streams) are never closed for a newcomer: it is refused, with a
    problem and ``Retry-After``, and gets in again once one ends."""
    server = await start_server(redis_url, tmp_path, {"ALLFOURS_MAX_CONNECTIONS_PER_ADDRESS": "3"})
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=5.0) as setup:
            game = (await setup.post("/v1/games", json={})).json()["game_id"]
        host, port = address(server)
        streams = []
        for _ in range(3):
            reader, writer = await asyncio.open_connection(host, port)
            writer.write(f"GET /v1/games/{game}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert (await reader.readline()).startswith(b"HTTP/1.1 200")
            streams.append(writer)
        # The refusal comes as soon as the connection is accepted (before any request).
        reader, writer = await asyncio.open_connection(host, port)
        head, _, body = (await asyncio.wait_for(reader.read(), 5)).partition(b"\r\n\r\n")
        writer.close()
        assert head.startswith(b"HTTP/1.1 429 ") and b"retry-after: 1" in head.lower(), head
        assert json.loads(body)["code"] == "too_many_connections"
        streams.pop().close()
        await asyncio.sleep(0.3)
        async with httpx.AsyncClient(base_url=server.url, timeout=5.0) as client:
            assert (await client.get("/livez")).status_code == 200
        for writer in streams:
            writer.close()
    finally:
        assert await server.stop() == 0, server.log_tail()
