"""The seat-name policy, defined here only: what a name may hold, and no two alike at a table.

A name is shown to everyone at the table, in the lobby and in replays, so it must show what it
holds. Invisible characters let a name pass for another one or for nothing, and bidi controls
reorder the text around it; both are refused. What phones type is not: emoji with their
variation selectors, skin tones and zero-width-joiner sequences, the joiners that Persian and
the Indic scripts need, and combining marks. The request model bounds only the length; the
service checks the rest (:func:`check_name`) before it stores anything, and refuses a name
that looks like another seat's (:func:`check_distinct`, compared in :mod:`server.lookalike`).

The checks run on the name's NFD, so that canonically equal names get the same answer. A
refusal says in words what is wrong, with the character's Unicode name, never a pattern.
"""

from __future__ import annotations

import re
import unicodedata

from server.errors import ServiceError
from server.lookalike import lookalike_keys

MAX_LENGTH = 40
"""The most characters (code points) a name may hold; at least one, and not blank."""
MAX_MARKS = 4
"""The most non-spacing or enclosing marks one letter may carry (Vietnamese needs two, some
Tibetan and Burmese syllables three; a tower of them spills over the names around it)."""

_ZWNJ, _ZWJ = "\u200c", "\u200d"
_VARIATION = "\ufe0e\ufe0f"
"""Text and emoji presentation selectors: allowed once, right after a base character."""
_EMOJI_TAIL = _VARIATION + "".join(map(chr, range(0x1F3FB, 0x1F400)))
"""What may follow an emoji before a ZWJ: its presentation selector, or a skin tone."""
_FLAG_TAGS = re.compile("\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f")
"""An emoji tag sequence (the flags of England, Scotland, Wales): a black flag, tags, a
cancel tag. Tag characters are allowed there only."""
_VIRAMA = 9
"""The canonical combining class of viramas, after which Indic scripts take ZWJ and ZWNJ."""
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Controls, format characters (zero-width characters, bidi controls, tags), surrogates,
private use, unassigned, line and paragraph separators: but for the joiners, selectors and
tags allowed in context above, and code points reserved for emoji."""
_DESCRIBED = {
    "Cc": "a control character",
    "Co": "a private-use character",
    "Cs": "a surrogate",
    "Cn": "an unassigned code point",
}
"""How to call characters that have no Unicode name."""


def _code_points(spec: str) -> frozenset[int]:
    """The code points of ``spec``: hexadecimal code points and ranges ``FIRST-LAST``."""
    points: set[int] = set()
    for item in spec.split():
        first, _, last = item.partition("-")
        points.update(range(int(first, 16), int(last or first, 16) + 1))
    return frozenset(points)


_PICTOGRAPHIC = _code_points(
    """00A9 00AE 203C 2049 2122 2139 2194-2199 21A9-21AA 231A-231B 2328 2388 23CF 23E9-23F3
    23F8-23FA 24C2 25AA-25AB 25B6 25C0 25FB-25FE 2600-2605 2607-2612 2614-2685 2690-2705
    2708-2712 2714 2716 271D 2721 2728 2733-2734 2744 2747 274C 274E 2753-2755 2757 2763-2767
    2795-2797 27A1 27B0 27BF 2934-2935 2B05-2B07 2B1B-2B1C 2B50 2B55 3030 303D 3297 3299
    1F000-1F0FF 1F10D-1F10F 1F12F 1F16C-1F171 1F17E-1F17F 1F18E 1F191-1F19A 1F1AD-1F1E5
    1F201-1F20F 1F21A 1F22F 1F232-1F23A 1F23C-1F23F 1F249-1F3FA 1F400-1F53D 1F546-1F64F
    1F680-1F6FF 1F774-1F77F 1F7D5-1F7FF 1F80C-1F80F 1F848-1F84F 1F85A-1F85F 1F888-1F88F
    1F8AE-1F8FF 1F90C-1F93A 1F93C-1F945 1F947-1FAFF 1FC00-1FFFD"""
)
"""Extended_Pictographic of Unicode 15.0's emoji-data.txt: the emoji, and the code points
Unicode keeps for future ones. Those pass although this Python's Unicode data may not know
them yet (Python 3.11 has Unicode 14), so newer phones' emoji are accepted."""
_JOINING_SCRIPTS = _code_points(
    """0600-077F 07C0-07FF 0840-08FF 1800-18AF A840-A87F 10AC0-10AFF 10B80-10BAF 10D00-10D3F
    10F30-10FDF 1E900-1E95F"""
)
"""The blocks of the scripts whose letters join (Arabic, Syriac, N'Ko, Mandaic, Mongolian,
Phags-pa, Manichaean, Psalter Pahlavi, Hanifi Rohingya, Sogdian, Old Uyghur, Chorasmian,
Adlam): every letter of Unicode 15.0 that joins (DerivedJoiningType.txt) is in one."""
_DRAWS_NOTHING = _code_points(
    "034F 115F-1160 17B4-17B5 180B-180F 2800 3164 FE00-FE0F FFA0 E0100-E01EF"
)
"""Letters, marks and symbols that draw nothing although their category would pass: the
Default_Ignorable_Code_Point characters that are no format character (the combining grapheme
joiner, Hangul fillers, Khmer inherent vowels, Mongolian and other variation selectors: FE0E
and FE0F are let through in context before this applies), and the blank braille pattern."""


