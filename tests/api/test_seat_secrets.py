"""What a seat's secrets do not hand out (outside reviewers' findings, stop 29): one player
key holds one seat of a table, never two hands; a token whose person left gets no hints; a
forged token naming another seat gets the same 401 as every forgery; a refusal never repeats
the query (a ``?token=`` in it); the keys that hand out tokens are long enough not to be
guessed; and a seating retried after its token was replaced gets no dead token."""

from __future__ import annotations

import re
import uuid
from typing import Any

import httpx
import pytest
from support import bearer, create_game, problem_of, seat_command, take_seat, view_of
from test_players import new_player, seat_with_key

from domain import CODES

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


async def test_one_player_key_holds_one_seat_of_a_table(client: httpx.AsyncClient) -> None:
    ann = await new_player(client, "Ann")
    game = (await create_game(client, [None, None, "random", "random"], turn_seconds=None))[
        "game_id"
    ]
    seated = await seat_with_key(client, game, 0, ann)
    assert seated.status_code == 201, seated.text
    before = await view_of(client, game)
    second = await seat_with_key(client, game, 1, {**ann, "name": "Ann Two"})
    problem_of(second, 409, "already_seated")
    after = await view_of(client, game)
    assert after["version"] == before["version"] and after["seats"][1]["name"] is None
    # Someone else takes seat 1 and leaves it: its takeover is open to anyone but Ann, who
    # would see both hands (hers, and the opponent's the bot now plays).
    bo = await take_seat(client, game, 1, "Bo")
    left = await client.post(
        f"/v1/games/{game}/seats/1/commands", json={"type": "leave"}, headers=bearer(bo)
    )
    assert left.status_code == 200, left.text
    takeover = await seat_with_key(client, game, 1, {**ann, "name": "Ann Two"})
    problem_of(takeover, 409, "already_seated")
    assert (await view_of(client, game))["seats"][1]["left"] is True
    # Her own seat, once left, is hers to take back; and only that one.
    token = seated.json()["token"]
    mine = await client.post(
        f"/v1/games/{game}/seats/0/commands", json={"type": "leave"}, headers=bearer(token)
    )
    assert mine.status_code == 200, mine.text
    problem_of(
        await seat_with_key(client, game, 1, {**ann, "name": "Ann Two"}), 409, "already_seated"
    )
    back = await seat_with_key(client, game, 0, ann)
    assert back.status_code == 201, back.text
    assert (await view_of(client, game, back.json()["token"]))["viewer"] == 0


async def test_a_token_whose_person_left_gets_no_hints(client: httpx.AsyncClient) -> None:
    game = (await create_game(client, [None, "random", "random", "random"], turn_seconds=None))[
        "game_id"
    ]
    token = await take_seat(client, game, 0, "Cy")
    hints = f"/v1/games/{game}/seats/0/hints"
    assert (await client.get(hints, headers=bearer(token))).status_code == 200
    left = await client.post(
        f"/v1/games/{game}/seats/0/commands", json={"type": "leave"}, headers=bearer(token)
    )
    assert left.status_code == 200, left.text
    refused = await client.get(hints, headers=bearer(token))
    problem_of(refused, 409, "not_a_person")
    assert '"card"' not in refused.text and "hints" not in refused.json()


async def test_a_seat_token_of_the_table_itself_is_no_claim_to_a_seat(
    client: httpx.AsyncClient,
) -> None:
    """Taking a seat with a token of the same table (which takeSeat reads as a claim to a
    rematch seat): a token whose seat was taken over hears the 401 it hears everywhere, a live
    one that it holds a seat here already; neither "this table is no rematch", as before."""
    game = (await create_game(client, [None, None, "random", "random"], turn_seconds=None))[
        "game_id"
    ]
    bob = await take_seat(client, game, 1, "Bob")
    await take_seat(client, game, 0, "Ann")
    await seat_command(client, game, 1, "leave", bob)
    carl = await take_seat(client, game, 1, "Carl")  # takes Bob's seat over
    before = (await view_of(client, game))["version"]
    again = await client.post(
        f"/v1/games/{game}/seats/1", json={"name": "Bob"}, headers=bearer(bob)
    )
    assert "rematch" not in problem_of(again, 401, "unauthorized")["detail"]
    forged = carl[:-4] + ("AAAA" if not carl.endswith("AAAA") else "BBBB")
    guessed = await client.post(
        f"/v1/games/{game}/seats/1", json={"name": "Eve"}, headers=bearer(forged)
    )
    assert problem_of(guessed, 401, "unauthorized")["detail"] == "unknown seat token"
    live = await client.post(
        f"/v1/games/{game}/seats/1", json={"name": "Carl"}, headers=bearer(carl)
    )
    assert "holds a seat of this table" in problem_of(live, 403, "forbidden")["detail"]
    assert (await view_of(client, game))["version"] == before  # neither changed anything


