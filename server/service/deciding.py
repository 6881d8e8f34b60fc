"""A command decided purely, with everything the game then owes itself: deals, the bots'
moves (for bots, and for people away, gone or just timed out), the seed reveal."""

from __future__ import annotations

from collections.abc import Sequence

from domain import Command, Event, State, execute
from domain.autoplay import BotTurn, owed_turn
from server.service.thinking import Thinker

__all__ = ["decide_all", "decide_owed"]


def decide_all(state: State, commands: Sequence[Command], at: int) -> tuple[State, list[Event]]:
    """``commands`` in turn at time ``at``: the state after them and their events."""
    events: list[Event] = []
    for command in commands:
        state, produced = execute(state, command, at)
        events.extend(produced)
    return state, events


async def decide_owed(
    state: State, seed: str, at: int, thinker: Thinker
) -> tuple[State, list[Event]]:
    """Everything the game does by itself from ``state`` at time ``at`` until a person must
    act (or an away person's seat is due later, at the table's pace, or the game is paused);
    the bots' decisions by ``thinker`` (the searching ones off the event loop)."""
    events: list[Event] = []
    while True:
        owed = owed_turn(state, seed, at)
        if owed is None:
            return state, events
        command = (
            await thinker.decide(state, owed.seat, owed.kind) if isinstance(owed, BotTurn) else owed
        )
        state, produced = execute(state, command, at)
        events.extend(produced)
