"""``sendCommand``'s lane (``server.api.routes.command_lane``): a well-formed command is
answered without the framework, and the answer, refusals included, is the route's own.

A request with an ``Origin`` header is one the lane passes on (CORS is the framework's; these
servers allow no other origin, so the header changes nothing else): each case is sent both
ways and the answers compared."""

from __future__ import annotations

import asyncio
import json
import re
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from support import ServerProcess, bearer, command_body, create_game, problem_of, take_seat

from server.api.contract.problems import RateLimited
from server.api.routes.command_lane import PATH, PATH_TEMPLATE, command_lane, headers_in_lane

ROUTE = {"Origin": "http://elsewhere.example"}
"""What makes the lane pass a request on to the route."""
COMPARED = ("content-type", "www-authenticate", "retry-after")
JSON = {"Content-Type": "application/json"}


async def _seated(client: httpx.AsyncClient) -> tuple[str, str, str]:
    """A game whose seat 0 is a person to act (three random bots): its id, path, token."""
    game = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
    token = await take_seat(client, game, 0, "ann")
    return game, f"/v1/games/{game}/seats/0/commands", token


async def _action(client: httpx.AsyncClient, game: str, token: str) -> dict[str, Any]:
    view = (await client.get(f"/v1/games/{game}", headers=bearer(token))).json()
    assert view["legal_actions"], view
    action: dict[str, Any] = view["legal_actions"][0]
    return action


async def test_a_command_is_answered_alike_by_the_lane_and_by_the_route(
    client: httpx.AsyncClient,
) -> None:
    """The same command's answer, through one and retried through the other (a duplicate):
    the same bytes but for ``duplicate``, both ways round."""
    game, path, token = await _seated(client)
    for number, (first_way, retry_way) in enumerate((({}, ROUTE), (ROUTE, {}))):
        body = command_body(await _action(client, game, token))
        key = {"Idempotency-Key": f"alike-{number}"}
        first = await client.post(path, json=body, headers={**bearer(token), **key, **first_way})
        retry = await client.post(path, json=body, headers={**bearer(token), **key, **retry_way})
        assert first.status_code == retry.status_code == 200, (first.text, retry.text)
        assert [first.headers.get(h) for h in COMPARED] == [retry.headers.get(h) for h in COMPARED]
        assert first.json()["duplicate"] is False and retry.json()["duplicate"] is True
        assert first.content.replace(b'"duplicate":false', b'"duplicate":true') == retry.content


async def test_refusals_are_the_routes_own(client: httpx.AsyncClient) -> None:
    """Every refusal (the rules', the tokens', the version's, a body's) is the same problem
    with the same headers whichever way it went, and changes nothing."""
    game, path, token = await _seated(client)
    view = (await client.get(f"/v1/games/{game}", headers=bearer(token))).json()
    held = set(view["hand"])
    absent = next(c for c in ("2C", "3C", "4C", "5C", "6C", "7C", "8C") if c not in held)
    forged = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    play = {"type": "play", "card": absent}
    refused_by_rules = "card_not_in_hand" if view["phase"] == "playing" else "wrong_phase"
    other_seat = path.replace("/seats/0/", "/seats/1/")
    own = bearer(token)
    as_json = {**own, "Content-Type": "application/json"}
    as_text = {**own, "Content-Type": "text/plain"}
    cases: list[tuple[str, dict[str, Any], int, str]] = [
        (path, {"json": play, "headers": own}, 409, refused_by_rules),
        (path, {"json": play, "headers": bearer(forged)}, 401, "unauthorized"),
        (path, {"json": play}, 401, "unauthorized"),
        (path, {"json": play, "headers": {"Authorization": f"Basic {token}"}}, 401, "unauthorized"),
        (other_seat, {"json": play, "headers": own}, 403, "forbidden"),
        (path, {"json": {**play, "expected_version": 1}, "headers": own}, 409, "version_conflict"),
        (path, {"json": {"type": "play", "card": "ZZ"}, "headers": own}, 422, "unknown_card"),
        (path, {"json": {"type": "dance"}, "headers": own}, 400, "invalid_request"),
        (path, {"content": b"{", "headers": as_json}, 400, "invalid_request"),
        (path, {"content": b"{}", "headers": as_text}, 415, "unsupported_media_type"),
    ]
    for where, request, status, code in cases:
        extra = request.pop("headers", {})
        answers = [
            await client.post(where, **request, headers={**extra, **way}) for way in ({}, ROUTE)
        ]
        for answer in answers:
            problem_of(answer, status, code)
        lane, route = answers
        assert lane.json() == route.json(), (code, lane.text, route.text)
        assert [lane.headers.get(h) for h in COMPARED] == [route.headers.get(h) for h in COMPARED]
    after = (await client.get(f"/v1/games/{game}", headers=bearer(token))).json()
    assert after["version"] == view["version"], "a refusal stored something"


