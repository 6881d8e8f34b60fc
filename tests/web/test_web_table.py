"""The table as a person meets it: one screen at every size, the bots' moves at a pace a
person follows (and at once with reduced motion), each hand explained by its events, a table
that waits when nobody is at it, names people type, and the focus where the hands are."""

from __future__ import annotations

import itertools
import random
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, Page, expect
from playwright.async_api import TimeoutError as PlaywrightTimeout
from support import ServerProcess, all_events, view_of
from webplay import OFFERED, seat_action, table_state, take_turn, wait_for_table

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

SIZES = [(1280, 720), (1366, 768), (1920, 1080), (390, 844), (360, 640), (844, 390), (640, 360)]
"""The five sizes the issue names, and two phones held sideways."""

LONG_NAME = "Annabelle-Marguerite Fitzgerald-Ramkissoon"[:40]

BOXES = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
                        return [r.left, r.top, r.right, r.bottom]; };
  const all = (selector) => [...document.querySelectorAll(selector)].map(box);
  const name = document.querySelector('#table-title');
  const status = document.querySelector('.centre .status');
  const text = document.createRange();
  text.selectNodeContents(status);
  return { trick: all('.centre .trick'), hand: all('.hand button.card'),
           cards: all('.centre .trick .slot > *'),
           status: status.textContent.trim() ? [box(text)] : [],
           around: all('.felt .seat, .felt .kicks, .felt .hand-facts'),
           actions: all('.controls button, .tools > *'),
           dock: box(document.querySelector('.dock')),
           page: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
           ellipsised: name.scrollWidth > name.clientWidth, title: name.title };
}"""


async def quick_play(page: Page, name: str = "Ann") -> str:
    await page.goto("/")
    await page.fill("#player-name", name)
    await page.click("#quick-play")
    await page.wait_for_url("**/table/*")
    await wait_for_table(page)
    return page.url.rsplit("/", 1)[1]


async def until_a_card_to_play(page: Page, rng: random.Random, in_trick: int = 1) -> None:
    """Plays (by mouse) until this seat is to play a card into a trick with ``in_trick`` or
    more cards already in it."""
    for _ in range(300):
        assert (await table_state(page))["phase"] != "ended"
        playable = await page.locator(".hand button.card.playable").count()
        if (
            playable
            and await page.locator(".trick:not(.previous) .card.played").count() >= in_trick
        ):
            return
        if not await take_turn(page, rng, keyboard=False):
            await page.wait_for_timeout(30)
    raise AssertionError("no such moment came")


def overlap(one: list[float], other: list[float]) -> bool:
    """Whether two boxes share more than a pixel's edge."""
    return (
        min(one[2], other[2]) - max(one[0], other[0]) > 1
        and min(one[3], other[3]) - max(one[1], other[1]) > 1
    )


def assert_nothing_covered(boxes: dict[str, Any], width: int, height: int) -> None:
    """Nothing on the felt covers anything else: the trick's cards and the status line stay
    off the seats (names, badges, turns), the kicks and the hand's facts, and off each other."""
    middle = boxes["cards"] + boxes["status"]
    covered = [
        (a, b)
        for a, b in itertools.chain(
            itertools.product(middle, boxes["around"]),
            itertools.product(boxes["status"], boxes["cards"]),
        )
        if overlap(a, b)
    ]
    assert not covered, f"overlapping on the felt at {width}x{height}: {covered}"


def outside(box: list[float], width: int, height: int) -> bool:
    left, top, right, bottom = box
    return left < 0 or top < 0 or right > width + 0.5 or bottom > height + 0.5


