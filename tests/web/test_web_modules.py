"""The client's pure modules, run in the browser as the page loads them: the state fold
ignores what it already has and asks for a new view when it falls behind or must resync; card
names are words; the deal check derives the server's decks."""

from __future__ import annotations

import json

import pytest
from playwright.async_api import Page

from domain import commit, derive_deck, derive_first_dealer

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

FOLD = """async () => {
  const { apply, initial, isBusy } = await import('/static/js/state.js');
  const seats = [0, 1, 2, 3].map((seat) => ({ seat, team: seat % 2, name: `P${seat}`, bot: null,
                                              cards_held: 6 }));
  const view = (version) => ({ version, seats, viewer: 0, phase: 'playing', to_act: 0,
                               legal_actions: [] });
  const s0 = initial('g', 0);
  const s1 = apply(s0, { kind: 'view', view: view(10) });
  const s2 = apply(s1, { kind: 'event', version: 11,
                         event: { type: 'CardPlayed', seat: 1, card: 'TC' } });
  const again = apply(s2, { kind: 'event', version: 11,
                            event: { type: 'CardPlayed', seat: 1, card: 'TC' } });
  const older = apply(s2, { kind: 'view', view: view(9) });
  const s3 = apply(s2, { kind: 'view', view: view(11) });
  const sent = apply(apply(s3, { kind: 'pending' }), { kind: 'accepted', version: 14 });
  const resynced = apply(s3, { kind: 'resync' });
  return {
    fresh: s1.stale, behind: s2.stale, log: s2.log.map((l) => l.text), same: again === s2,
    olderIgnored: older === s2, caughtUp: s3.stale, untouched: s0.view === null,
    busyUntilSeen: isBusy(sent), busyAfter: isBusy(apply(sent, { kind: 'view', view: view(14) })),
    resync: [resynced.stale, resynced.streamVersion],
  };
}"""


async def test_the_state_fold(page: Page) -> None:
    await page.goto("/")
    result = await page.evaluate(FOLD)
    assert result == {
        "fresh": False,
        "behind": True,  # an event after the view: the page must reload it
        "log": ["P1 plays the ten of clubs."],
        "same": True,  # a version it already has changes nothing
        "olderIgnored": True,
        "caughtUp": False,
        "untouched": True,  # pure: the old state is as it was
        "busyUntilSeen": True,  # no second move before the first one's outcome is shown
        "busyAfter": False,
        "resync": [True, 0],
    }


async def test_a_six_and_a_nine_are_underlined_in_both_corners(page: Page) -> None:
    """Upside down (the far corner is turned) a 9 read as a 6, a kick that scores (an outside
    trial): the two are underlined, as printed decks have them, and no other rank is."""
    await page.goto("/")
    lines = await page.evaluate(
        """async () => {
          const { cardFace } = await import('/static/js/cardview.js');
          const shown = {};
          for (const code of ['6H', '9S', '8D', 'TC', 'AS']) {
            const card = document.body.appendChild(cardFace(code));
            shown[code] = [...card.querySelectorAll('.corner b')].map(
              (b) => getComputedStyle(b).textDecorationLine);
            card.remove();
          }
          return shown;
        }"""
    )
    turned = ["underline", "underline"]
    assert lines == {"6H": turned, "9S": turned, "8D": ["none"] * 2, "TC": ["none"] * 2,
                     "AS": ["none"] * 2}  # fmt: skip


async def test_card_names_and_the_deck_derivation_match_the_server(page: Page) -> None:
    await page.goto("/")
    seed = "5e" * 32
    script = """async ([seed, hand, deal]) => {
      const { cardName } = await import('/static/js/cards.js');
      const { deriveDeck } = await import('/static/js/fairness.js');
      const bytes = new Uint8Array(seed.match(/../g).map((b) => parseInt(b, 16)));
      const key = await crypto.subtle.importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' },
                                                false, ['sign']);
      return { names: ['TC', 'AS', '2H', 'JD'].map(cardName),
               deck: await deriveDeck(key, hand, deal) };
    }"""
    result = await page.evaluate(script, [seed, 3, 2])
    assert result["names"] == ["ten of clubs", "ace of spades", "two of hearts", "jack of diamonds"]
    assert result["deck"] == list(derive_deck(seed, 3, 2))
    # And a whole log built from this seed passes the page's check (commitment, dealer).
    verify = """async ([created, seed]) => {
      const { verifyDeals } = await import('/static/js/fairness.js');
      return await verifyDeals([created, { type: 'SeedRevealed', seed }]);
    }"""
    created = {
        "type": "GameCreated",
        "seed_commitment": commit(seed),
        "first_dealer": derive_first_dealer(seed),
    }
    checked = await page.evaluate(verify, [created, seed])
    assert checked["commitmentOk"] and checked["dealerOk"] and checked["ok"], json.dumps(checked)
    forged = {**created, "seed_commitment": commit("00" * 32)}
    assert not (await page.evaluate(verify, [forged, seed]))["ok"]


