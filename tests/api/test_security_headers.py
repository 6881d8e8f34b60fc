"""Security headers on every answer, and 404s that name nothing on disk, against a real server.

Every answer, whoever writes it (a route, Litestar's 404, 405 and 413, the stream cap's 429, the
connection guards' raw refusals), must say ``nosniff``, forbid framing (``X-Frame-Options`` and
CSP ``frame-ancestors``) and send no referrer, each exactly once: the walk below covers every
operation of the spec, the pages, the static files, the docs and ``/metrics``. The pages' own
policies must still let them work: checked in a real browser, which reports any violation.
A request for a directory of the static files used to answer with its absolute path on disk.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from chromium import browser_page
from jsonschema import Draft202012Validator
from support import PROBLEM, ROOT, SSE, ServerProcess, create_game, problem_of, start_server

pytestmark = pytest.mark.e2e

SPEC: dict[str, Any] = json.loads((ROOT / "openapi" / "openapi.json").read_text())
METHODS = ("get", "post", "put", "patch", "delete")
JSON = "application/json"
INSTALL_DIR = str(Path(__file__).resolve().parents[2] / "server")
"""Where the server's files are (in a checkout; ``site-packages`` once installed)."""

OTHER_REQUESTS: list[tuple[str, str]] = [
    ("GET", "/"),
    ("GET", "/replay"),
    ("GET", "/table/x"),
    ("GET", "/replay/x"),
    ("GET", "/me"),
    ("GET", "/leaderboard"),
    ("GET", "/players/x"),
    ("GET", "/static/js/app.js"),
    ("GET", "/static/style.css"),
    ("GET", "/static/favicon.svg"),
    ("GET", "/static/js/"),
    ("GET", "/static/no-such-file.js"),
    ("GET", "/docs"),
    ("GET", "/docs/swagger"),
    ("GET", "/docs/openapi.json"),
    ("GET", "/openapi.json"),
    ("GET", "/docs/assets/docs.js"),
    ("GET", "/docs/assets/docs.css"),
    ("GET", "/docs/assets/swagger-ui/swagger-ui.css"),
    ("GET", "/docs/assets/swagger-ui/"),
    ("GET", "/docs/no-such-page"),
    ("GET", "/metrics"),
    ("GET", "/no/such/path"),
    ("POST", "/v1/no-such-thing"),
    ("DELETE", "/v1/games"),
    ("PUT", "/livez"),
    ("OPTIONS", "/v1/games"),
    ("HEAD", "/"),
    ("HEAD", "/docs"),
    ("HEAD", "/livez"),
    ("HEAD", "/static/js/app.js"),
]
"""Requests beyond the spec's operations: pages, files, docs, metrics, 404s, 405s, ``OPTIONS``
and ``HEAD``."""


def spec_requests() -> list[tuple[str, str]]:
    """Every operation of the spec, as (method, path template), and ``HEAD`` of every ``GET``."""
    operations = [
        (method.upper(), path)
        for path, item in SPEC["paths"].items()
        for method in METHODS
        if method in item
    ]
    return operations + [("HEAD", path) for method, path in operations if method == "GET"]


def assert_secured(response: httpx.Response) -> None:
    """The security headers, each once; a page's policy lets it run its own scripts."""
    where = f"{response.request.method} {response.request.url.path} ({response.status_code})"
    headers = response.headers
    assert headers.get_list("x-content-type-options") == ["nosniff"], (where, headers)
    assert headers.get_list("x-frame-options") == ["DENY"], (where, headers)
    assert headers.get_list("referrer-policy") == ["no-referrer"], (where, headers)
    policies = headers.get_list("content-security-policy")
    assert len(policies) == 1 and "frame-ancestors 'none'" in policies[0], (where, headers)
    policy = policies[0]
    assert "unsafe" not in policy, (where, policy)
    if headers.get("content-type", "").startswith("text/html"):  # a page: its scripts may run
        assert "script-src 'self'" in policy, (where, policy)
    else:  # nothing may run or load
        assert policy.startswith("default-src 'none'"), (where, policy)


