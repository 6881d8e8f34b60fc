"""The engine of today plays the fixture's games exactly as the engine that recorded them.

``fixtures/selfplay_v2.jsonl.gz`` holds 400 self-played games (random and heuristic bots,
people at clocked tables who time out, step away, come back and leave; six rule options),
recorded before the engine was made faster. Same seed, same rules, same players: the same
events, byte for byte once the recorded ones are read with today's schemas (which only grow:
a field added since, such as ``GameCreated.takeover_grace_ms``, reads as its default and is
written out). Any change to a rule, to a bot's choice or to the order in which a bot reads its
random numbers shows up here as the first game and event that differ.
"""

from __future__ import annotations

import msgspec
from selfplay_games import GAMES, Record, encode, play, recorded, spec

from domain import Event, fold, verify


def _first_difference(expected: bytes, actual: bytes) -> str:
    want = msgspec.json.decode(expected)
    got = msgspec.json.decode(actual)
    for n, (a, b) in enumerate(zip(want, got, strict=False)):
        if a != b:
            return f"event {n + 1}: recorded {a}, played {b}"
    return f"recorded {len(want)} events, played {len(got)}"


def test_the_fixture_holds_every_game_of_the_list():
    records = list(recorded())
    assert [r.spec for r in records] == [spec(i) for i in range(GAMES)]
    drivers = {r.spec.driver for r in records}
    assert drivers == {"bots", "table"}


def test_every_game_replays_to_the_same_bytes():
    decoder = msgspec.json.Decoder(list[Event])
    for record in recorded():
        played = encode(play(record.spec))
        expected = encode(decoder.decode(record.events))
        assert played == expected, (
            f"game {record.spec.index}: {_first_difference(expected, played)}"
        )


def test_the_recorded_logs_fold_to_a_finished_verified_game():
    decoder = msgspec.json.Decoder(list[Event])
    for record in _sample():
        events = decoder.decode(record.events)
        state = fold(events)
        assert state.phase == "ended" and state.seed == record.spec.seed
        assert verify(events).ok


def _sample() -> list[Record]:
    return list(recorded())[::7]