async def test_a_result_puts_the_winners_score_first(page: Page) -> None:
    await page.goto("/")
    result = await page.evaluate(
        """async () => {
      const { finishLine, narrate, resultLine, scoreLine, yourFinishLine } =
        await import('/static/js/narrate.js');
      const names = ['Ann', 'Ben', 'Cy', 'Di'];
      const ended = { type: 'GameEnded', winner: 1, scores: [9, 14], reason: 'target' };
      const listed = (winner, end_reason, scores) => finishLine({ winner, end_reason, scores });
      return [scoreLine([9, 14], 1), scoreLine([1, 0], 1), resultLine([3, 5], null),
              resultLine([9, 14], 1), narrate(ended, names, null),
              listed(1, 'resigned', [9, 4]), listed(null, 'aborted', [0, 0]),
              listed(null, 'expired', [0, 0]),
              yourFinishLine({ winner: 1, end_reason: 'target', scores: [9, 14] }, 3),
              yourFinishLine({ winner: 1, end_reason: 'resigned', scores: [9, 4] }, 2),
              yourFinishLine({ winner: null, end_reason: 'aborted', scores: [0, 0] }, 0),
              yourFinishLine({ winner: 0, end_reason: 'target', scores: [14, 2] }, null)];
    }"""
    )
    assert result == [
        "14\u2013\u20609",
        "0\u2013\u20601",
        "A 3 · B 5",
        "Team B won 14\u2013\u20609",
        "Team B wins the game, 14 to 9.",
        "Team B won 4\u2013\u20609, Team A resigned",  # the winner may have fewer points
        "Aborted before a card was played",
        "Closed: nobody came in time",
        "You won 14\u2013\u20609",  # seat 3 is Team B: their score first
        "You lost 9\u2013\u20604, your team resigned",  # seat 2's team, with more points
        "Aborted before a card was played",
        "Team A won 14\u2013\u20602",  # a game the player did not sit at
    ]


GREYED = """async ([hand, trick, trump, legal]) => {
  const { apply, initial } = await import('/static/js/state.js');
  const { renderTable } = await import('/static/js/table.js');
  const seats = [0, 1, 2, 3].map((seat) => ({ seat, team: seat % 2, name: `P${seat}`, bot: null,
                                              cards_held: 3, away: false, left: false }));
  const view = { version: 30, phase: 'playing', viewer: 0, to_act: 0, dealer: 3, hand_number: 1,
    deal_number: 1, seats, rules: { target: 14, turn_seconds: null }, trump, kicks: ['4D'],
    scores: [0, 0], trick: trick.map(([seat, card]) => ({ seat, card })), last_trick: [],
    tricks_played: 2, game_counts: [0, 0], hand,
    legal_actions: legal.map((card) => ({ type: 'play', seat: 0, card })), winner: null,
    seed_commitment: 'c', seed: null, deadline: null, seat_actions: [], end_reason: null,
    rematch: null };
  const root = renderTable(apply(initial('g', 0), { kind: 'view', view }),
                           { now: () => 0, speed: () => 'normal' });
  const cards = [...root.querySelectorAll('.hand button.card')];
  return {
    greyed: cards.filter((b) => b.getAttribute('aria-disabled') === 'true'
                                && b.classList.contains('unplayable'))
                 .map((b) => [b.dataset.card, b.getAttribute('aria-label')]),
    hint: root.querySelector('#rule-hint').textContent,
  };
}"""


AFTER_SIX_TRICKS = """
  const seats = [0, 1, 2, 3].map((seat) => ({ seat, team: seat % 2, name: `P${seat}`, bot: null,
                                              cards_held: 0, away: false, left: false }));
  const afterSixTricks = { version: 1, phase: 'playing', viewer: 0, to_act: 1, dealer: 3,
    hand_number: 1, deal_number: 1, seats, rules: { target: 14, turn_seconds: null },
    trump: 'D', kicks: ['4D'], scores: [0, 0], trick: [], last_trick: [], tricks_played: 6,
    game_counts: [40, 12], hand: [], legal_actions: [], winner: null, seed_commitment: 'c',
    seed: null, deadline: null, seat_actions: [], end_reason: null, rematch: null };
"""
"""JavaScript statements for the module tests below: a view of seat 0 after a hand's six
tricks (``afterSixTricks``), which each changes as it needs."""


CORNERS = (
    """async (phase) => {
  const { apply, initial } = await import('/static/js/state.js');
  const { renderTable } = await import('/static/js/table.js');"""
    + AFTER_SIX_TRICKS
    + """
  const view = { ...afterSixTricks, phase, to_act: null, dealer: 0, hand_number: 2 };
  const root = renderTable(apply(initial('g', 0), { kind: 'view', view }),
                           { now: () => 0, speed: () => 'normal' });
  return { kicks: root.querySelectorAll('.felt .kicks .card:not(.empty)').length,
           trump: root.querySelector('.felt .hand-facts .trump').textContent };
}"""
)


async def test_between_hands_the_felt_shows_no_kick_or_trump_of_the_last_hand(page: Page) -> None:
    """After a hand is scored and before the next deal, the view is the next hand's (hand 2,
    its dealer) with the last hand's kick and trump still in it: the felt shows neither (hand
    2 beside hand 1's kick and trump read as one hand: an outside trial)."""
    await page.goto("/")
    assert await page.evaluate(CORNERS, "dealing") == {"kicks": 0, "trump": "not yet\u2013"}
    assert await page.evaluate(CORNERS, "begging") == {"kicks": 1, "trump": "\u2666 diamonds"}


