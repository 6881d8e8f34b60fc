"""The rating projection on real Redis: each finished rated game rates its four players once
(openskill's numbers, in the order games ended), a resignation is a loss, a seat its person
left still counts as theirs, an aborted table rates nobody; rating again is harmless; an end
whose rating was lost in a crash is found by the look over watched tables; and a rebuild
from the streams gives exactly the live numbers."""

from __future__ import annotations

from typing import Any

import pytest

from domain import Leave, Resign, Rules
from server.lobby import Lobby
from server.ops.players import rebuild_players
from server.players.games import PlayerGames
from server.players.projection import PlayerProjection
from server.players.rating_model import NEWCOMER, Skill, rate
from server.players.ratings import (
    BOARD,
    COUNTS,
    LOG,
    QUEUE,
    RATED,
    SKILLS,
    WATCH,
    Ratings,
    history_key,
    logged_events,
)
from server.service import GameService
from server.store import RedisEventStore

T0 = 1_800_000_000_000


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        self.now += 1
        return self.now


@pytest.fixture
async def ratings(store: RedisEventStore) -> Ratings:
    keys = [BOARD, SKILLS, COUNTS, RATED, LOG, QUEUE, WATCH]
    await store.redis.delete(*keys)
    return Ratings(store, lambda game_id: logged_events(store, game_id), clock=Clock())


def service_for(store: RedisEventStore, ratings: Ratings) -> GameService:
    lobby = Lobby(store)
    return GameService(
        store, lobby, players=PlayerProjection(PlayerGames(store, lobby), ratings), clock=Clock()
    )


PEOPLE = [f"p{n:016x}" for n in range(1, 7)]


async def rated_game(service: GameService, players: list[str]) -> str:
    people = [(f"player {n}", player) for n, player in enumerate(players)]
    made = await service.create_game(Rules(), [None] * 4, rated=True, people=people)
    return made.game_id


async def resign(service: GameService, game_id: str, seat: int) -> None:
    state = await service.state(game_id)
    assert state.phase != "ended"
    await service.play(game_id, Resign(seat=seat))


async def snapshot(store: RedisEventStore) -> dict[str, Any]:
    redis = store.redis
    histories = {p: await redis.lrange(history_key(p), 0, -1) for p in PEOPLE}
    return {
        "board": await redis.zrange(BOARD, 0, -1, withscores=True),
        "skills": await redis.hgetall(SKILLS),
        "counts": await redis.hgetall(COUNTS),
        "histories": histories,
    }


async def test_each_rated_game_rates_its_players_once_in_order(
    store: RedisEventStore, ratings: Ratings
) -> None:
    service = service_for(store, ratings)
    expected = {p: NEWCOMER for p in PEOPLE}
    plays = [((0, 1, 2, 3), 1), ((0, 4, 2, 5), 0), ((5, 1, 3, 0), 3), ((2, 3, 4, 5), 2)]
    for seats, resigner in plays:
        players = [PEOPLE[n] for n in seats]
        game_id = await rated_game(service, players)
        await resign(service, game_id, resigner)
        winner = 1 - resigner % 2
        before = tuple(expected[p] for p in players)
        after = rate((before[0], before[1], before[2], before[3]), winner)
        expected.update(zip(players, after, strict=True))
    standings = await ratings.standings(PEOPLE)
    for player in PEOPLE:
        assert Skill(standings[player].mu, standings[player].sigma) == expected[player]
        assert standings[player].rating == expected[player].rating
    assert standings[PEOPLE[0]].games == 3 and standings[PEOPLE[0]].wins == 1
    board, total = await ratings.board(0, 10)
    assert total == 6
    assert [r for _, _, r, _ in board] == sorted(
        (s.rating for s in expected.values()), reverse=True
    )
    history = await ratings.history(PEOPLE[0], 10)
    assert [h.won for h in history] == [False, False, True]  # newest first
    assert history[0].rating == standings[PEOPLE[0]].rating

    live = await snapshot(store)
    # Rating a game again (a retry, a second instance, a look-over) changes nothing.
    for raw in await store.redis.smembers(RATED):
        await ratings.queue(raw.decode())
    assert await ratings.settle() == 0
    assert await snapshot(store) == live
    # And a rebuild from the streams gives exactly the live numbers.
    await store.redis.hset(SKILLS, PEOPLE[0], '{"mu": 1, "sigma": 1, "games": 9, "wins": 9}')
    rebuilt = await rebuild_players(store, Lobby(store))
    assert rebuilt.rated >= 4
    assert await snapshot(store) == live


async def test_a_seat_left_to_the_bot_is_still_its_players_result(
    store: RedisEventStore, ratings: Ratings
) -> None:
    service = service_for(store, ratings)
    game_id = await rated_game(service, PEOPLE[:4])
    await service.play(game_id, Leave(seat=1))
    await resign(service, game_id, 0)
    standings = await ratings.standings(PEOPLE[:4])
    assert standings[PEOPLE[1]].wins == 1 and standings[PEOPLE[0]].wins == 0


async def test_an_aborted_rated_table_rates_nobody(
    store: RedisEventStore, ratings: Ratings
) -> None:
    from domain import Abort

    service = service_for(store, ratings)
    game_id = await rated_game(service, PEOPLE[:4])
    assert await store.redis.zscore(WATCH, game_id) is not None
    await service.play(game_id, Abort(seat=2))
    await ratings.queue(game_id)
    assert await ratings.settle() == 0
    assert await ratings.standings(PEOPLE[:4]) == {}
    assert await store.redis.zscore(WATCH, game_id) is None


async def test_an_end_whose_rating_was_lost_is_found_by_the_look_over(
    store: RedisEventStore, ratings: Ratings
) -> None:
    service = service_for(store, ratings)
    game_id = await rated_game(service, PEOPLE[:4])
    # The end is stored by an instance that dies before it rates (no projection there).
    crashed = GameService(store, Lobby(store), clock=Clock())
    await crashed.play(game_id, Resign(seat=3))
    assert await ratings.standings(PEOPLE[:4]) == {}
    assert await ratings.look_over(Lobby(store), older_than_ms=-(10**6)) == 1
    assert (await ratings.standings(PEOPLE[:4]))[PEOPLE[0]].wins == 1
    assert await store.redis.zscore(WATCH, game_id) is None


async def test_a_rated_game_lists_in_each_players_games(
    store: RedisEventStore, ratings: Ratings
) -> None:
    service = service_for(store, ratings)
    game_id = await rated_game(service, PEOPLE[2:6])
    page = await PlayerGames(store, Lobby(store)).page(PEOPLE[3], None, 50)
    assert game_id in [g.game_id for g in page.games]
    summary = next(g for g in page.games if g.game_id == game_id)
    assert summary.rated and summary.player_ids == tuple(PEOPLE[2:6])
