"""The replay viewer: it steps a finished game to its end, checks every deal against the seed
in the browser (WebCrypto) and shows the API's scores; a tampered replay file is caught."""

from __future__ import annotations

import copy
import json

import httpx
import pytest
from playwright.async_api import Page
from support import replay_of, view_of

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

BOTS = ["heuristic", "random", "heuristic", "random"]


async def finished_game(api: httpx.AsyncClient) -> str:
    """A whole game of four bots: it is played to its end within the creation."""
    created = await api.post("/v1/games", json={"bots": BOTS})
    assert created.status_code == 201, created.text
    game_id: str = created.json()["game_id"]
    assert (await view_of(api, game_id))["phase"] == "ended"
    return game_id


async def position(page: Page) -> tuple[int, int]:
    values = await page.eval_on_selector(
        ".replay", "el => [+el.dataset.position, +el.dataset.total]"
    )
    return values[0], values[1]


async def wait_position(page: Page, expected: int) -> None:
    """The viewer redraws at the next animation frame: wait for it."""
    await page.wait_for_function(
        "n => +document.querySelector('.replay').dataset.position === n", arg=expected
    )


async def test_the_replay_viewer_steps_to_the_end_and_verifies_the_seed(
    page: Page, api: httpx.AsyncClient
) -> None:
    game_id = await finished_game(api)
    replay, events = await replay_of(api, game_id)
    final = await view_of(api, game_id)

    await page.goto(f"/replay/{game_id}")
    await page.wait_for_selector('.verify[data-ok="true"]')
    assert await page.get_attribute("[data-seed]", "data-seed") == replay["seed"]
    deals = await page.locator(".deal-checks li").count()
    assert deals == sum(type(e).__name__ == "Dealt" for e in events)
    assert await position(page) == (0, len(events))

    # Hand by hand, the viewer stops right after each hand is scored and after the game ends.
    types = [type(e).__name__ for e in events]
    stops = [i + 1 for i, name in enumerate(types) if name in ("HandScored", "GameEnded")]
    await page.keyboard.press("ArrowRight")
    await wait_position(page, 1)
    await page.keyboard.press("ArrowRight")
    await wait_position(page, 2)
    await page.keyboard.press("PageDown")  # to the end of the first hand
    await wait_position(page, stops[0])
    await page.get_by_role("button", name="End", exact=True).click()
    await wait_position(page, len(events))
    scores = [int(await page.text_content(f'[data-score="{t}"]') or "-1") for t in (0, 1)]
    assert scores == final["scores"]
    assert "wins" in (await page.text_content(".replay-scores .result") or "")
    await page.keyboard.press("PageUp")  # back to the last stop before the end
    await wait_position(page, max(s for s in stops if s < len(events)))


async def test_a_tampered_replay_file_is_caught(page: Page, api: httpx.AsyncClient) -> None:
    game_id = await finished_game(api)
    replay, _ = await replay_of(api, game_id)
    forged = copy.deepcopy(replay)
    dealt = next(e["event"] for e in forged["events"] if e["event"]["type"] == "Dealt")
    hands = dealt["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]  # a friendlier first card for seat 0

    await page.goto("/replay")
    await page.set_input_files(
        "#replay-file",
        files=[
            {
                "name": "forged.json",
                "mimeType": "application/json",
                "buffer": json.dumps(forged).encode(),
            }
        ],
    )
    await page.wait_for_selector('.verify[data-ok="false"]')
    verdict = await page.text_content(".verify .verdict") or ""
    assert "Not verified" in verdict and "deal 1.1" in verdict
    assert await page.locator(".deal-checks li.bad").count() == 1


async def test_the_analysis_shows_each_choice_beside_the_strong_bots(
    page: Page, api: httpx.AsyncClient
) -> None:
    game_id = await finished_game(api)
    analysis = (await api.get(f"/v1/games/{game_id}/analysis")).json()
    by_version = {move["version"]: move for move in analysis["moves"]}
    await page.goto(f"/replay/{game_id}")
    await page.wait_for_selector(".verify[data-ok]")
    await page.click('[data-key="analyse"]')
    line = page.locator(".analysis")
    # The click redraws at the next frame: wait until the button has gone and the analysis came.
    await page.wait_for_function(
        "() => { const line = document.querySelector('.analysis');"
        " return line && !line.hasAttribute('aria-busy') && !line.querySelector('button'); }"
    )
    at = 0
    for target in sorted(by_version):  # every real choice of the game, in order
        for _ in range(target - at):
            await page.keyboard.press("ArrowRight")
        at = target
        await wait_position(page, target)
        await page.wait_for_selector(f'.analysis[data-version="{target}"]')
        move = by_version[target]
        text = await line.text_content() or ""
        played, best = move["played_win_probability"], move["best_win_probability"]
        assert f"{round(100 * played)}% to win" in text
        assert ("agrees" in text) == (move["played"] == move["best"])
        # Another choice of the same rounded chance is preferred "by a hair", never for nothing.
        tied = round(100 * played) == round(100 * best)
        assert ("by a hair" in text) == (tied and move["played"] != move["best"]), text


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (360, 640)])
async def test_the_replays_table_is_in_view_and_its_proof_a_click_away(
    page: Page, api: httpx.AsyncClient, width: int, height: int
) -> None:
    """On a laptop's screen the whole table shows under the controls (it was below the fold,
    under the deal check); the proof of a verified game folds away, and opens on a click."""
    await page.set_viewport_size({"width": width, "height": height})
    game_id = await finished_game(api)
    await page.goto(f"/replay/{game_id}")
    await page.wait_for_selector('.verify[data-ok="true"]')
    for _ in range(10):  # into the first hand: every seat holds its cards, face up
        await page.keyboard.press("ArrowRight")
    await wait_position(page, 10)
    felt = await page.locator(".replay-felt").bounding_box()
    assert felt is not None
    if width >= 1280:
        assert felt["y"] + felt["height"] <= height, felt
    else:  # a phone scrolls, but the table starts on the first screen
        assert felt["y"] < height, felt
        # Stepping brought the table into view above the steps, which keep to the foot of the
        # screen (they were above it, a screen away, and then over its trick: two trials).
        felt = await page.locator(".replay-felt").bounding_box()
        trick = await page.locator(".replay-felt .trick").bounding_box()
        steps = await page.locator(".replay-steps").bounding_box()
        step = await page.locator('.stepper [data-key="ArrowRight"]').bounding_box()
        assert felt and trick and steps and step
        assert trick["y"] + trick["height"] <= steps["y"] + 1, (trick, steps)
        if felt["height"] + steps["height"] <= height:  # a run pack's long hands make it taller
            assert felt["y"] + felt["height"] <= steps["y"] + 1, (felt, steps)
        assert step["y"] >= 0 and step["y"] + step["height"] <= height, step
        # The six step buttons on one row (arrows only), on the screen.
        rows = await page.locator(".stepper button").evaluate_all(
            "els => els.map((e) => { const r = e.getBoundingClientRect();"
            " return [Math.round(r.top), r.right]; })"
        )
        assert len(rows) == 6 and len({top for top, _ in rows}) == 1, rows
        assert max(right for _, right in rows) <= width, rows
        await page.locator('.stepper [data-key="ArrowRight"]').click()
        await wait_position(page, 11)
    seed = page.locator("[data-seed]")
    assert not await seed.is_visible()
    await page.locator(".verify summary").click()
    assert await seed.is_visible()