@pytest.mark.parametrize(
    ("hand", "trick", "trump", "legal", "greyed", "hint"),
    [
        (
            ["5S", "AH", "2D"],
            [[3, "KH"]],
            "D",
            ["AH", "2D"],
            [["5S", "five of spades, cannot be played now"]],
            "Follow hearts or play a trump.",
        ),
        (
            ["5S", "3D", "QD"],
            [[3, "KD"]],
            "D",
            ["3D", "QD"],
            [["5S", "five of spades, cannot be played now"]],
            "Trumps were led: follow with a trump.",
        ),
        (
            ["5S", "3D", "QD"],
            [[2, "KH"], [3, "JD"]],
            "D",
            ["5S", "QD"],
            [["3D", "three of diamonds, cannot be played now"]],
            "No undertrumping: a trump below the highest in the trick only when you have "
            "nothing else to play.",
        ),
        (["5S", "AH"], [], "D", ["5S", "AH"], [], ""),
    ],
)
async def test_greyed_cards_say_which_rule_greys_them(
    page: Page,
    hand: list[str],
    trick: list[list[object]],
    trump: str,
    legal: list[str],
    greyed: list[list[str]],
    hint: str,
) -> None:
    """The server's legal actions decide which cards are playable; the page greys the others
    and names the rule, on a line that is there (empty) even when nothing is greyed."""
    await page.goto("/")
    shown = await page.evaluate(GREYED, [hand, trick, trump, legal])
    assert shown == {"greyed": greyed, "hint": hint}


async def test_a_redraw_keeps_the_focus_or_hands_it_on(page: Page) -> None:
    """The focused control is found again after a redraw; when it is gone (the last card was
    played and the game ended), the focus goes to the marked next control (Rematch), not back
    to the top of the page."""
    await page.goto("/")
    focused = await page.evaluate(
        """async () => {
      const { h, redrawer } = await import('/static/js/dom.js');
      const root = document.createElement('div');
      document.body.append(root);
      const frame = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done)));
      let content = () => [h('button', { 'data-key': 'card-5S' }, '5S'),
                           h('button', { 'data-key': 'card-AH' }, 'AH')];
      const redraw = redrawer(root, () => h('div', {}, content()));
      redraw();
      await frame();
      root.querySelector('[data-key="card-AH"]').focus();
      const seen = [];
      redraw();
      await frame();
      seen.push(document.activeElement.dataset.key);
      content = () => [h('button', { 'data-key': 'back' }, 'Back'),
                       h('button', { 'data-key': 'rematch', 'data-focus-next': true }, 'Rematch')];
      redraw();
      await frame();
      seen.push(document.activeElement.dataset.key);
      root.remove();
      return seen;
    }"""
    )
    assert focused == ["card-AH", "rematch"]


async def test_the_focus_stays_in_the_hand_after_a_play(page: Page) -> None:
    """A card played (gone from the hand): the focus goes to the playable card nearest where
    it was; with none playable, to the card at its place; with no card left, to the hand
    itself, and back onto a card at the next deal."""
    await page.goto("/")
    seen = await page.evaluate(
        """async () => {
      const { h, redrawer } = await import('/static/js/dom.js');
      const root = document.createElement('div');
      document.body.append(root);
      const frame = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done)));
      const card = (code, playable) => h('button', { 'data-key': `card-${code}`,
        'data-focus-group': 'hand', class: playable ? 'playable' : '',
        'aria-disabled': playable ? null : 'true' }, code);
      let cards = [['2C', true], ['5S', true], ['AH', false], ['KD', true]];
      const redraw = redrawer(root, () => h('div', { tabindex: '-1', 'data-key': 'hand',
        'data-focus-home': 'hand' }, cards.map(([c, p]) => card(c, p))));
      const seen = [];
      const step = async (next) => { cards = next; redraw(); await frame();
                                     seen.push(document.activeElement.dataset.key); };
      redraw();
      await frame();
      root.querySelector('[data-key="card-5S"]').focus();
      await step(cards);
      await step([['2C', false], ['AH', false], ['KD', true]]);  // 5S played: KD is playable
      await step([['2C', false], ['AH', false]]);               // none playable: same place
      await step([]);                                          // the hand is empty
      await step([['3H', false], ['9S', true]]);                // the next deal
      root.remove();
      return seen;
    }"""
    )
    assert seen == ["card-5S", "card-KD", "card-AH", "hand", "card-9S"]


HAND_SUMMARY = (
    """async (events) => {
  const { apply, initial } = await import('/static/js/state.js');
  const { renderTable } = await import('/static/js/table.js');"""
    + AFTER_SIX_TRICKS
    + """
  const view = afterSixTricks;
  let state = apply(initial('g', 0), { kind: 'view', view });
  events.forEach((event, i) => { state = apply(state, { kind: 'event', version: i + 2, event }); });
  const scored = state.book.hands[state.book.hands.length - 1];
  state = apply(state, { kind: 'summary', hand: scored.number });
  const box = renderTable(state, { now: () => 0, speed: () => 'normal' })
    .querySelector('.hand-summary');
  return { hand: box.dataset.hand,
           rows: [...box.querySelectorAll('.summary-points li')].map((li) =>
             [li.dataset.kind, li.querySelector('.what').textContent,
              li.querySelector('.who').textContent]),
           counts: box.querySelector('.counts')?.textContent ?? null,
           score: [...box.querySelectorAll('[data-summary-score]')].map((el) => el.textContent) };
}"""
)


