"""People playing through the page only: a whole game against three bots (mouse, then
keyboard), and two people in two browsers at one table. What the page shows at the end must be
what the API says."""

from __future__ import annotations

import random
import re

import httpx
import pytest
from playwright.async_api import Browser, Page
from support import ServerProcess, moves_in, replay_of, view_of
from webplay import (
    INSTANT_PACE,
    OFFERED,
    play_to_end,
    play_together,
    shown_scores,
    table_state,
    take_turn,
    wait_for_table,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


async def test_a_person_plays_a_whole_game_against_three_bots(
    page: Page, api: httpx.AsyncClient, web_server: ServerProcess
) -> None:
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    await page.goto("/")
    await page.fill("#player-name", "Ann")
    await page.click("#quick-play")
    await page.wait_for_url("**/table/*")
    game_id = page.url.rsplit("/", 1)[1]
    state = await wait_for_table(page)
    assert state["viewer"] == "0"
    assert "Seat 1 · Team A" in (await page.text_content(".who") or "")

    # The first hand with the mouse, the rest with the keyboard (no game ends in one hand).
    moves = await play_to_end(page, random.Random(1), keyboard_after=6)
    assert moves > 6, "the keyboard part of the game was never reached"

    final = await view_of(api, game_id)
    assert final["phase"] == "ended" and final["winner"] is not None
    # Every decision of the seat was the person's, made on the page: none timed out.
    _, log = await replay_of(api, game_id)
    assert not [e for e in log if type(e).__name__ == "TurnTimedOut"]
    assert sum(moves_in(log, seat=0).values()) == moves
    assert await shown_scores(page) == final["scores"]
    result = await page.text_content(".lifecycle .result") or ""
    # Told to the person as theirs: "You win, 14-9" / "You lose, 9-14", their team's first.
    assert ("You win" if final["winner"] == 0 else "You lose") in result
    ours, theirs = final["scores"]
    assert f"{ours}\N{EN DASH}\N{WORD JOINER}{theirs}" in result
    # The stream told the whole story: no version was skipped.
    assert (await wait_for_table(page))["gaps"] == 0
    # The page talked to this server only: its own files and the public API.
    elsewhere = [
        url
        for url in requested
        if not re.match(rf"{re.escape(web_server.url)}/(static/|v1/|table/|$)", url)
    ]
    assert not elsewhere, elsewhere
    assert any("/stream?" in url for url in requested), "no EventSource was opened"


async def test_two_people_in_two_browsers_play_one_table(
    browser: Browser, web_server: ServerProcess, api: httpx.AsyncClient
) -> None:
    created = (
        await api.post(
            "/v1/games",
            json={"bots": [None, "heuristic", None, "heuristic"], "rules": {"target": 5}},
        )
    ).json()
    game_id = created["game_id"]
    pages: list[Page] = []
    for name, seat in (("Ann", 0), ("Ben", 2)):
        context = await browser.new_context(base_url=web_server.url)
        await context.add_init_script(INSTANT_PACE)
        context.set_default_timeout(15_000)
        page = await context.new_page()
        await page.goto("/")
        await page.fill("#player-name", name)
        row = page.locator(f'.game-row[data-game="{game_id}"]')
        await row.get_by_role("button", name=f"Sit at {seat + 1}").click()
        await page.wait_for_url(f"**/table/{game_id}")
        assert (await wait_for_table(page))["viewer"] == str(seat)
        pages.append(page)

    await play_together(pages, [random.Random(2), random.Random(3)])

    final = await view_of(api, game_id)
    assert final["phase"] == "ended"
    _, log = await replay_of(api, game_id)
    assert not [e for e in log if type(e).__name__ == "TurnTimedOut"]
    for page, partner in zip(pages, ("Ben", "Ann"), strict=True):
        assert await shown_scores(page) == final["scores"]
        assert f"You & {partner}" in (await page.text_content(".team.mine") or "")
        await page.context.close()


async def test_a_refused_move_shows_the_servers_reason_and_the_page_catches_up(
    page: Page, api: httpx.AsyncClient
) -> None:
    """Two tabs of one seat; the second hears nothing (its stream is cut), so it still offers
    a move the first tab already made. The server refuses it: the page says why, then shows
    the game as it is."""
    await page.goto("/")
    await page.fill("#player-name", "Ann")
    await page.click("#quick-play")
    await page.wait_for_url("**/table/*")
    await wait_for_table(page)
    await page.locator(OFFERED).first.wait_for()

    stale = await page.context.new_page()
    await stale.route("**/stream?*", lambda route: route.abort())
    await stale.goto(page.url)
    await stale.locator(OFFERED).first.wait_for()
    assert await take_turn(page, random.Random(9), keyboard=False)

    before = (await table_state(stale))["version"]
    await stale.locator(OFFERED).first.click()
    problem = stale.locator("#problem")
    await problem.wait_for()
    assert "version" in (await problem.text_content() or "")
    await stale.wait_for_function(
        "v => +document.querySelector('.table-page').dataset.version > v", arg=before
    )
    assert (await table_state(stale))["version"] == (await table_state(page))["version"]