class InvalidName(ServiceError):
    """A name this policy refuses: the message says why, in words."""

    code = "invalid_name"


class NameTaken(ServiceError):
    """Another seat of the game already shows this name, or one that looks like it."""

    code = "name_taken"


def check_name(name: str) -> None:
    """Raise :class:`InvalidName` unless ``name`` may be shown as a seat's name."""
    if len(name) > MAX_LENGTH:
        raise InvalidName(f"a name may hold at most {MAX_LENGTH} characters")
    text = unicodedata.normalize("NFD", name)
    flag_tags = {i for m in _FLAG_TAGS.finditer(text) for i in range(m.start() + 1, m.end())}
    marks = 0
    for i, char in enumerate(text):
        refusal = _refusal(text, i, i in flag_tags)
        if refusal is not None:
            raise InvalidName(refusal)
        category = unicodedata.category(char)
        if category in ("Mn", "Me"):
            marks += 1
            if marks > MAX_MARKS:
                raise InvalidName(
                    f"a name may not hold more than {MAX_MARKS} combining marks on one letter"
                )
        elif not category.startswith(("M", "C")) or _is_emoji(char):
            marks = 0
    if all(char.isspace() for char in text):
        raise InvalidName("a name may not be blank")
    if text[0].isspace() or text[-1].isspace():
        raise InvalidName("a name may not begin or end with a space")


def check_distinct(names: list[str | None], seat: int, name: str) -> None:
    """Raise :class:`NameTaken` if a seat other than ``seat`` shows ``name`` or a name that
    looks like it (:func:`server.lookalike.lookalike_keys`)."""
    wanted = lookalike_keys(name)
    for other, shown in enumerate(names):
        if other != seat and shown is not None and not wanted.isdisjoint(lookalike_keys(shown)):
            raise NameTaken(f"seat {other} is already called {shown!r}: choose another name")


def _refusal(text: str, i: int, in_flag: bool) -> str | None:
    """Why ``text[i]`` may not stand where it is (None: it may). ``in_flag``: it is one of an
    emoji tag sequence's tags."""
    char = text[i]
    before = text[i - 1] if i > 0 else ""
    after = text[i + 1] if i + 1 < len(text) else ""
    if char == _ZWJ:
        if _is_virama(before) or _is_virama(after) or (_emoji_ends(text[:i]) and _is_emoji(after)):
            return None
        return f"a name may hold {_named(char)} only between two emoji or next to a virama"
    if char == _ZWNJ:
        if _is_virama(before) or (_joins(text, i, -1) and _joins(text, i, 1)):
            return None
        return (
            f"a name may hold {_named(char)} only between two letters of a joining script "
            "(such as Arabic or Persian) or after a virama"
        )
    if char in _VARIATION:
        if _is_emoji(before) or (
            before and not unicodedata.category(before).startswith(("M", "C", "Z"))
        ):
            return None
        return f"a name may hold {_named(char)} only once, just after a letter, digit or symbol"
    if 0xE0020 <= ord(char) <= 0xE007F:
        if in_flag:
            return None
        return f"a name may hold {_named(char)} only in an emoji flag's tag sequence"
    category = unicodedata.category(char)
    if category.startswith("M") and i == 0:
        return f"a name may not begin with {_named(char)}"
    if ord(char) in _PICTOGRAPHIC:
        return None
    if category in _REFUSED_CATEGORIES or ord(char) in _DRAWS_NOTHING:
        return f"a name may not hold {_named(char)}"
    return None


def _named(char: str) -> str:
    """``char`` for a sentence: "a right-to-left override (U+202E)"."""
    name = unicodedata.name(char, "").lower()
    if name:
        described = f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
    else:
        described = _DESCRIBED.get(unicodedata.category(char), "a character")
    return f"{described} (U+{ord(char):04X})"


def _is_virama(char: str) -> bool:
    return bool(char) and unicodedata.combining(char) == _VIRAMA


def _is_emoji(char: str) -> bool:
    return bool(char) and ord(char) in _PICTOGRAPHIC


def _emoji_ends(text: str) -> bool:
    """Whether ``text`` ends with an emoji, maybe with its selector or skin tone after it."""
    return _is_emoji(text.rstrip(_EMOJI_TAIL)[-1:])


def _joins(text: str, i: int, step: int) -> bool:
    """Whether the nearest character from ``i`` in direction ``step`` that is no combining
    mark is a letter of a joining script."""
    i += step
    while 0 <= i < len(text) and unicodedata.category(text[i]).startswith("M"):
        i += step
    return (
        0 <= i < len(text)
        and unicodedata.category(text[i]).startswith("L")
        and ord(text[i]) in _JOINING_SCRIPTS
    )