async def test_the_lanes_commands_are_counted_under_the_routes_template(
    client: httpx.AsyncClient,
) -> None:
    game, path, token = await _seated(client)
    for way in ({}, ROUTE):
        body = command_body(await _action(client, game, token))
        answer = await client.post(path, json=body, headers={**bearer(token), **way})
        assert answer.status_code == 200, answer.text
    metrics = (await client.get("/metrics")).text
    labels = set(re.findall(r'path="(/v1/games/[^"]*/commands)"', metrics))
    assert labels == {PATH_TEMPLATE}, labels


async def test_a_command_whose_body_was_cut_short_stores_nothing(
    client: httpx.AsyncClient, server: ServerProcess
) -> None:
    """A client that gave up halfway through its body (a disconnect) sent no command: the
    lane hands the route what it read, cut short as it came (an outside review found the
    lane storing the part it had, a whole command if its closing brace had arrived)."""
    game, path, token = await _seated(client)
    version = (await client.get(f"/v1/games/{game}")).json()["version"]
    body = json.dumps(command_body(await _action(client, game, token))).encode()
    host, port = server.url.removeprefix("http://").split(":")
    for way in (b"", b"Origin: http://elsewhere.example\r\n"):
        reader, writer = await asyncio.open_connection(host, int(port))
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body) + 20}\r\n"
        ).encode()
        writer.write(head + way + b"\r\n" + body)
        await writer.drain()
        await asyncio.sleep(0.3)
        writer.close()
        await writer.wait_closed()
        del reader
    await asyncio.sleep(0.3)
    assert (await client.get(f"/v1/games/{game}")).json()["version"] == version


async def test_a_request_the_lane_hands_on_is_counted_once(client: httpx.AsyncClient) -> None:
    _, path, token = await _seated(client)

    async def counted() -> float:
        lines = (await client.get("/metrics")).text.splitlines()
        return sum(
            float(line.rpartition(" ")[2])
            for line in lines
            if line.startswith("litestar_requests_total{")
            and f'path="{PATH_TEMPLATE}"' in line
            and 'status_code="400"' in line
        )

    before = await counted()
    answer = await client.post(path, content=b"{", headers={**bearer(token), **JSON})
    problem_of(answer, 400, "invalid_request")
    assert await counted() == before + 1


# --- which requests the lane takes ------------------------------------------------------


def _scope(path: str = "/v1/games/g_1-A/seats/3/commands", **changes: Any) -> dict[str, Any]:
    headers = changes.pop(
        "headers",
        [
            (b"host", b"127.0.0.1:8000"),
            (b"content-type", b"application/json"),
            (b"content-length", b"16"),
            (b"authorization", b"Bearer x"),
        ],
    )
    return {
        "type": "http",
        "method": "POST",
        "path": path,
        "query_string": b"",
        "headers": headers,
        **changes,
    }


