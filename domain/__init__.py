"""All Fours as a pure decider: ``decide`` turns commands into events, ``evolve`` folds them.

No I/O, no clock, no randomness of its own: decks come in as data (see ``fairness``), which is
what makes every game replayable and every deal verifiable.
"""

from domain.bots import BOTS, Bot, heuristic_bot, random_bot
from domain.cards import CODES, Card, code, parse
from domain.commands import (
    Beg,
    Command,
    CreateGame,
    Deal,
    GiveOne,
    Join,
    Play,
    PlayerCommand,
    RevealSeed,
    RunPack,
    Stand,
)
from domain.decide import decide, execute, hand_awards
from domain.errors import VIOLATION_CODES, RuleViolation, ViolationCode
from domain.events import (
    Award,
    Begged,
    CardPlayed,
    Dealt,
    Event,
    GameCreated,
    GameEnded,
    GaveOne,
    HandScored,
    PackRun,
    PlayerJoined,
    Redealt,
    Revealed,
    SeedRevealed,
    Stood,
    TrickWon,
    TrumpSet,
)
from domain.evolve import evolve, fold
from domain.fairness import (
    Verification,
    commit,
    derive_deck,
    derive_first_dealer,
    verify,
)
from domain.legal import legal_actions
from domain.rules import Rules
from domain.state import Phase, Player, State, next_seat, team_of
from domain.visibility import SPECTATOR, PlayedCard, SeatView, View, Viewer, redact, view

__all__ = [
    "BOTS",
    "CODES",
    "SPECTATOR",
    "VIOLATION_CODES",
    "Award",
    "Beg",
    "Begged",
    "Bot",
    "Card",
    "CardPlayed",
    "Command",
    "CreateGame",
    "Deal",
    "Dealt",
    "Event",
    "GameCreated",
    "GameEnded",
    "GaveOne",
    "GiveOne",
    "HandScored",
    "Join",
    "PackRun",
    "Phase",
    "Play",
    "PlayedCard",
    "Player",
    "PlayerCommand",
    "PlayerJoined",
    "Redealt",
    "RevealSeed",
    "Revealed",
    "RuleViolation",
    "Rules",
    "RunPack",
    "SeatView",
    "SeedRevealed",
    "Stand",
    "State",
    "Stood",
    "TrickWon",
    "TrumpSet",
    "Verification",
    "View",
    "Viewer",
    "ViolationCode",
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
    "legal_actions",
    "next_seat",
    "parse",
    "random_bot",
    "redact",
    "team_of",
    "verify",
    "view",
]
