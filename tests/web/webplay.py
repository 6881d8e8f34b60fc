"""Playing through the page as a person does: find the offered actions, click them or press
their keys, and wait for the page to show the game moved on. Also what the page shows, read
back from the DOM (scores, cards), to compare with the API."""

from __future__ import annotations

import random
import re
from typing import Any

from playwright.async_api import Page

INSTANT_PACE = (
    "localStorage.getItem('allfours.speed') || localStorage.setItem('allfours.speed', 'instant')"
)
"""An init script: the browser tests that play whole games watch the bots at the instant pace
(as a person may choose), since they compare the page with the API move by move. The pace has
tests of its own."""

TABLE = ".table-page"
OFFERED = (
    ".controls button[data-action]:not([disabled]), .hand button.card.playable:not([disabled])"
)

RANKS = {
    "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K", "ace": "A",
}  # fmt: skip
SUITS = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}
CARD_NAME = re.compile(rf"\b({'|'.join(RANKS)}) of ({'|'.join(SUITS)})\b", re.IGNORECASE)


async def table_state(page: Page) -> dict[str, Any]:
    """The table's data attributes: version, phase, viewer, stream version, gaps."""
    attrs: dict[str, Any] = await page.eval_on_selector(
        TABLE,
        "el => ({version: +el.dataset.version, phase: el.dataset.phase, "
        "viewer: el.dataset.viewer, stream: +el.dataset.stream, gaps: +el.dataset.gaps})",
    )
    return attrs


async def wait_for_table(page: Page) -> dict[str, Any]:
    await page.wait_for_selector(TABLE)
    return await table_state(page)


async def wait_past(page: Page, version: int) -> None:
    """Until the page shows a version after ``version`` (or a refusal)."""
    await page.wait_for_function(
        "v => { const t = document.querySelector('.table-page');"
        " const p = document.getElementById('problem');"
        " return (t && +t.dataset.version > v) || (p && p.textContent); }",
        arg=version,
    )


async def shown_scores(page: Page) -> list[int]:
    return [int(await page.text_content(f'[data-score="{team}"]') or "-1") for team in (0, 1)]


async def take_turn(page: Page, rng: random.Random, keyboard: bool) -> bool:
    """Makes one of the offered moves, if any: a click, or its number key, or the arrow keys
    and Enter for a card. Waits until the page shows the game moved on. False if nothing was
    offered."""
    offered = page.locator(OFFERED)
    count = await offered.count()
    if count == 0:
        return False
    before = (await table_state(page))["version"]
    choice = rng.randrange(count)
    if not keyboard:
        await offered.nth(choice).click()
    elif choice < 9 and rng.random() < 0.7:
        await page.keyboard.press(str(choice + 1))
    else:
        cards = page.locator(".hand button.card.playable")
        if await cards.count() == 0:
            await page.keyboard.press("1")
        else:
            await page.keyboard.press("ArrowRight")  # focuses the first playable card
            for _ in range(rng.randrange(await cards.count())):
                await page.keyboard.press("ArrowRight")
            await page.keyboard.press("Enter")
    await wait_past(page, before)
    problem = "".join(await page.locator("#problem").all_text_contents())  # none at the end
    assert not problem, f"the server refused an offered action: {problem}"
    return True


async def play_to_end(
    page: Page, rng: random.Random, *, keyboard_after: int | None = None, max_moves: int = 400
) -> int:
    """Plays the page's seat until the game ends (the bots or other pages play the rest);
    from move ``keyboard_after`` on with the keyboard only. The number of moves made."""
    moves = 0
    while moves < max_moves:
        state = await table_state(page)
        if state["phase"] == "ended":
            return moves
        keyboard = keyboard_after is not None and moves >= keyboard_after
        if await take_turn(page, rng, keyboard):
            moves += 1
        else:
            await page.wait_for_timeout(30)
    raise AssertionError(f"the game did not end within {max_moves} moves")


def card_codes_in(text: str) -> set[str]:
    """Every card a page's text or markup names, by name ("ten of clubs") or by code."""
    named = {RANKS[r.lower()] + SUITS[s.lower()] for r, s in CARD_NAME.findall(text)}
    coded = set(re.findall(r'data-card="([2-9TJQKA][CDHS])"', text))
    return named | coded


async def seat_action(page: Page, action: str, *, confirm: bool | None = True) -> None:
    """Chooses a seat action from the table's menu ("Table ▾"); ``confirm``: the answer to
    the page's dialog (True: the action's own button, False: Cancel, None: no dialog)."""
    await page.click('[data-key="seat-menu"]')
    await page.click(f'[data-seat-action="{action}"]')
    if confirm is None:
        return
    dialog = page.locator("dialog.dialog[open]")
    await dialog.wait_for()
    await dialog.locator(f'[data-dialog="{"yes" if confirm else "cancel"}"]').click()
    await dialog.wait_for(state="detached")


async def play_together(pages: list[Page], rngs: list[random.Random]) -> None:
    """Several pages at one table play it to its end: each plays while it has moves to make,
    then hands over to the next."""
    ended = [False] * len(pages)
    while not all(ended):
        for i, page in enumerate(pages):
            if not ended[i]:
                ended[i] = await play_while_offered(page, rngs[i])


async def play_while_offered(page: Page, rng: random.Random) -> bool:
    """Moves until this page has nothing to do; True once its game has ended (for tables of
    several pages: each plays while it can, then hands over to the next)."""
    for _ in range(3):  # another page's move may still be on its way here
        while await take_turn(page, rng, keyboard=False):
            pass
        if (await table_state(page))["phase"] == "ended":
            return True
        await page.wait_for_timeout(50)
    return False
