"""The Redis Streams adapter of the event store port.

One stream per game (``allfours:{<game>}:events``), entry id ``<version>-0``, field ``e`` with
the event's bytes and ``c`` with the command id's digest (:func:`command_digest`) on a batch's
first entry, empty on the others. Appends go through one Lua script (see
:mod:`server.store.lua`); reads are plain XRANGE.

The game's own commands (appends, reads, token and secret look-ups, PING) go over one pipelined
connection on a single server (:mod:`server.store.pipelined`: redis-py's client cost more CPU
per command than the rest of a player's command), and so do the scripts of the rate limiter, the
lobby's listing updates and the operator tools (:meth:`RedisEventStore.script`); the lobby's
reads, pipelines and the hub's reads use redis-py's pool, and a cluster uses redis-py's cluster
client for everything.

Retries and idempotency: both clients transparently retry a command after a connection error or
timeout. For reads that is harmless. For an append it could, in principle, apply a command
twice: the first attempt may have run on the server and only its reply was lost. Two things
make the retry safe: the expected version (a second attempt at the same expected version finds
the stream moved on and is refused) and the command id (the refused retry is recognised and
answered ``duplicate`` with the versions of the first attempt, instead of a confusing
``conflict``). Callers should therefore *always* pass a command id and treat ``duplicate`` as
success.

Redis Cluster: :func:`connect_store` with a ``redis+cluster://`` URL (see
:mod:`server.store.clients`) builds a cluster client instead; nothing else changes for callers.
Every key of a game carries the game id as hash tag, so each game lives in one slot and the
append script runs on one node. Live subscriptions: every append rings the game's doorbell
(Pub/Sub) and the hub reads only the games that rang (:mod:`server.store.hub`; on a cluster
:mod:`server.store.cluster_hub`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import Any

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import (
    ClusterError,
    CrossSlotTransactionError,
    InvalidPipelineStack,
    ReadOnlyError,
    RedisClusterException,
    RedisError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .clients import RedisClient, cluster_client, is_cluster_url
from .cluster_hub import ClusterSubscriptionHub
from .doorbells import server_connector
from .entries import command_digest, decode_entry
from .errors import StoreError, StoreUnavailable
from .hub import SubscriptionHub
from .keys import (
    DUE_KEY,
    SWEPT_SLOTS,
    bell_channel,
    cluster_due_keys,
    cmds_key,
    due_key,
    events_key,
    seats_key,
    secret_key,
    validate_game_id,
)
from .lua import APPEND_LUA, CONFLICT, DUE_FIX_LUA, OK, SEAT_HASH_LUA, TOKEN_REJECTED
from .model import AppendResult, Due, DueUpdate, StoredEvent
from .pipelined import Arg, PipelinedRedis, Script
from .subscription import Subscription
from .watermarks import Watermarks

__all__ = ["REDIS_ERRORS", "RedisEventStore", "StoreScript", "connect_store", "store_error"]

REDIS_ERRORS: tuple[type[BaseException], ...] = (RedisError, RedisClusterException)
"""What redis-py raises: its cluster client has errors outside the RedisError hierarchy."""

# Errors after which the same call is expected to work again later: Redis gone, restarting,
# loading its AOF, demoted to replica, or a cluster slot moving, failing over or unreachable.
_TRANSIENT: tuple[type[BaseException], ...] = (
    RedisConnectionError,
    RedisTimeoutError,
    ReadOnlyError,
    ClusterError,  # cluster down, master down, too many redirections
    TryAgainError,
    OSError,
)
# Cluster client errors that are our own mistakes (keys of one call in several slots).
_CLUSTER_BUGS: tuple[type[BaseException], ...] = (CrossSlotTransactionError, InvalidPipelineStack)


def store_error(exc: BaseException) -> StoreError:
    """Translate a redis-py (or socket) error into the store's two error kinds."""
    if isinstance(exc, _TRANSIENT) or (
        isinstance(exc, RedisClusterException) and not isinstance(exc, _CLUSTER_BUGS)
    ):
        # e.g. SlotNotCoveredError, "Redis Cluster cannot be connected"
        return StoreUnavailable(f"redis unavailable: {exc or type(exc).__name__}")
    return StoreError(f"redis error: {exc}")


