"""Who may read ``/metrics`` (``ALLFOURS_METRICS``): anyone by default, only a scraper with the
bearer token (``token``), or nobody (``off``); each mode against a real server, and the settings
that choose it, whose errors never show the token."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from support import ServerProcess, problem_of, start_server

from server.settings import Settings, SettingsError, from_env

TOKEN = secrets.token_urlsafe(24)


@pytest.fixture(scope="module")
async def token_server(
    redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[ServerProcess]:
    """``/metrics`` for the token's bearer only; every request logged, at debug level."""
    process = await start_server(
        redis_url,
        tmp_path_factory.mktemp("metrics-token"),
        {
            "ALLFOURS_METRICS": "token",
            "ALLFOURS_METRICS_TOKEN": TOKEN,
            "ALLFOURS_ACCESS_LOG": "true",
            "ALLFOURS_LOG_LEVEL": "debug",
        },
    )
    yield process
    assert await process.stop() == 0, process.log_tail()


async def test_public_by_default(client: httpx.AsyncClient) -> None:
    metrics = await client.get("/metrics")
    assert metrics.status_code == 200 and "allfours_sse_subscribers" in metrics.text


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "Bearer wrong-token-of-some-length",
        f"Bearer {TOKEN[:-1]}",
        f"Bearer {TOKEN}x",
        f"Basic {TOKEN}",
        TOKEN,
        "Bearer",
    ],
    ids=["none", "wrong", "prefix", "longer", "basic", "no-scheme", "empty"],
)
async def test_a_request_without_the_token_is_refused(
    token_server: ServerProcess, authorization: str | None
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    async with httpx.AsyncClient(base_url=token_server.url, timeout=10) as client:
        refused = await client.get("/metrics", headers=headers)
        in_query = await client.get("/metrics", params={"token": TOKEN}, headers=headers)
        head = await client.head("/metrics", headers=headers)
    for response in (refused, in_query):
        problem = problem_of(response, 401, "unauthorized")
        assert TOKEN not in response.text and "allfours_" not in response.text, problem
        assert response.headers["www-authenticate"] == 'Bearer realm="allfours metrics"'
    assert head.status_code == 401 and head.content == b""


async def test_the_tokens_bearer_reads_them_and_nothing_logs_the_token(
    token_server: ServerProcess,
) -> None:
    async with httpx.AsyncClient(base_url=token_server.url, timeout=10) as client:
        for scheme in ("Bearer", "bearer"):
            metrics = await client.get("/metrics", headers={"Authorization": f"{scheme} {TOKEN}"})
            assert metrics.status_code == 200, metrics.text
            assert metrics.headers["content-type"].startswith("text/plain")
            assert 'path="/metrics"' in metrics.text and "allfours_sse_subscribers" in metrics.text
        assert (await client.get("/livez")).status_code == 200  # the rest needs no token
    log = token_server.log_tail(100_000)
    assert '"path":"/metrics"' in log, "the requests were logged"
    assert TOKEN not in log


async def test_off_serves_no_metrics(redis_url: str, tmp_path: Path) -> None:
    server = await start_server(redis_url, tmp_path, {"ALLFOURS_METRICS": "off"})
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
            problem_of(await client.get("/metrics"), 404, "not_found")
            assert (await client.get("/livez")).status_code == 200
    finally:
        assert await server.stop() == 0, server.log_tail()


def test_the_mode_follows_the_variables() -> None:
    assert (Settings().metrics, Settings().metrics_token) == ("public", None)
    chosen = from_env({"ALLFOURS_METRICS": " Token ", "ALLFOURS_METRICS_TOKEN": f" {TOKEN} "})
    assert (chosen.metrics, chosen.metrics_token) == ("token", TOKEN)
    implied = from_env({"ALLFOURS_METRICS_TOKEN": TOKEN})
    assert (implied.metrics, implied.metrics_token) == ("token", TOKEN), "a token is asked for"
    assert from_env({"ALLFOURS_METRICS": "off"}).metrics == "off"
    assert from_env({"ALLFOURS_METRICS": "off", "ALLFOURS_METRICS_TOKEN": TOKEN}).metrics == "off"


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"ALLFOURS_METRICS": "private"}, "ALLFOURS_METRICS: expected one of public, token, off"),
        ({"ALLFOURS_METRICS": "token"}, "ALLFOURS_METRICS_TOKEN: required"),
        ({"ALLFOURS_METRICS": "public", "ALLFOURS_METRICS_TOKEN": TOKEN}, "ALLFOURS_METRICS=token"),
        ({"ALLFOURS_METRICS_TOKEN": TOKEN[:15]}, "ALLFOURS_METRICS_TOKEN: expected at least 16"),
        ({"ALLFOURS_METRICS_TOKEN": f"{TOKEN} {TOKEN}"}, "(no spaces)"),
        ({"ALLFOURS_METRICS_TOKEN": f"{TOKEN}é"}, "visible ASCII"),
    ],
    ids=["unknown-mode", "token-without-one", "public-with-one", "short", "spaced", "non-ascii"],
)
def test_a_bad_choice_is_refused_without_showing_the_token(env: dict[str, str], named: str) -> None:
    with pytest.raises(SettingsError) as refused:
        from_env(env)
    message = str(refused.value)
    assert named in message, message
    assert TOKEN[:15] not in message, message