def _hand_events(awards: list[dict[str, object]], scores: list[int]) -> list[dict[str, object]]:
    """A hand of the log: dealt twice (a redeal), two kicks (one scores), a give-one, scored."""
    deal = {"type": "Dealt", "at": 0, "dealer": 3, "hands": [None] * 4, "stock": None}
    return [
        {**deal, "hand": 2, "deal": 1},
        {"type": "Revealed", "at": 0, "card": "JH", "points": 3, "team": 1},
        {"type": "GaveOne", "at": 0, "seat": 3, "team": 0, "points": 1},
        {**deal, "hand": 2, "deal": 2},
        {"type": "Revealed", "at": 0, "card": "5C", "points": 0, "team": 1},
        {
            "type": "HandScored",
            "at": 0,
            "awards": awards,
            "game_counts": [40, 12],
            "scores": scores,
        },
    ]


async def test_the_hand_summary_lists_every_point_of_the_events_in_award_order(
    page: Page,
) -> None:
    """The summary is the events': the kick and the give-one as they came, then the
    HandScored awards in their order with their cards and teams, Game's counts, the score."""
    await page.goto("/")
    high = {"kind": "high", "team": 0, "points": 1, "card": "AD", "seat": 0}
    hang = {"kind": "hang_jack", "team": 1, "points": 3, "card": "JD", "seat": 1}
    game = {"kind": "game", "team": 0, "points": 1}
    shown = await page.evaluate(HAND_SUMMARY, _hand_events([high, hang, game], [3, 6]))
    assert shown == {
        "hand": "2",
        "rows": [
            ["kick", "Kick (jack of hearts)", "Team B +3"],
            ["give_one", "Gave one", "Team A +1"],
            ["high", "High (ace of diamonds)", "Team A +1"],
            ["hang_jack", "Hang Jack (jack of diamonds)", "Team B +3"],
            ["game", "Game", "Team A +1"],
        ],
        "counts": "Count for Game: Team A 40, Team B 12",
        "score": ["Team A 3", "Team B 6"],
    }
    # Game not awarded (the target was reached first): the counts say so.
    stopped = await page.evaluate(HAND_SUMMARY, _hand_events([high], [14, 3]))
    assert stopped["counts"] == (
        "Count for Game (not awarded: the target was reached first): Team A 40, Team B 12"
    )
    assert [row[0] for row in stopped["rows"]] == ["kick", "give_one", "high"]


async def test_a_game_won_on_a_kick_is_summed_up_by_that_hand(page: Page) -> None:
    """The game ends on hand 3's kick, unscored: that hand's summary shows the kick that won
    it and the final score, not the score before it (an outside reviewer saw hand 2's left
    up as the ending)."""
    await page.goto("/")
    scored = _hand_events(
        [{"kind": "high", "team": 1, "points": 1, "card": "AD", "seat": 1}], [8, 11]
    )
    deal = {"type": "Dealt", "at": 0, "dealer": 0, "hands": [None] * 4, "stock": None}
    won = [
        {**deal, "hand": 3, "deal": 1},
        {"type": "Revealed", "at": 0, "card": "JS", "points": 3, "team": 1},
        {"type": "GameEnded", "at": 0, "winner": 1, "scores": [8, 14], "reason": "target"},
    ]
    shown = await page.evaluate(HAND_SUMMARY, scored + won)
    assert shown == {
        "hand": "3",
        "rows": [["kick", "Kick (jack of spades)", "Team B +3"]],
        "counts": None,
        "score": ["Team A 8", "Team B 14"],
    }


SIDE_POINTS = (
    """async ([events, phase]) => {
  const { apply, initial } = await import('/static/js/state.js');
  const { sidePanels } = await import('/static/js/tableside.js');"""
    + AFTER_SIX_TRICKS
    + """
  const view = { ...afterSixTricks, phase, game_counts: [7, 2] };
  let state = apply(initial('g', 0), { kind: 'view', view });
  events.forEach((event, i) => { state = apply(state, { kind: 'event', version: i + 2, event }); });
  const panel = sidePanels(state, view).querySelector('.points');
  return [...panel.querySelectorAll('h2, h3, li')].map((el) => el.textContent);
}"""
)