async def test_a_token_whose_seat_was_left_before_the_start_is_told_so(
    client: httpx.AsyncClient,
) -> None:
    """Taking a seat with the token of one left before the start (the seat empty since) was
    told "this token holds a seat of this table already" (an outside trial): it was left."""
    game = (await create_game(client, [None, None, "random", "random"], turn_seconds=None))[
        "game_id"
    ]
    ann = await take_seat(client, game, 0, "Ann")
    await seat_command(client, game, 0, "leave", ann)
    before = (await view_of(client, game))["version"]
    again = await client.post(
        f"/v1/games/{game}/seats/0", json={"name": "Ann"}, headers=bearer(ann)
    )
    assert problem_of(again, 403, "forbidden")["detail"] == (
        "this token's seat was left: take a seat without it"
    )
    assert (await view_of(client, game))["version"] == before


async def test_a_forged_token_for_another_seat_is_told_only_that_it_is_forged(
    client: httpx.AsyncClient,
) -> None:
    """A token naming seat 1 sent for seat 0: a true one hears it is for another seat (403),
    a forged one the 401 every forgery gets, never which seat it named."""
    game = (await create_game(client, [None, None, "random", "random"]))["game_id"]
    tokens = [await take_seat(client, game, seat, name) for seat, name in ((0, "Dee"), (1, "Eli"))]
    forged = tokens[1][:-4] + ("AAAA" if not tokens[1].endswith("AAAA") else "BBBB")
    for method, path, body in [
        ("POST", f"/v1/games/{game}/seats/0/commands", {"type": "stand"}),
        ("GET", f"/v1/games/{game}/seats/0/hints", None),
    ]:
        answer = await client.request(method, path, json=body, headers=bearer(forged))
        problem = problem_of(answer, 401, "unauthorized")
        assert "seat 1" not in problem["detail"]
        true = await client.request(method, path, json=body, headers=bearer(tokens[1]))
        assert "seat 1" in problem_of(true, 403, "forbidden")["detail"]


async def test_a_refusal_never_repeats_the_query(client: httpx.AsyncClient) -> None:
    game = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
    token = await take_seat(client, game, 0, "Flo")
    for path in (f"/v1/games/{game}/events", f"/v1/games/{game}/stream"):
        answer = await client.get(path, params={"token": token, "after": "not-a-number"})
        problem = problem_of(answer, 400, "invalid_request")
        assert token not in answer.text and "token=" not in answer.text
        assert problem["detail"] == "after is a whole number in ASCII digits", path


async def test_an_empty_token_parameter_is_refused_not_read_as_a_spectator(
    client: httpx.AsyncClient,
) -> None:
    """``?token=`` with nothing in it is a client that meant a seat and sent none: 401 (it
    was answered as a spectator, which hid the client's bug)."""
    game = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
    for path in (f"/v1/games/{game}", f"/v1/games/{game}/events", f"/v1/games/{game}/stream"):
        problem_of(await client.get(path, params={"token": ""}), 401, "unauthorized")
    assert (await client.get(f"/v1/games/{game}")).status_code == 200  # no parameter: watch


@pytest.mark.parametrize("short", ["k", "0123456789abcde"])
async def test_keys_that_hand_out_tokens_must_be_long(
    client: httpx.AsyncClient, short: str
) -> None:
    """A creation's or a seating's key returns its token to whoever sends it again: one a
    stranger could guess is refused, and nothing is made."""
    key = {"Idempotency-Key": short}
    open_before = (await client.get("/v1/games?status=open&limit=100")).json()["games"]
    problem_of(await client.post("/v1/games", json={}, headers=key), 400, "invalid_request")
    open_after = (await client.get("/v1/games?status=open&limit=100")).json()["games"]
    assert open_after == open_before
    game = (await create_game(client, [None, None, None, None]))["game_id"]
    seating = await client.post(f"/v1/games/{game}/seats/0", json={"name": "Gus"}, headers=key)
    problem_of(seating, 400, "invalid_request")
    assert (await view_of(client, game))["seats"][0]["name"] is None
    long_enough = {"Idempotency-Key": short + "x" * (16 - len(short))}
    assert (await client.post("/v1/games", json={}, headers=long_enough)).status_code == 201
    assert (
        await client.post(f"/v1/games/{game}/seats/0", json={"name": "Gus"}, headers=long_enough)
    ).status_code == 201


