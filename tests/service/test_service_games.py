"""The game service on real Redis: complete games, the stored log, idempotency and races."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from domain import Play, Rules, RuleViolation, Stand, fold, legal_actions, verify
from server.codec import decode_event
from server.errors import GameNotFound, VersionConflict
from server.lobby import Lobby
from server.service import GameService
from server.store import RedisEventStore, connect_store

pytestmark = pytest.mark.backends  # on a Redis server and on a Redis Cluster


@pytest.fixture
async def service(store: RedisEventStore) -> GameService:
    return GameService(store, Lobby(store))


@pytest.fixture
async def second_service(redis_url: str) -> AsyncIterator[GameService]:
    """Another instance: own connections, own cache, same Redis."""
    other = connect_store(redis_url)
    yield GameService(other, Lobby(other))
    await other.aclose()


async def stored_log(service: GameService, game_id: str) -> list:
    return [decode_event(e.data) for e in await service.read_events(game_id)]


async def test_four_bots_play_a_complete_verifiable_game(service: GameService) -> None:
    created = await service.create_game(Rules(), ["heuristic", "random", "heuristic", "random"])
    state = await service.state(created.game_id)
    assert state.phase == "ended" and state.seed is not None
    assert max(state.scores) >= 14 and min(state.scores) < 14
    log = await stored_log(service, created.game_id)
    assert len(log) == created.version == state.version
    assert fold(log) == state
    assert verify(log).ok


async def test_fold_of_the_log_equals_the_cached_state_after_every_command(
    service: GameService,
) -> None:
    created = await service.create_game(Rules(target=5), [None, "heuristic", "random", "random"])
    game = created.game_id
    await service.take_seat(game, 0, "ann")
    while (state := await service.state(game)).phase != "ended":
        assert state.to_act == 0, "bots act by themselves: only the person is ever waited for"
        await service.play(game, legal_actions(state, 0)[0])
        assert fold(await stored_log(service, game)) == await service.state(game)
    assert verify(await stored_log(service, game)).ok


async def test_refused_command_writes_nothing(service: GameService) -> None:
    created = await service.create_game(Rules(), [None, "random", "random", "random"])
    await service.take_seat(created.game_id, 0, "ann")
    before = await service.state(created.game_id)
    with pytest.raises(RuleViolation) as refused:
        await service.play(created.game_id, Play(0, "AS") if before.to_act != 0 else Stand(2))
    assert refused.value.code in {"not_your_turn", "wrong_phase", "card_not_in_hand"}
    assert (await service.store.version(created.game_id)) == before.version


async def test_retried_command_id_applies_once(service: GameService) -> None:
    created = await service.create_game(Rules(), [None, "random", "random", "random"])
    game = created.game_id
    await service.take_seat(game, 0, "ann")
    state = await service.state(game)
    assert state.to_act == 0, "bots act by themselves: the person is the one waited for"
    action = legal_actions(state, 0)[0]
    first = await service.play(game, action, command_id="cmd-1")
    again = await service.play(game, action, command_id="cmd-1")
    assert again.duplicate and (again.first_version, again.version) == (
        first.first_version,
        first.version,
    )
    assert await service.store.version(game) == first.version


async def test_expected_version_mismatch_is_a_conflict(service: GameService) -> None:
    created = await service.create_game(Rules(), [None, "random", "random", "random"])
    game = created.game_id
    await service.take_seat(game, 0, "ann")
    state = await service.state(game)
    with pytest.raises(VersionConflict) as conflict:
        await service.play(game, Stand(0), expected_version=state.version - 1)
    assert conflict.value.current_version == state.version


async def test_unknown_game(service: GameService) -> None:
    with pytest.raises(GameNotFound):
        await service.state("no-such-game")


async def test_idempotent_creation(service: GameService) -> None:
    a = await service.create_game(Rules(), [None] * 4, idempotency_key="create-xyz")
    b = await service.create_game(Rules(), [None] * 4, idempotency_key="create-xyz")
    assert a.game_id == b.game_id and b.duplicate and a.version == b.version == 1


async def test_seat_taken_by_racing_instances_goes_to_exactly_one(
    service: GameService, second_service: GameService
) -> None:
    created = await service.create_game(Rules(), [None, "random", "random", "random"])
    results = await asyncio.gather(
        service.take_seat(created.game_id, 0, "ann"),
        second_service.take_seat(created.game_id, 0, "bob"),
        return_exceptions=True,
    )
    winners = [r for r in results if not isinstance(r, BaseException)]
    losers = [r for r in results if isinstance(r, RuleViolation)]
    assert len(winners) == 1 and len(losers) == 1 and losers[0].code == "seat_taken"


async def test_two_instances_playing_one_game_never_fork_it(
    service: GameService, second_service: GameService
) -> None:
    """Each person's moves go through a different instance with its own cache; both
    instances also race to drive the game forward. The log must stay one valid game."""
    created = await service.create_game(Rules(target=7), [None, None, "random", "random"])
    game = created.game_id
    await service.take_seat(game, 0, "ann")
    await second_service.take_seat(game, 1, "bob")
    instances = {0: service, 1: second_service}

    async def person(seat: int) -> None:
        mine = instances[seat]
        while True:
            state = await mine.state(game)
            if state.phase == "ended":
                return
            if state.to_act != seat:
                await asyncio.sleep(0.001)
                continue
            try:
                await mine.play(game, legal_actions(state, seat)[-1])
            except RuleViolation:
                continue  # raced with a stale view: look again

    async def nudger(instance: GameService) -> None:
        for _ in range(50):
            await instance.advance(game)
            await asyncio.sleep(0)

    await asyncio.wait_for(
        asyncio.gather(person(0), person(1), nudger(service), nudger(second_service)), 60
    )
    log = await stored_log(service, game)
    final = fold(log)
    assert final.phase == "ended" and verify(log).ok
    assert final == await service.state(game) == await second_service.state(game)


async def test_lobby_lists_open_then_finished(service: GameService) -> None:
    open_game = await service.create_game(Rules(), [None, "random", None, "random"])
    page = await service.list_games("open", None, 100)
    listed = {g.game_id: g for g in page.games}
    assert listed[open_game.game_id].open_seats == (0, 2)
    done = await service.create_game(Rules(), ["random"] * 4)
    finished = await service.list_games("finished", None, 100)
    assert done.game_id in {g.game_id for g in finished.games}


async def test_a_listing_keeps_its_creation_time_whichever_instance_lists_it(
    service: GameService, second_service: GameService
) -> None:
    """A game's creation time is listed once: its later listings, by this instance (which
    remembers it) or another (which reads it back), keep it, so the newest-first order holds."""

    async def created_at(game_id: str) -> int:
        page = await service.list_games("open", None, 100)
        return next(g.created_at for g in page.games if g.game_id == game_id)

    game = (await service.create_game(Rules(), [None, None, "random", "random"])).game_id
    first = await created_at(game)
    await asyncio.sleep(0.01)  # (a listing that took "now" again would show it)
    await service.take_seat(game, 0, "ann")
    assert await created_at(game) == first
    await second_service.take_seat(game, 1, "bob")  # the game starts: listed in progress
    page = await service.list_games("in_progress", None, 100)
    assert next(g.created_at for g in page.games if g.game_id == game) == first


async def test_a_new_game_under_an_old_id_is_listed_as_new(service: GameService) -> None:
    """An id made from a creation key comes again once its first game was archived: the new
    game is listed from its own creation, not at the time this instance remembers."""
    game = (await service.create_game(Rules(), [None, "random", None, "random"])).game_id
    lobby = service.lobby
    assert lobby is not None
    state = await service.state(game)
    await lobby.note(game, state, created_at=1_000)  # as if listed long ago, and remembered
    await lobby.note(game, state, new=True)
    page = await service.list_games("open", None, 100)
    assert next(g.created_at for g in page.games if g.game_id == game) > 1_000


async def test_cache_detects_a_store_that_went_back(service: GameService, redis) -> None:
    """If Redis loses acknowledged events (restored backup), the cached state must not be
    trusted: the service rebuilds from what the store holds."""
    created = await service.create_game(Rules(), [None, "random", "random", "random"])
    game = created.game_id
    await service.take_seat(game, 0, "ann")
    seated = await service.state(game)
    key = f"allfours:{{{game}}}:events"
    last_id = (await redis.xrevrange(key, count=1))[0][0]
    await redis.xdel(key, last_id)  # simulate the loss of the newest event
    fresh_service = GameService(service.store, None)
    rebuilt = await fresh_service.state(game)
    assert rebuilt.version == seated.version - 1
    state = await service.state(game)
    assert state.version == seated.version - 1