async def test_the_trick_the_hand_and_the_actions_fit_one_screen_at_every_size(page: Page) -> None:
    """While it is the person's turn, the trick, every card of the hand and every offered
    action are inside the viewport, with no scrolling, at each size, and nothing on the felt
    covers anything else (the trick, the status, the seats); a long name is cut with
    an ellipsis (the whole name in its title); the dock does not move as the hand shrinks."""
    await quick_play(page, LONG_NAME)
    await until_a_card_to_play(page, random.Random(3))
    for width, height in SIZES:
        await page.set_viewport_size({"width": width, "height": height})
        await page.wait_for_timeout(150)  # a frame or two for the layout
        boxes = await page.evaluate(BOXES)
        assert boxes["trick"] and boxes["hand"] and boxes["actions"]
        for what in ("trick", "hand", "actions"):
            off = [b for b in boxes[what] if outside(b, width, height)]
            assert not off, f"{what} outside the {width}x{height} viewport: {off}"
        assert boxes["page"][0] <= width, f"sideways scrolling at {width}x{height}"
        assert_nothing_covered(boxes, width, height)
        assert boxes["title"].startswith(f"{LONG_NAME}\N{RIGHT SINGLE QUOTATION MARK}s table")

    await page.set_viewport_size({"width": 1280, "height": 720})
    await page.wait_for_timeout(150)
    boxes = await page.evaluate(BOXES)
    assert boxes["ellipsised"], "the long name was not cut"
    before = boxes["dock"]
    version = (await table_state(page))["version"]
    await page.locator(".hand button.card.playable").first.click()
    await page.wait_for_function(
        "v => +document.querySelector('.table-page').dataset.version > v", arg=version
    )
    after = (await page.evaluate(BOXES))["dock"]
    assert after == before, "the dock moved when a card left the hand"


async def test_a_bid_leaves_the_felt_uncovered_at_every_size(page: Page) -> None:
    """When the person is to stand or beg, or to give one or run the pack, the dock holds two
    actions and the hint and the felt has the least room: the status line (the longest ones
    are the bids') and the trick's places still cover no seat at any size."""
    await quick_play(page)
    rng = random.Random(5)
    for _ in range(300):
        assert (await table_state(page))["phase"] != "ended"
        if await page.locator(".controls button[data-action]:not([disabled])").count():
            break
        if not await take_turn(page, rng, keyboard=False):
            await page.wait_for_timeout(30)
    else:
        raise AssertionError("the person was never offered a bid")
    for width, height in SIZES:
        await page.set_viewport_size({"width": width, "height": height})
        await page.wait_for_timeout(150)  # a frame or two for the layout
        assert_nothing_covered(await page.evaluate(BOXES), width, height)


