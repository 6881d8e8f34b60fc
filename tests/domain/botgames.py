"""Driving whole bot games step by step for the property tests, and strategies to draw them."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import strategies as st

from domain import BOTS, Command, Event, Rules, State, execute, legal_actions, view
from domain.autoplay import due_system_command, opening_commands


@dataclass(frozen=True)
class Step:
    before: State
    command: Command
    events: list[Event]
    after: State
    bot: bool
    """True when a bot chose the command (from its own seat's view)."""


@dataclass(frozen=True)
class Setup:
    seed: str
    bots: tuple[str, str, str, str]
    rules: Rules


def drive(setup: Setup, on_step: Callable[[Step], None] | None = None) -> tuple[State, list[Event]]:
    """Play one complete game, seed revealed, calling ``on_step`` after every command."""
    rng = random.Random(setup.seed)
    state = State()
    log: list[Event] = []
    names = [f"bot {seat}" for seat in range(4)]
    commands = opening_commands(setup.seed, setup.rules, names, list(setup.bots))
    pending = list(commands)
    while True:
        bot = False
        if pending:
            command: Command = pending.pop(0)
        else:
            due = due_system_command(state, setup.seed)
            if due is None:
                if state.seed is not None:
                    break
                seat = state.to_act
                assert seat is not None, f"nobody to act in phase {state.phase}"
                command = BOTS[setup.bots[seat]](view(state, seat), rng)
                legal = legal_actions(state, seat)
                assert command in legal, f"bot {setup.bots[seat]} chose illegal {command!r}"
                bot = True
            else:
                command = due
        after, events = execute(state, command)
        log.extend(events)
        if on_step is not None:
            on_step(Step(state, command, events, after, bot))
        state = after
        assert len(log) < 20_000, "the game does not end"
    return state, log


bot_kinds = st.sampled_from(["random", "heuristic"])
rules_options = st.builds(
    Rules,
    target=st.one_of(st.just(14), st.integers(min_value=1, max_value=21)),
    tobago_kick=st.booleans(),
    give_one_at_13=st.sampled_from(["allowed", "forbidden"]),
    undertrump=st.sampled_from(["allowed", "forbidden"]),
)
setups = st.builds(
    Setup,
    seed=st.binary(min_size=32, max_size=32).map(bytes.hex),
    bots=st.tuples(bot_kinds, bot_kinds, bot_kinds, bot_kinds),
    rules=rules_options,
)
