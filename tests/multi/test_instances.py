"""Several ``allfours serve`` instances on one Redis, as behind a load balancer.

- Complete games with each seat's commands sent to a different instance and its stream
  followed on another one, spectators on every instance: every event reaches every subscriber
  once, in order (on the Redis server, and on the Redis Cluster).
- An instance SIGKILLed mid-game: its clients move to the others (commands retried with their
  idempotency key, streams resumed with Last-Event-ID), nothing is lost, the game ends.
- Instances racing to decide the bots' moves at the same version (the same command sent to
  every instance at once, creations racing with one key): the stored log never forks.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from typing import Any

import pytest
from multi_support import Fleet, Follower, Seat
from support import (
    bearer,
    check_finished_log,
    command_body,
    create_game,
    replay_of,
    start_server,
    take_seat,
)

from domain import Event, fold, verify
from server.codec import decode_event
from server.store import connect_store

pytestmark = pytest.mark.e2e


def assert_exactly_once_in_order(frames: Sequence[Any], full_log: Sequence[Event]) -> None:
    assert [f.id for f in frames] == list(range(1, len(full_log) + 1))
    assert [f.event for f in frames] == [type(e).__name__ for e in full_log]


async def stored_log(redis_url: str, game_id: str) -> list[Event]:
    """The log as Redis holds it (behind every instance's back): gapless, folds, verifies."""
    store = connect_store(redis_url)
    try:
        stored = await store.read(game_id)
    finally:
        await store.aclose()
    assert [e.version for e in stored] == list(range(1, len(stored) + 1))
    log = [decode_event(e.data) for e in stored]
    state = fold(log)
    assert state.version == len(log)
    assert verify(log).ok, verify(log).problems
    return log


async def seat_everyone(fleet: Fleet, game_id: str) -> dict[int, str]:
    """Four people, each taking a seat through a different instance."""
    return {
        seat: await take_seat(fleet.clients[seat % 3], game_id, seat, f"p{seat}")
        for seat in range(4)
    }


@pytest.fixture(params=["standalone", "cluster"])
def fleet_and_url(request: pytest.FixtureRequest) -> tuple[Fleet, str]:
    """The module's fleet on the Redis server, then on the Redis Cluster, with its URL."""
    fleet: Fleet = request.getfixturevalue(
        "fleet" if request.param == "standalone" else "cluster_fleet"
    )
    url: str = request.getfixturevalue(f"{request.param}_redis_url")
    return fleet, url


async def test_each_seat_on_its_own_instance_streams_on_another(
    fleet_and_url: tuple[Fleet, str],
) -> None:
    fleet, redis_url = fleet_and_url
    rng = random.Random(20261129)
    async with asyncio.timeout(40):
        created = await create_game(fleet.clients[0], [None] * 4, target=7)
        game = created["game_id"]
        tokens = await seat_everyone(fleet, game)
        seats = [
            Seat(fleet, game, seat, tokens[seat], seat % 3, (seat + 1) % 3, rng)
            for seat in range(4)
        ]
        spectators = [Follower(fleet, i, game) for i in range(3)]
        results = await asyncio.gather(
            *(seat.play() for seat in seats), *(s.follow() for s in spectators)
        )
    followers = [r for r in results if isinstance(r, Follower)] + spectators
    _, full_log = await replay_of(fleet.clients[2], game)
    check_finished_log(full_log)
    assert await stored_log(redis_url, game) == full_log
    for follower in followers:
        assert_exactly_once_in_order(follower.frames, full_log)
        assert len(set(follower.connections)) == 1  # nobody had to move
    for seat in seats:
        # Every command went to, and was answered by, the seat's own instance.
        assert set(seat.answered_by) == {seat.commands_to} and seat.duplicates == 0
    assert {f.connections[0] for f in followers} == {0, 1, 2}


async def test_an_instance_killed_mid_game_loses_nothing(
    fleet: Fleet, standalone_redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Instances 0 and 1 are the module's; instance 2 is this test's, and is SIGKILLed while
    two seats send their commands to it and three streams are followed on it."""
    victim = await start_server(standalone_redis_url, tmp_path_factory.mktemp("victim"))
    group = Fleet([fleet.servers[0], fleet.servers[1], victim])
    rng = random.Random(7)
    try:
        async with asyncio.timeout(40):
            created = await create_game(group.clients[0], [None] * 4, target=7)
            game = created["game_id"]
            tokens = await seat_everyone(group, game)
            seats = [
                Seat(group, game, seat, tokens[seat], commands_to, stream_from, rng)
                for seat, (commands_to, stream_from) in enumerate([(2, 0), (0, 2), (2, 1), (1, 2)])
            ]
            progress = asyncio.Event()
            spectators = [Follower(group, 2, game), Follower(group, 0, game, changed=progress)]
            playing = [asyncio.create_task(seat.play()) for seat in seats]
            watching = [asyncio.create_task(s.follow()) for s in spectators]
            watcher = spectators[1]  # on a surviving instance
            while len(watcher.frames) < 15:  # early: the game has many events to go
                await progress.wait()
                progress.clear()
            assert not any(f.event == "SeedRevealed" for f in watcher.frames)
            victim.proc.kill()  # SIGKILL: no graceful shutdown, connections just drop
            victim.proc.wait()
            followers = await asyncio.gather(*playing)
            await asyncio.gather(*watching)
        _, full_log = await replay_of(group.clients[0], game)
        check_finished_log(full_log)
        assert await stored_log(standalone_redis_url, game) == full_log
        for follower in [*followers, *spectators]:
            assert_exactly_once_in_order(follower.frames, full_log)
        # The clients of the dead instance moved to a live one and carried on there.
        for follower in [followers[1], followers[3], spectators[0]]:
            assert follower.connections[0] == 2 and follower.connections[-1] != 2
        for seat in (seats[0], seats[2]):
            assert seat.answered_by[0] + seat.answered_by[1] > 0, seat.answered_by
    finally:
        await group.aclose()
        if victim.proc.poll() is None:
            await victim.stop()


async def test_instances_racing_on_the_bots_moves_never_fork_the_log(
    fleet: Fleet, standalone_redis_url: str
) -> None:
    """People at seats 0 and 2, random bots at 1 and 3. Every person's move is sent to all
    three instances at once: each one decides the bots' replies (randomly, differently) at
    the same version and tries to append them. With one Idempotency-Key for the three copies
    exactly one applies and the others are told it was a duplicate; without a key, one
    applies and the others are refused. Either way the log stays one lawful game."""
    rng = random.Random(11)
    async with asyncio.timeout(40):
        # Creations racing with one key: each instance plays the four bots' whole game, only
        # one of them is stored, and all three answer with it.
        key = f"race-{rng.random()}"
        answers = await asyncio.gather(
            *(
                client.post(
                    "/v1/games",
                    json={"bots": ["random"] * 4, "rules": {"target": 5}},
                    headers={"Idempotency-Key": key},
                )
                for client in fleet.clients
            )
        )
        assert {a.status_code for a in answers} == {201}
        assert len({(a.json()["game_id"], a.json()["version"]) for a in answers}) == 1
        check_finished_log(await stored_log(standalone_redis_url, answers[0].json()["game_id"]))

        created = await create_game(fleet.clients[0], [None, "random", None, "random"], target=7)
        game = created["game_id"]
        tokens = {
            seat: await take_seat(fleet.clients[seat], game, seat, f"p{seat}") for seat in (0, 2)
        }
        streams = [asyncio.create_task(Follower(fleet, i, game).follow()) for i in range(3)]
        outcomes: list[str] = []
        moves = 0
        while True:
            view = (await fleet.clients[moves % 3].get(f"/v1/games/{game}")).json()
            if view["phase"] == "ended":
                break
            seat = view["to_act"]
            assert seat in tokens, view
            mine = (
                await fleet.clients[seat].get(f"/v1/games/{game}", headers=bearer(tokens[seat]))
            ).json()
            legal = mine["legal_actions"]
            headers = bearer(tokens[seat])
            if moves % 2 == 0:
                # The same command, one key, to every instance at once.
                headers["Idempotency-Key"] = f"{game}:{mine['version']}"
                bodies = [command_body(rng.choice(legal))] * 3
            else:
                # Each instance gets its own choice, without a key.
                bodies = [command_body(rng.choice(legal)) for _ in range(3)]
            replies = await asyncio.gather(
                *(
                    client.post(
                        f"/v1/games/{game}/seats/{seat}/commands", json=body, headers=headers
                    )
                    for client, body in zip(fleet.clients, bodies, strict=True)
                )
            )
            accepted = [r.json() for r in replies if r.status_code == 200]
            refused = [r for r in replies if r.status_code != 200]
            assert accepted, [r.text for r in replies]
            assert all(r.status_code in (409, 422) for r in refused), [r.text for r in refused]
            applied = [a for a in accepted if not a["duplicate"]]
            if moves % 2 == 0:
                assert len(applied) == 1 and len(accepted) == 3, [r.text for r in replies]
                assert {(a["first_version"], a["version"]) for a in accepted} == {
                    (applied[0]["first_version"], applied[0]["version"])
                }
                outcomes.append("duplicates")
            else:
                # Usually one; two only when the seat was legitimately to act again at once.
                assert 1 <= len(applied) <= 2, [r.text for r in replies]
                assert len({a["first_version"] for a in applied}) == len(applied)
                outcomes.append("refused" if refused else "again")
            moves += 1
        frames = await asyncio.gather(*streams)
    log = await stored_log(standalone_redis_url, game)
    check_finished_log(log)
    for followed in frames:
        assert_exactly_once_in_order(followed, log)
    assert "duplicates" in outcomes and "refused" in outcomes
    assert moves > 10


async def test_fleet_instances_are_separate_processes(fleet: Fleet) -> None:
    pids = {server.proc.pid for server in fleet.servers}
    assert len(pids) == 3
    for index in range(3):
        answered, response = await fleet.request(index, "GET", "/readyz")
        assert answered == index and response.status_code == 200
