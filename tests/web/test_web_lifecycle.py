"""The table's lifecycle on the page: a table opened from the lobby's form with a turn clock
shows the countdown; at the end a rematch takes the person to the new table in the same seat;
a person can step away (a bot plays the seat) and come back, or leave it to someone else."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, Page, expect
from support import ServerProcess, start_server, take_seat, view_of
from webplay import INSTANT_PACE, play_to_end, seat_action, table_state, wait_for_table

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

VIEWER = "v => document.querySelector('.table-page')?.dataset.viewer === v"


async def test_a_clocked_table_from_the_form_then_a_rematch_in_the_same_seat(
    page: Page, browser: Browser, web_server: ServerProcess, api: httpx.AsyncClient
) -> None:
    await page.goto("/")
    await page.fill("#player-name", "Ann")
    form = page.locator("#new-table")
    for seat, choice in enumerate(["you", "heuristic", "heuristic", "random"]):
        await form.locator(f'select[name="seat{seat}"]').select_option(choice)
    # 5: more than a kick can score (3 for a jack), so the person always gets a first turn.
    await form.locator('input[name="target"]').fill("5")
    await form.locator('select[name="turn_seconds"]').select_option("60")
    await form.get_by_role("button", name="Open the table").click()
    await page.wait_for_url("**/table/*")
    game_id = page.url.rsplit("/", 1)[1]
    await wait_for_table(page)

    view = await view_of(api, game_id)
    assert view["rules"]["target"] == 5 and view["rules"]["turn_seconds"] == 60
    countdown = page.locator(".controls .countdown")
    await countdown.wait_for()  # the person is to act: the clock runs
    assert re.fullmatch(r"[01]:\d\d", await countdown.text_content() or "")

    await play_to_end(page, random.Random(8))
    old_device = await page.context.storage_state()  # the old seat only: a second device's
    await page.get_by_role("button", name="Rematch").click()
    await page.wait_for_url(re.compile(r".*/table/(?!" + re.escape(game_id) + r"$)[\w-]+$"))
    rematch_id = page.url.rsplit("/", 1)[1]
    assert (await the_new_table(page))["viewer"] == "0"
    assert (await view_of(api, game_id))["rematch"] == rematch_id
    new_view = await view_of(api, rematch_id)
    assert new_view["seats"][0]["name"] == "Ann"
    assert new_view["rules"]["target"] == 5
    assert "Seat 1 · Team A" in (await page.text_content(".who") or "")

    # Back at the old table, this browser holds the rematch's seat already: the button opens
    # it (a second claim was refused, and nothing said so: an outside trial).
    await page.goto(f"/table/{game_id}")
    await page.get_by_role("button", name="Join the rematch").click()
    await page.wait_for_url(f"**/table/{rematch_id}")
    assert (await the_new_table(page))["viewer"] == "0"
    # A device that holds the old seat only is refused the seat its person holds, and says so.
    device = await browser.new_context(base_url=web_server.url, storage_state=old_device)
    other = await device.new_page()
    await other.goto(f"/table/{game_id}")
    await other.get_by_role("button", name="Join the rematch").click()
    await expect(other.locator(".lifecycle #problem")).to_contain_text("seat")
    assert other.url.endswith(f"/table/{game_id}")
    await device.close()


async def the_new_table(page: Page) -> dict[str, Any]:
    """The table state once the page shows the new game, not the ended one it came from (the
    address changes first, and the old table stays on the page until the new one is read)."""
    await page.wait_for_function(
        "() => { const t = document.querySelector('.table-page');"
        " return t && t.dataset.phase !== 'ended'; }"
    )
    return await table_state(page)


async def ann_and_ben(page: Page, api: httpx.AsyncClient) -> str:
    """A table with no clock where Ann sits at seat 1 from the lobby and Ben (over the API) at
    seat 3; Ben never moves, so the game waits while Ann does what the test wants."""
    created = await api.post(
        "/v1/games",
        json={"bots": [None, "heuristic", None, "heuristic"], "rules": {"turn_seconds": None}},
    )
    game_id: str = created.json()["game_id"]
    await take_seat(api, game_id, 2, "Ben")
    await page.goto("/")
    await page.fill("#player-name", "Ann")
    row = page.locator(f'.game-row[data-game="{game_id}"]')
    await row.get_by_role("button", name="Sit at 1").click()
    await page.wait_for_url(f"**/table/{game_id}")
    await wait_for_table(page)
    return game_id


async def test_stepping_away_and_coming_back(page: Page, api: httpx.AsyncClient) -> None:
    game_id = await ann_and_ben(page, api)

    # Asked first: Cancel changes nothing.
    await seat_action(page, "step_away", confirm=False)
    assert (await view_of(api, game_id))["seats"][0]["away"] is False
    await seat_action(page, "step_away")
    me = page.locator('.seat[data-seat="0"]')
    await me.locator(".badge.away").wait_for()
    assert (await view_of(api, game_id))["seats"][0]["away"] is True
    await page.click('[data-seat-action="come_back"]')
    await me.locator(".badge.away").wait_for(state="detached")
    assert (await view_of(api, game_id))["seats"][0]["away"] is False
    await page.locator('[data-seat-action="step_away"]').wait_for(state="attached")


async def test_an_away_seat_is_offered_after_its_grace_and_its_old_page_says_it_was_taken(
    browser: Browser, redis_url: str, tmp_path: Path
) -> None:
    """A watcher is offered an away person's seat only once the grace has run out, counted
    down until then (an early click got the server's words, "seat 0's person is away…"); the
    page that held the seat then says it was taken over and watches (it said "Reconnecting…"
    for ever, with the old hand: its stream's 401 is hidden from the page). An outside trial."""
    server = await start_server(redis_url, tmp_path, {"ALLFOURS_TAKEOVER_GRACE_S": "3"})
    contexts = []
    try:
        async with httpx.AsyncClient(base_url=server.url, timeout=10.0) as api:
            for _ in range(2):
                contexts.append(await browser.new_context(base_url=server.url))
                await contexts[-1].add_init_script(INSTANT_PACE)
            ann, cy = [await ctx.new_page() for ctx in contexts]
            game_id = await ann_and_ben(ann, api)
            await seat_action(ann, "step_away")
            await ann.locator('.seat[data-seat="0"] .badge.away').wait_for()
            await cy.goto(f"/table/{game_id}")  # straight from a link: no name given yet
            take = cy.locator('[data-key="take-0"]')
            await expect(take).to_be_disabled()
            await expect(take).to_have_text(re.compile(r"Take over in 0:0[1-3]"))
            await expect(take).to_have_text("Take over this seat", timeout=8_000)
            await take.click()
            # The name is asked in the page (window.prompt blocked its streams: a trial).
            await cy.locator("dialog[open] #dialog-text").fill("Cy")
            await cy.keyboard.press("Enter")
            await cy.wait_for_function(VIEWER, arg="0")
            assert (await view_of(api, game_id))["seats"][0]["name"] == "Cy"
            await ann.wait_for_function(VIEWER, arg="spectator", timeout=15_000)
            await expect(ann.locator("#problem")).to_contain_text("someone took it over")
    finally:
        for ctx in contexts:
            await ctx.close()
        assert await server.stop() == 0, server.log_tail()


async def test_leaving_a_seat_and_someone_taking_it_over(
    page: Page, browser: Browser, web_server: ServerProcess, api: httpx.AsyncClient
) -> None:
    game_id = await ann_and_ben(page, api)
    await seat_action(page, "leave")
    await page.wait_for_function(VIEWER, arg="spectator")
    await page.locator('.seat[data-seat="0"] .badge.left').wait_for()

    other = await browser.new_context(base_url=web_server.url)

    await other.add_init_script(INSTANT_PACE)
    cy = await other.new_page()
    await cy.goto("/")
    await cy.fill("#player-name", "Cy")
    await cy.goto(f"/table/{game_id}")
    await cy.get_by_role("button", name="Take over this seat").click()
    await cy.wait_for_function(VIEWER, arg="0")
    seat = (await view_of(api, game_id))["seats"][0]
    assert seat["name"] == "Cy" and not seat["left"]
    await other.close()