def test_the_lane_takes_a_plain_command_and_reads_its_headers() -> None:
    scope = _scope()
    match = PATH.fullmatch(scope["path"])
    assert match is not None and match.groups() == ("g_1-A", "3")
    assert headers_in_lane(scope, 1024) == dict(scope["headers"])
    charset = [(b"content-type", b"Application/JSON; charset=utf-8"), (b"content-length", b"9")]
    assert headers_in_lane(_scope(headers=charset), 1024) is not None


@pytest.mark.parametrize(
    "path",
    [
        "/v1/games/g/seats/4/commands",
        "/v1/games/g/seats/01/commands",
        "/v1/games/g/seats/0/commands/",
        "/v1/games/g.h/seats/0/commands",
    ],
)
def test_the_lane_leaves_other_paths_to_the_router(path: str) -> None:
    assert PATH.fullmatch(path) is None


@pytest.mark.parametrize(
    "changes",
    [
        {"method": "PUT"},
        {"query_string": b"token=x"},
        {"headers": [(b"content-type", b"application/json"), (b"content-length", b"0")]},
        {"headers": [(b"content-type", b"application/json"), (b"content-length", b"2048")]},
        {"headers": [(b"content-type", b"application/json"), (b"content-length", b"-1")]},
        {"headers": [(b"content-type", b"text/plain"), (b"content-length", b"9")]},
        {"headers": [(b"content-type", b"application/json"), (b"transfer-encoding", b"chunked")]},
        {"headers": [*_scope()["headers"], (b"origin", b"http://a.example")]},
        {"headers": [*_scope()["headers"], (b"authorization", b"Bearer y")]},
        {"headers": [*_scope()["headers"], (b"idempotency-key", b"")]},
        {"headers": [*_scope()["headers"], (b"idempotency-key", b"k" * 201)]},
        {"headers": [(b"host", b"bad host/"), *_scope()["headers"][1:]]},
    ],
)
def test_the_lane_passes_on_what_needs_the_framework(changes: dict[str, Any]) -> None:
    """Anything the route answers in its own words (CORS, a query, another method, a body
    of no stated length or over the limit, another media type, a header twice, a key the
    route refuses, a bad ``Host``) is not the lane's."""
    assert headers_in_lane(_scope(**changes), 1024) is None


class _Limiter:
    """A rate limit that refuses at once: the lane's refusal, told from the route's by who
    answers."""

    async def check(self, request: object) -> None:
        raise RateLimited(7)


async def test_the_lane_answers_a_command_itself_and_hands_on_what_it_read() -> None:
    """A whole command is the lane's (here refused by the rate limit); a body that is no
    command, or was cut short, goes to the route as the lane received it."""
    whole = {"type": "http.request", "body": b'{"type":"stand"}', "more_body": False}
    broken = {"type": "http.request", "body": b'{"type":"stand"', "more_body": False}
    cut = [
        {"type": "http.request", "body": b'{"type":"stand"}', "more_body": True},
        {"type": "http.disconnect"},
    ]
    for messages, answered in (([whole], True), ([broken], False), (cut, False)):
        passed_on: list[dict[str, Any]] = []
        sent: list[dict[str, Any]] = []
        pending = list(messages)

        async def route(scope: Any, receive: Any, send: Any) -> None:
            passed_on.extend([await receive() for _ in messages])

        async def receive() -> dict[str, Any]:
            return pending.pop(0)

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        app = SimpleNamespace(state=SimpleNamespace(ctx=SimpleNamespace(limiter=_Limiter())))
        scope = _scope(app=app, server=("127.0.0.1", 8000), scheme="http", root_path="")
        await command_lane(route, 1024, counted=False)(scope, receive, send)
        if answered:
            assert sent[0]["status"] == 429 and passed_on == []
            assert (b"retry-after", b"7") in sent[0]["headers"]
        else:
            assert sent == [] and passed_on == messages