async def guarded(pending: Awaitable[Any]) -> Any:
    """Await a redis-py call, its Redis errors turned into the store's (503 ``unavailable``):
    for the projections and queues that talk to Redis beside the store."""
    try:
        return await pending
    except REDIS_ERRORS as exc:
        raise store_error(exc) from exc


def _due_arg(due: DueUpdate) -> str:
    """The append script's due-index argument: '' leaves it, '-' removes, else the score."""
    if due is None:
        return ""
    return "-" if due.at is None else str(due.at)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisEventStore:
    """Event store on Redis Streams. Build it with :func:`connect_store`.

    ``commands`` serves appends and reads (a bounded pool: connections grow with concurrency,
    up to its limit, never with the number of games or subscribers). On a single server,
    ``blocking`` gives the settings (and name) of the subscription hub's one Pub/Sub connection;
    the client itself is never used. When ``commands`` is a :class:`RedisCluster`, ``blocking``
    is not used (pass None): the hub connects to a node, naming its connection ``hub_name``.
    ``line``: the pipelined connection for the game's own commands on a single server (None:
    those go through ``commands`` as well).
    """

    def __init__(
        self,
        commands: RedisClient,
        blocking: Redis | None,
        *,
        block_ms: int = 5_000,
        queue_size: int = 1_024,
        watermark_capacity: int = 100_000,
        hub_name: str = "allfours-hub",
        connect_timeout: float = 2.0,
        line: PipelinedRedis | None = None,
    ) -> None:
        self._redis = commands
        self._line = line
        self._watermarks = Watermarks(watermark_capacity)
        self._append_script = self.script(APPEND_LUA)
        self._due_fix_script = self.script(DUE_FIX_LUA)
        self._seat_hash_script = self.script(SEAT_HASH_LUA)
        self.cluster = isinstance(commands, RedisCluster)
        self.hub: SubscriptionHub
        if isinstance(commands, RedisCluster):
            self.hub = ClusterSubscriptionHub(
                self,
                commands,
                client_name=hub_name,
                connect_timeout=connect_timeout,
                block_ms=block_ms,
                queue_size=queue_size,
            )
        elif blocking is None:
            raise ValueError("a single-server store needs a blocking client for its hub")
        else:
            self.hub = SubscriptionHub(
                self,
                commands,
                server_connector(blocking, block_ms),
                block_ms=block_ms,
                queue_size=queue_size,
            )

    async def _command(self, *args: Arg) -> Any:
        """One command over the pipelined line, else through redis-py (whose XRANGE replies
        come as (id, dict) pairs instead of the line's flat lists: ``decode_entry`` reads
        both)."""
        if self._line is not None:
            return await self._line.execute(*args)
        return await self._redis.execute_command(*args)

    def script(self, source: str) -> StoreScript:
        """A Lua script to run on the store's Redis (the rate limiter's, the lobby's and the
        operator tools' scripts too): over the pipelined connection on one server."""
        return StoreScript(self._redis, self._line, source)

    @property
    def redis(self) -> RedisClient:
        """The command client (for the lobby, pipelines, the operator tools' scans and tests;
        not for writing events). A :class:`RedisCluster` when the store is on a cluster."""
        return self._redis

    async def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        command_id: str | None = None,
        *,
        seat_token: tuple[int | str, str] | None = None,
        fingerprint: str = "",
        due: DueUpdate = None,
        required_token: tuple[int | str, str] | None = None,
    ) -> AppendResult:
        """Append ``events`` as versions ``expected_version + 1 ...``, all or nothing.

        ``expected_version`` 0 creates the game. ``command_id`` makes the append idempotent:
        if that id was already applied, nothing is written and ``duplicate`` is returned with
        the versions of the first application. ``fingerprint`` is recorded with the command id
        and returned with a ``duplicate``, so a caller can tell a retry from an id reused for
        another command. ``seat_token`` = (seat, token hash) is stored with the events,
        atomically, when a person takes a seat (outside the log: the log is public once the
        game ends).

        ``due`` updates the game's due-index entry in the same atomic call: a ``Due`` with the
        time (ms) at which time alone next changes the game, ``Due(None)`` to remove the entry,
        None to leave it as it is. ``required_token`` = (seat, token hash): nothing is written
        (status ``rejected``) unless that seat's stored token hash is this one, now.

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
            checked_seat, checked_hash = required_token if required_token else ("", "")
            # The script rings the game's doorbell for the subscription hubs.
            bell = bell_channel(game_id)
            reply: list[Any] = await self._append_script(
                (
                    events_key(game_id),
                    cmds_key(game_id),
                    seats_key(game_id),
                    due_key(game_id, cluster=self.cluster),
                ),
                (
                    expected_version,
                    command_digest(command_id) if command_id else "",
                    seat,
                    token_hash,
                    bell,
                    fingerprint,
                    _due_arg(due),
                    game_id,
                    checked_seat,
                    checked_hash,
                    command_id or "",
                    *events,
                ),
            )
        except REDIS_ERRORS as exc:
            raise store_error(exc) from exc
        status, version, first = reply[0], reply[1], reply[2]
        if status == OK:
            self._watermarks.note(game_id, version)
            return AppendResult("ok", version, first)
        if status == CONFLICT:
            self._watermarks.check(game_id, version, seen)
            return AppendResult("conflict", version, 0)
        if status == TOKEN_REJECTED:
            return AppendResult("rejected", version, 0)
        self._watermarks.note(game_id, version)
        recorded = reply[3] if len(reply) > 3 else b""
        return AppendResult("duplicate", version, first, _text(recorded))

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
            count = () if limit is None else ("COUNT", limit)
            entries: Any = await self._command(
                "XRANGE", events_key(game_id), f"{after + 1}-0", "+", *count
            )
        except REDIS_ERRORS as exc:
            raise store_error(exc) from exc
        events = [decode_entry(entry) for entry in entries]
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
            length: int = await self._command("XLEN", events_key(game_id))
        except REDIS_ERRORS as exc:
            raise store_error(exc) from exc
        return length

    def subscribe(self, game_id: str, after: int = 0) -> Subscription:
        """Events of ``game_id`` after version ``after``: stored ones, then live ones.

        See :class:`~server.store.subscription.Subscription`.
        """
        return self.hub.subscribe(game_id, after)

    def note_seen(self, game_id: str, version: int) -> None:
        """Record that the store held ``version`` events (used by the hub's deliveries)."""
        self._watermarks.note(game_id, version)

    async def seat_token_hash(self, game_id: str, seat: int | str) -> str | None:
        """The stored hash of ``seat``'s token (None: seat not taken by a person), or of the
        creator's token with ``seat`` = ``"creator"``."""
        validate_game_id(game_id)
        try:
            raw: Any = await self._command("HGET", seats_key(game_id), str(seat))
        except REDIS_ERRORS as exc:
            raise store_error(exc) from exc
        return raw.decode() if raw is not None else None

    async def put_secret(self, game_id: str, secret: str, *, name: str = "secret") -> str:
        """Store the game's secret unless one exists; return the one that is stored.

        Set-once, so a retried game creation gets the first secret back and commits to it.
        """
        validate_game_id(game_id)
        key = secret_key(game_id, name)
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.set(key, secret, nx=True)
                pipe.get(key)
                _, stored = await pipe.execute()
        except REDIS_ERRORS as exc:
            raise store_error(exc) from exc
        return bytes(stored).decode()

    async def get_secret(self, game_id: str, *, name: str = "secret") -> str | None:
        validate_game_id(game_id)
        try:
            raw: Any = await self._command("GET", secret_key(game_id, name))
        except REDIS_ERRORS as exc:
            raise store_error(exc) from exc
        return raw.decode() if raw is not None else None

    async def recorded_command(self, game_id: str, command_id: str) -> AppendResult | None:
        """The outcome recorded for ``command_id`` (as a ``duplicate``), None if never applied.

        Lets a retried command be answered as the duplicate it is even when the game, as it is
        now, would refuse it (the card it plays is no longer in the hand)."""
        validate_game_id(game_id)
        try:
            # Under its digest; under the id itself if recorded before digests.
            found: list[Any] = await self._command(
                "HMGET", cmds_key(game_id), command_digest(command_id), command_id
            )
        except REDIS_ERRORS as exc:
            raise store_error(exc) from exc
        raw = found[0] if found[0] is not None else found[1]
        if raw is None:
            return None
        last, first, *recorded = raw.decode().split(":", 2)
        return AppendResult("duplicate", int(last), int(first), recorded[0] if recorded else "")

    async def due_games(
        self, now_ms: int, limit: int = 200, *, slots: Sequence[int] = ()
    ) -> list[tuple[str, int]]:
        """Games whose due-index time is at or before ``now_ms``: (game id, due time), the
        most overdue first, at most ``limit`` per index. Only a hint: the game's log decides.

        On a cluster, the indexes of the slots new games are given (see ``keys.swept_slot``)
        and those of ``slots`` too (a sweeper goes round the others, for games whose ids were
        chosen otherwise)."""
        keys = cluster_due_keys((*SWEPT_SLOTS, *slots)) if self.cluster else (DUE_KEY,)
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.zrangebyscore(key, "-inf", now_ms, start=0, num=limit, withscores=True)
                replies: list[Any] = await pipe.execute()
        except REDIS_ERRORS as exc:
            raise store_error(exc) from exc
        due = [(_text(member), int(score)) for rows in replies for member, score in rows]
        due.sort(key=lambda pair: pair[1])
        return due

    async def fix_due(self, game_id: str, version: int, due: Due) -> bool:
        """Set the game's due-index entry to ``due`` if the game is still at ``version``.

        For an entry found stale (the game moved on without it): only the version the fix was
        decided on may write it, or a newer append's entry could be overwritten. True if set.
        """
        validate_game_id(game_id)
        try:
            done: Any = await self._due_fix_script(
                (events_key(game_id), due_key(game_id, cluster=self.cluster)),
                (version, _due_arg(due), game_id),
            )
        except REDIS_ERRORS as exc:
            raise store_error(exc) from exc
        return bool(done)

    async def replace_seat_token(
        self, game_id: str, seat: int, token_hash: str, version: int
    ) -> bool:
        """Make ``token_hash`` the seat's token hash if the game is still at ``version``
        (a seat token re-issued to its player); True if stored."""
        validate_game_id(game_id)
        try:
            done: Any = await self._seat_hash_script(
                (events_key(game_id), seats_key(game_id)), (version, seat, token_hash)
            )
        except REDIS_ERRORS as exc:
            raise store_error(exc) from exc
        return bool(done)

    async def ping(self) -> None:
        """Raise :class:`StoreUnavailable` unless Redis (every master of a cluster) answers."""
        try:
            if isinstance(self._redis, RedisCluster):
                await self._redis.ping(target_nodes=RedisCluster.PRIMARIES)
            else:
                await self._command("PING")
        except REDIS_ERRORS as exc:
            raise store_error(exc) from exc

    async def aclose(self) -> None:
        """Stop the hub (ending its subscriptions) and close every connection."""
        await self.hub.close()
        if self._line is not None:
            await self._line.aclose()
        await self._redis.aclose()


class StoreScript:
    """A Lua script run on the store's Redis: EVALSHA over the pipelined connection on one
    server, redis-py's script on a cluster (run on the node of its keys' slot). Either loads
    it again when Redis lost it (NOSCRIPT after a restart; on a cluster, on every master).
    Raises redis-py's errors: callers translate them with :func:`store_error`."""

    def __init__(self, redis: RedisClient, line: PipelinedRedis | None, source: str) -> None:
        self._line = line
        self._script = Script(source)
        self._registered = None if line is not None else redis.register_script(source)

    async def __call__(self, keys: Sequence[Arg], args: Sequence[Arg] = ()) -> Any:
        if self._line is not None:
            return await self._line.evalsha(self._script, keys, args)
        assert self._registered is not None
        return await self._registered(keys=keys, args=args)  # type: ignore[arg-type]  # (ints)


class FairConnectionPool(BlockingConnectionPool):
    """A blocking pool that hands out connections first come, first served.

    redis-py's pool wakes one waiter per released connection, but a newcomer may take the
    connection first and the woken waiter goes back to the end of the line: under load, some
    commands starved for seconds (p99 of 400-800 ms with 200 busy games). A FIFO semaphore in
    front admits at most ``max_connections`` callers, so the inner pool never makes anyone
    wait and nobody is overtaken.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._turns = asyncio.Semaphore(self.max_connections)
        self._lent: set[int] = set()  # ids of connections handed out through a turn

    async def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        if self._turns.locked():  # (a turn free and nobody queued: taken at once, no timer)
            try:
                async with asyncio.timeout(self.timeout):
                    await self._turns.acquire()
            except TimeoutError as exc:
                raise RedisConnectionError("No connection available.") from exc
        else:
            await self._turns.acquire()
        try:
            connection = await super().get_connection(*args, **kwargs)  # type: ignore[no-untyped-call]
        except BaseException:
            # (the inner pool already took back any connection it had picked)
            self._turns.release()
            raise
        self._lent.add(id(connection))
        return connection

    async def release(self, connection: Any) -> None:
        await super().release(connection)
        if id(connection) in self._lent:
            self._lent.discard(id(connection))
            self._turns.release()


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
    """Build the store's Redis clients for ``url``.

    ``redis://``, ``rediss://`` or ``unix://``: one Redis server.
    ``redis+cluster://host:port[,host:port...]`` (``rediss+cluster://`` with TLS): a Redis
    Cluster, reached through any of the seed nodes named (see :mod:`server.store.clients`).

    - Commands use a *blocking* pool of at most ``max_connections``: under a burst, callers
      wait up to ``pool_timeout`` for a connection instead of opening more. On a cluster the
      limit is per node and redis-py's cluster client does not wait: a command beyond it fails
      at once with :class:`StoreUnavailable` (``pool_timeout`` is not used).
    - ``retries`` transparent retries with jittered exponential backoff after a connection
      error (safe for appends, see the module docstring); when they are exhausted the call
      raises :class:`StoreUnavailable` (a few hundred milliseconds with the defaults). On a
      cluster a retry first refreshes the slot map, so it also follows a failover.
    - The hub's doorbells arrive on its own single Pub/Sub connection, whose socket timeout
      exceeds ``block_ms`` (it pings once per ``block_ms``), so a quiet connection is never
      mistaken for a dead one; it reads the games that rang through the command pool (see
      :mod:`server.store.hub`; on a cluster :mod:`server.store.cluster_hub`).
    - Connections are named ``<name>-store`` and ``<name>-hub`` in CLIENT LIST.
    """
    retry = Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.5), retries)
    if is_cluster_url(url):
        cluster = cluster_client(
            url,
            max_connections=max_connections,
            socket_timeout=socket_timeout,
            socket_connect_timeout=connect_timeout,
            health_check_interval=health_check_interval,
            retry=retry,
            client_name=f"{name}-store",
        )
        return RedisEventStore(
            cluster,
            None,
            block_ms=block_ms,
            queue_size=queue_size,
            hub_name=f"{name}-hub",
            connect_timeout=connect_timeout,
        )
    pool = FairConnectionPool.from_url(
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
    line = PipelinedRedis(
        url,
        name=f"{name}-store",
        socket_timeout=socket_timeout,
        connect_timeout=connect_timeout,
        retries=retries,
    )
    return RedisEventStore(commands, blocking, block_ms=block_ms, queue_size=queue_size, line=line)