async def test_the_points_panel_names_the_hand_of_each_list(page: Page) -> None:
    """The points panel heads the count and the kicks of the hand in play with that hand's
    number, and the last scored hand's awards with its own: between a hand's scoring and the
    next deal, one hand; after the deal, "Hand 3 so far" over "Hand 2 scored" (under one
    "This hand", hand 3's count beside hand 2's awards read as one hand's: an outside trial);
    a game that ended inside hand 3 (on a kick) shows it as over."""
    await page.goto("/")
    high = {"kind": "high", "team": 0, "points": 1, "card": "AD", "seat": 0}
    scored = _hand_events([high], [4, 3])
    deal = {"type": "Dealt", "at": 0, "dealer": 0, "hands": [None] * 4, "stock": None}
    next_hand = [
        {**deal, "hand": 3, "deal": 1},
        {"type": "Revealed", "at": 0, "card": "JS", "points": 3, "team": 1},
    ]
    count = "Count toward GameA 7 · B 2"
    assert await page.evaluate(SIDE_POINTS, [scored, "playing"]) == [
        "Hand 2",
        count,
        "Hand 2 scored",
        "Kick (jack of hearts)Team B +3",
        "Gave oneTeam A +1",
        "High (ace of diamonds)Team A +1",
    ]
    shown = await page.evaluate(SIDE_POINTS, [scored + next_hand, "playing"])
    assert shown[:3] == ["Hand 3 so far", count, "Kick (jack of spades)Team B +3"], shown
    assert shown[3] == "Hand 2 scored", shown
    # A game won on that kick: hand 3 is over, not "so far" (an outside trial).
    ended = [{"type": "GameEnded", "at": 0, "winner": 1, "scores": [4, 14], "reason": "target"}]
    shown = await page.evaluate(SIDE_POINTS, [scored + next_hand + ended, "ended"])
    assert shown[:3] == ["Hand 3", count, "Kick (jack of spades)Team B +3"], shown


PACER = """async () => {
  const { createPacer, STEP_MS } = await import('/static/js/pace.js');
  const run = (factor, steps, { clockLeft = () => null, offer = null, hurryAt = null } = {}) => {
    let now = 0;
    const timers = [];
    const shown = [];
    const pacer = createPacer({
      show: (step, ms) => shown.push([step.version, step.event?.type ?? null, ms, now]),
      idle: () => shown.push(['idle', now]),
      factor: () => factor, clockLeft,
      timers: { set: (fn, ms) => { timers.push({ at: now + ms, fn }); return timers.length; },
                clear: (id) => { timers[id - 1].fn = null; } },
    });
    const tick = () => {  // the injected clock: run the next timer due
      const next = timers.filter((t) => t.fn).sort((a, b) => a.at - b.at)[0];
      if (!next) return false;
      now = next.at; const fn = next.fn; next.fn = null; fn(); return true;
    };
    steps.forEach((type, i) => pacer.push({ version: i + 1, event: type ? { type } : null,
                                            view: { version: i + 1 } }));
    if (offer) pacer.offer(offer);
    if (hurryAt !== null) { while (shown.length < hurryAt) tick(); pacer.hurry(); }
    while (tick());
    return shown;
  };
  const trick = ['CardPlayed', 'CardPlayed', 'TrickWon'];
  return {
    normal: run(1, trick),
    instant: run(0, trick),
    backlog: run(1, Array(20).fill('CardPlayed')).slice(1, 4),
    longer: run(1, Array(10).fill('CardPlayed')).slice(1, 2),
    clock: run(1, ['CardPlayed'], { clockLeft: () => 1000 }),
    roomy: run(1, ['CardPlayed'], { clockLeft: () => 30000 }),
    hurried: run(1, ['HandScored', 'Dealt'], { hurryAt: 1 }),
    late: run(1, [], { offer: { version: 7 } }),
    stale: run(1, ['CardPlayed'], { offer: { version: 1 } }),
    base: STEP_MS,
  };
}"""


async def test_the_pace_queue_spaces_steps_catches_up_and_can_be_hurried(page: Page) -> None:
    """Steps are shown one after another, each for its type's time at the chosen speed;
    instant (reduced motion, a hidden tab) shows them at once; a backlog goes faster; a
    running clock of the person's bounds them; a dismissed summary ends its wait; a
    command's answer is shown only when the stream does not bring its position in time."""
    await page.goto("/")
    r = await page.evaluate(PACER)
    card, trick = r["base"]["CardPlayed"], r["base"]["TrickWon"]
    # Normal: each step of a command's batch for all of its time.
    assert [row[:3] for row in r["normal"][:3]] == [
        [1, "CardPlayed", card],
        [2, "CardPlayed", card],
        [3, "TrickWon", trick],
    ]
    assert r["normal"][1][3] == r["normal"][0][2]  # the second is shown when the first's wait ends
    assert r["normal"][-1] == ["idle", r["normal"][2][3] + trick]
    assert [row[2] for row in r["instant"][:3]] == [0, 0, 0]
    assert [row[2] for row in r["backlog"]] == [0, 0, 0]  # beyond a dozen: at once
    assert r["longer"][0][2] == round(card / (1 + (8 - 6) / 2))  # beyond a batch: faster
    # The person's clock runs: a fifth of its time left at most (1 s left: 200 ms); with
    # 30 s left the pace is the normal one.
    assert r["clock"][0][2] == 200
    assert r["roomy"][0][2] == card
    assert r["hurried"][1][:2] == [2, "Dealt"] and r["hurried"][1][3] == 0
    assert r["late"][0] == [7, None, 0, 1500]  # the stream never brought it: shown after 1.5 s
    assert [row[0] for row in r["stale"]] == [1, "idle"]  # an answer already shown: dropped


