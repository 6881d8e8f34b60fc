"""Who a client is, for the rate limit: a verified seat token, else its address as seen through
the configured trusted proxies only. Each test replays an attack against a real server.

Each test has its own client address, written by the (trusted) loopback "proxy" as the
rightmost ``X-Forwarded-For`` hop, so that counters of other tests never mix with its own.
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

import httpx
import pytest
from support import ServerProcess, bearer, problem_of, start_server

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

LIMIT = 20


def some_address() -> str:
    return f"198.18.{random.randrange(256)}.{random.randrange(1, 255)}"


def via_proxy(client_address: str, written_by_client: str | None = None) -> dict[str, str]:
    """Headers as nginx's ``$proxy_add_x_forwarded_for`` sends them: whatever the client wrote
    first, then the address nginx saw."""
    hops = [written_by_client, client_address] if written_by_client else [client_address]
    return {"X-Forwarded-For": ", ".join(hops)}


@pytest.fixture
async def limited(redis_url: str, tmp_path: Path) -> AsyncIterator[ServerProcess]:
    """A server with a write limit of 20 an hour, behind a trusted proxy on loopback (and
    uvicorn's own ``FORWARDED_ALLOW_IPS=*`` in its environment, which must change nothing)."""
    process = await start_server(
        redis_url,
        tmp_path,
        {
            "ALLFOURS_RATE_LIMIT": str(LIMIT),
            "ALLFOURS_RATE_WINDOW_S": "3600",
            "ALLFOURS_TRUSTED_PROXIES": "127.0.0.1",
            "ALLFOURS_TABLES_PER_HOUR": "0",
            # What the compose file set: uvicorn believed every hop then, the leftmost first.
            "FORWARDED_ALLOW_IPS": "*",
        },
    )
    yield process
    assert await process.stop() == 0, process.log_tail()


async def statuses(
    client: httpx.AsyncClient, n: int, headers: Mapping[str, str] | None = None
) -> Counter[int]:
    seen: Counter[int] = Counter()
    for _ in range(n):
        response = await client.post("/v1/games", json={}, headers=dict(headers or {}))
        seen[response.status_code] += 1
        if response.status_code == 429:
            problem_of(response, 429, "rate_limited")
            assert int(response.headers["retry-after"]) >= 1
    return seen


async def test_made_up_bearer_tokens_are_counted_by_address(limited: ServerProcess) -> None:
    """The issue's attack: 40 creations, each with its own ``Bearer x.0.<random>``, all got 201
    under a limit of 20."""
    address = some_address()
    async with httpx.AsyncClient(base_url=limited.url, timeout=10.0) as client:
        seen: Counter[int] = Counter()
        for _ in range(2 * LIMIT):
            headers = {**via_proxy(address), **bearer(f"x.0.{secrets.token_urlsafe(16)}")}
            response = await client.post("/v1/games", json={}, headers=headers)
            seen[response.status_code] += 1
        assert seen == {201: LIMIT, 429: LIMIT}, seen


async def test_the_client_written_forwarded_address_is_not_believed(
    limited: ServerProcess,
) -> None:
    """Behind nginx, the leftmost ``X-Forwarded-For`` address is the client's own writing: a
    new one per request must not buy a new allowance."""
    address = some_address()
    async with httpx.AsyncClient(base_url=limited.url, timeout=10.0) as client:
        seen: Counter[int] = Counter()
        for _ in range(2 * LIMIT):
            response = await client.post(
                "/v1/games", json={}, headers=via_proxy(address, some_address())
            )
            seen[response.status_code] += 1
        assert seen == {201: LIMIT, 429: LIMIT}, seen
        # Another client behind the same proxy has its own allowance.
        other = await client.post("/v1/games", json={}, headers=via_proxy(some_address()))
        assert other.status_code == 201, other.text


async def test_untrusted_peers_cannot_name_their_address(redis_url: str, tmp_path: Path) -> None:
    """Without trusted proxies (the default) ``X-Forwarded-For`` means nothing: the peer is the
    client, whatever it writes."""
    window = str(3_000 + random.randrange(500))  # a window of our own: a counter of our own
    server = await start_server(
        redis_url,
        tmp_path,
        {"ALLFOURS_RATE_LIMIT": "3", "ALLFOURS_RATE_WINDOW_S": window},
    )
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=10.0) as client:
            seen: Counter[int] = Counter()
            for _ in range(6):
                response = await client.post(
                    "/v1/games", json={}, headers=via_proxy(some_address())
                )
                seen[response.status_code] += 1
            assert seen[201] <= 3 and seen[429] >= 3, seen
    finally:
        assert await server.stop() == 0, server.log_tail()


