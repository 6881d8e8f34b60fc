"""Player identities in Redis: a hash per player with its name, the hash of its key and when
it was made. Player data shares the event store's Redis and so its durability (AOF) and its
backups; nothing here can be derived from the streams, so it is no projection."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import msgspec

from server.clock import Clock, system_clock
from server.errors import GameNotFound, Unauthorized
from server.names import check_name
from server.players.keys import new_player_id, new_player_key, player_of
from server.store import RedisEventStore
from server.store.redis_store import guarded
from server.tokens import matches, token_hash


def player_key(player_id: str) -> str:
    """Hash of one player: ``name``, ``key`` (the key's SHA-256), ``created_at`` (ms)."""
    return f"allfours:player:{{{player_id}}}"


class Player(msgspec.Struct, frozen=True):
    player_id: str
    """The player's public id."""
    name: str
    """The name shown for the player (the name policy's, like a seat's)."""
    created_at: int
    """When the identity was made (ms since the epoch)."""


class PlayerNotFound(GameNotFound):
    """No player of that id (404 ``not_found``)."""


class PlayerAccounts:
    """Creating, proving and renaming player identities."""

    def __init__(
        self,
        store: RedisEventStore,
        *,
        clock: Clock = system_clock,
        on_named: Callable[[str, str], Awaitable[None]] | None = None,
    ) -> None:
        self._redis = store.redis
        self._clock = clock
        self._on_named = on_named
        """Told (player id, name) when a player is made or renamed: projections that show
        names (the leaderboard's) follow."""

    async def create(self, name: str) -> tuple[Player, str]:
        """A new identity named ``name`` and its key (shown this once: only its hash is kept)."""
        check_name(name)
        player = Player(new_player_id(), name, self._clock())
        key = new_player_key(player.player_id)
        fields: list[str | int] = ["name", name, "key", token_hash(key)]
        fields += ["created_at", player.created_at]
        await guarded(self._redis.hset(player_key(player.player_id), items=fields))
        await self._named(player.player_id, name)
        return player, key

    async def prove(self, key: str | None) -> Player:
        """The player ``key`` proves: 401 for no key, a malformed one, or one never issued.
        Authentication comes first: nothing about a player is told to a false key."""
        if key is None:
            raise Unauthorized("this needs your player key as 'Authorization: Bearer'")
        player_id = player_of(key)
        if player_id is None:
            raise Unauthorized("not a player key")
        fields = await self._fields(player_id)
        stored = fields.get(b"key")
        if not matches(key, None if stored is None else stored.decode()):
            raise Unauthorized("unknown player key")
        return _player(player_id, fields)

    async def get(self, player_id: str) -> Player:
        fields = await self._fields(player_id)
        if b"key" not in fields:
            raise PlayerNotFound(f"no player {player_id!r}")
        return _player(player_id, fields)

    async def names(self, player_ids: list[str]) -> dict[str, str]:
        """The names of those of ``player_ids`` that exist."""
        async with self._redis.pipeline(transaction=False) as pipe:
            for player_id in player_ids:
                pipe.hget(player_key(player_id), "name")
            found: list[bytes | None] = await guarded(pipe.execute())
        return {p: n.decode() for p, n in zip(player_ids, found, strict=True) if n is not None}

    async def rename(self, player: Player, name: str) -> Player:
        check_name(name)
        await guarded(self._redis.hset(player_key(player.player_id), "name", name))
        await self._named(player.player_id, name)
        return msgspec.structs.replace(player, name=name)

    async def _named(self, player_id: str, name: str) -> None:
        if self._on_named is not None:
            await self._on_named(player_id, name)

    async def _fields(self, player_id: str) -> dict[bytes, bytes]:
        fields: dict[bytes, bytes] = await guarded(self._redis.hgetall(player_key(player_id)))
        return fields


def _player(player_id: str, fields: dict[bytes, bytes]) -> Player:
    return Player(player_id, fields[b"name"].decode(), int(fields[b"created_at"]))
