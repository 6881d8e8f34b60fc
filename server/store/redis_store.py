"""The Redis Streams adapter of the event store port.

One stream per game (``allfours:{<game>}:events``), entry id ``<version>-0``, one field ``e``
with the event's bytes (plus ``c``, the command id, on the first entry of a batch). Appends go
through one Lua script (see :mod:`server.store.lua`); reads are plain XRANGE.

Retries and idempotency: redis-py transparently retries a command after a connection error or
timeout. For reads that is harmless. For an append it could, in principle, apply a command
twice: the first attempt may have run on the server and only its reply was lost. Two things
make the retry safe: the expected version (a second attempt at the same expected version finds
the stream moved on and is refused) and the command id (the refused retry is recognised and
answered ``duplicate`` with the versions of the first attempt, instead of a confusing
``conflict``). Callers should therefore *always* pass a command id and treat ``duplicate`` as
success.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import (
    ClusterDownError,
    ReadOnlyError,
    RedisError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .errors import StoreError, StoreUnavailable
from .hub import Subscription, SubscriptionHub
from .keys import cmds_key, events_key, seats_key, secret_key, validate_game_id
from .lua import APPEND_LUA, CONFLICT, OK
from .model import AppendResult, StoredEvent
from .watermarks import Watermarks

__all__ = ["RedisEventStore", "connect_store", "store_error"]

# Errors after which the same call is expected to work again later: Redis gone, restarting,
# loading its AOF, demoted to replica, or a cluster slot moving.
_TRANSIENT: tuple[type[BaseException], ...] = (
    RedisConnectionError,
    RedisTimeoutError,
    ReadOnlyError,
    ClusterDownError,
    TryAgainError,
    OSError,
)


def store_error(exc: BaseException) -> StoreError:
    """Translate a redis-py (or socket) error into the store's two error kinds."""
    if isinstance(exc, _TRANSIENT):
        return StoreUnavailable(f"redis unavailable: {exc or type(exc).__name__}")
    return StoreError(f"redis error: {exc}")


def _decode(entry: tuple[bytes, dict[bytes, bytes]]) -> StoredEvent:
    entry_id, fields = entry
    command = fields.get(b"c")
    # Ids are "<version>-0": dropping the "-0" leaves the version.
    return StoredEvent(
        int(entry_id[:-2]), fields[b"e"], command.decode() if command is not None else None
    )


