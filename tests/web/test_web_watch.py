"""Watching and staying connected: a spectator's page never holds a card before it is played
(at 360 px wide), and a reload or a restarted server keeps the seat and the story whole."""

from __future__ import annotations

import random

import httpx
import pytest
from playwright.async_api import Browser, Page
from restartable import RestartableServer
from support import Knowledge, ServerProcess, bearer, command_body, replay_of, take_seat, view_of
from webplay import INSTANT_PACE, card_codes_in, table_state, take_turn, wait_for_table

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


async def test_a_spectator_never_sees_a_card_before_it_is_played(
    browser: Browser, web_server: ServerProcess, api: httpx.AsyncClient
) -> None:
    for _ in range(20):
        # Bots' kicks alone may win a game to 5 before Ann's first turn: then set a fresh table.
        created = await api.post(
            "/v1/games",
            json={"bots": [None, "heuristic", "heuristic", "heuristic"], "rules": {"target": 5}},
        )
        game_id = created.json()["game_id"]
        token = await take_seat(api, game_id, 0, "Ann")
        if (await view_of(api, game_id, token))["legal_actions"]:
            break
    context = await browser.new_context(
        base_url=web_server.url, viewport={"width": 360, "height": 740}
    )
    await context.add_init_script(INSTANT_PACE)
    page = await context.new_page()
    await page.goto(f"/table/{game_id}")
    assert (await wait_for_table(page))["viewer"] == "spectator"

    seen: list[tuple[int, set[str]]] = []
    rng = random.Random(4)
    while True:
        view = await view_of(api, game_id)
        await page.wait_for_function(
            "v => +document.querySelector('.table-page').dataset.version >= v",
            arg=view["version"],
        )
        seen.append(((await table_state(page))["version"], card_codes_in(await page.content())))
        assert await page.locator(".hand button.card").count() == 0
        if view["phase"] == "ended":
            break
        assert await page.evaluate("document.documentElement.scrollWidth") <= 360
        mine = await view_of(api, game_id, token)
        move = await api.post(
            f"/v1/games/{game_id}/seats/0/commands",
            json=command_body(rng.choice(mine["legal_actions"])),
            headers=bearer(token),
        )
        assert move.status_code == 200, move.text

    _, events = await replay_of(api, game_id)
    knowledge = Knowledge(events)
    for version, cards in seen:
        hidden = cards - knowledge.allowed(None, version)
        assert not hidden, f"the spectator's page showed {sorted(hidden)} at version {version}"
    assert len(set().union(*(cards for _, cards in seen))) > 10, "the page showed no card at all"
    await context.close()


async def test_a_reload_keeps_the_seat_and_a_restarted_server_loses_no_event(
    browser: Browser, restartable_server: RestartableServer
) -> None:
    url = restartable_server.url
    context = await browser.new_context(base_url=url)
    await context.add_init_script(INSTANT_PACE)
    context.set_default_timeout(15_000)
    page = await context.new_page()
    await page.goto("/")
    await page.fill("#player-name", "Ann")
    await page.click("#quick-play")
    await page.wait_for_url("**/table/*")
    game_id = page.url.rsplit("/", 1)[1]
    await wait_for_table(page)
    rng = random.Random(5)
    await _moves(page, rng, 3)

    await page.reload()
    await wait_for_table(page)
    assert "Seat 1 · Team A" in (await page.text_content(".who") or "")
    token = await page.evaluate(f"JSON.parse(localStorage['allfours.seat.{game_id}']).token")
    async with httpx.AsyncClient(base_url=url) as api:
        mine = await view_of(api, game_id, token)
    await page.wait_for_function(
        "v => +document.querySelector('.table-page').dataset.version >= v", arg=mine["version"]
    )
    shown = await page.eval_on_selector_all(".hand .card", "els => els.map(e => e.dataset.card)")
    assert shown == list(mine["hand"])

    await restartable_server.stop()  # the stream drops, and the page says so
    await page.wait_for_selector('#connection[data-status="reconnecting"]')
    await restartable_server.start()  # then it follows on from the last event it had
    await page.wait_for_selector('#connection[data-status="live"]')
    await _moves(page, rng, 3)
    async with httpx.AsyncClient(base_url=url) as api:
        latest = await view_of(api, game_id, token)
    await page.wait_for_function(
        "v => +document.querySelector('.table-page').dataset.stream >= v", arg=latest["version"]
    )
    state = await table_state(page)
    assert state["gaps"] == 0, "the resumed stream skipped events"
    assert state["version"] == latest["version"]
    await context.close()


async def _moves(page: Page, rng: random.Random, count: int) -> None:
    made = 0
    while made < count:
        if (await table_state(page))["phase"] == "ended":
            return
        if await take_turn(page, rng, keyboard=False):
            made += 1
        else:
            await page.wait_for_timeout(30)