async def test_a_verified_seat_token_is_its_own_client(limited: ServerProcess) -> None:
    """Four players behind one address are four clients, once their tokens are checked: a
    seat's writes are counted on its own, and its token spends nothing of the address's."""
    address = some_address()
    proxy = via_proxy(address)
    async with httpx.AsyncClient(base_url=limited.url, timeout=10.0) as client:
        created = await client.post("/v1/games", json={}, headers=proxy)
        assert created.status_code == 201, created.text
        game = created.json()["game_id"]
        seated = await client.post(f"/v1/games/{game}/seats/0", json={"name": "Ann"}, headers=proxy)
        assert seated.status_code == 201, seated.text
        token = seated.json()["token"]
        # Use up the address's allowance (two writes were counted already).
        assert await statuses(client, LIMIT - 2, proxy) == {201: LIMIT - 2}
        assert await statuses(client, 1, proxy) == {429: 1}
        # The seat still writes: its token is verified, and counted on its own.
        command = f"/v1/games/{game}/seats/0/commands"
        seen: Counter[int] = Counter()
        for _ in range(LIMIT + 1):
            response = await client.post(
                command, json={"type": "stand"}, headers={**proxy, **bearer(token)}
            )
            seen[response.status_code] += 1
        assert seen == {409: LIMIT, 429: 1}, seen  # refused by the rules, but counted
        # A token for the same seat that is not the stored one counts as the address (spent).
        forged = await client.post(
            command, json={"type": "stand"}, headers={**proxy, **bearer(f"{game}.1.forged")}
        )
        problem_of(forged, 429, "rate_limited")


async def test_a_verified_player_key_is_its_own_client(limited: ServerProcess) -> None:
    """A player's writes count against the player, not the address; a made-up key of the
    right shape is counted by address like any other unproved credential."""
    address = some_address()
    proxy = via_proxy(address)
    async with httpx.AsyncClient(base_url=limited.url, timeout=10.0) as client:
        made = await client.post("/v1/players", json={"name": "Counted"}, headers=proxy)
        assert made.status_code == 201, made.text
        key, player_id = made.json()["key"], made.json()["player_id"]
        assert await statuses(client, LIMIT - 1, proxy) == {201: LIMIT - 1}
        assert await statuses(client, 1, proxy) == {429: 1}  # the address is spent
        renames: Counter[int] = Counter()
        for n in range(LIMIT + 1):
            response = await client.patch(
                "/v1/players/me", json={"name": f"Counted {n}"}, headers={**proxy, **bearer(key)}
            )
            renames[response.status_code] += 1
        assert renames == {200: LIMIT, 429: 1}, renames  # the player's own allowance, spent
        forged = await client.patch(
            "/v1/players/me",
            json={"name": "Forger"},
            headers={**proxy, **bearer(f"{player_id}.player.{'F' * 43}")},
        )
        problem_of(forged, 429, "rate_limited")  # counted by the (spent) address


async def test_player_identities_have_an_hourly_quota_per_address(
    redis_url: str, tmp_path: Path
) -> None:
    server = await start_server(
        redis_url,
        tmp_path,
        {
            "ALLFOURS_PLAYERS_PER_HOUR": "2",
            "ALLFOURS_RATE_LIMIT": "100000",
            "ALLFOURS_TRUSTED_PROXIES": "127.0.0.1",
        },
    )
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=10.0) as client:
            proxy = via_proxy(some_address())
            refused = await client.post("/v1/players", json={"name": " padded"}, headers=proxy)
            problem_of(refused, 400, "invalid_name")  # refused: not counted
            for n in range(2):
                made = await client.post("/v1/players", json={"name": f"Q{n}"}, headers=proxy)
                assert made.status_code == 201, made.text
            over = await client.post("/v1/players", json={"name": "Q2"}, headers=proxy)
            problem_of(over, 429, "quota_exceeded")
            assert "key" not in over.json()
            other = await client.post(
                "/v1/players", json={"name": "Q3"}, headers=via_proxy(some_address())
            )
            assert other.status_code == 201, other.text
    finally:
        assert await server.stop() == 0, server.log_tail()
