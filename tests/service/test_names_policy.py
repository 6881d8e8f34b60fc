"""The seat-name policy (``server.names``) and the lookalike comparison (``server.lookalike``):
what phones type is accepted, invisible and reordering characters are refused with a reason in
words, lookalikes collide, and a refused name stores nothing.

Names are written with escapes where a character would be invisible or pass for another one
(which is the point): ``\\u0430`` is the Cyrillic a, ``\\u0391`` the Greek capital alpha.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import unicodedata

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from domain import Rules
from server.api.contract.problems import PROBLEM_CODES, STATUS_OF
from server.lobby import Lobby
from server.lookalike import lookalike_keys, skeleton
from server.names import (
    MAX_LENGTH,
    MAX_MARKS,
    InvalidName,
    NameTaken,
    check_distinct,
    check_name,
)
from server.service import GameService
from server.store import RedisEventStore

ACCEPTED = {
    "plain": "Ann Lee",
    "emoji with its presentation selector": "Zo\u00eb \u2764\ufe0f",
    "skin tone and ZWJ sequence": "\U0001f469\U0001f3fd\u200d\U0001f4bb",
    "rainbow flag (selector before the ZWJ)": "\U0001f3f3\ufe0f\u200d\U0001f308",
    "a family of four": "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466",
    "head shaking (an arrow after the ZWJ)": "\U0001f642\u200d\u2194\ufe0f",
    "keycap": "Ann 1\ufe0f\u20e3",
    "flag of Scotland (tag sequence)": (
        "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    ),
    "an emoji newer than Python 3.11's Unicode (shaking face, 15.0)": "Ann \U0001fae8",
    "Persian with ZWNJ": "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
    "Hindi conjunct with ZWJ after the virama": "\u0915\u094d\u200d\u0937",
    "Hindi with ZWNJ after the virama": "\u0915\u094d\u200c\u0937",
    "Malayalam chillu (ZWJ after the virama, at the end)": "\u0d28\u0d4d\u200d",
    "Bengali ra-phala (ZWJ before the virama)": "\u09b0\u200d\u09cd\u09af\u09be\u09ac",
    "decomposed combining mark": "Zoe\u0308",
    "Vietnamese, decomposed": unicodedata.normalize("NFD", "Nguy\u1ec5n Th\u1ecb \u00c1nh"),
    "Greek": "\u0395\u03bb\u03ad\u03bd\u03b7",
    "Korean": "\ud55c\uad6d",
    "ideographic space inside": "\u674e\u3000\u5c0f\u9f8d",
    "the most marks on one letter": "a" + "\u0301" * MAX_MARKS,
    "the longest": "x" * MAX_LENGTH,
}

REFUSED = {
    "right-to-left override": (
        "\u202eennA",
        "a name may not hold a right-to-left override (U+202E)",
    ),
    "left-to-right isolate": ("A\u2066nn", "a name may not hold a left-to-right isolate (U+2066)"),
    "left-to-right mark": ("Ann\u200e", "a name may not hold a left-to-right mark (U+200E)"),
    "arabic letter mark": ("Ann\u061c", "a name may not hold an arabic letter mark (U+061C)"),
    "zero-width space alone": ("\u200b", "a name may not hold a zero width space (U+200B)"),
    "zero-width space inside": ("Ann\u200b", "a name may not hold a zero width space (U+200B)"),
    "ZWJ at the start": (
        "\u200dAnn",
        "a name may hold a zero width joiner (U+200D) only between two emoji or next to a virama",
    ),
    "ZWJ after a letter": (
        "Ann\u200d",
        "a name may hold a zero width joiner (U+200D) only between two emoji or next to a virama",
    ),
    "ZWNJ between Latin letters": (
        "An\u200cn",
        "a name may hold a zero width non-joiner (U+200C) only between two letters of a "
        "joining script (such as Arabic or Persian) or after a virama",
    ),
    "variation selector at the start": (
        "\ufe0fAnn",
        "a name may hold a variation selector-16 (U+FE0F) only once, just after a letter, "
        "digit or symbol",
    ),
    "stacked variation selectors": (
        "\u2764\ufe0f\ufe0f",
        "a name may hold a variation selector-16 (U+FE0F) only once, just after a letter, "
        "digit or symbol",
    ),
    "a tag outside a flag": (
        "Ann\U000e0067",
        "a name may hold a tag latin small letter g (U+E0067) only in an emoji flag's tag sequence",
    ),
    "ten combining marks on one letter": (
        "Z" + "\u0301" * 10,
        f"a name may not hold more than {MAX_MARKS} combining marks on one letter",
    ),
    "a combining mark first": (
        "\u0301Ann",
        "a name may not begin with a combining acute accent (U+0301)",
    ),
    "only a Hangul filler": ("\u3164", "a name may not hold a hangul filler (U+3164)"),
    "a blank braille pattern": (
        "Ann\u2800Lee",
        "a name may not hold a braille pattern blank (U+2800)",
    ),
    "a soft hyphen": ("An\u00adn", "a name may not hold a soft hyphen (U+00AD)"),
    "a byte-order mark": ("\ufeffAnn", "a name may not hold a zero width no-break space (U+FEFF)"),
    "an ideographic variation selector": (
        "\u845b\U000e0100",
        "a name may not hold a variation selector-17 (U+E0100)",
    ),
    "a combining grapheme joiner": (
        "An\u034fn",
        "a name may not hold a combining grapheme joiner (U+034F)",
    ),
    "a tab": ("Ann\tLee", "a name may not hold a control character (U+0009)"),
    "a line separator": ("Ann\u2028Lee", "a name may not hold a line separator (U+2028)"),
    "private use": ("Ann\ue000", "a name may not hold a private-use character (U+E000)"),
    "unassigned, not kept for emoji": (
        "Ann\u0378",
        "a name may not hold an unassigned code point (U+0378)",
    ),
    "blank": ("   ", "a name may not be blank"),
    "empty": ("", "a name may not be blank"),
    "a leading space": (" Ann", "a name may not begin or end with a space"),
    "a trailing space": ("Ann\u00a0", "a name may not begin or end with a space"),
    "too long": ("x" * (MAX_LENGTH + 1), f"a name may hold at most {MAX_LENGTH} characters"),
}

LOOKALIKES = {
    "Cyrillic a": ("\u0430nn", "ann"),
    "Greek capitals": ("\u0391\u039d\u039d", "ann"),
    "Greek capitals and Latin capitals": ("\u0391\u039d\u039d", "ANN"),
    "Greek, in either case": ("\u0391\u039d\u039d", "\u03b1\u03bd\u03bd"),
    "one Cyrillic letter inside": ("p\u0430ypal", "paypal"),
    "rn for m": ("Sam", "Sarn"),
    "digit one for l": ("A1", "Al"),
    "full-width letters": ("\uff21\uff4e\uff4e", "Ann"),
    "case and spaces": ("Ann  Lee", "ann lee"),
    "composed and decomposed": ("Zo\u00eb", "Zoe\u0308"),
    "with and without the emoji selector": ("Zo\u00eb \u2764\ufe0f", "Zo\u00eb \u2764"),
    "with and without the ZWNJ": (
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
        "\u0645\u06cc\u062e\u0648\u0627\u0647\u0645",
    ),
}

DISTINCT = {
    "an accent": ("Zo\u00eb", "Zoe"),
    "another name": ("Ann", "Anna"),
    "two skin tones": ("\U0001f44d\U0001f3fb", "\U0001f44d\U0001f3ff"),
    "Scotland and Wales": (
        "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
        "\U0001f3f4\U000e0067\U000e0062\U000e0077\U000e006c\U000e0073\U000e007f",
    ),
}


def refusal(name: str) -> str | None:
    try:
        check_name(name)
    except InvalidName as refused:
        return refused.message
    return None


def look_alike(first: str, second: str) -> bool:
    try:
        check_distinct([first, None, None, None], 1, second)
    except NameTaken:
        return True
    return False


@pytest.mark.parametrize("name", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_what_phones_type_is_accepted(name: str) -> None:
    assert refusal(name) is None


@pytest.mark.parametrize(("name", "detail"), REFUSED.values(), ids=REFUSED.keys())
def test_a_refusal_says_in_words_what_is_wrong(name: str, detail: str) -> None:
    assert refusal(name) == detail


def test_canonically_equal_names_get_the_same_answer() -> None:
    """The policy reads the NFD: a selector after a precomposed letter is one after a mark."""
    for name in ("Zo\u00eb\ufe0f", "\u00e9" + "\u0301" * MAX_MARKS):
        assert refusal(name) == refusal(unicodedata.normalize("NFD", name)) is not None


def test_invalid_name_is_a_400_problem_code() -> None:
    assert InvalidName.code == "invalid_name" in PROBLEM_CODES
    assert STATUS_OF["invalid_name"] == 400
    assert STATUS_OF[NameTaken.code] == 409


@pytest.mark.parametrize(("first", "second"), LOOKALIKES.values(), ids=LOOKALIKES.keys())
def test_lookalikes_collide_either_way(first: str, second: str) -> None:
    assert look_alike(first, second) and look_alike(second, first)


@pytest.mark.parametrize(("first", "second"), DISTINCT.values(), ids=DISTINCT.keys())
def test_names_that_look_different_do_not_collide(first: str, second: str) -> None:
    assert not look_alike(first, second) and not look_alike(second, first)


def test_a_seat_may_keep_its_own_name() -> None:
    check_distinct(["Ann", None, None, None], 0, "ann")


def test_the_skeleton_is_that_of_uts_39() -> None:
    assert skeleton("p\u0430ypal") == "paypal"
    assert skeleton("\u0391\u039d\u039d") == "ANN"
    assert skeleton("m") == "rn"
    # One mapping, not repeated: the caron of dž has a prototype of its own (a breve).
    assert skeleton("\u01c6") == "dz\u030c" != skeleton("dz\u030c") == "dz\u0306"


def _unchanged(char: str) -> bool:
    return skeleton(char) == unicodedata.normalize("NFKC", char) == char.casefold() == char


def test_every_character_has_a_key_that_is_its_own_key() -> None:
    """Each key settles: for every code point that any step changes (the others are their own
    keys), a key's keys hold the key itself."""
    for point in range(0x110000):
        char = chr(point)
        if 0xD800 <= point <= 0xDFFF or _unchanged(char):
            continue
        for key in lookalike_keys(char):
            assert key in lookalike_keys(key), hex(point)


