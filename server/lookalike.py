"""When two names look alike: the comparison behind "no two seats of a table alike".

Two names collide when they are equal once what does not change how they read is set aside
(compatibility forms by NFKC, such as full-width letters; case; runs of spaces; the joiners and
variation selectors that only shape a glyph) and each character is replaced by its prototype,
the confusable skeleton of Unicode Technical Standard #39: ``skeleton(X) = NFD(map(NFD(X)))``.
So a Cyrillic a (U+0430) or a Greek capital alpha passes for a Latin a, "rn" for "m", "1" for "l".

The prototypes are ``confusables.tsv`` beside this module: Unicode's confusables.txt reduced
to what the skeleton looks up (its header says how, and which version). Of the libraries on
PyPI that know confusables, none computes this skeleton, so none is a dependency.
``confusable-homoglyphs`` (3.3.1) keeps each pair in both directions, which loses which side
is the prototype, and its ``is_dangerous`` asks whether a string mixes scripts: it misses an
"ANN" all in Greek capitals and flags honest names. ``confusables`` (1.2.0) closes the pairs
over each other and adds its own (a with @, e with 3, every accented letter with its base, so
"Zoë" would be "Zoe"), and installs a top-level ``tests`` package. It does ship Unicode's
confusables.txt (13.0.0), from which the table is derived; the table gives, character for
character, the skeleton that ICU computes.

Case is folded before the skeleton in one key and after it in the other, and two names collide
if either key matches: the skeleton maps a Greek capital nu (U+039D) to the Latin N but the
small nu (U+03BD) to v, so "ANN" in Greek capitals meets the Latin "ann" only with the skeleton
first, and the same name in Greek small letters only with the case folded first.
Each key repeats its steps until nothing changes (some prototypes have prototypes themselves,
"ǆ" gives "dž", whose caron gives a breve), so a key is its own key.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from pathlib import Path

_MAX_ROUNDS = 8
"""More rounds than a key needs to settle (three at most for any one character, "%")."""
_UNSEEN = dict.fromkeys([0x200C, 0x200D, *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)])
"""Joiners and variation selectors: they shape a glyph, they do not make another name."""


def _prototypes(path: Path) -> dict[int, str]:
    """The table of ``path``: each code point that has a prototype, to that prototype."""
    table: dict[int, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            source, target = line.split("\t")
            table[int(source, 16)] = "".join(chr(int(point, 16)) for point in target.split())
    return table


_PROTOTYPES = _prototypes(Path(__file__).with_name("confusables.tsv"))


def skeleton(text: str) -> str:
    """The confusable skeleton of UTS #39: decomposed, each character by its prototype."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", text).translate(_PROTOTYPES))


def _as_read(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text.translate(_UNSEEN)).split())


def _case_first(text: str) -> str:
    return skeleton(_as_read(text).casefold())


def _skeleton_first(text: str) -> str:
    return " ".join(skeleton(_as_read(text)).casefold().split())


def _settled(step: Callable[[str], str], text: str) -> str:
    for _ in range(_MAX_ROUNDS):
        after = step(text)
        if after == text:
            break
        text = after
    return text


def lookalike_keys(name: str) -> frozenset[str]:
    """The forms in which names that look alike are equal: two names look alike if they
    share one."""
    return frozenset((_settled(_case_first, name), _settled(_skeleton_first, name)))
