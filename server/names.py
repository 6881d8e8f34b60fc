"""Seat names people can tell apart: no invisible characters, no copy of another seat's name.

A name is shown to everyone at the table and in the lobby. Zero-width characters, bidi
controls and the like let a name look like another one (or like nothing), and a copy of a
neighbour's name lets someone pass for them; both are refused.
"""

from __future__ import annotations

import unicodedata

from server.errors import ServiceError

_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Controls, format characters (zero-width, bidi controls, tags), surrogates, private use,
unassigned, line and paragraph separators."""
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters that draw nothing (Hangul fillers) and the blank braille pattern."""


class NameTaken(ServiceError):
    """Another seat of the game already shows this name (compared as people read it)."""

    code = "name_taken"


def invisible_in(name: str) -> str | None:
    """Why ``name`` cannot be shown as it is, or None if it can."""
    if name != name.strip() or not name.strip():
        return "a name may not begin or end with a space, nor be blank"
    for char in name:
        if unicodedata.category(char) in _INVISIBLE_CATEGORIES or char in _BLANKS:
            return f"a name may not hold invisible characters (U+{ord(char):04X})"
        if unicodedata.category(char) == "Mn" and "VARIATION SELECTOR" in unicodedata.name(
            char, ""
        ):
            return f"a name may not hold invisible characters (U+{ord(char):04X})"
    return None


def as_read(name: str) -> str:
    """The form in which two names that look alike are equal: compatibility-normalised,
    case-folded, inner spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def check_distinct(names: list[str | None], seat: int, name: str) -> None:
    """Raise :class:`NameTaken` if a seat other than ``seat`` shows ``name`` already."""
    wanted = as_read(name)
    for other, shown in enumerate(names):
        if other != seat and shown is not None and as_read(shown) == wanted:
            raise NameTaken(f"seat {other} is already called {shown!r}: choose another name")
