"""Playing whole games without a server: for tests, benchmarks and offline analysis.

``due_system_command`` is the one place that knows which command the dealer's side owes the
game next (a deal from the seed, or the seed itself at the end); the service uses it too.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Final

from domain.bots import BOTS, Bot
from domain.commands import Command, CreateGame, Deal, Join, RevealSeed
from domain.decide import execute
from domain.events import Event
from domain.records import Record
from domain.rules import Rules
from domain.seeds import commit, derive_deck, derive_first_dealer
from domain.sight import bot_view
from domain.state import State

DEFAULT_RULES: Final = Rules()


def bot_rng(seed: str) -> random.Random:
    """The bots' randomness for a self-played game of ``seed``: reproducible, and yet no
    bot can learn the deck seed from it. ``Random(seed)`` keeps the seed itself in its state,
    where a bot could read it and derive every deck; a one-way digest of it cannot be undone."""
    digest = hashlib.sha256(f"bots:{seed}".encode()).digest()
    # Bots' choices need no secrecy from the players, only from the deck: a seeded PRNG.
    return random.Random(digest)  # noqa: S311


def due_system_command(state: State, seed: str) -> Deal | RevealSeed | None:
    """The deal or seed reveal the game is waiting for, if any."""
    if state.phase == "dealing":
        return Deal(derive_deck(seed, state.hand_no, state.deal_no))
    if state.phase == "ended" and state.seed is None:
        return RevealSeed(seed)
    return None


def owed_command(
    state: State, seed: str, rng: random.Random, at: int | None = None
) -> Command | None:
    """The next command the game makes by itself, if any: a deal or the seed reveal, or the
    decision of a bot for the seat to act (a bot's seat, or a person's that is away, left, or
    whose deadline just passed), made from that seat's view only. Nothing while the game is
    paused (every person away or gone); ``at``: the time, for an away seat's pace (None: the
    pace is not waited for)."""
    owed = owed_turn(state, seed, at)
    if owed is None or not isinstance(owed, BotTurn):
        return owed
    return BOTS[owed.kind](bot_view(state, owed.seat), rng)


class BotTurn(Record):
    """A bot is to decide for ``seat`` now, at the level ``kind``."""

    FIELDS = ("seat", "kind")
    __slots__ = FIELDS

    seat: Final[int]
    kind: Final[str]

    def __init__(self, seat: int, kind: str) -> None:
        self.seat = seat
        self.kind = kind


def owed_turn(state: State, seed: str, at: int | None = None) -> Deal | RevealSeed | BotTurn | None:
    """What the game owes itself next: a deal or the seed reveal, or a bot's turn (which the
    caller decides, here at once or, for the searching levels, in another process); nothing
    while the game is paused."""
    if state.paused:
        return None
    command = due_system_command(state, seed)
    if command is not None:
        return command
    acting = state.bot_to_act(at)
    return None if acting is None else BotTurn(*acting)


def opening_commands(
    seed: str, rules: Rules, names: Sequence[str], bots: Sequence[str | None]
) -> list[Command]:
    """Create a game for ``seed`` and seat four players (``bots[seat]`` None for a person)."""
    commands: list[Command] = [
        CreateGame(
            rules=rules, seed_commitment=commit(seed), first_dealer=derive_first_dealer(seed)
        )
    ]
    commands.extend(Join(seat, names[seat], bots[seat]) for seat in range(4))
    return commands


def play_game(
    seed: str,
    bots: Sequence[str] = ("random", "random", "random", "random"),
    rules: Rules = DEFAULT_RULES,
    rng: random.Random | None = None,
) -> tuple[State, list[Event]]:
    """Play one complete game between bots (by ``BOTS`` name) and return the log. ``rng``:
    the bots' randomness (by default ``bot_rng(seed)``)."""
    rng = rng or bot_rng(seed)
    players: list[Bot] = [BOTS[name] for name in bots]
    state = State()
    log: list[Event] = []
    for command in opening_commands(seed, rules, [f"bot {i}" for i in range(4)], list(bots)):
        state, events = execute(state, command)
        log.extend(events)
    while state.seed is None:
        # A seat to act is a bot's decision; with nobody to act, a deal or the seed is due.
        seat = state.to_act
        next_command: Command | None = (
            due_system_command(state, seed)
            if seat is None
            else players[seat](bot_view(state, seat), rng)
        )
        assert next_command is not None, f"nothing to do in phase {state.phase}"
        state, events = execute(state, next_command)
        log.extend(events)
    return state, log
