"""The store's pipelined connection (``server.store.pipelined``) against a real redis-server:
replies reach their own callers, errors and lost connections are told, scripts reload, and the
connection is authenticated, named and on the URL's database.

The store's contract, race and fault suites run over it as well (``connect_store`` uses it on
a single server); these tests pin what those suites take for granted.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import uvloop
from redis.asyncio import Redis
from redis.exceptions import AuthenticationError, BusyLoadingError, ResponseError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.redis_server import EmbeddedRedis
from server.store.pipelined import PipelinedRedis, Script


@pytest.fixture
async def line(standalone_redis_url: str) -> AsyncIterator[PipelinedRedis]:
    connection = PipelinedRedis(standalone_redis_url, name="pipelined-test", retries=0)
    yield connection
    await connection.aclose()


async def test_concurrent_callers_each_get_their_own_reply(line: PipelinedRedis) -> None:
    replies = await asyncio.gather(*(line.execute("ECHO", f"caller {i}") for i in range(500)))
    assert replies == [f"caller {i}".encode() for i in range(500)]


async def test_replies_keep_their_callers_under_uvloop(standalone_redis_url: str) -> None:
    """The server runs on uvloop, whose transports are not asyncio's classes."""

    async def burst() -> list[bytes]:
        connection = PipelinedRedis(standalone_redis_url, name="pipelined-test")
        try:
            return list(
                await asyncio.gather(*(connection.execute("ECHO", str(i)) for i in range(200)))
            )
        finally:
            await connection.aclose()

    replies = await asyncio.to_thread(uvloop.run, burst())
    assert replies == [str(i).encode() for i in range(200)]


async def test_the_commands_of_one_loop_turn_go_out_in_one_write(line: PipelinedRedis) -> None:
    await line.execute("PING")  # connected
    transport = line._line._transport  # type: ignore[union-attr]
    writes: list[bytes] = []
    write = transport.write
    transport.write = lambda data: (writes.append(data), write(data))[1]  # type: ignore[method-assign]
    replies = await asyncio.gather(*(line.execute("ECHO", f"caller {i}") for i in range(50)))
    assert replies == [f"caller {i}".encode() for i in range(50)]
    assert len(writes) == 1 and writes[0].count(b"ECHO") == 50


async def test_a_write_that_fails_fails_its_callers_and_the_next_call_reconnects(
    line: PipelinedRedis,
) -> None:
    await line.execute("PING")  # connected
    broken = line._line
    assert broken is not None

    def refuse(data: bytes) -> None:
        raise OSError("the socket is gone")

    broken._transport.write = refuse  # type: ignore[union-attr,method-assign]
    with pytest.raises(RedisConnectionError, match="cannot write to Redis"):
        await line.execute("ECHO", "lost")  # retries=0: the failure reaches the caller
    assert broken.lost is not None
    assert await line.execute("ECHO", "again") == b"again"  # on a new connection
    assert line._line is not broken


async def test_a_cancelled_caller_does_not_shift_the_replies(line: PipelinedRedis) -> None:
    await line.execute("PING")  # connected
    gone = asyncio.create_task(line.execute("ECHO", "gone"))
    await asyncio.sleep(0)  # sent, its reply not read yet
    gone.cancel()
    assert await line.execute("ECHO", "next") == b"next"
    assert gone.cancelled()


async def test_an_error_reply_is_raised_and_the_line_goes_on(
    line: PipelinedRedis, game_id: str
) -> None:
    await line.execute("SET", game_id, "text")
    with pytest.raises(ResponseError, match="not an integer"):
        await line.execute("INCR", game_id)
    assert await line.execute("GET", game_id) == b"text"


async def test_scripts_are_loaded_when_redis_does_not_know_them(
    line: PipelinedRedis, redis: Redis, game_id: str
) -> None:
    script = Script("return {KEYS[1], ARGV[1], 7}")
    await redis.script_flush()
    assert await line.evalsha(script, [game_id], ["x"]) == [game_id.encode(), b"x", 7]
    assert await redis.script_exists(script.sha) == [True]