FINAL_TRICK = """async (seen) => {
  const { apply, initial } = await import('/static/js/state.js');
  const { renderTable } = await import('/static/js/table.js');
  const seats = [0, 1, 2, 3].map((seat) => ({ seat, team: seat % 2, name: `P${seat}`, bot: null,
                                              cards_held: 0, away: false, left: false }));
  const view = (version, hand, lastTrick) => ({ version, phase: 'playing', viewer: 0,
    to_act: 1, dealer: 3, hand_number: hand, deal_number: 1, seats,
    rules: { target: 14, turn_seconds: null }, trump: 'D', kicks: ['4D'], scores: [0, 0],
    trick: [], last_trick: lastTrick, tricks_played: 0, game_counts: [0, 0], hand: [],
    legal_actions: [], winner: null, seed_commitment: 'c', seed: null, deadline: null,
    seat_actions: [], end_reason: null, rematch: null });
  const played = [[1, 'KH'], [2, 'AH'], [3, '2H'], [0, '5H']].slice(4 - seen);
  let state = apply(initial('g', 0), { kind: 'view', view: view(20 - seen, 1, []) });
  let version = 20 - seen;
  for (const [seat, card] of played) {
    state = apply(state, { kind: 'event', version: ++version,
                           event: { type: 'CardPlayed', at: 0, seat, card } });
  }
  state = apply(state, { kind: 'event', version: ++version, event: { type: 'TrickWon', at: 0,
                         seat: 2, team: 0, cards: ['KH', 'AH', '2H', '5H'] } });
  state = apply(state, { kind: 'view', view: view(version, 2, []) });
  const panel = renderTable(state, { now: () => 0, speed: () => 'normal' })
    .querySelector('.last-trick');
  return [panel.querySelector('h2').textContent,
          [...panel.querySelectorAll('figure [data-card]')].map((c) => c.dataset.card),
          panel.querySelector('p').textContent];
}"""


async def test_a_hands_final_trick_stays_in_sight_after_the_next_deal(page: Page) -> None:
    """The view of a new hand has no last trick: the page keeps the previous hand's final
    trick it saw played (the next deal follows it at once), and nothing it saw only part of."""
    await page.goto("/")
    whole = await page.evaluate(FINAL_TRICK, 4)
    assert whole == ["Last trick of the last hand", ["KH", "AH", "2H", "5H"], "Won by P2"]
    part = await page.evaluate(FINAL_TRICK, 2)
    assert part == ["Last trick", [], "No trick yet this hand."]


BOT_HANDS = """async () => {
  const { apply, initial } = await import('/static/js/state.js');
  const { renderTable } = await import('/static/js/table.js');
  const seats = [0, 1, 2, 3].map((seat) => ({ seat, team: seat % 2, name: `P${seat}`, bot: null,
                                              cards_held: 0, away: false, left: false }));
  const view = { version: 1, phase: 'ended', viewer: 0, to_act: null, dealer: 3,
    hand_number: 4, deal_number: 1, seats, rules: { target: 14, turn_seconds: 30 }, trump: 'D',
    kicks: [], scores: [14, 9], trick: [], last_trick: [], tricks_played: 6,
    game_counts: [0, 0], hand: [], legal_actions: [], winner: 0, seed_commitment: 'c',
    seed: null, deadline: null, seat_actions: [], end_reason: 'target', rematch: null };
  const dealt = (hand) => ({ type: 'Dealt', hand, deal: 1, dealer: 3, hands: [] });
  const events = [
    dealt(1), { type: 'CardPlayed', seat: 0, card: '2C' },         // the person played
    { type: 'SeatAway', seat: 0, reason: 'stepped_away' },
    { type: 'CardPlayed', seat: 0, card: '3C' },                    // a bot, hand 1
    { type: 'CardPlayed', seat: 1, card: '4C' },                    // another seat: not counted
    dealt(2), { type: 'Stood', seat: 0 },                           // a bot, hand 2
    { type: 'SeatBack', seat: 0 },
    dealt(3), { type: 'CardPlayed', seat: 0, card: '5C' },         // the person again
    dealt(4), { type: 'TurnTimedOut', seat: 0, deadline: 0 },       // out of time: hand 4
    { type: 'CardPlayed', seat: 0, card: '6C' },
  ];
  let state = apply(initial('g', 0), { kind: 'view', view });
  events.forEach((event, i) => { state = apply(state, { kind: 'event', version: i + 2, event }); });
  const root = renderTable(state, { now: () => 0, speed: () => 'normal' });
  return [root.querySelector('.result').textContent, root.querySelector('.bot-note').textContent];
}"""


async def test_the_result_says_what_a_bot_played_for_the_person(page: Page) -> None:
    await page.goto("/")
    result, note = await page.evaluate(BOT_HANDS)
    assert result == "You win, 14\u2013\u20609"
    assert note == "A bot played 3 hands for you (while you were away or out of time)."


