"""Screenshots of each screen, for people to look at (the README shows them): the lobby, the
table at four moments (the person's turn, a trick sweeping to its winner, a hand's summary, the
end; at 1280x720 and 360x640) and the replay viewer. Each is also a check that the screen is
there and full."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Page
from support import replay_of, take_seat
from webplay import table_state, take_turn, wait_for_table

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


async def mid_hand(page: Page, rng: random.Random) -> None:
    """Plays until this seat is to play a card into a trick already begun, holding at least
    four cards: the moment a table looks most like a table."""
    for _ in range(200):
        state = await table_state(page)
        assert state["phase"] != "ended", "the game ended before a good moment came"
        trick = await page.locator(".centre .trick:not(.previous) .card.played").count()
        held = await page.locator(".hand .card").count()
        playable = await page.locator(".hand button.card.playable").count()
        summary = await page.locator(".hand-summary").count()  # a hand's end is not its middle
        if trick >= 2 and held >= 4 and playable and not summary:
            return
        if not await take_turn(page, rng, keyboard=False):
            await page.wait_for_timeout(30)
    raise AssertionError("no moment mid-hand came")


def busy_moment(events: list[Any]) -> int:
    """A position in the second hand, a trick or more in, with three cards on the table."""
    hands = tricks = in_trick = 0
    for i, event in enumerate(events):
        name = type(event).__name__
        if name == "Dealt" and event.deal == 1:
            hands, tricks, in_trick = hands + 1, 0, 0
        elif name == "TrickWon":
            tricks, in_trick = tricks + 1, 0
        elif name == "CardPlayed":
            in_trick += 1
            if hands >= 2 and tricks >= 1 and in_trick == 3:
                return i + 1
    raise AssertionError("no such moment in this game")


async def trick_overlaps(page: Page) -> list[str]:
    """What the trick's cards (and empty places) overlap: they must stay inside the trick's
    box, with the status line above it clear of them."""
    return list(
        await page.evaluate(
            """() => {
      const box = (el) => el.getBoundingClientRect();
      const trick = box(document.querySelector('.centre .trick'));
      const status = box(document.querySelector('.centre .status'));
      const found = [];
      for (const el of document.querySelectorAll('.centre .trick .slot > *')) {
        const r = box(el);
        const out = r.top < trick.top - 0.5 || r.bottom > trick.bottom + 0.5;
        if (out) found.push('outside the trick');
      }
      if (status.bottom > trick.top + 0.5) found.push('status over the trick');
      return found;
    }"""
        )
    )


MOMENT_SIZES = [((1280, 720), ""), ((360, 640), "-mobile")]


async def shoot(page: Page, screenshots: Path, moment: str) -> None:
    """The moment at the desktop size and on a small phone, each without scrolling."""
    for (width, height), suffix in MOMENT_SIZES:
        await page.set_viewport_size({"width": width, "height": height})
        await page.screenshot(path=str(screenshots / f"table-{moment}{suffix}.png"))
        assert await trick_overlaps(page) == [], (moment, width)
    await page.set_viewport_size({"width": 1280, "height": 720})


async def play_until(page: Page, rng: random.Random, selector: str) -> None:
    for _ in range(3000):  # at the slow pace a hand takes a while
        if await page.locator(selector).count():
            return
        if not await take_turn(page, rng, keyboard=False):
            await page.wait_for_timeout(20)
    raise AssertionError(f"{selector} never came")


async def test_screens(page: Page, api: httpx.AsyncClient, screenshots: Path) -> None:
    waiting = (
        await api.post("/v1/games", json={"bots": [None, "heuristic", None, "heuristic"]})
    ).json()["game_id"]
    await take_seat(api, waiting, 0, "Maya")
    await api.post("/v1/games", json={"bots": ["heuristic"] * 4})  # one to replay

    await page.set_viewport_size({"width": 1280, "height": 720})
    await page.goto("/")
    await page.fill("#player-name", "Ann")
    await page.click("#quick-play")
    await page.wait_for_url("**/table/*")
    await wait_for_table(page)
    rng = random.Random(7)
    await mid_hand(page, rng)
    await page.select_option('[data-key="speed"]', "normal")  # as a person's table shows it
    await page.mouse.move(0, 0)
    await shoot(page, screenshots, "turn")

    # At the slow pace, a won trick stays on the cloth long enough to be caught sweeping.
    await page.select_option('[data-key="speed"]', "slow")
    await play_until(page, rng, '.table-page[data-motion="TrickWon"]')
    await shoot(page, screenshots, "sweep")
    await play_until(page, rng, ".hand-summary")
    await shoot(page, screenshots, "summary")
    await page.select_option('[data-key="speed"]', "instant")
    await play_until(page, rng, '.table-page[data-phase="ended"]')
    await page.locator(".lifecycle .result").wait_for()
    await shoot(page, screenshots, "end")
    await page.set_viewport_size({"width": 1280, "height": 900})

    await page.goto("/")
    await page.wait_for_selector(f'.game-row[data-game="{waiting}"]')
    await page.wait_for_selector("#done-title ~ .game-list .game-row")
    await page.screenshot(path=str(screenshots / "lobby.png"), full_page=True)

    finished = page.locator("#done-title ~ .game-list .game-row").first
    game_id = await finished.get_attribute("data-game")
    assert game_id
    await finished.get_by_role("link", name="Replay").click()
    await page.wait_for_selector('.verify[data-ok="true"]')
    _, events = await replay_of(api, game_id)
    target = busy_moment(events)
    for _ in range(target):
        await page.keyboard.press("ArrowRight")
    await page.wait_for_function(
        "n => +document.querySelector('.replay').dataset.position === n", arg=target
    )
    await page.screenshot(path=str(screenshots / "replay.png"), full_page=True)

    # The player's pages: My games (the game just played), the board, and a wait in the queue.
    for (width, height), suffix in MOMENT_SIZES:
        await page.set_viewport_size({"width": width, "height": height})
        await page.goto("/me")
        await page.locator("#my-games .game-row").first.wait_for()
        await page.screenshot(path=str(screenshots / f"my-games{suffix}.png"), full_page=True)
        await page.goto("/leaderboard")
        await page.wait_for_function(  # its rows, or the word that nobody is rated yet
            "() => { const b = document.querySelector('.leaderboard');"
            " return b && !b.textContent.includes('Loading'); }"
        )
        await page.screenshot(path=str(screenshots / f"leaderboard{suffix}.png"), full_page=True)
        await page.goto("/")
        await page.click("#queue-join")
        await page.locator("#queue-wait").wait_for()
        await page.screenshot(path=str(screenshots / f"queue{suffix}.png"), full_page=True)
        await page.click("#queue-cancel")
        await page.locator("#queue-form").wait_for()


async def test_the_lobby_and_the_replay_fit_360_px(page: Page, api: httpx.AsyncClient) -> None:
    """Nothing wider than a small phone: no sideways scrolling (the table's own test is the
    spectator's, at 360 px too), with a long name in the lobby's lists (a table of one in
    an open seat, one being played: their rows once made the lobby 489 px wide)."""
    await page.set_viewport_size({"width": 360, "height": 740})
    created = await api.post("/v1/games", json={"bots": ["heuristic"] * 4})
    game_id = created.json()["game_id"]
    long_name = "Annabelle-Marguerite Fitzgerald-Ramkissoon"[:40]  # the longest a name may be
    for bots in (
        [None, "heuristic", None, "heuristic"],
        [None, "heuristic", "heuristic", "heuristic"],
    ):
        named = (await api.post("/v1/games", json={"bots": bots})).json()["game_id"]
        joined = await api.post(f"/v1/games/{named}/seats/0", json={"name": long_name})
        assert joined.status_code == 201, joined.text
    for path in ("/", f"/replay/{game_id}", "/replay"):
        await page.goto(path)
        await page.wait_for_selector("main > *")
        if path.startswith("/replay/"):
            await page.wait_for_selector(".verify[data-ok]")
            for _ in range(40):
                await page.keyboard.press("ArrowRight")
        await page.wait_for_timeout(100)
        assert await page.evaluate("document.documentElement.scrollWidth") <= 360, path