class FakeRedis:
    """A TCP server standing in for Redis: it answers ``answer`` to each command it reads,
    hangs up on a read holding ``hang_up_on`` without answering it (a connection lost with
    commands in flight), and swallows everything on its first ``silent`` connections (replies
    that never come). ``first`` are answered, in order, to the first commands after the
    connection's setup. ``connections`` counts the connections it accepted."""

    def __init__(
        self,
        answer: bytes = b"+OK\r\n",
        hang_up_on: bytes = b"\0",
        silent: int = 0,
        first: tuple[bytes, ...] = (),
    ) -> None:
        self.answer, self.hang_up_on, self.silent = answer, hang_up_on, silent
        self.first = list(first)
        self.connections = 0
        self.url = ""

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        mute = self.connections <= self.silent
        while data := await reader.read(65536):
            if self.hang_up_on in data:
                break
            if not mute:
                for _ in range(data.count(b"*")):  # one answer per command (an array)
                    setup = b"SETNAME" in data
                    writer.write(self.first.pop(0) if self.first and not setup else self.answer)
        writer.close()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[FakeRedis]:
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.url = f"redis://127.0.0.1:{server.sockets[0].getsockname()[1]}"
        try:
            yield self
        finally:
            server.close()


async def lost_in_flight() -> None:
    async with FakeRedis(hang_up_on=b"LOSEME").running() as fake:
        connection = PipelinedRedis(fake.url, name="x", retries=0)
        try:
            assert await connection.execute("ECHO", "first") == b"OK"
            calls = [connection.execute("ECHO", "LOSEME"), connection.execute("ECHO", "too")]
            results = await asyncio.gather(*calls, return_exceptions=True)
            # retries=0: the loss is told to every caller in flight, not hidden
            assert all(isinstance(r, RedisConnectionError) for r in results), results
            assert await connection.execute("ECHO", "again") == b"OK"
            assert fake.connections == 2
        finally:
            await connection.aclose()


async def test_a_connection_lost_in_flight_fails_its_calls_and_the_next_call_reconnects() -> None:
    await lost_in_flight()


async def test_a_connection_lost_in_flight_under_uvloop() -> None:
    await asyncio.to_thread(uvloop.run, lost_in_flight())


async def test_a_connection_killed_between_calls_is_replaced_unnoticed(
    line: PipelinedRedis, redis: Redis
) -> None:
    await line.execute("PING")
    assert await redis.client_kill_filter(_type="normal", skipme=True) >= 1
    await asyncio.sleep(0.05)  # the loss is seen before the next call is sent
    assert await line.execute("ECHO", "back") == b"back"


async def test_a_peer_that_is_not_redis_is_a_connection_error() -> None:
    async with FakeRedis(answer=b"HTTP/1.1 400 Bad Request\r\n").running() as fake:
        connection = PipelinedRedis(fake.url, name="x", retries=0)
        try:
            with pytest.raises(RedisConnectionError, match="bad reply"):
                await connection.execute("PING")
        finally:
            await connection.aclose()


async def test_retries_hide_a_killed_connection(standalone_redis_url: str, redis: Redis) -> None:
    connection = PipelinedRedis(standalone_redis_url, name="pipelined-test", retries=3)
    try:
        await connection.execute("PING")
        await redis.client_kill_filter(_type="normal", skipme=True)
        assert await connection.execute("ECHO", "retried") == b"retried"
    finally:
        await connection.aclose()


async def test_replies_that_never_come_time_out_every_waiter_at_once() -> None:
    """Callers who find no connection share one attempt: ten of them fail together after one
    connect timeout, not one after another (the last after ten)."""
    async with FakeRedis(silent=99).running() as fake:
        # (the handshake's CLIENT SETNAME is never answered: connecting times out)
        connection = PipelinedRedis(fake.url, name="x", connect_timeout=0.3, retries=0)
        started = time.monotonic()
        calls = [connection.execute("PING") for _ in range(10)]
        results = await asyncio.gather(*calls, return_exceptions=True)
        assert all(isinstance(r, RedisTimeoutError) for r in results), results
        assert time.monotonic() - started < 0.9
        assert fake.connections == 1
        await connection.aclose()