def assert_names_nothing_on_disk(response: httpx.Response) -> None:
    text = response.text
    for leak in (INSTALL_DIR, str(ROOT), "site-packages", "/server/"):
        assert leak not in text, (response.request.url.path, text)


@pytest.fixture(scope="module")
async def finished(server: ServerProcess) -> str:
    """A game played out by four bots (every ``GET`` of it answers 200)."""
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
        game_id: str = (await create_game(client, ["random"] * 4))["game_id"]
        return game_id


async def answer(
    client: httpx.AsyncClient, method: str, path: str, **kwargs: Any
) -> httpx.Response:
    """The answer's status and headers, and its body unless it is an endless stream."""
    async with client.stream(method, path, timeout=10, **kwargs) as response:
        if not response.headers.get("content-type", "").startswith(SSE):
            await response.aread()
    return response


@pytest.mark.parametrize(
    ("method", "path"),
    spec_requests() + OTHER_REQUESTS,
    ids=lambda value: str(value),
)
async def test_every_answer_carries_the_security_headers(
    client: httpx.AsyncClient, finished: str, method: str, path: str
) -> None:
    url = path.replace("{game_id}", finished).replace("{seat}", "0")
    # A POST is sent an empty body: whatever it answers (created, refused, a problem) counts.
    body: dict[str, Any] = {"json": {}} if method == "POST" else {}
    response = await answer(client, method, url, **body)
    assert response.status_code < 500, (method, url, response.status_code, response.text)
    assert_secured(response)
    if response.status_code >= 400:
        assert_names_nothing_on_disk(response)


async def test_more_problems_and_answers_carry_them(
    client: httpx.AsyncClient, finished: str
) -> None:
    """413 (body too large), 415, 401, 404 for a game, and 304 Not Modified."""
    big = b"[" + b"0," * 20_000 + b"0]"
    too_large = await client.post("/v1/games", content=big, headers={"Content-Type": JSON})
    problem_of(too_large, 413, "payload_too_large")
    as_text = await client.post("/v1/games", content=b"{}", headers={"Content-Type": "text/plain"})
    problem_of(as_text, 415, "unsupported_media_type")
    no_token = await client.post(f"/v1/games/{finished}/seats/0/commands", json={"type": "beg"})
    problem_of(no_token, 401, "unauthorized")
    no_game = await client.get("/v1/games/no-such-game")
    problem_of(no_game, 404, "not_found")
    etag = (await client.get(f"/v1/games/{finished}")).headers["etag"]
    unchanged = await client.get(f"/v1/games/{finished}", headers={"If-None-Match": etag})
    assert unchanged.status_code == 304
    for response in (too_large, as_text, no_token, no_game, unchanged):
        assert_secured(response)


async def raw_answer(server: ServerProcess, request: bytes) -> httpx.Response:
    """What the server writes for ``request`` sent as bytes (before or instead of any HTTP
    parsing of ours), until it closes the connection."""
    parts = urlsplit(server.url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    try:
        writer.write(request)
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), 5)
    finally:
        writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = [(name, value) for name, _, value in (line.partition(": ") for line in lines)]
    return httpx.Response(
        int(status_line.split()[1]),
        headers=headers,
        content=body,
        request=httpx.Request("GET", server.url),
    )


@pytest.mark.parametrize(
    ("request_bytes", "status", "code"),
    [
        (b"NOT HTTP AT ALL\r\n\r\n", 400, "invalid_request"),
        (b"GET /livez HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n", 431, None),
    ],
    ids=["not-http", "headers-too-large"],
)
async def test_the_connection_guards_refusals_carry_them(
    server: ServerProcess, request_bytes: bytes, status: int, code: str | None
) -> None:
    refused = await raw_answer(server, request_bytes)
    problem_of(refused, status, code or "headers_too_large")
    assert_secured(refused)


