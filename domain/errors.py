"""The one error the rules raise. Its ``code`` is stable: clients and the HTTP API rely on it."""

from __future__ import annotations

from typing import Literal

ViolationCode = Literal[
    "no_game",
    "game_exists",
    "game_over",
    "wrong_phase",
    "invalid_seat",
    "seat_taken",
    "already_seated",
    "not_your_turn",
    "unknown_card",
    "card_not_in_hand",
    "must_follow_suit",
    "undertrump_forbidden",
    "give_one_forbidden",
    "invalid_deck",
    "seed_mismatch",
    "not_due",
    "seat_reserved",
    "not_a_person",
    "already_away",
    "not_away",
    "too_late_to_abort",
    "rematch_exists",
    "rated_table",
]

VIOLATION_CODES: tuple[ViolationCode, ...] = ViolationCode.__args__  # type: ignore[attr-defined]


class RuleViolation(Exception):
    """A command the rules refuse. The state it was tried on is left as it was."""

    def __init__(self, code: ViolationCode, message: str) -> None:
        super().__init__(message)
        self.code: ViolationCode = code
        self.message = message

    def __repr__(self) -> str:
        return f"RuleViolation({self.code!r}, {self.message!r})"