class RedisEventStore:
    """Event store on Redis Streams. Build it with :func:`connect_store`.

    ``commands`` serves appends and reads (a bounded pool: connections grow with concurrency,
    up to its limit, never with the number of games or subscribers). ``blocking`` is a separate
    client used only by the subscription hub's single XREAD BLOCK loop.
    """

    def __init__(
        self,
        commands: Redis,
        blocking: Redis,
        *,
        block_ms: int = 5_000,
        queue_size: int = 1_024,
        watermark_capacity: int = 100_000,
    ) -> None:
        self._redis = commands
        self._watermarks = Watermarks(watermark_capacity)
        # redis-py's Script does EVALSHA and, on NOSCRIPT (e.g. after a Redis restart emptied
        # the script cache), SCRIPT LOAD and one more EVALSHA.
        self._append_script = commands.register_script(APPEND_LUA)
        self.hub = SubscriptionHub(
            self, commands, blocking, block_ms=block_ms, queue_size=queue_size
        )

    @property
    def redis(self) -> Redis:
        """The command client (for health checks and tests; not for writing events)."""
        return self._redis

    async def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        command_id: str | None = None,
        *,
        seat_token: tuple[int, str] | None = None,
    ) -> AppendResult:
        """Append ``events`` as versions ``expected_version + 1 ...``, all or nothing.

        ``expected_version`` 0 creates the game. ``command_id`` makes the append idempotent:
        if that id was already applied, nothing is written and ``duplicate`` is returned with
        the versions of the first application. ``seat_token`` = (seat, token hash) is stored
        with the events, atomically, when a person takes a seat (outside the log: the log is
        public once the game ends).

        Raises :class:`StoreRegressed` when the store reports a version below one this process
        has already seen. A caller holding a cached version should also treat a ``conflict``
        whose ``version`` is below its cached one as a regression.
        """
        if not events:
            raise ValueError("append needs at least one event")
        if expected_version < 0:
            raise ValueError(f"expected_version must be >= 0, not {expected_version}")
        if command_id == "":
            raise ValueError("command_id must be None or a non-empty string")
        validate_game_id(game_id)
        seen = self._watermarks.get(game_id)
        try:
            seat, token_hash = seat_token if seat_token is not None else ("", "")
            reply: list[int] = await self._append_script(
                keys=(events_key(game_id), cmds_key(game_id), seats_key(game_id)),
                args=(expected_version, command_id or "", seat, token_hash, *events),
            )
        except RedisError as exc:
            raise store_error(exc) from exc
        status, version, first = reply
        if status == OK:
            self._watermarks.note(game_id, version)
            return AppendResult("ok", version, first)
        if status == CONFLICT:
            self._watermarks.check(game_id, version, seen)
            return AppendResult("conflict", version, 0)
        self._watermarks.note(game_id, version)
        return AppendResult("duplicate", version, first)

    async def read(
        self, game_id: str, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with version > ``after``, oldest first, at most ``limit`` of them."""
        if after < 0:
            raise ValueError(f"after must be >= 0, not {after}")
        if limit is not None and limit < 1:
            raise ValueError(f"limit must be >= 1 or None, not {limit}")
        validate_game_id(game_id)
        try:
            entries: Any = await self._redis.xrange(
                events_key(game_id), min=f"{after + 1}-0", count=limit
            )
        except RedisError as exc:
            raise store_error(exc) from exc
        events = [_decode(entry) for entry in entries]
        if events:
            self._watermarks.note(game_id, events[-1].version)
        return events

    async def version(self, game_id: str) -> int:
        """The game's current version (0: no such game).

        Raises :class:`StoreRegressed` if it is below a version this process saw before.
        """
        seen = self._watermarks.get(game_id)
        current = await self.current_version(game_id)
        self._watermarks.check(game_id, current, seen)
        return current

    async def exists(self, game_id: str) -> bool:
        return await self.version(game_id) > 0

    async def current_version(self, game_id: str) -> int:
        """Like :meth:`version` but without the regression check (used by the hub)."""
        validate_game_id(game_id)
        try:
            length: int = await self._redis.xlen(events_key(game_id))
        except RedisError as exc:
            raise store_error(exc) from exc
        return length

    def subscribe(self, game_id: str, after: int = 0) -> Subscription:
        """Events of ``game_id`` after version ``after``: stored ones, then live ones.

        See :class:`~server.store.hub.Subscription`.
        """
        return self.hub.subscribe(game_id, after)

    def note_seen(self, game_id: str, version: int) -> None:
        """Record that the store held ``version`` events (used by the hub's deliveries)."""
        self._watermarks.note(game_id, version)

    async def seat_token_hash(self, game_id: str, seat: int) -> str | None:
        """The stored hash of ``seat``'s token (None: seat not taken by a person)."""
        validate_game_id(game_id)
        try:
            raw: Any = await self._redis.hget(seats_key(game_id), str(seat))
        except RedisError as exc:
            raise store_error(exc) from exc
        return raw.decode() if raw is not None else None

    async def put_secret(self, game_id: str, secret: str) -> str:
        """Store the game's secret unless one exists; return the one that is stored.

        Set-once, so a retried game creation gets the first secret back and commits to it.
        """
        validate_game_id(game_id)
        key = secret_key(game_id)
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.set(key, secret, nx=True)
                pipe.get(key)
                _, stored = await pipe.execute()
        except RedisError as exc:
            raise store_error(exc) from exc
        return bytes(stored).decode()

    async def get_secret(self, game_id: str) -> str | None:
        validate_game_id(game_id)
        try:
            raw: Any = await self._redis.get(secret_key(game_id))
        except RedisError as exc:
            raise store_error(exc) from exc
        return raw.decode() if raw is not None else None

    async def recorded_command(self, game_id: str, command_id: str) -> AppendResult | None:
        """The outcome recorded for ``command_id`` (as a ``duplicate``), None if never applied.

        Lets a retried command be answered as the duplicate it is even when the game, as it is
        now, would refuse it (the card it plays is no longer in the hand)."""
        validate_game_id(game_id)
        try:
            raw: Any = await self._redis.hget(cmds_key(game_id), command_id)
        except RedisError as exc:
            raise store_error(exc) from exc
        if raw is None:
            return None
        last, _, first = raw.decode().partition(":")
        return AppendResult("duplicate", int(last), int(first))

    async def ping(self) -> None:
        """Raise :class:`StoreUnavailable` unless Redis answers (for readiness probes)."""
        try:
            await self._redis.ping()
        except RedisError as exc:
            raise store_error(exc) from exc

    async def aclose(self) -> None:
        """Stop the hub (ending its subscriptions) and close every connection."""
        await self.hub.close()
        await self._redis.aclose()


def connect_store(
    url: str,
    *,
    max_connections: int = 64,
    pool_timeout: float = 5.0,
    socket_timeout: float = 5.0,
    connect_timeout: float = 2.0,
    retries: int = 3,
    health_check_interval: int = 30,
    block_ms: int = 5_000,
    queue_size: int = 1_024,
    name: str = "allfours",
) -> RedisEventStore:
    """Build the store's Redis clients for ``url`` (``redis://``, ``rediss://`` or ``unix://``).

    - Commands use a *blocking* pool of at most ``max_connections``: under a burst, callers
      wait up to ``pool_timeout`` for a connection instead of opening more.
    - ``retries`` transparent retries with jittered exponential backoff after a connection
      error (safe for appends, see the module docstring); when they are exhausted the call
      raises :class:`StoreUnavailable` (a few hundred milliseconds with the defaults).
    - The hub's blocking reads get their own single connection whose socket timeout exceeds
      ``block_ms``, so an idle XREAD BLOCK is never mistaken for a dead socket.
    - Connections are named ``<name>-store`` and ``<name>-hub`` in CLIENT LIST.
    """
    retry = Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.5), retries)
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=pool_timeout,
        socket_timeout=socket_timeout,
        socket_connect_timeout=connect_timeout,
        health_check_interval=health_check_interval,
        retry=retry,
        client_name=f"{name}-store",
    )
    commands = Redis.from_pool(pool)  # owns the pool: aclose() closes it
    blocking = Redis.from_url(
        url,
        single_connection_client=True,
        socket_timeout=block_ms / 1000 + 5.0,
        socket_connect_timeout=connect_timeout,
        # The hub runs its own reconnect loop with backoff; a hidden retry would only delay it.
        retry=Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.5), 0),
        client_name=f"{name}-hub",
    )
    return RedisEventStore(commands, blocking, block_ms=block_ms, queue_size=queue_size)