async def test_a_retry_after_a_timeout_gets_its_reply_on_a_new_connection() -> None:
    async with FakeRedis(silent=1).running() as fake:
        connection = PipelinedRedis(fake.url, name="x", connect_timeout=0.2, retries=1)
        try:
            assert await connection.execute("PING") == b"OK"
            assert fake.connections == 2
        finally:
            await connection.aclose()


LOADING = b"-LOADING Redis is loading the dataset in memory\r\n"


async def test_a_redis_still_loading_its_data_is_asked_again() -> None:
    async with FakeRedis(first=(LOADING, LOADING)).running() as fake:
        patient = PipelinedRedis(fake.url, name="x", retries=2)
        try:
            assert await patient.execute("PING") == b"OK"  # the third answer
        finally:
            await patient.aclose()
    async with FakeRedis(first=(LOADING,)).running() as fake:
        hasty = PipelinedRedis(fake.url, name="x", retries=0)
        try:
            with pytest.raises(BusyLoadingError):
                await hasty.execute("PING")
        finally:
            await hasty.aclose()


async def test_after_close_calls_are_refused_and_nothing_reconnects() -> None:
    async with FakeRedis().running() as fake:
        connection = PipelinedRedis(fake.url, name="x", retries=3)
        assert await connection.execute("PING") == b"OK"
        await connection.aclose()
        with pytest.raises(RedisConnectionError, match="closed"):
            await connection.execute("PING")
        await asyncio.sleep(0.05)
        assert fake.connections == 1


async def test_a_reply_slower_than_the_socket_timeout_drops_the_connection(
    tmp_path: Path,
) -> None:
    async with EmbeddedRedis(tmp_path / "redis") as server:
        connection = PipelinedRedis(server.url, name="x", socket_timeout=0.2, retries=0)
        try:
            await connection.execute("PING")
            slow = asyncio.create_task(connection.execute("DEBUG", "SLEEP", "0.4"))
            await asyncio.sleep(0.05)
            behind = asyncio.create_task(connection.execute("ECHO", "behind"))
            for waiter in (slow, behind):  # the one behind may have lost its reply too
                with pytest.raises(RedisTimeoutError):
                    await waiter
            await asyncio.sleep(0.4)  # Redis is busy sleeping until then
            assert await connection.execute("ECHO", "again") == b"again"
        finally:
            await connection.aclose()


async def test_the_connection_is_authenticated_named_and_on_the_urls_database(
    tmp_path: Path, game_id: str
) -> None:
    async with EmbeddedRedis(tmp_path / "redis") as server:
        admin = Redis.from_url(server.url)
        await admin.config_set("requirepass", "s3cret")
        await admin.aclose()
        base = server.tcp_url.replace("redis://", "redis://:s3cret@")
        connection = PipelinedRedis(f"{base}/3", name="allfours-named")
        wrong = PipelinedRedis(server.tcp_url.replace("redis://", "redis://:nope@"), name="x")
        try:
            await connection.execute("SET", game_id, "on db 3")
            on_three = Redis.from_url(f"{base}/3")
            names = [c["name"] for c in await on_three.client_list()]
            assert await on_three.get(game_id) == b"on db 3"
            assert "allfours-named" in names
            # A new connection (after a kill) is set up the same way.
            assert await on_three.client_kill_filter(_type="normal", skipme=True) >= 1
            await connection.execute("SET", game_id, "again on db 3")
            assert await on_three.get(game_id) == b"again on db 3"
            assert "allfours-named" in [c["name"] for c in await on_three.client_list()]
            await on_three.aclose()
            with pytest.raises(AuthenticationError):
                await wrong.execute("PING")
        finally:
            await connection.aclose()
            await wrong.aclose()
