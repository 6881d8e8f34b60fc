"""One pipelined connection to a single Redis server, for the store's own commands.

Why not redis-py here: its asyncio client spent 150-300 µs of CPU on each command (a pool
checkout under ``asyncio.timeout`` and a semaphore, argument encoding, a retry wrapper,
response callbacks), more than the rest of a player's command put together. Here every caller
writes its packed command (``hiredis.pack_command``) onto one shared connection and waits for
its reply: Redis answers a connection's commands in the order they were sent, so the n-th reply
parsed (``hiredis.Reader``) is the n-th waiter's. Commands from concurrent requests go out back
to back, which is also what keeps Redis's CPU per command low.

What it keeps of redis-py's client (the store's contract, race and fault suites run on it):

- A lost connection fails every waiter with :class:`redis.exceptions.ConnectionError`; the
  next call connects again (AUTH, SELECT and CLIENT SETNAME from the URL and ``name``; TLS
  and timeouts from the URL's options as redis-py reads them). Callers arriving meanwhile
  share that one attempt and its outcome.
- Each call is sent again after a connection error, a timeout or ``LOADING``, ``retries``
  times with jittered exponential backoff (safe for appends: see
  :mod:`server.store.redis_store`); a refused password is not retried.
- A reply not read within ``socket_timeout`` drops the connection (a
  :class:`redis.exceptions.TimeoutError` for every waiter: any of them may have lost its
  reply). One timer watches the oldest waiter, instead of a timer per call.
- Error replies raise redis-py's own exception classes, so the store translates the errors of
  both clients alike.
- Scripts: EVALSHA, and on ``NOSCRIPT`` (a restarted Redis) SCRIPT LOAD and one more EVALSHA.

Commands sent in one turn of the event loop go out in one write (``_Line._flush``). Writes are
not paced (``pause_writing`` is not honoured): what is buffered is bounded by the
requests in flight, each a few hundred bytes, and a Redis that stops reading is caught by the
timeout. After :meth:`PipelinedRedis.aclose` calls are refused and nothing reconnects.

A single server only: on a cluster the store keeps redis-py's cluster client, which routes by
slot and follows redirections.
"""

from __future__ import annotations

import asyncio
import hashlib
import ssl
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias, cast

import hiredis
from redis._parsers.base import BaseParser
from redis.asyncio.connection import parse_url
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import AuthenticationError, NoScriptError, RedisError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

__all__ = ["PipelinedRedis", "Script"]

Arg: TypeAlias = bytes | str | int | float


class _ErrorReply(Exception):
    """An error reply, as hiredis hands it over (turned into redis-py's class when raised)."""