async def test_a_seating_retried_after_a_reissue_gets_no_dead_token(
    client: httpx.AsyncClient,
) -> None:
    hal = await new_player(client, "Hal")
    game = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
    headers = {**bearer(hal["key"]), "Idempotency-Key": f"seat-{uuid.uuid4()}"}
    body: dict[str, Any] = {"name": "Hal"}
    first = await client.post(f"/v1/games/{game}/seats/0", json=body, headers=headers)
    assert first.status_code == 201, first.text
    again = await client.post(f"/v1/games/{game}/seats/0", json=body, headers=headers)
    assert again.json() == {**first.json(), "duplicate": True}
    reissued = await client.post(f"/v1/games/{game}/seats/0/token", headers=bearer(hal["key"]))
    assert reissued.status_code == 201, reissued.text
    late = await client.post(f"/v1/games/{game}/seats/0", json=body, headers=headers)
    problem_of(late, 409, "seat_taken")
    assert first.json()["token"] not in late.text
    assert (await view_of(client, game, reissued.json()["token"]))["viewer"] == 0


def _command_counts(metrics: str) -> dict[str, float]:
    """``allfours_commands_total`` by its labels, from the exposition text."""
    found = re.findall(r"^allfours_commands_total\{([^}]*)\} ([0-9.e+]+)$", metrics, re.M)
    return {labels: float(value) for labels, value in found}


async def test_a_forged_tokens_commands_are_not_decided(client: httpx.AsyncClient) -> None:
    """Every card played with a forged token of the seat to act is 401 and is counted only as
    unauthorized: decided first, the rules' verdicts (card_not_in_hand, must_follow_suit, a
    legal card going on to the bots' replies) told the seat's hand card by card through
    /metrics and the answer's time (an outside reviewer read a whole hand so)."""
    game = (await create_game(client, [None, "random", "random", "random"], turn_seconds=None))[
        "game_id"
    ]
    token = await take_seat(client, game, 0, "Ivy")
    view = await view_of(client, game, token)
    while view["to_act"] != 0 or view["phase"] != "playing":
        action = next(a for a in view["legal_actions"] if a["type"] in ("stand", "give_one"))
        sent = await client.post(
            f"/v1/games/{game}/seats/0/commands",
            json={k: v for k, v in action.items() if k != "seat"},
            headers=bearer(token),
        )
        assert sent.status_code == 200, sent.text
        view = sent.json()["view"]
    forged = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    before = _command_counts((await client.get("/metrics")).text)
    for card in CODES:
        answer = await client.post(
            f"/v1/games/{game}/seats/0/commands",
            json={"type": "play", "card": card},
            headers=bearer(forged),
        )
        problem_of(answer, 401, "unauthorized")
    after = _command_counts((await client.get("/metrics")).text)
    changed = {k: after[k] - before.get(k, 0.0) for k in after if after[k] != before.get(k)}
    assert changed == {'outcome="unauthorized",type="play"': 52.0}, changed
    assert (await view_of(client, game, token))["version"] == view["version"]


async def test_a_private_games_rematch_is_private_too(client: httpx.AsyncClient) -> None:
    """The rematch of a private table is unlisted and seats strangers only with its own
    invitation; its old people claim their seats without one (an outside reviewer found the
    rematch public: any stranger could sit once the seats' hold ran out)."""
    made = (
        await client.post(
            "/v1/games", json={"private": True, "bots": [None, "random", "random", "random"]}
        )
    ).json()
    game, invite = made["game_id"], made["invite"]
    seated = await client.post(f"/v1/games/{game}/seats/0", json={"name": "Jo", "invite": invite})
    token = seated.json()["token"]
    resigned = await client.post(
        f"/v1/games/{game}/seats/0/commands", json={"type": "resign"}, headers=bearer(token)
    )
    assert resigned.status_code == 200, resigned.text
    rematch = await client.post(f"/v1/games/{game}/rematch", json={}, headers=bearer(token))
    assert rematch.status_code == 201, rematch.text
    again = await client.post(f"/v1/games/{game}/rematch", json={}, headers=bearer(token))
    new, new_invite = rematch.json()["game_id"], rematch.json()["invite"]
    assert new_invite.startswith(f"{new}.invite.") and new_invite != invite
    assert again.json()["invite"] == new_invite and again.json()["game_id"] == new
    listed = (await client.get("/v1/games?status=open&limit=100")).json()["games"]
    assert new not in [g["game_id"] for g in listed]
    stranger = await client.post(f"/v1/games/{new}/seats/0", json={"name": "Stranger"})
    problem_of(stranger, 403, "forbidden")
    wrong = await client.post(
        f"/v1/games/{new}/seats/0", json={"name": "Stranger", "invite": invite}
    )
    problem_of(wrong, 403, "forbidden")  # the old table's invitation opens only the old table
    claimed = await client.post(
        f"/v1/games/{new}/seats/0", json={"name": "Jo"}, headers=bearer(token)
    )
    assert claimed.status_code == 201, claimed.text
