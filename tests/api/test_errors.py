"""Every problem code a client can reach over HTTP, as RFC 9457 ``application/problem+json``;
and a refused command changes nothing."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support import (
    ServerProcess,
    bearer,
    create_game,
    drive,
    problem_of,
    start_server,
    take_seat,
    view_of,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


async def refused_changes_nothing(
    client: httpx.AsyncClient,
    game_id: str,
    seat: int,
    token: str,
    body: dict[str, Any],
    status: int,
    code: str,
) -> dict[str, Any]:
    """Send ``body`` for ``seat``; assert it is refused with ``status``/``code`` and that the
    game did not move (same version, same view for the seat)."""
    before = await view_of(client, game_id, token)
    response = await client.post(
        f"/v1/games/{game_id}/seats/{seat}/commands", json=body, headers=bearer(token)
    )
    problem = problem_of(response, status, code)
    assert problem["instance"] == f"/v1/games/{game_id}/seats/{seat}/commands"
    assert await view_of(client, game_id, token) == before, "a refused command changed the game"
    return problem


async def one_person_game(
    client: httpx.AsyncClient, **rules: Any
) -> tuple[str, str, dict[str, Any]]:
    game = (await create_game(client, [None, "heuristic", "heuristic", "heuristic"], **rules))[
        "game_id"
    ]
    token = await take_seat(client, game, 0, "ann")
    return game, token, await view_of(client, game, token)


def playing(view: dict[str, Any]) -> bool:
    return view["phase"] == "playing"


def hand_of(view: dict[str, Any]) -> list[str]:
    hand: list[str] = view["hand"]
    return hand


async def test_not_your_turn(client: httpx.AsyncClient) -> None:
    game = (await create_game(client, [None, None, "random", "random"]))["game_id"]
    tokens = {seat: await take_seat(client, game, seat, f"p{seat}") for seat in (0, 1)}
    view = await drive(client, game, tokens, playing, random.Random(1))
    assert view is not None
    waiting = 1 - view["to_act"]
    card = hand_of(await view_of(client, game, tokens[waiting]))[0]
    await refused_changes_nothing(
        client,
        game,
        waiting,
        tokens[waiting],
        {"type": "play", "card": card},
        409,
        "not_your_turn",
    )


async def test_wrong_phase(client: httpx.AsyncClient) -> None:
    game, token, _ = await one_person_game(client)
    view = await drive(client, game, {0: token}, playing, random.Random(2))
    assert view is not None
    await refused_changes_nothing(client, game, 0, token, {"type": "stand"}, 409, "wrong_phase")
    await refused_changes_nothing(client, game, 0, token, {"type": "run_pack"}, 409, "wrong_phase")


async def test_card_not_in_hand(client: httpx.AsyncClient) -> None:
    game, token, _ = await one_person_game(client)
    view = await drive(client, game, {0: token}, playing, random.Random(3))
    assert view is not None
    card = next(r + s for s in "SHDC" for r in "AKQJT98765432" if r + s not in view["hand"])
    await refused_changes_nothing(
        client, game, 0, token, {"type": "play", "card": card}, 409, "card_not_in_hand"
    )


def follow_rule_breaker(view: dict[str, Any]) -> str | None:
    """A card of the hand that breaks follow-suit now (a third suit while holding the led
    suit), if there is one."""
    if view["phase"] != "playing" or not view["trick"]:
        return None
    led, trump = view["trick"][0]["card"][1], view["trump"]
    hand = hand_of(view)
    if led == trump or not any(card[1] == led for card in hand):
        return None
    return next((card for card in hand if card[1] not in (led, trump)), None)


async def test_must_follow_suit(client: httpx.AsyncClient) -> None:
    rng = random.Random(5)
    for _ in range(10):  # each game has many chances; ten games make a miss unthinkable
        game, token, _ = await one_person_game(client)
        view = await drive(client, game, {0: token}, lambda v: bool(follow_rule_breaker(v)), rng)
        if view is None:
            continue
        card = follow_rule_breaker(view)
        assert card is not None and card not in {a.get("card") for a in view["legal_actions"]}
        await refused_changes_nothing(
            client, game, 0, token, {"type": "play", "card": card}, 409, "must_follow_suit"
        )
        return
    raise AssertionError("never held the led suit and a third suit together")


def undertrump(view: dict[str, Any]) -> str | None:
    """A trump lower than the trick's highest, on a plain-suit lead, while holding other
    legal cards (refused under ``undertrump = forbidden``)."""
    if view["phase"] != "playing" or not view["trick"]:
        return None
    order = "23456789TJQKA"
    led, trump = view["trick"][0]["card"][1], view["trump"]
    played = [p["card"] for p in view["trick"] if p["card"][1] == trump]
    if led == trump or not played:
        return None
    top = max(order.index(card[0]) for card in played)
    legal = {a["card"] for a in view["legal_actions"]}
    lower = [c for c in hand_of(view) if c[1] == trump and order.index(c[0]) < top]
    if lower and lower[0] not in legal and legal:
        return lower[0]
    return None


async def test_undertrump_forbidden(client: httpx.AsyncClient) -> None:
    rng = random.Random(6)
    for _ in range(30):
        game, token, _ = await one_person_game(client, undertrump="forbidden")
        view = await drive(client, game, {0: token}, lambda v: bool(undertrump(v)), rng)
        if view is None:
            continue
        card = undertrump(view)
        assert card is not None
        await refused_changes_nothing(
            client, game, 0, token, {"type": "play", "card": card}, 409, "undertrump_forbidden"
        )
        return
    raise AssertionError("never could undertrump in thirty games")


async def test_unknown_card_is_unprocessable(client: httpx.AsyncClient) -> None:
    game, token, _ = await one_person_game(client)
    view = await drive(client, game, {0: token}, playing, random.Random(7))
    assert view is not None
    for card in ("ZZ", "as", "1S", "10H"):
        problem = await refused_changes_nothing(
            client, game, 0, token, {"type": "play", "card": card}, 422, "unknown_card"
        )
        assert card in problem["detail"]


async def test_game_over_and_replay_before_the_end(client: httpx.AsyncClient) -> None:
    game, token, view = await one_person_game(client, target=1)
    if view["phase"] != "ended":
        problem_of(await client.get(f"/v1/games/{game}/replay"), 409, "game_not_finished")
        assert await drive(client, game, {0: token}, lambda v: False, random.Random(8)) is None
    ended = await view_of(client, game, token)
    assert ended["phase"] == "ended" and ended["legal_actions"] == []
    await refused_changes_nothing(client, game, 0, token, {"type": "stand"}, 409, "game_over")
    assert (await client.get(f"/v1/games/{game}/replay")).status_code == 200


async def test_replay_before_the_end_is_not_published(client: httpx.AsyncClient) -> None:
    game, _, _ = await one_person_game(client)
    problem_of(await client.get(f"/v1/games/{game}/replay"), 409, "game_not_finished")


async def test_seat_taken_and_full_table(client: httpx.AsyncClient) -> None:
    created = await create_game(client, [None, None, None, None])
    game = created["game_id"]
    await take_seat(client, game, 0, "ann")
    response = await client.post(f"/v1/games/{game}/seats/0", json={"name": "bob"})
    problem_of(response, 409, "seat_taken")
    problem_of(
        await client.post(
            f"/v1/games/{game}/seats/0/bot",
            json={"kind": "random"},
            headers=bearer(created["creator_token"]),
        ),
        409,
        "seat_taken",
    )
    for seat in (1, 2, 3):
        await take_seat(client, game, seat, f"p{seat}")
    # A full table (the game has started): every seat is taken.
    response = await client.post(f"/v1/games/{game}/seats/1", json={"name": "x"})
    problem_of(response, 409, response.json()["code"])
    assert response.json()["code"] in {"seat_taken", "wrong_phase"}


async def test_not_found(client: httpx.AsyncClient) -> None:
    missing = "no-such-game"
    for method, path, body in (
        ("GET", f"/v1/games/{missing}", None),
        ("GET", f"/v1/games/{missing}/events", None),
        ("GET", f"/v1/games/{missing}/replay", None),
        ("GET", f"/v1/games/{missing}/stream", None),
        ("POST", f"/v1/games/{missing}/seats/0", {"name": "ann"}),
        ("GET", "/v1/nothing/here", None),
    ):
        problem_of(await client.request(method, path, json=body), 404, "not_found")
    # Seating a bot proves who asks first: nobody can, for a game that does not exist.
    seating = await client.post(f"/v1/games/{missing}/seats/0/bot", json={"kind": "random"})
    problem_of(seating, 401, "unauthorized")


async def test_invalid_requests(client: httpx.AsyncClient) -> None:
    game, token, _ = await one_person_game(client)
    commands = f"/v1/games/{game}/seats/0/commands"
    auth = {**bearer(token), "Content-Type": "application/json"}
    before = await view_of(client, game, token)
    for method, path, content in (
        ("POST", commands, b"{not json"),
        ("POST", commands, b'{"type": "fold"}'),
        ("POST", commands, b'{"type": "stand", "extra": 1}'),
        ("POST", commands, b'{"type": "stand", "expected_version": "7"}'),
        # A key given twice: which one counts is each parser's guess (msgspec took the last).
        ("POST", commands, b'{"type": "stand", "type": "beg"}'),
        ("POST", commands, b'{"type": "play", "card": "AS", "card": "KS"}'),
        ("POST", "/v1/games", b'{"rules": {"target": 11, "target": 14}}'),
        ("POST", "/v1/games", b'{"rules": {"target": 0}}'),
        ("POST", "/v1/games", b'{"rules": {"tobago_kick": 1}}'),
        ("POST", "/v1/games", b'{"bots": [null, null, null]}'),
        ("POST", "/v1/games", b'{"bots": ["random", "smart", null, null]}'),
        ("POST", f"/v1/games/{game}/seats/7", b'{"name": "ann"}'),
        # (a seat outside 0..3 never reaches the engine, whose refusal is invalid_seat)
        ("POST", f"/v1/games/{game}/seats/4/commands", b'{"type": "stand"}'),
        ("POST", f"/v1/games/{game}/seats/-1/commands", b'{"type": "stand"}'),
        # Seat 0 written otherwise: one seat, one URL (int() read them all as 0).
        ("POST", f"/v1/games/{game}/seats/+0/commands", b'{"type": "stand"}'),
        ("POST", f"/v1/games/{game}/seats/00/commands", b'{"type": "stand"}'),
        ("POST", f"/v1/games/{game}/seats/%200/commands", b'{"type": "stand"}'),
        ("POST", f"/v1/games/{game}/seats/%D9%A0/commands", b'{"type": "stand"}'),
        ("POST", f"/v1/games/{game}/seats/%EF%BC%90", b'{"name": "ann"}'),
        ("GET", f"/v1/games/{game}/seats/+0/hints", b""),
        ("POST", f"/v1/games/{game}/seats/1", b'{"name": ""}'),
        ("GET", f"/v1/games/{game}/events?limit=0", b""),
        # A number in the query written otherwise: after=1e3 was read as 1000.
        ("GET", f"/v1/games/{game}/events?after=1e3", b""),
        ("GET", f"/v1/games/{game}/events?after=1.0", b""),
        ("GET", f"/v1/games/{game}/stream?after=-0", b""),
        ("GET", "/v1/games?limit=2.0", b""),
        ("GET", "/v1/leaderboard?offset=1e1", b""),
        # An id with a trailing newline (the routes' patterns end in $, which lets it by).
        ("GET", f"/v1/games/{game}%0A", b""),
        ("GET", f"/v1/games/{game}%0A/events", b""),
        ("POST", f"/v1/games/{game}%0A/seats/0/commands", b'{"type": "stand"}'),
        ("GET", "/v1/players/p0123456789abcdef%0A", b""),
        # A parameter given twice (the first counted, silently).
        ("GET", f"/v1/games/{game}/events?after=1&after=2", b""),
        ("GET", f"/v1/games/{game}?token={token}&token=x", b""),
        ("GET", "/v1/games?status=open&status=ended", b""),
        ("GET", f"/v1/games/{game}/events?after=-1", b""),
        ("GET", f"/v1/games/{game}/events?after=99999999999999999999", b""),
        ("GET", f"/v1/games/{game}/stream?after=x", b""),
        ("GET", "/v1/games?status=lost", b""),
        ("GET", "/v1/games?cursor=yesterday", b""),
        ("GET", "/v1/games/bad%7Bid%7D", b""),
    ):
        response = await client.request(method, path, content=content or None, headers=auth)
        problem_of(response, 400, "invalid_request")
    twice = [("Authorization", f"Bearer {token}"), ("Authorization", "Bearer x")]
    problem_of(await client.get(f"/v1/games/{game}", headers=twice), 400, "invalid_request")
    problem_of(
        await client.post(
            commands,
            content=b'{"type": "stand"}',
            headers=[*twice[::-1], ("Content-Type", "application/json")],
        ),
        400,
        "invalid_request",
    )
    assert await view_of(client, game, token) == before


async def test_payload_too_large(client: httpx.AsyncClient) -> None:
    game, token, _ = await one_person_game(client)
    before = await view_of(client, game, token)
    big = {"type": "stand", "padding": "x" * 20_000}  # over the default 16 KiB limit
    response = await client.post(
        f"/v1/games/{game}/seats/0/commands", json=big, headers=bearer(token)
    )
    problem_of(response, 413, "payload_too_large")
    assert await view_of(client, game, token) == before


async def test_method_not_allowed_names_the_allowed_ones(client: httpx.AsyncClient) -> None:
    response = await client.delete("/v1/games/some-game")
    problem_of(response, 405, "method_not_allowed")
    assert "GET" in response.headers["allow"]


@pytest.fixture
async def limited_server(redis_url: str, tmp_path: Path) -> AsyncIterator[ServerProcess]:
    """A server allowing three writes per client per minute, behind a "proxy" on loopback."""
    process = await start_server(
        redis_url,
        tmp_path,
        {
            "ALLFOURS_RATE_LIMIT": "3",
            "ALLFOURS_RATE_WINDOW_S": "60",
            "ALLFOURS_TRUSTED_PROXIES": "127.0.0.1",
        },
    )
    yield process
    assert await process.stop() == 0, process.log_tail()


async def test_rate_limited_writes_get_429_with_retry_after(limited_server: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=limited_server.url, timeout=10.0) as client:
        # Counted per address (a made-up token counts as its sender's address): an address of
        # our own, as the trusted proxy reports it, keeps other tests' writes out of the count.
        me = {"X-Forwarded-For": f"198.51.100.{random.randrange(1, 255)}"}
        statuses = []
        limited = None
        # A fixed window may roll over once in the middle: then up to twice the limit pass.
        for _ in range(8):
            response = await client.post("/v1/games", json={}, headers=me)
            statuses.append(response.status_code)
            if response.status_code == 429:
                limited = response
                break
        assert limited is not None, statuses
        problem = problem_of(limited, 429, "rate_limited")
        retry = int(limited.headers["retry-after"])
        assert 1 <= retry <= 60 and problem["retry_after"] == retry
        assert set(statuses[:-1]) == {201}
        # Reads are not limited.
        for _ in range(5):
            assert (await client.get("/v1/games", headers=me)).status_code == 200