class Script:
    """A Lua script known by its SHA1, loaded into Redis when Redis does not know it."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode(), usedforsecurity=False).hexdigest()


class _Line(asyncio.Protocol):
    """One connection: replies go to the waiters in the order their commands were written."""

    def __init__(self, socket_timeout: float) -> None:
        self._reader = hiredis.Reader(replyError=_ErrorReply)
        self._waiting: deque[tuple[asyncio.Future[Any], float]] = deque()
        self._outgoing: list[bytes] = []
        self._timeout = socket_timeout
        self._transport: asyncio.Transport | None = None
        self._watch: asyncio.TimerHandle | None = None
        self._loop = asyncio.get_running_loop()
        self.lost: BaseException | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (uvloop's transports implement asyncio.Transport without deriving from it)
        self._transport = cast(asyncio.Transport, transport)

    def send(self, packed: bytes) -> asyncio.Future[Any]:
        if self.lost is not None or self._transport is None:
            raise RedisConnectionError(f"connection to Redis lost: {self.lost}")
        reply: asyncio.Future[Any] = self._loop.create_future()
        self._waiting.append((reply, self._loop.time()))
        if not self._outgoing:
            self._loop.call_soon(self._flush)
        self._outgoing.append(packed)
        if self._watch is None:
            self._watch = self._loop.call_at(self._loop.time() + self._timeout, self._check)
        return reply

    def _flush(self) -> None:
        """Write every command sent since the last flush at once: the commands of one turn of
        the event loop (from many concurrent requests) reach Redis in one write, not one each,
        which saves a system call per command here and a read per command in Redis."""
        outgoing, self._outgoing = self._outgoing, []
        if self.lost is None and self._transport is not None and outgoing:
            try:
                self._transport.write(b"".join(outgoing))
            except (OSError, RuntimeError) as exc:  # (a transport gone under us)
                self._drop(RedisConnectionError(f"cannot write to Redis: {exc}"))

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        waiting = self._waiting
        while True:
            try:
                reply = self._reader.gets()
            except hiredis.ProtocolError as exc:  # not Redis at the other end, or garbled
                self._drop(RedisConnectionError(f"bad reply from Redis: {exc}"))
                return
            if reply is False:
                return
            if not waiting:  # a reply nobody asked for: the stream is out of step
                self._drop(RedisConnectionError("Redis sent a reply nobody waits for"))
                return
            future, _ = waiting.popleft()
            if not future.done():  # (a cancelled waiter's reply is read and dropped)
                future.set_result(reply)

    def _check(self) -> None:
        """Drop the connection when its oldest waiter has waited longer than the timeout."""
        self._watch = None
        if not self._waiting or self.lost is not None:
            return
        deadline = self._waiting[0][1] + self._timeout
        if self._loop.time() >= deadline:
            self._drop(RedisTimeoutError(f"no reply from Redis within {self._timeout} s"))
        else:
            self._watch = self._loop.call_at(deadline, self._check)

    def _drop(self, reason: RedisError) -> None:
        self._fail(reason)
        if self._transport is not None:
            self._transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RedisConnectionError(f"connection to Redis lost: {exc or 'closed'}"))

    def _fail(self, reason: RedisError) -> None:
        if self.lost is None:
            self.lost = reason
        if self._watch is not None:
            self._watch.cancel()
            self._watch = None
        while self._waiting:
            future, _ = self._waiting.popleft()
            if not future.done():
                future.set_exception(reason)

    def close(self) -> None:
        self._fail(RedisConnectionError("closed"))
        if self._transport is not None:
            self._transport.close()


class PipelinedRedis:
    """Commands to one Redis server (``redis://``, ``rediss://`` or ``unix://`` URL) over one
    pipelined connection, named ``name`` in CLIENT LIST. Replies are hiredis's: bytes, ints,
    lists (XRANGE's fields as a flat list), None."""

    def __init__(
        self,
        url: str,
        *,
        name: str,
        socket_timeout: float = 5.0,
        connect_timeout: float = 2.0,
        retries: int = 3,
    ) -> None:
        self._options: dict[str, Any] = dict(parse_url(url))
        self._name = name
        # Timeouts given in the URL win, as they do in redis-py's ``from_url``.
        self._socket_timeout = float(self._options.get("socket_timeout") or socket_timeout)
        self._connect_timeout = float(
            self._options.get("socket_connect_timeout") or connect_timeout
        )
        self._retries = retries
        self._backoff = ExponentialWithJitterBackoff(base=0.05, cap=0.5)
        self._line: _Line | None = None
        self._attempt: asyncio.Future[_Line] | None = None
        self._closed = False

    async def execute(self, *args: Arg) -> Any:
        """One command's reply; its error reply raised as redis-py's exception."""
        packed = _pack(args)
        failures = 0
        while True:
            try:
                line = self._line
                if line is None or line.lost is not None:
                    line = await self._connect()
                reply = await line.send(packed)
                if isinstance(reply, _ErrorReply):
                    # (``LOADING``, a Redis restarting, is a connection error: tried again)
                    raise _error(reply)
            except AuthenticationError:
                raise  # (a ConnectionError to redis-py, but trying again cannot help)
            except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                failures += 1
                if failures > self._retries or self._closed:
                    if isinstance(exc, RedisError):
                        raise
                    raise RedisConnectionError(str(exc)) from exc
                await asyncio.sleep(self._backoff.compute(failures))
                continue
            return reply

    async def evalsha(self, script: Script, keys: Sequence[Arg], args: Sequence[Arg]) -> Any:
        """Run ``script``, loading it first if Redis does not know it (after a restart)."""
        try:
            return await self.execute("EVALSHA", script.sha, len(keys), *keys, *args)
        except NoScriptError:
            await self.execute("SCRIPT", "LOAD", script.source)
            return await self.execute("EVALSHA", script.sha, len(keys), *keys, *args)

    async def _connect(self) -> _Line:
        """The line, once connected. Callers who find none share one connection attempt, and
        its failure: one after another, each would wait out the attempts before its own."""
        if self._closed:
            raise RedisConnectionError("the store's connection is closed")
        attempt = self._attempt
        if attempt is None or attempt.done():
            attempt = self._attempt = asyncio.ensure_future(self._new_line())
            attempt.add_done_callback(_retrieved)
        # (shielded: a caller that gives up does not cancel the others' attempt)
        return await asyncio.shield(attempt)

    async def _new_line(self) -> _Line:
        line: _Line | None = None
        try:
            async with asyncio.timeout(self._connect_timeout):
                line = await self._open()
                await self._hello(line)
        except BaseException as exc:
            if line is not None:
                line.close()
            if isinstance(exc, TimeoutError):
                raise RedisTimeoutError("timed out connecting to Redis") from exc
            raise
        if self._closed:  # closed while connecting: nobody will use it, or close it
            line.close()
            raise RedisConnectionError("the store's connection is closed")
        self._line = line
        return line

    async def _open(self) -> _Line:
        loop = asyncio.get_running_loop()
        options = self._options

        def protocol() -> _Line:
            return _Line(self._socket_timeout)

        if "path" in options:
            _, line = await loop.create_unix_connection(protocol, options["path"])
        else:
            _, line = await loop.create_connection(
                protocol,
                options.get("host", "localhost"),
                options.get("port", 6379),
                ssl=self._ssl_context(),
            )
        return line

    def _ssl_context(self) -> ssl.SSLContext | None:
        if not _is_tls(self._options):
            return None
        options = self._options
        ca_certs = options.get("ssl_ca_certs")
        context = ssl.create_default_context(cafile=None if ca_certs is None else str(ca_certs))
        if options.get("ssl_certfile"):  # a client certificate (mutual TLS)
            context.load_cert_chain(options["ssl_certfile"], options.get("ssl_keyfile"))
        if str(options.get("ssl_check_hostname", "true")).lower() in {"false", "0", "no"}:
            context.check_hostname = False
        requirement = str(options.get("ssl_cert_reqs", "required")).lower()
        if requirement in {"none", "0"}:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        elif requirement in {"optional", "1"}:
            context.verify_mode = ssl.CERT_OPTIONAL
        return context

    async def _hello(self, line: _Line) -> None:
        """Authenticate, select the database and name the connection, all sent at once."""
        options = self._options
        setup: list[tuple[Arg, ...]] = []
        if options.get("password") is not None:
            user = options.get("username")
            password = options["password"]
            setup.append(("AUTH", user, password) if user else ("AUTH", password))
        if options.get("db", 0):
            setup.append(("SELECT", options["db"]))
        setup.append(("CLIENT", "SETNAME", self._name))
        # All answers awaited before any is judged: none is left to fail unseen on close.
        answers = await asyncio.gather(*(line.send(_pack(command)) for command in setup))
        for answer in answers:
            if isinstance(answer, _ErrorReply):
                raise _error(answer)  # (the caller closes the line)

    async def aclose(self) -> None:
        """Close the connection for good: calls in flight fail, later ones are refused."""
        self._closed = True
        if self._line is not None:
            self._line.close()
            self._line = None


def _retrieved(attempt: asyncio.Future[_Line]) -> None:
    """Mark a failed attempt's error as seen (its callers may all have given up)."""
    if not attempt.cancelled():
        attempt.exception()


def _pack(command: tuple[Arg, ...]) -> bytes:
    packed: bytes = hiredis.pack_command(command)  # type: ignore[arg-type]  # (stub: 1-tuples)
    return packed


def _error(reply: _ErrorReply) -> RedisError:
    """redis-py's exception for an error reply (``NOSCRIPT``: NoScriptError, and so on)."""
    error: RedisError = BaseParser.parse_error(str(reply))  # type: ignore[no-untyped-call]
    return error


def _is_tls(options: Mapping[str, Any]) -> bool:
    connection_class = options.get("connection_class")
    return connection_class is not None and connection_class.__name__ == "SSLConnection"