PLAYERS = """async () => {
  const { waitText, bandText, countsText } = await import('/static/js/queueview.js');
  const { inviteLink } = await import('/static/js/invite.js');
  const { seatOfPlayer } = await import('/static/js/mygames.js');
  const { looksLikeCode } = await import('/static/js/identity.js');
  return {
    waits: [0, 7400, 150000, 3723000, -5].map(waitText),
    bands: [[1400, 1600], 120, null].map(bandText),
    counts: [countsText({ waiting: 1, playing: 8 }), countsText(null)],
    link: inviteLink('http://h', 'g1', 'g1.invite.a+b'),
    seats: [seatOfPlayer({ player_ids: [null, 'p1', null, null] }, 'p1'),
            seatOfPlayer({ player_ids: [null, null, null, null] }, 'p1'), seatOfPlayer({}, 'p1')],
    codes: [looksLikeCode(' p0123456789abcdef.player.Ab_-9 '), looksLikeCode('p01.player.x'),
            looksLikeCode('g1.invite.x')],
  };
}"""


async def test_the_queue_words_the_invite_link_and_my_seat(page: Page) -> None:
    await page.goto("/")
    assert await page.evaluate(PLAYERS) == {
        "waits": ["0:00", "0:07", "2:30", "1:02:03", "0:00"],
        "bands": ["ratings 1400\N{EN DASH}1600", "ratings within ±120 of yours", "any rating"],
        "counts": ["1 person waiting · 8 playing", ""],
        "link": "http://h/table/g1?invite=g1.invite.a%2Bb",
        "seats": [1, None, None],
        "codes": [True, False, False],
    }


async def test_the_lobby_keeps_a_rematchs_seats_until_their_time(page: Page) -> None:
    """A rematch's seats kept for the last game's players are shown as kept (with until when)
    and offered to nobody else; once their time is past they are offered like open ones,
    though the listing still names them reserved."""
    await page.goto("/")
    result = await page.evaluate(
        """async () => {
      const { gameRow, seatsFree } = await import('/static/js/lobby.js');
      const game = { game_id: 'g', created_at: 0, open_seats: [2], reserved: [0, 1],
                     reserved_until: 60000, players: [null, null, null, 'random bot'],
                     scores: [0, 0], rematch_of: 'f' };
      const seats = (now) => [...gameRow(game, [], null, now).querySelectorAll('.players li')]
        .map((li) => [li.textContent, li.title]);
      return { before: seatsFree(game, 59999), after: seatsFree(game, 60000),
               shown: seats(1000), later: seats(60000),
               title: gameRow(game, [], null, 0).querySelector('.table-title').textContent };
    }"""
    )
    assert result["before"] == [2] and result["after"] == [0, 1, 2]
    assert [text for text, _ in result["shown"]][:3] == ["1kept", "2kept", "3open"]
    assert result["shown"][0][1].startswith("Kept for a player of the last game until")
    assert [text for text, _ in result["later"]][:3] == ["1open", "2open", "3open"]
    assert result["title"] == "A rematch"


WINNERS_PILL = """async () => {
  const { apply, initial } = await import('/static/js/state.js');
  const { renderTable } = await import('/static/js/table.js');
  const seats = [0, 1, 2, 3].map((seat) => ({ seat, team: seat % 2, name: `Player ${seat}`,
    bot: null, cards_held: 0, away: false, left: false }));
  const view = { version: 300, phase: 'ended', viewer: 1, to_act: null, dealer: 3, hand_number: 6,
    deal_number: 1, seats, rules: { target: 14, turn_seconds: 60 }, trump: 'H', kicks: ['4D'],
    scores: [9, 14], trick: [], last_trick: [], tricks_played: 6, game_counts: [0, 0], hand: [],
    legal_actions: [], winner: 1, seed_commitment: 'c', seed: null, deadline: null,
    seat_actions: [], end_reason: 'target', rematch: null };
  const state = apply(initial('g', 1), { kind: 'view', view });
  document.querySelector('main').replaceChildren(
    renderTable(state, { now: () => 0, speed: () => 'normal' }));
  const pill = document.querySelector('.team-1').getBoundingClientRect();
  const score = document.querySelector('.team-1 .team-score').getBoundingClientRect();
  return { inside: score.left >= pill.left && score.right <= pill.right,
           text: document.querySelector('.team-1 .team-score').textContent,
           you: document.querySelector('.team-1 .team-name').textContent };
}"""


@pytest.mark.parametrize("width", [360, 1280])
async def test_the_winners_whole_score_shows_on_any_screen(page: Page, width: int) -> None:
    """Your own team's pill, won ("Team B (you) ★"), keeps its score whole at 360 px: the name
    gives way, never "14 /" (an outside reviewer's finding)."""
    await page.set_viewport_size({"width": width, "height": 640 if width == 360 else 720})
    await page.goto("/")
    shown = await page.evaluate(WINNERS_PILL)
    assert shown == {"inside": True, "text": "14 / 14", "you": "Team B (you)"}


