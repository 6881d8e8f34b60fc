"""A request without a seat's token learns nothing a spectator could not: checked at every
stored state of a whole game, on every endpoint, with every kind of false token.

Four people play a game over HTTP with guessable ``Idempotency-Key``s (``k1``, ``k2``, ...,
like the README's loop), and seat 0 changes hands half-way (its person steps away and a watcher
takes it over). After every command an attacker replays what the seats sent (their keys with
their bodies, their keys with other bodies, no key at all) with a forged token, the old
holder's stale one, another seat's and no token, and also reads, streams, asks for a rematch,
seats a bot and closes the table. Every answer must be a refusal that names no key, card or
move, must change nothing, and goes through the leak checker as a spectator's at that version.
A genuine retry, meanwhile, still gets its first outcome: the events it stored and the view of
the state they made, not a later one.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from support import (
    LeakChecker,
    bearer,
    command_body,
    create_game,
    problem_of,
    replay_of,
    take_seat,
    view_of,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

REFUSALS = {401: "unauthorized", 403: "forbidden"}


@dataclass
class Sent:
    seat: int
    key: str
    body: dict[str, Any]
    answer: dict[str, Any]


@dataclass
class Table:
    game: str
    creator: str
    tokens: dict[int, str]
    stale: dict[int, str] = field(default_factory=dict)
    """Tokens that held a seat once and no longer do."""
    sent: list[Sent] = field(default_factory=list)


def forged(game: str, seat: int | str) -> str:
    return f"{game}.{seat}.{'A' * 43}"


def refused(response: httpx.Response) -> None:
    """A refusal for the token alone: 401 or 403, and nothing in it but that."""
    assert response.status_code in REFUSALS, (response.status_code, response.text)
    problem = problem_of(response, response.status_code, REFUSALS[response.status_code])
    assert set(problem) <= {"type", "title", "status", "code", "detail", "instance"}
    detail = problem["detail"].lower()
    assert not any(word in detail for word in ("key", "version", "turn", "card", "phase"))


async def attack(client: httpx.AsyncClient, table: Table, leaks: LeakChecker) -> None:
    """Everything a client without the seat's token might try, at the game's current version."""
    game = table.game
    before = await view_of(client, game)
    version = before["version"]
    answers: list[httpx.Response] = []
    for seat in range(4):
        url = f"/v1/games/{game}/seats/{seat}/commands"
        mine = [s for s in table.sent if s.seat == seat][-4:]  # the latest keys, the likeliest
        # Tokens that prove nothing at all (another seat's proves that seat: good for reads).
        false_tokens = [forged(game, seat), forged("other", seat)]
        false_tokens += [table.stale[seat]] if seat in table.stale else []
        for token in [*false_tokens, table.tokens[(seat + 1) % 4]]:
            auth = bearer(token)
            for earlier in mine:
                replay = {**auth, "Idempotency-Key": earlier.key}
                answers.append(await client.post(url, json=earlier.body, headers=replay))
                other = {"type": "stand"} if earlier.body != {"type": "stand"} else {"type": "beg"}
                answers.append(await client.post(url, json=other, headers=replay))
            answers.append(await client.post(url, json={"type": "step_away"}, headers=auth))
        for token in false_tokens:
            auth = bearer(token)
            answers.append(await client.get(f"/v1/games/{game}", headers=auth))
            answers.append(await client.get(f"/v1/games/{game}/events", headers=auth))
            answers.append(await client.get(f"/v1/games/{game}/stream", headers=auth))
            answers.append(await client.post(f"/v1/games/{game}/rematch", headers=auth))
            answers.append(
                await client.post(f"/v1/games/{game}/seats/{seat}/bot", json={}, headers=auth)
            )
        answers.append(await client.post(url, json={"type": "stand"}))  # no token at all
    creator = bearer(forged(game, "creator"))
    answers.append(await client.post(f"/v1/games/{game}/abort", headers=creator))
    answers.append(await client.post(f"/v1/games/{game}/seats/1/bot", json={}, headers=creator))
    for response in answers:
        refused(response)
        leaks.record(None, version, response.text, f"refusal of {response.request.url.path}")
    assert (await view_of(client, game))["version"] == version, "a refused request wrote"


async def send(client: httpx.AsyncClient, table: Table, seat: int, rng: random.Random) -> Sent:
    view = await view_of(client, table.game, table.tokens[seat])
    body = command_body(rng.choice(view["legal_actions"]))
    key = f"k{len(table.sent) + 1}"  # guessable on purpose
    response = await client.post(
        f"/v1/games/{table.game}/seats/{seat}/commands",
        json=body,
        headers={**bearer(table.tokens[seat]), "Idempotency-Key": key},
    )
    assert response.status_code == 200, response.text
    answer = response.json()
    assert not answer["duplicate"]
    sent = Sent(seat, key, body, answer)
    table.sent.append(sent)
    return sent


async def test_no_false_token_learns_anything_at_any_state_of_a_game(
    client: httpx.AsyncClient,
) -> None:
    rng = random.Random(19)
    created = await create_game(client, [None, None, None, None], target=5, turn_seconds=None)
    game = created["game_id"]
    tokens = {seat: await take_seat(client, game, seat, f"p{seat}") for seat in range(4)}
    table = Table(game, created["creator_token"], tokens)
    leaks = LeakChecker()
    await attack(client, table, leaks)
    taken_over = False
    for _ in range(400):
        spectator = await view_of(client, game)
        if spectator["phase"] == "ended":
            break
        await send(client, table, spectator["to_act"], rng)
        await attack(client, table, leaks)
        if not taken_over and len(table.sent) >= 12:
            # Seat 0 changes hands: its person steps away, a watcher takes the seat over.
            away = await client.post(
                f"/v1/games/{game}/seats/0/commands",
                json={"type": "step_away"},
                headers=bearer(tokens[0]),
            )
            assert away.status_code == 200, away.text
            table.stale[0] = tokens[0]
            tokens[0] = await take_seat(client, game, 0, "watcher")
            taken_over = True
            await attack(client, table, leaks)
    assert taken_over and (await view_of(client, game))["phase"] == "ended"
    _, full_log = await replay_of(client, game)
    assert leaks.violations(full_log) == []


async def test_a_retry_gets_what_was_recorded_and_a_successor_gets_a_fresh_decision(
    client: httpx.AsyncClient,
) -> None:
    rng = random.Random(7)
    created = await create_game(client, [None, None, None, None], turn_seconds=None)
    game = created["game_id"]
    tokens = {seat: await take_seat(client, game, seat, f"p{seat}") for seat in range(4)}
    table = Table(game, created["creator_token"], tokens)
    first = await send(client, table, (await view_of(client, game))["to_act"], rng)
    for _ in range(6):  # the game moves on
        await send(client, table, (await view_of(client, game))["to_act"], rng)
    retry = await client.post(
        f"/v1/games/{game}/seats/{first.seat}/commands",
        json=first.body,
        headers={**bearer(tokens[first.seat]), "Idempotency-Key": first.key},
    )
    assert retry.status_code == 200, retry.text
    again = retry.json()
    assert again["duplicate"] is True
    assert again["events"] == first.answer["events"]
    assert again["view"] == first.answer["view"], "a duplicate shows the state it made, no later"

    # The seat changes hands; the newcomer happens to send the old holder's key and body.
    seat = first.seat
    away = await client.post(
        f"/v1/games/{game}/seats/{seat}/commands",
        json={"type": "step_away"},
        headers=bearer(tokens[seat]),
    )
    assert away.status_code == 200, away.text
    old = tokens[seat]
    tokens[seat] = await take_seat(client, game, seat, "newcomer")
    successor = await client.post(
        f"/v1/games/{game}/seats/{seat}/commands",
        json=first.body,
        headers={**bearer(tokens[seat]), "Idempotency-Key": first.key},
    )
    # Decided afresh for the newcomer (the old move may not even be legal now): never the old
    # holder's answer.
    assert successor.status_code in (200, 409), successor.text
    if successor.status_code == 200:
        assert successor.json()["duplicate"] is False
    # The old holder's own retry is refused: its token no longer holds the seat.
    stale = await client.post(
        f"/v1/games/{game}/seats/{seat}/commands",
        json=first.body,
        headers={**bearer(old), "Idempotency-Key": first.key},
    )
    refused(stale)


async def test_a_duplicate_of_a_rule_refusal_is_refused_to_a_false_token_too(
    client: httpx.AsyncClient,
) -> None:
    """The holder's retry of a move the game refuses now (the card is gone) is its duplicate;
    the same request with a forged token is a 401, not that duplicate nor the rule's 409."""
    rng = random.Random(3)
    created = await create_game(client, [None, None, None, None], turn_seconds=None)
    game = created["game_id"]
    tokens = {seat: await take_seat(client, game, seat, f"p{seat}") for seat in range(4)}
    table = Table(game, created["creator_token"], tokens)
    while True:
        sent = await send(client, table, (await view_of(client, game))["to_act"], rng)
        if sent.body["type"] == "play":
            break
    url = f"/v1/games/{game}/seats/{sent.seat}/commands"
    replay = {"Idempotency-Key": sent.key}
    genuine = await client.post(
        url, json=sent.body, headers={**replay, **bearer(tokens[sent.seat])}
    )
    assert genuine.json()["duplicate"] is True
    for token in (forged(game, sent.seat), forged(game, sent.seat)[:-1] + "B"):
        response = await client.post(url, json=sent.body, headers={**replay, **bearer(token)})
        refused(response)
        assert "token" in json.loads(response.text)["detail"]