# Letters of several scripts, lookalikes among them, marks, emoji, joiners and spaces: names a
# person might type, with enough of the tricky characters that the policy refuses some.
_ALPHABET = st.sampled_from(
    list("aeilmnoprsAILNOP01 ")
    + list("\u0430\u0435\u043e\u0440\u0441\u0410\u041e\u0420")  # Cyrillic lookalikes
    + list("\u0391\u039d\u039f\u03b1\u03bd\u03bf\u03c1")  # Greek lookalikes
    + list("\u0645\u06cc\u062e\u0648\u0647\u0915\u0937\u094d\u093f")  # Persian, Devanagari
    + list("\u0301\u0308\u0323\u200c\u200d\ufe0f\u3000\u00a0")  # marks, joiners, spaces
    + list("\u2764\u2194\U0001f469\U0001f4bb\U0001f3fd\U0001fae8\uff41\u01c6%")
)
_NAMES = st.text(_ALPHABET, min_size=1, max_size=MAX_LENGTH)


@settings(max_examples=300, suppress_health_check=[HealthCheck.filter_too_much])
@given(_NAMES)
def test_an_accepted_names_keys_are_their_own_keys(name: str) -> None:
    """A key is a fixed point: comparing a key again finds the same key (so the comparison
    does not depend on how many times a name went through it)."""
    assume(refusal(name) is None)
    for key in lookalike_keys(name):
        assert key in lookalike_keys(key)
    assert look_alike(name, name)


