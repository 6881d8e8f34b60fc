"""A finished game's analysis is computed once: concurrent askers share one computation, and
it is kept in Redis (with a time to live), where another instance finds it."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from domain import Event, Rules
from server.errors import GameNotFinished
from server.lobby import Lobby
from server.service import Analyses, GameService, Thinker
from server.service.thinking import Move
from server.store import RedisEventStore
from server.store.keys import secret_key


class CountingThinker(Thinker):
    """The real analysis, in this process (a thread), counted."""

    def __init__(self) -> None:
        super().__init__(workers=0)
        self.analysed = 0

    async def analyse(self, log: Sequence[Event]) -> tuple[Move, ...]:
        self.analysed += 1
        return await super().analyse(log)


async def test_an_analysis_is_made_once_and_kept_for_every_instance(
    store: RedisEventStore,
) -> None:
    thinker = CountingThinker()
    try:
        service = GameService(store, Lobby(store), thinker=thinker)
        # Above a kick's 3 points, so the game has decisions to analyse.
        game = await service.create_game(Rules(target=7, turn_seconds=None), ["random"] * 4)
        analyses = Analyses(service, store, ttl_s=600)
        first, second = await asyncio.gather(analyses.of(game.game_id), analyses.of(game.game_id))
        assert first == second and first and thinker.analysed == 1
        ttl = await store.redis.ttl(secret_key(game.game_id, "analysis"))
        assert 0 < ttl <= 600
        # Another instance (a fresh Analyses, no memory of its own) reads it from Redis.
        elsewhere = Analyses(GameService(store, Lobby(store), thinker=thinker), store)
        assert await elsewhere.of(game.game_id) == first and thinker.analysed == 1
    finally:
        thinker.close()


async def test_a_game_in_play_is_refused_and_nothing_is_kept(store: RedisEventStore) -> None:
    service = GameService(store, Lobby(store), thinker=CountingThinker())
    game = await service.create_game(Rules(turn_seconds=None), [None, "random", None, "random"])
    analyses = Analyses(service, store)
    for _ in range(2):  # the failure is not remembered as a running analysis either
        with pytest.raises(GameNotFinished):
            await analyses.of(game.game_id)
    assert await store.redis.exists(secret_key(game.game_id, "analysis")) == 0
