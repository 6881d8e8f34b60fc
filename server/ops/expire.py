"""Expire what a finished game no longer needs: its idempotency records, seat tokens and the
secret that derives retried seatings' tokens (a quarter of a game's Redis bytes, kept for ever
before). The log and its seed stay: the game is still read, listed and replayed.

Run now and then (``allfours expire``): each finished game whose last event is older than the
given age gets a TTL of ``ttl_s`` on those keys (a key that already has one keeps it). A rematch
asked after that finds no seat token (401); commands retried after that find the game over.
"""

from __future__ import annotations

from server.clock import system_clock
from server.ops.games import game_ids, load
from server.store import RedisEventStore
from server.store.keys import cmds_key, seats_key, secret_key

_EXPIRE_IF_UNSET = """
-- KEYS: the keys to expire; ARGV[1] seconds. A key with a TTL already keeps it.
local n = 0
for _, key in ipairs(KEYS) do
  if redis.call('TTL', key) == -1 then
    redis.call('EXPIRE', key, ARGV[1])
    n = n + 1
  end
end
return n
"""


async def expire_finished(
    store: RedisEventStore, older_than_s: float, ttl_s: int, now_ms: int | None = None
) -> list[str]:
    """Set the TTLs; the ids of the games that got one now."""
    now_ms = system_clock() if now_ms is None else now_ms
    script = store.script(_EXPIRE_IF_UNSET)
    done = []
    async for game_id in game_ids(store.redis):
        game = await load(store, game_id)
        if game.state.phase != "ended" or game.last_at > now_ms - older_than_s * 1000:
            continue
        keys = (cmds_key(game_id), seats_key(game_id), secret_key(game_id, "token-key"))
        if int(await script(keys=keys, args=[max(ttl_s, 1)])):
            done.append(game_id)
    return done