@pytest.fixture(scope="module")
async def one_stream_server(
    redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[ServerProcess]:
    """A server allowing one open stream per address (the cap's 429 is raw ASGI)."""
    process = await start_server(
        redis_url, tmp_path_factory.mktemp("one-stream"), {"ALLFOURS_MAX_STREAMS_PER_ADDRESS": "1"}
    )
    yield process
    assert await process.stop() == 0, process.log_tail()


async def test_streams_and_the_stream_caps_refusal_carry_them(
    one_stream_server: ServerProcess,
) -> None:
    async with httpx.AsyncClient(base_url=one_stream_server.url, timeout=10) as client:
        game = (await create_game(client, [None, "random", "random", "random"]))["game_id"]
        async with client.stream("GET", f"/v1/games/{game}/stream") as stream:
            assert stream.headers["content-type"].startswith(SSE)
            assert_secured(stream)
            refused = await client.get(f"/v1/games/{game}/stream")
        problem = problem_of(refused, 429, "too_many_streams")
        assert_secured(refused)
        # Written below the app, yet a problem as the app writes one and the spec types it.
        missing = problem_of(await client.get("/v1/games/0000000000000000"), 404, "not_found")
        assert list(problem) == [*missing, "retry_after"]
        spec = json.loads((ROOT / "openapi" / "openapi.json").read_text())
        schema = {"$ref": "#/components/schemas/Problem", "components": spec["components"]}
        Draft202012Validator(schema).validate(problem)
        assert problem["retry_after"] == int(refused.headers["retry-after"])


@pytest.mark.parametrize(
    "target",
    [
        b"/static/js/",
        b"/static/js",
        b"/static/js%2f",
        b"/static/js/./",
        b"/static/../",
        b"/static/%2e%2e/",
        b"/static/..%2f",
        b"/static/%2e%2e%2fapi%2fapp.py",
        b"/static/no-such-file.js",
        b"/docs/assets/swagger-ui/",
        b"/docs/assets/swagger-ui",
        b"/docs/assets/x/",
        b"/docs/assets/..%2f..%2fapi",
        b"/docs/no-such-page",
    ],
    ids=lambda target: target.decode(),
)
async def test_a_miss_is_a_problem_that_names_nothing_on_disk(
    client: httpx.AsyncClient, target: bytes
) -> None:
    """Sent as written (``target``): a client library would tidy the dots and slashes away."""
    for method in ("GET", "HEAD"):
        missing = await client.request(method, "/", extensions={"target": target})
        assert missing.status_code == 404, (target, missing.text)
        assert missing.headers["content-type"].startswith(PROBLEM)
        assert_secured(missing)
        if method == "GET":
            problem = problem_of(missing, 404, "not_found")
            assert problem["detail"] in ("no such file", "no such page of the documentation")
            assert_names_nothing_on_disk(missing)


_VIOLATIONS = """
window.violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""
"""Collects what the page's Content-Security-Policy blocked (none is expected)."""


async def test_the_pages_work_under_their_policies(server: ServerProcess) -> None:
    """The docs list, expand and run an operation ("Try it out"); the lobby renders. Neither
    has anything blocked by its policy."""
    async with browser_page() as (page, errors):
        await page.add_init_script(_VIOLATIONS)
        await page.goto(f"{server.url}/docs")
        operation = page.locator("#operations-games-listGames")
        await operation.locator(".opblock-summary").click()
        await operation.locator(".try-out__btn").click()
        await operation.locator(".execute").click()
        await operation.locator(".responses-table.live-responses-table").wait_for(timeout=10_000)
        docs_blocked = await page.evaluate("window.violations")
        await page.goto(server.url + "/")
        await page.locator("#main button").first.wait_for(timeout=10_000)
        lobby_blocked = await page.evaluate("window.violations")
    assert not errors, errors
    assert docs_blocked == [] and lobby_blocked == [], (docs_blocked, lobby_blocked)
