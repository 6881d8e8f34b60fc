"""The client's pure modules, run in the browser as the page loads them: the state fold
ignores what it already has and asks for a new view when it falls behind or must resync; card
names are words; the deal check derives the server's decks."""

from __future__ import annotations

import json

import pytest
from playwright.async_api import Page

from domain.fairness import commit, derive_deck, derive_first_dealer

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