async def test_every_link_of_the_top_bar_fits_a_small_phone(page: Page) -> None:
    """At 360 px the four links (Replays included) are all on screen, none clipped."""
    await page.set_viewport_size({"width": 360, "height": 640})
    await page.goto("/")
    await page.locator(".topnav a").first.wait_for()
    boxes = await page.evaluate(
        """() => {
           // As on a table's page, where the connection's state shows beside the links.
           const connection = document.querySelector('#connection');
           Object.assign(connection, { hidden: false, textContent: 'Reconnecting…' });
           connection.dataset.status = 'reconnecting';
           return [...document.querySelectorAll('.topnav a, #connection')].map((a) => {
             const box = a.getBoundingClientRect();
             return [a.textContent, box.width > 0 && box.left >= 0 && box.right <= innerWidth];
           });
         }"""
    )
    assert [name for name, _ in boxes][:4] == ["Lobby", "My games", "Leaderboard", "Replays"]
    assert all(fits for _, fits in boxes), boxes


@pytest.mark.parametrize(("width", "height"), [(1280, 720), (360, 640)])
async def test_the_new_tables_seat_menus_show_their_choice_whole(
    page: Page, width: int, height: int
) -> None:
    """Each seat's menu is wide enough for its longest choice ("Beginner bot") beside its
    arrow: at 1280 px four in a row cut "Strong bot" to "Strong bo"."""
    await page.set_viewport_size({"width": width, "height": height})
    await page.goto("/")
    await page.locator(".seats-choice select").first.wait_for()
    room = await page.evaluate(
        """() => [...document.querySelectorAll('.seats-choice select')].map((select) => {
             const style = getComputedStyle(select);
             const probe = document.createElement('span');
             probe.style.font = style.font;
             probe.style.whiteSpace = 'nowrap';
             const longest = [...select.options].map((o) => o.text)
               .sort((a, b) => b.length - a.length)[0];
             probe.textContent = longest;
             document.body.append(probe);
             const text = probe.getBoundingClientRect().width;
             probe.remove();
             const inner = select.clientWidth - parseFloat(style.paddingLeft)
               - parseFloat(style.paddingRight);
             return inner - 20 - text;  // 20 px for the menu's arrow
           })"""
    )
    assert len(room) == 4 and min(room) >= 0, room


BETWEEN_TRICKS = """async ([toAct, winner]) => {
  const { apply, initial } = await import('/static/js/state.js');
  const { renderTable } = await import('/static/js/table.js');
  const seats = [0, 1, 2, 3].map((seat) => ({ seat, team: seat % 2, name: `P${seat}`, bot: null,
                                              cards_held: 3, away: false, left: false }));
  const played = [[1, 'KH'], [2, 'AH'], [3, '2H'], [0, '5H']];
  const hand = ['5S', '3D', 'QD'];
  const view = { version: 30, phase: 'playing', viewer: 0, to_act: toAct, dealer: 3,
    hand_number: 1, deal_number: 1, seats, rules: { target: 14, turn_seconds: null },
    trump: 'D', kicks: ['4D'], scores: [0, 0], trick: [],
    last_trick: played.map(([seat, card]) => ({ seat, card })),
    tricks_played: 2, game_counts: [0, 0], hand,
    legal_actions: toAct === 0 ? hand.map((card) => ({ type: 'play', seat: 0, card })) : [],
    winner: null, seed_commitment: 'c', seed: null, deadline: null, seat_actions: [],
    end_reason: null, rematch: null };
  const state = { ...apply(initial('g', 0), { kind: 'view', view }), lastTrickWinner: winner };
  return renderTable(state, { now: () => 0, speed: () => 'normal' })
    .querySelector('#status').textContent;
}"""


@pytest.mark.parametrize(
    ("to_act", "winner", "status"),
    [
        (2, 2, "P2 won the trick and leads"),
        (0, 0, "You won the trick: your lead"),
        (2, None, "P2 to play"),  # who won is not known (a view without its events)
    ],
)
async def test_between_tricks_the_status_says_who_won_the_last(
    page: Page, to_act: int, winner: int | None, status: str
) -> None:
    """The trick's winner in words, at every size (a note inside the trick was too small to
    read, and hidden on phones: an outside trial)."""
    await page.goto("/")
    assert await page.evaluate(BETWEEN_TRICKS, [to_act, winner]) == status


async def test_the_score_sheet_shows_a_hand_with_no_points_as_plus_0_and_you_take_over(
    page: Page,
) -> None:
    """A team with no points in a hand reads "+0 → 6", as the other reads "+2 → 5" (it read
    "→ 6"); a person's own takeover is told as theirs on their own page ("You took over seat
    2", not "Cy took over seat 2"). An outside trial."""
    await page.goto("/")
    result = await page.evaluate(
        """async () => {
      const { scoreSheet } = await import('/static/js/summary.js');
      const { narrate } = await import('/static/js/narrate.js');
      const hand = { number: 4, points: [{ kind: 'high', team: 1, points: 2 }], scored: true,
                     scores: [6, 5], before: [6, 3] };
      const sheet = scoreSheet({ hands: [hand] });
      const replaced = { type: 'PlayerReplaced', seat: 1, name: 'Cy' };
      const names = ['Ann', 'Cy', null, null];
      return [[...sheet.querySelectorAll('td.num')].map((td) => td.textContent),
              narrate(replaced, names, 1), narrate(replaced, names, 0)];
    }"""
    )
    assert result == [["+0 → 6", "+2 → 5"], "You took over seat 2.", "Cy took over seat 2."]