_SWAPS = {
    "a": "\u0430",
    "e": "\u0435",
    "o": "\u043e\u03bf",
    "p": "\u0440",
    "A": "\u0410\u0391",
    "O": "\u041e\u039f0",
    "P": "\u0420\u03a1",
    "N": "\u039d",
    "l": "1I",
}
"""Letters and their lookalikes in other scripts (and digits), each with the same skeleton."""


@st.composite
def _disguised(draw: st.DrawFn) -> tuple[str, str]:
    """A name, and the same name with some letters swapped for lookalikes."""
    name = draw(_NAMES)
    swapped = "".join(
        draw(st.sampled_from(_SWAPS[c])) if c in _SWAPS and draw(st.booleans()) else c for c in name
    )
    return name, swapped


@settings(max_examples=300)
@given(_disguised())
def test_a_disguised_name_collides_with_the_name(pair: tuple[str, str]) -> None:
    assert look_alike(*pair) and look_alike(*reversed(pair))


@settings(max_examples=300)
@given(st.one_of(st.tuples(_NAMES, _NAMES), _disguised()))
def test_check_distinct_is_symmetric(pair: tuple[str, str]) -> None:
    first, second = pair
    assert look_alike(first, second) == look_alike(second, first)


@settings(max_examples=300)
@given(st.text(max_size=MAX_LENGTH + 2))
def test_any_text_is_accepted_or_refused_with_words(name: str) -> None:
    """Any string at all: the policy answers, never crashes, and never shows a pattern."""
    detail = refusal(name)
    assert detail is None or (detail.startswith("a name may ") and "[" not in detail)


