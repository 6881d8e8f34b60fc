"""Checking a name before sitting down (``POST /v1/names/check``: the policy takeSeat applies,
so a page refuses a name before it makes a table), and a browser's miss answered with a page."""

from __future__ import annotations

import httpx
import pytest
from support import problem_of

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(60)]


PERSIAN = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"
"""A Persian word with the zero-width non-joiner its spelling needs."""


@pytest.mark.parametrize("name", ["Zoë ❤️", "👩🏽‍💻", PERSIAN, "ann"])
async def test_a_name_people_type_passes_the_check(client: httpx.AsyncClient, name: str) -> None:
    response = await client.post("/v1/names/check", json={"name": name})
    assert response.status_code == 204, response.text
    assert response.content == b""


async def test_a_refused_name_says_why_in_words_and_makes_nothing(
    client: httpx.AsyncClient,
) -> None:
    before = (await client.get("/v1/games", params={"limit": 100})).json()["games"]
    response = await client.post("/v1/names/check", json={"name": "ann\u202e"})
    problem = problem_of(response, 400, "invalid_name")
    assert "right-to-left override (U+202E)" in problem["detail"]
    after = (await client.get("/v1/games", params={"limit": 100})).json()["games"]
    assert [g["game_id"] for g in after] == [g["game_id"] for g in before]
    problem_of(await client.post("/v1/names/check", json={"name": ""}), 400, "invalid_request")


async def test_a_browser_gets_a_page_for_an_unknown_path_and_clients_get_json(
    client: httpx.AsyncClient,
) -> None:
    browser = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    page = await client.get("/nope", headers=browser)
    assert page.status_code == 404
    assert page.headers["content-type"].startswith("text/html")
    assert "<script" in page.text and page.headers["x-content-type-options"] == "nosniff"
    for path in ("/nope", "/v1/nothing/here", "/static/nope.js", "/docs/nope"):
        problem_of(await client.get(path), 404, "not_found")
    # The API's own misses stay problems for a browser too (a link to a missing game id).
    problem_of(await client.get("/v1/nothing/here", headers=browser), 404, "not_found")
    problem_of(await client.post("/nope", headers=browser, json={}), 404, "not_found")
