"""The seat-name policy through the real HTTP API: names from phones are seated as typed,
refused names get 400 ``invalid_name`` with a reason in words and change nothing, and a
lookalike of a seated name gets 409 ``name_taken``.

Escapes stand for the characters that are invisible or pass for others (``\\u0430`` is the
Cyrillic a, ``\\u0391`` the Greek capital alpha)."""

from __future__ import annotations

import httpx
import pytest
from support import create_game, problem_of, take_seat

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

PHONE_NAMES = [
    "Zo\u00eb \u2764\ufe0f",
    "\U0001f469\U0001f3fd\u200d\U0001f4bb",
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian, with a ZWNJ
    "\u0915\u094d\u200d\u0937 \u0915\u094d\u200c\u0937",  # Hindi, ZWJ and ZWNJ after viramas
    "Zoe\u0308",  # decomposed
]

REFUSED = [
    ("\u202eennA", "a name may not hold a right-to-left override (U+202E)"),
    ("A\u2066nn", "a name may not hold a left-to-right isolate (U+2066)"),
    ("\u200b", "a name may not hold a zero width space (U+200B)"),
    (
        "\u200dAnn",
        "a name may hold a zero width joiner (U+200D) only between two emoji or next to a virama",
    ),
    ("Z" + "\u0301" * 10, "a name may not hold more than 4 combining marks on one letter"),
    ("\u3164", "a name may not hold a hangul filler (U+3164)"),
    (" Ann", "a name may not begin or end with a space"),
]

LOOKALIKES = [
    ("ann", "\u0430nn"),  # a Cyrillic a
    ("ann", "\u0391\u039d\u039d"),  # Greek capitals
    ("paypal", "p\u0430ypal"),
]


async def test_names_from_phones_are_seated_as_typed(client: httpx.AsyncClient) -> None:
    for name in PHONE_NAMES:
        game_id = (await create_game(client, [None, None, None, None]))["game_id"]
        await take_seat(client, game_id, 0, name)
        seats = (await client.get(f"/v1/games/{game_id}")).json()["seats"]
        assert seats[0]["name"] == name


@pytest.mark.parametrize(("name", "detail"), REFUSED)
async def test_a_refused_name_is_a_worded_400_that_changes_nothing(
    client: httpx.AsyncClient, name: str, detail: str
) -> None:
    game_id = (await create_game(client, [None, None, None, None]))["game_id"]
    before = (await client.get(f"/v1/games/{game_id}")).json()
    response = await client.post(
        f"/v1/games/{game_id}/seats/0",
        json={"name": name},
        headers={"Idempotency-Key": "name-policy-key-0123456789"},
    )
    assert problem_of(response, 400, "invalid_name")["detail"] == detail
    after = (await client.get(f"/v1/games/{game_id}")).json()
    assert after["version"] == before["version"] and after["seats"][0]["name"] is None


async def test_length_is_bounded_by_the_request_model(client: httpx.AsyncClient) -> None:
    game_id = (await create_game(client, [None, None, None, None]))["game_id"]
    for name in ("", "x" * 41):
        response = await client.post(f"/v1/games/{game_id}/seats/0", json={"name": name})
        problem_of(response, 400, "invalid_request")
    await take_seat(client, game_id, 0, "x" * 40)


@pytest.mark.parametrize(("seated", "lookalike"), LOOKALIKES)
async def test_a_lookalike_of_a_seated_name_is_taken(
    client: httpx.AsyncClient, seated: str, lookalike: str
) -> None:
    game_id = (await create_game(client, [None, None, None, None]))["game_id"]
    await take_seat(client, game_id, 0, seated)
    version = (await client.get(f"/v1/games/{game_id}")).json()["version"]
    response = await client.post(f"/v1/games/{game_id}/seats/1", json={"name": lookalike})
    problem_of(response, 409, "name_taken")
    assert (await client.get(f"/v1/games/{game_id}")).json()["version"] == version
    # Either way round: the lookalike seated first keeps the plain name out.
    other = (await create_game(client, [None, None, None, None]))["game_id"]
    await take_seat(client, other, 2, lookalike)
    response = await client.post(f"/v1/games/{other}/seats/3", json={"name": seated})
    problem_of(response, 409, "name_taken")