async def test_the_bots_moves_come_one_after_another_at_a_persons_pace(
    browser: Browser, web_server: ServerProcess
) -> None:
    """At the normal pace every card a bot plays is on show for a while (its step lasts at
    least 300 ms and the next comes after it); with reduced motion every step is instant; and
    either way the page ends where the game is."""
    for reduced, expect_pace in (("no-preference", True), ("reduce", False)):
        context = await browser.new_context(
            base_url=web_server.url, viewport={"width": 1280, "height": 720}, reduced_motion=reduced
        )
        page = await context.new_page()
        await page.add_init_script(
            """new MutationObserver(() => {
                 const t = document.querySelector('.table-page');
                 if (!t) return;
                 const last = (window.steps ||= []).at(-1);
                 const step = [t.dataset.version, t.dataset.motion, +t.dataset.motionMs];
                 if (!last || last[0] !== step[0]) window.steps.push([...step, performance.now()]);
               }).observe(document, { subtree: true, childList: true });"""
        )
        game_id = await quick_play(page)
        rng = random.Random(5)
        moves = 0
        for _ in range(1000):  # six of the person's moves: bots play around each
            if moves >= 6 or (await table_state(page))["phase"] == "ended":
                break
            if await take_turn(page, rng, keyboard=False):
                moves += 1
            else:
                await page.wait_for_timeout(50)
        steps: list[list[Any]] = await page.evaluate("window.steps")
        cards = [s for s in steps if s[1] == "CardPlayed"]
        if expect_pace:
            assert len(cards) >= 8  # each card its own step (instant ones may share a frame)
            paced = [s for s in cards if s[2] >= 300]
            assert len(paced) >= len(cards) * 0.8, cards
            gaps = [b[3] - a[3] for a, b in itertools.pairwise(steps) if a[1] == "CardPlayed"]
            assert sorted(gaps)[len(gaps) // 2] >= 250, "cards followed each other in a blink"
        else:
            # Instant steps may share a frame (a loaded machine batches a trick's cards into
            # one): what must hold is that none of the steps seen took any time.
            assert len(steps) >= 6, steps
            assert all(s[2] == 0 for s in steps), "a step moved with reduced motion"
        async with httpx.AsyncClient(base_url=web_server.url) as api:
            await page.wait_for_function(
                "v => +document.querySelector('.table-page').dataset.version >= v",
                arg=(await view_of(api, game_id))["version"],
                timeout=20_000,
            )
        await context.close()


async def test_each_hand_is_explained_by_its_events(page: Page, api: httpx.AsyncClient) -> None:
    """At a scored hand the summary opens over the felt: every point of the hand in award
    order (kicks and giving one as the events had them, then the HandScored awards, with cards
    and teams) and the running score; Escape closes it; the score sheet lists the hand."""
    game_id = await quick_play(page)
    rng = random.Random(11)
    summary = page.locator(".hand-summary")
    for _ in range(300):
        if await summary.count():
            break
        if not await take_turn(page, rng, keyboard=False):
            await page.wait_for_timeout(30)
    hand = int(await summary.get_attribute("data-hand") or "0")
    shown = await summary.evaluate(
        """box => [...box.querySelectorAll('.summary-points li[data-kind]')].map((li) =>
             [li.dataset.kind, +li.dataset.team, li.querySelector('.who').textContent])"""
    )
    score = await summary.locator("[data-summary-score]").all_text_contents()

    expected: list[list[Any]] = []
    current = 0
    scores: list[int] = []
    for envelope in await all_events(api, game_id):
        event = envelope["event"]
        if event["type"] == "Dealt":
            current = event["hand"]
        elif current == hand and event["type"] in ("Revealed", "GaveOne") and event["points"]:
            kind = "kick" if event["type"] == "Revealed" else "give_one"
            expected.append([kind, event["team"], f"Team {'AB'[event['team']]} +{event['points']}"])
        elif current == hand and event["type"] == "HandScored":
            for award in event["awards"]:
                team = award["team"]
                expected.append([award["kind"], team, f"Team {'AB'[team]} +{award['points']}"])
            scores = event["scores"]
            break
    assert shown == expected
    assert score == [f"Team A {scores[0]}", f"Team B {scores[1]}"]

    await page.keyboard.press("Escape")
    await summary.wait_for(state="detached")
    await page.click('[data-key="score-sheet"]')
    sheet = page.locator("dialog.dialog[open] .score-sheet")
    await sheet.wait_for()
    assert await sheet.locator(f'tr[data-hand="{hand}"]').count() == 1
    await page.keyboard.press("Escape")
    await sheet.wait_for(state="detached")


async def test_a_lone_person_who_steps_away_finds_the_game_waiting(
    page: Page, api: httpx.AsyncClient
) -> None:
    """With nobody at the table the game pauses (no bot plays the away seat), the page says
    so; back at the table, it goes on."""
    game_id = await quick_play(page)
    await page.locator(OFFERED).first.wait_for()
    await seat_action(page, "step_away")
    await page.wait_for_function(
        "() => document.querySelector('.table-page').dataset.paused === 'true'"
    )
    assert "Paused" in (await page.text_content("#status") or "")
    version = (await view_of(api, game_id))["version"]
    await page.wait_for_timeout(1500)  # a short end-to-end wait: nothing may happen meanwhile
    view = await view_of(api, game_id)
    assert view["version"] == version and view["paused"] is True and view["phase"] != "ended"
    await page.click('[data-seat-action="come_back"]')
    await page.wait_for_function(
        "() => document.querySelector('.table-page').dataset.paused === 'false'"
    )
    await page.locator(OFFERED).first.wait_for()


@pytest.mark.parametrize(
    "name",
    [
        "Zo\u00eb \u2764\ufe0f",
        "\U0001f469\U0001f3fd\u200d\U0001f4bb",
        "\u0645\u0647\u0631\u200c\u0646\u0627\u0632",
        "Ana\u0301",
    ],
    ids=["variation-selector", "zwj-sequence", "persian-zwnj", "combining-mark"],
)
async def test_names_people_type_are_taken(page: Page, api: httpx.AsyncClient, name: str) -> None:
    game_id = await quick_play(page, name)
    assert (await view_of(api, game_id))["seats"][0]["name"] == name


async def test_a_refused_name_says_why_in_words_and_leaves_no_table(
    page: Page, api: httpx.AsyncClient
) -> None:
    async def tables() -> set[str]:
        found: set[str] = set()
        for status in ("open", "in_progress"):
            listed = (await api.get("/v1/games", params={"status": status, "limit": 100})).json()
            found |= {game["game_id"] for game in listed["games"]}
        return found

    before = await tables()
    await page.goto("/")
    await page.fill("#player-name", "Ann\u202e")
    await page.click("#quick-play")
    problem = page.locator("#lobby-problem")
    await problem.wait_for()
    await page.wait_for_function("() => document.getElementById('lobby-problem').textContent")
    text = await problem.text_content() or ""
    assert "right-to-left override (U+202E)" in text and "[" not in text
    assert await tables() == before, "a table was opened for a refused name"
    assert "/table/" not in page.url


async def test_the_focus_stays_in_the_hand_after_a_play_by_keyboard(page: Page) -> None:
    await quick_play(page)
    await until_a_card_to_play(page, random.Random(2), in_trick=0)
    before = (await table_state(page))["version"]
    await page.keyboard.press("ArrowRight")
    played = await page.evaluate("document.activeElement.dataset.card")
    await page.keyboard.press("Enter")
    await page.wait_for_function(
        "v => +document.querySelector('.table-page').dataset.version > v", arg=before
    )
    focus = await page.evaluate(
        "() => [document.activeElement.closest('.hand') !== null,"
        " document.activeElement.dataset.card ?? null]"
    )
    assert focus[0], "the focus left the hand after a play"
    assert focus[1] != played


async def test_unknown_paths_and_tables_named_for_people(
    page: Page, api: httpx.AsyncClient
) -> None:
    response = await page.goto("/no/such/page")
    assert response is not None and response.status == 404
    await page.wait_for_selector(".not-found")
    assert "Nothing here" in (await page.text_content("h1") or "")

    # A table this server does not have: said once, and not asked for again and again.
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    await page.goto("/table/no-such-table")
    await page.wait_for_selector(".not-found")
    assert "No such table" in (await page.text_content("h1") or "")
    await page.wait_for_timeout(1000)  # a short end-to-end wait: would it poll?
    assert len([url for url in asked if "/v1/games/no-such-table" in url]) <= 2

    created = await api.post("/v1/games", json={"bots": [None, "heuristic", None, "heuristic"]})
    game_id = created.json()["game_id"]
    await api.post(f"/v1/games/{game_id}/seats/0", json={"name": "Maya"})
    await page.goto("/")
    row = page.locator(f'.game-row[data-game="{game_id}"]')
    await row.wait_for()
    assert (
        await row.locator(".table-title").text_content()
        == "Maya\N{RIGHT SINGLE QUOTATION MARK}s table"
    )
    assert await row.locator(".age").text_content() == "just now"


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (360, 640)])
async def test_a_whole_game_by_mouse_without_scrolling(
    page: Page, api: httpx.AsyncClient, width: int, height: int
) -> None:
    """Every move of a whole game is a click on something already in the viewport, and the
    page never scrolls."""
    await page.set_viewport_size({"width": width, "height": height})
    game_id = await quick_play(page)
    rng = random.Random(width)
    offered = page.locator(OFFERED)
    for _ in range(5000):
        state = await table_state(page)
        if state["phase"] == "ended":
            break
        count = await offered.count()
        if not count:
            await page.wait_for_timeout(20)
            continue
        try:
            box = await offered.nth(rng.randrange(count)).bounding_box(timeout=500)
        except PlaywrightTimeout:
            box = None
        if box is None:
            continue  # redrawn meanwhile (the offer changed): look again
        assert not outside(
            [box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]], width, height
        ), f"an offered move outside the {width}x{height} viewport"
        await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        await page.wait_for_function(
            "v => +document.querySelector('.table-page').dataset.version > v", arg=state["version"]
        )
        assert await page.evaluate("window.scrollY") == 0
    assert (await view_of(api, game_id))["phase"] == "ended"
    # Whole inside the viewport, looked at until it is (the page may redraw the result
    # between two looks on a loaded machine: a one-shot bounding box then finds none).
    await expect(page.locator(".lifecycle .result")).to_be_in_viewport(ratio=1)


async def test_a_hint_shows_each_offered_actions_chance_to_win(page: Page) -> None:
    """Asked for, the master bot's chance to win is shown on every offered action, the best
    starred, and only until the game moves on."""
    await quick_play(page)
    await page.locator(OFFERED).first.wait_for()
    await page.click('[data-key="hint"]')
    offered = page.locator(OFFERED)
    await page.locator(".chance").first.wait_for()
    count = await offered.count()
    chances = [
        float(await offered.nth(i).locator(".chance").get_attribute("data-chance") or "-1")
        for i in range(count)
    ]
    assert all(0.0 <= c <= 1.0 for c in chances)
    assert await page.locator(".chance.best").count() == 1
    best = await page.locator(".chance.best").get_attribute("data-chance")
    assert float(best or "-1") == max(chances)
    before = (await table_state(page))["version"]
    await offered.first.click()
    await page.wait_for_function(
        "v => +document.querySelector('.table-page').dataset.version > v", arg=before
    )
    assert await page.locator(".chance").count() == 0  # stale once the game moved
