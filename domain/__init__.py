"""All Fours as a pure decider: ``decide`` turns commands into events, ``evolve`` folds them.

No I/O, no clock, no randomness of its own: decks come in as data (see ``seeds``), which is
what makes every game replayable and every deal verifiable.

The logic modules run compiled when a build of these very sources exists (``compiled``).
"""

import os
import sys
from pathlib import Path

from domain import compiled as _compiled

# Before any other module of the package is imported: the compiled ones are found first.
_native = _compiled.compiled_path(Path(__file__).parent, os.environ)
if _native is not None:
    __path__.insert(0, _native)

from domain import state as _state

if _compiled.engine_of(_state) == "pure":
    # Interpreted, the engine's records are Structs made from their classes, built and
    # replaced in C (``interpreted``): swapped in before any module of the engine takes them.
    from domain.interpreted import as_struct as _as_struct

    _state.Player = _as_struct(_state.Player)  # type: ignore[misc]
    # A state holds numbers, strings, tuples and frozen records: it is in no cycle.
    _state.State = _as_struct(_state.State, gc=False)  # type: ignore[misc]
    from domain import sight as _sight

    # A bot's view is made for every decision, and holds no record that could hold it.
    _sight.BotView = _as_struct(_sight.BotView, gc=False)  # type: ignore[misc]

from domain.bots import BOTS, Bot, SeatSight, heuristic_bot, random_bot
from domain.cards import CODES, Card, code, parse
from domain.commands import (
    Abort,
    AbortTable,
    Beg,
    ComeBack,
    Command,
    CreateGame,
    Deal,
    Expire,
    GiveOne,
    Join,
    Leave,
    NoteRematch,
    Play,
    PlayerCommand,
    Resign,
    RevealSeed,
    RunPack,
    SeatCommand,
    Stand,
    StepAway,
    TimeOut,
)
from domain.decide import decide, execute, hand_awards
from domain.errors import VIOLATION_CODES, RuleViolation, ViolationCode
from domain.events import (
    Award,
    Begged,
    CardPlayed,
    Dealt,
    Event,
    GameAborted,
    GameCreated,
    GameEnded,
    GaveOne,
    HandScored,
    PackRun,
    PlayerJoined,
    PlayerLeft,
    PlayerReplaced,
    Redealt,
    RematchCreated,
    Revealed,
    SeatAway,
    SeatBack,
    SeedRevealed,
    Stood,
    TrickWon,
    TrumpSet,
    TurnTimedOut,
)
from domain.evolve import evolve, fold
from domain.fairness import Verification, verify
from domain.legal import legal_actions, legal_moves, seat_actions
from domain.rules import DEFAULT_TURN_SECONDS, Rules
from domain.search import LEVELS, hints
from domain.seeds import commit, derive_deck, derive_first_dealer
from domain.sight import BotView, bot_view
from domain.state import AWAY_AFTER_TIMEOUTS, EndReason, Phase, Player, State, next_seat, team_of
from domain.visibility import (
    SPECTATOR,
    PlayedCard,
    SeatView,
    View,
    Viewer,
    redact,
    view,
)

ENGINE = _compiled.engine_of(sys.modules["domain.evolve"])
"""Which engine this process runs: ``compiled`` or ``pure`` (the server logs and exports it)."""

__all__ = [
    "AWAY_AFTER_TIMEOUTS",
    "BOTS",
    "CODES",
    "DEFAULT_TURN_SECONDS",
    "ENGINE",
    "LEVELS",
    "SPECTATOR",
    "VIOLATION_CODES",
    "Abort",
    "AbortTable",
    "Award",
    "Beg",
    "Begged",
    "Bot",
    "BotView",
    "Card",
    "CardPlayed",
    "ComeBack",
    "Command",
    "CreateGame",
    "Deal",
    "Dealt",
    "EndReason",
    "Event",
    "Expire",
    "GameAborted",
    "GameCreated",
    "GameEnded",
    "GaveOne",
    "GiveOne",
    "HandScored",
    "Join",
    "Leave",
    "NoteRematch",
    "PackRun",
    "Phase",
    "Play",
    "PlayedCard",
    "Player",
    "PlayerCommand",
    "PlayerJoined",
    "PlayerLeft",
    "PlayerReplaced",
    "Redealt",
    "RematchCreated",
    "Resign",
    "RevealSeed",
    "Revealed",
    "RuleViolation",
    "Rules",
    "RunPack",
    "SeatAway",
    "SeatBack",
    "SeatCommand",
    "SeatSight",
    "SeatView",
    "SeedRevealed",
    "Stand",
    "State",
    "StepAway",
    "Stood",
    "TimeOut",
    "TrickWon",
    "TrumpSet",
    "TurnTimedOut",
    "Verification",
    "View",
    "Viewer",
    "ViolationCode",
    "bot_view",
    "code",
    "commit",
    "decide",
    "derive_deck",
    "derive_first_dealer",
    "evolve",
    "execute",
    "fold",
    "hand_awards",
    "heuristic_bot",
    "hints",
    "legal_actions",
    "legal_moves",
    "next_seat",
    "parse",
    "random_bot",
    "redact",
    "seat_actions",
    "team_of",
    "verify",
    "view",
]
