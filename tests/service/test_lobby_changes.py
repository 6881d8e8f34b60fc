"""``Lobby.listing_changed``: which commands rewrite a game's listing (one script call each).
Checked against the listing itself: a change is reported exactly when a listed field changes."""

from __future__ import annotations

import itertools

from domain import fold
from domain.autoplay import play_game
from server.lobby import Lobby, _open_seats, status_of


def _listed(state):
    return (
        _open_seats(state),
        tuple(p and p.name for p in state.players),
        status_of(state),
        state.scores,
    )


def test_a_listing_changes_exactly_when_its_seats_status_or_scores_do():
    _, log = play_game("cd" * 32, bots=("heuristic", "random", "random", "heuristic"))
    states = [fold(log[:n]) for n in range(len(log) + 1)]
    changes = 0
    for before, after in itertools.pairwise(states):
        changed = _listed(before) != _listed(after)
        assert Lobby.listing_changed(before, after) == changed, after.version
        changes += changed
    # Seating, the start, every score change and the end: far fewer than the events.
    assert 5 < changes < len(log) // 4
