"""Player identities in Redis: a hash per player with its name, the hash of its key and when
it was made. Player data shares the event store's Redis and so its durability (AOF) and its
backups; nothing here can be derived from the streams, so it is no projection."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from server.clock import Clock, system_clock
from server.errors import GameNotFound, IdempotencyKeyReused, Unauthorized
from server.names import check_name
from server.players.keys import (
    derived_player_key,
    new_player_id,
    new_player_key,
    player_id_for_key,
    player_of,
)
from server.store import RedisEventStore
from server.store.redis_store import guarded
from server.tokens import matches, token_hash


def player_key(player_id: str) -> str:
    """Hash of one player: ``name``, ``key`` (the key's SHA-256), ``created_at`` (ms); for
    one made with an ``Idempotency-Key``, also ``made_as`` (the name it was made with) and
    ``key_secret`` (what its key is derived with)."""
    return f"allfours:player:{{{player_id}}}"


_CREATE_ONCE = """
-- KEYS[1]: the player's hash. ARGV: name, key hash, created at, key secret.
-- Makes the identity, unless it exists: then what it was made with (name, time, secret).
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HMGET', KEYS[1], 'made_as', 'created_at', 'key_secret')
end
redis.call('HSET', KEYS[1], 'name', ARGV[1], 'key', ARGV[2], 'created_at', ARGV[3],
           'made_as', ARGV[1], 'key_secret', ARGV[4])
return false
"""


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
        self._create_script = self._redis.register_script(_CREATE_ONCE)
        self._clock = clock
        self._on_named = on_named
        """Told (player id, name) when a player is made or renamed: projections that show
        names (the leaderboard's) follow."""

    async def create(
        self, name: str, idempotency_key: str | None = None
    ) -> tuple[Player, str, bool]:
        """A new identity named ``name``, its key (shown this once: only its hash is kept),
        and False. With an ``idempotency_key`` that made one already (a retry after a lost
        answer): that identity, the same key and True; 409 ``idempotency_key_reused`` if it
        was made with another name."""
        check_name(name)
        if idempotency_key is not None:
            return await self._create_once(name, idempotency_key)
        player = Player(new_player_id(), name, self._clock())
        key = new_player_key(player.player_id)
        fields: list[str | int] = ["name", name, "key", token_hash(key)]
        fields += ["created_at", player.created_at]
        await guarded(self._redis.hset(player_key(player.player_id), items=fields))
        await self._named(player.player_id, name)
        return player, key, False

    async def _create_once(self, name: str, idempotency_key: str) -> tuple[Player, str, bool]:
        player_id = player_id_for_key(idempotency_key)
        secret = secrets.token_hex(32)
        key = derived_player_key(player_id, secret, idempotency_key)
        now = self._clock()
        made: Any = await guarded(
            self._create_script(
                keys=[player_key(player_id)], args=[name, token_hash(key), now, secret]
            )
        )
        if made is None:
            await self._named(player_id, name)
            return Player(player_id, name, now), key, False
        made_as, created_at, kept_secret = made
        if made_as is None or kept_secret is None or made_as.decode() != name:
            # Made without this key's record (cannot be: ids of keys are their own), or with
            # another name: the key was used for another request.
            raise IdempotencyKeyReused("this Idempotency-Key made a player of another name")
        key = derived_player_key(player_id, kept_secret.decode(), idempotency_key)
        return Player(player_id, name, int(created_at)), key, True

    async def made_with(self, idempotency_key: str) -> bool:
        """Whether a creation with this ``Idempotency-Key`` made its identity already."""
        return bool(
            await guarded(self._redis.exists(player_key(player_id_for_key(idempotency_key))))
        )

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
