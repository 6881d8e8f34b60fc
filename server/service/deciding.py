"""A command decided purely, with everything the game then owes itself: deals, the bots'
moves (for bots, and for people away, gone or just timed out), the seed reveal."""

from __future__ import annotations

import random
from collections.abc import Sequence

from domain import Command, Event, State, execute
from domain.autoplay import owed_command

__all__ = ["decide_all", "decide_owed"]

_bot_rng = random.SystemRandom()
"""Bots need no reproducibility in a live game, and must not hint at the deck's seed."""


def decide_all(state: State, commands: Sequence[Command], at: int) -> tuple[State, list[Event]]:
    """``commands`` in turn at time ``at``: the state after them and their events."""
    events: list[Event] = []
    for command in commands:
        state, produced = execute(state, command, at)
        events.extend(produced)
    return state, events


def decide_owed(state: State, seed: str, at: int) -> tuple[State, list[Event]]:
    """Everything the game does by itself from ``state`` at time ``at`` until a person must
    act (or an away person's seat is due later, at the table's pace, or the game is paused)."""
    events: list[Event] = []
    while True:
        command = owed_command(state, seed, _bot_rng, at)
        if command is None:
            return state, events
        state, produced = execute(state, command, at)
        events.extend(produced)