# The table against ICU's own skeleton, where ICU 72 (the version it was checked against) is
# on the machine: every code point, one by one.
_ICU = ctypes.util.find_library("icui18n")


@pytest.mark.skipif(_ICU is None or "72" not in _ICU, reason="ICU 72 (libicui18n) not found")
def test_the_table_gives_icus_skeleton_for_every_character() -> None:
    assert _ICU is not None
    icu = ctypes.CDLL(_ICU)
    status = ctypes.c_int(0)
    open_checker = icu.uspoof_open_72
    open_checker.restype = ctypes.c_void_p
    checker = open_checker(ctypes.byref(status))
    get_skeleton = icu.uspoof_getSkeletonUTF8_72
    get_skeleton.restype = ctypes.c_int32
    get_skeleton.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_int32]
    get_skeleton.argtypes += [ctypes.c_char_p, ctypes.c_int32, ctypes.POINTER(ctypes.c_int)]
    out = ctypes.create_string_buffer(256)
    try:
        for point in range(0x110000):
            if 0xD800 <= point <= 0xDFFF:
                continue
            char = chr(point).encode()
            length = get_skeleton(checker, 0, char, len(char), out, 256, ctypes.byref(status))
            assert status.value <= 0, (hex(point), status.value)
            assert skeleton(chr(point)) == out.raw[:length].decode(), hex(point)
    finally:
        icu.uspoof_close_72(ctypes.c_void_p(checker))


# ---------------------------------------------------------------------------------------------
# In the service, on real Redis: refused before anything is stored


@pytest.fixture
async def service(store: RedisEventStore) -> GameService:
    return GameService(store, Lobby(store))


async def test_a_refused_name_stores_nothing(service: GameService) -> None:
    created = await service.create_game(Rules(), [None, None, None, "heuristic"])
    game = created.game_id
    for name, detail in (REFUSED["right-to-left override"], REFUSED["ZWJ at the start"]):
        with pytest.raises(InvalidName) as refused:
            await service.take_seat(game, 0, name, idempotency_key="seat-key-0123456789")
        assert refused.value.message == detail
    assert await service.store.version(game) == created.version
    assert (await service.state(game)).players[0] is None
    assert await service.store.seat_token_hash(game, 0) is None
    assert await service.store.get_secret(game, name="token-key") is None


async def test_a_lookalike_of_a_seated_name_is_refused_by_the_service(
    service: GameService,
) -> None:
    created = await service.create_game(Rules(), [None, None, None, None])
    game = created.game_id
    seated = await service.take_seat(game, 0, "paypal")
    with pytest.raises(NameTaken):
        await service.take_seat(game, 1, "p\u0430ypal")
    assert await service.store.version(game) == seated.version
    await service.take_seat(game, 1, "\U0001f469\U0001f3fd\u200d\U0001f4bb")
