"""The archive job: move finished games to replay files and remove them from Redis.

Safe to run beside live servers, twice, or to kill at any point:

1. the file is written whole and checked (:func:`server.replay.archive.write_archived`);
2. only then are the game's keys deleted, by one Lua script that first checks the stream is
   still exactly as long as what was archived: a game that grew meanwhile (a rematch noted on
   it) is left alone and archived again, whole, next time;
3. last, its lobby listing is removed (a run killed before this leaves a listing whose game is
   gone: the next run, or ``rebuild-lobby``, removes it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from server.clock import system_clock
from server.lobby import Lobby
from server.ops.games import StoredGame, game_ids, load
from server.replay.archive import ArchiveError, archive_path, write_archived
from server.replay.format import Replay, replay_of_log
from server.store import REDIS_ERRORS, RedisEventStore
from server.store.keys import cmds_key, due_key, events_key, seats_key, secret_key

_DELETE_IF_UNCHANGED = """
-- KEYS: events, cmds, seats, secret, token-key, due-index; ARGV[1] archived length, ARGV[2] id
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) then
  return 0
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
redis.call('ZREM', KEYS[6], ARGV[2])
return 1
"""


def replay_of(game: StoredGame) -> Replay:
    """The replay ``GET /v1/games/{id}/replay`` serves for this finished game."""
    assert game.state.seed is not None, "only a finished game has a replay"
    versions = (stored.version for stored in game.stored)
    return replay_of_log(
        game.game_id,
        game.state.seed,
        game.state.seed_commitment,
        zip(versions, game.events, strict=True),
    )


@dataclass
class ArchiveReport:
    archived: list[str] = field(default_factory=list)
    """Written, checked, and removed from Redis."""
    kept: list[str] = field(default_factory=list)
    """Written, but the game grew meanwhile: left in Redis, archived whole next time."""
    failed: dict[str, str] = field(default_factory=dict)
    """Games left in Redis because their file could not be written or checked: why."""
    delisted: list[str] = field(default_factory=list)
    """Lobby listings of games no longer in Redis, removed."""


class Archiver:
    """Moves finished games whose last event is older than ``older_than_s`` into ``directory``."""

    def __init__(
        self, store: RedisEventStore, lobby: Lobby, directory: Path, older_than_s: float
    ) -> None:
        self._store = store
        self._lobby = lobby
        self._directory = directory
        self._older_than_ms = int(older_than_s * 1000)
        self._delete = store.script(_DELETE_IF_UNCHANGED)

    async def run(self, now_ms: int | None = None) -> ArchiveReport:
        now_ms = system_clock() if now_ms is None else now_ms
        report = ArchiveReport()
        async for game_id in game_ids(self._store.redis):
            try:
                game = await load(self._store, game_id)
            except REDIS_ERRORS:
                raise
            except Exception as exc:  # a damaged log: left alone, for `allfours check`
                report.failed[game_id] = f"does not load: {type(exc).__name__}: {exc}"
                continue
            if game.state.phase != "ended" or game.last_at > now_ms - self._older_than_ms:
                continue
            try:
                done = await self.archive(game)
            except (ArchiveError, OSError) as exc:
                report.failed[game_id] = str(exc)
                continue
            (report.archived if done else report.kept).append(game_id)
        report.delisted = await self._delist_gone()
        return report

    async def archive(self, game: StoredGame) -> bool:
        """Write, check, then remove ``game``; False if it grew meanwhile (kept in Redis)."""
        write_archived(self._directory, replay_of(game))
        game_id = game.game_id
        keys = (
            events_key(game_id),
            cmds_key(game_id),
            seats_key(game_id),
            secret_key(game_id),
            secret_key(game_id, "token-key"),
            due_key(game_id, cluster=self._store.cluster),
        )
        try:
            removed = await self._delete(keys=keys, args=[len(game.stored), game_id])
        except REDIS_ERRORS as exc:
            raise ArchiveError(f"game {game_id}: archived, not removed: {exc}") from exc
        if not removed:
            return False
        await self._lobby.forget(game_id)
        return True

    async def _delist_gone(self) -> list[str]:
        """Listings left by a run killed between removing a game and its listing."""
        gone = []
        for game_id in await self._lobby.listed("finished"):
            if archive_path(self._directory, game_id).exists() and not await self._store.exists(
                game_id
            ):
                await self._lobby.forget(game_id)
                gone.append(game_id)
        return gone
