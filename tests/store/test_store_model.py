"""Hypothesis stateful test: the store behaves like a list per game plus a dict of command ids.

The state machine is synchronous (hypothesis drives it step by step), so each run gets its own
event loop (``asyncio.Runner``) and its own store connections on it.
"""

from __future__ import annotations

import asyncio
import uuid

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from server.store import AppendResult, RedisEventStore, StoredEvent, command_digest, connect_store

GAMES = ("a", "b")
COMMAND_IDS = st.one_of(st.none(), st.sampled_from([f"cmd{i}" for i in range(6)]))
PAYLOADS = st.lists(st.binary(max_size=8), min_size=1, max_size=3)


class StoreModel(RuleBasedStateMachine):
    """Model: per game, the list of (data, command id of its batch's first event)."""

    url = ""

    def __init__(self) -> None:
        super().__init__()
        self.runner = asyncio.Runner()
        self.store: RedisEventStore = self.runner.run(self._connect())
        run = uuid.uuid4().hex
        self.ids = {game: f"m-{run}-{game}" for game in GAMES}
        self.log: dict[str, list[tuple[bytes, str | None]]] = {game: [] for game in GAMES}
        self.commands: dict[str, dict[str, tuple[int, int]]] = {game: {} for game in GAMES}

    async def _connect(self) -> RedisEventStore:
        return connect_store(self.url)

    def teardown(self) -> None:
        self.runner.run(self.store.aclose())
        self.runner.close()

    @rule(
        game=st.sampled_from(GAMES),
        events=PAYLOADS,
        command_id=COMMAND_IDS,
        skew=st.sampled_from([0, 0, 0, -1, 1, -5]),
    )
    def append(self, game: str, events: list[bytes], command_id: str | None, skew: int) -> None:
        log = self.log[game]
        expected = max(0, len(log) + skew)
        result = self.runner.run(self.store.append(self.ids[game], expected, events, command_id))
        recorded = self.commands[game].get(command_id) if command_id else None
        if recorded is not None:
            assert result == AppendResult("duplicate", recorded[1], recorded[0])
        elif expected != len(log):
            assert result == AppendResult("conflict", len(log), 0)
        else:
            first = len(log) + 1
            mark = command_digest(command_id) if command_id else None
            log.extend((data, mark if i == 0 else None) for i, data in enumerate(events))
            assert result == AppendResult("ok", len(log), first)
            if command_id:
                self.commands[game][command_id] = (first, len(log))

    @rule(
        game=st.sampled_from(GAMES),
        after=st.integers(0, 12),
        limit=st.one_of(st.none(), st.integers(1, 5)),
    )
    def read(self, game: str, after: int, limit: int | None) -> None:
        got = self.runner.run(self.store.read(self.ids[game], after=after, limit=limit))
        log = self.log[game]
        end = len(log) if limit is None else min(len(log), after + limit)
        assert got == [
            StoredEvent(v, log[v - 1][0], log[v - 1][1]) for v in range(after + 1, end + 1)
        ]

    @precondition(lambda self: any(self.log.values()))
    @rule(game=st.sampled_from(GAMES))
    def replay_from_a_subscription(self, game: str) -> None:
        async def replay() -> list[StoredEvent]:
            async with self.store.subscribe(self.ids[game]) as sub:
                return [await anext(sub) for _ in self.log[game]]

        got = self.runner.run(replay())
        assert [(e.data, e.command_id) for e in got] == self.log[game]

    @invariant()
    def versions_match(self) -> None:
        for game in GAMES:
            assert self.runner.run(self.store.version(self.ids[game])) == len(self.log[game])


def test_store_behaves_like_the_model(redis_url: str) -> None:
    StoreModel.url = redis_url
    run_state_machine_as_test(
        StoreModel,
        settings=settings(
            max_examples=40,
            stateful_step_count=25,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
