"""``allfours check``: fold every game in Redis and report whatever is wrong with it.

Per game: entry ids ``1-0, 2-0, ...`` without a gap; every event decodes and the log folds;
the deck's secret is there; a finished game's log verifies (fair deals, the seed matches its
commitment); the lobby lists it with the status its log has. Read-only: it repairs nothing
(``rebuild-lobby`` repairs the lobby; a damaged log is for a person to look at).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from domain import verify
from server.lobby import STATUSES, Lobby, status_of
from server.ops.games import game_ids, load
from server.store import RedisEventStore


@dataclass
class CheckReport:
    games: int = 0
    problems: dict[str, list[str]] = field(default_factory=dict)
    """Game id -> what is wrong with it."""


async def check_all(store: RedisEventStore, lobby: Lobby) -> CheckReport:
    report = CheckReport()
    listed: dict[str, str] = {}
    for status in STATUSES:
        for game_id in await lobby.listed(status):
            listed[game_id] = status
    async for game_id in game_ids(store.redis):
        report.games += 1
        found = await _check_game(store, game_id, listed.get(game_id))
        if found:
            report.problems[game_id] = found
    return report


async def _check_game(store: RedisEventStore, game_id: str, listed_as: str | None) -> list[str]:
    try:
        game = await load(store, game_id)
    except Exception as exc:  # a log that does not decode or fold: the very thing to report
        return [f"the log does not fold: {type(exc).__name__}: {exc}"]
    found = []
    versions = [e.version for e in game.stored]
    if versions != list(range(1, len(versions) + 1)):
        found.append("entry ids are not 1, 2, 3, ... without a gap")
    if game.state.version != len(versions):
        found.append(f"folds to version {game.state.version}, the stream has {len(versions)}")
    if await store.get_secret(game_id) is None:
        found.append("the deck's secret is missing")
    if game.state.phase == "ended":
        verdict = verify(game.events)
        if not verdict.ok:
            found.append(f"does not verify: {'; '.join(map(str, verdict.problems))}")
    status = status_of(game.state)
    if listed_as is None:
        found.append(f"not in the lobby (should be listed {status})")
    elif listed_as != status:
        found.append(f"listed {listed_as} in the lobby, but its log says {status}")
    return found
