"""Who plays whom: the matchmaker's grouping, pure (no Redis, no clock: the instant is an
argument), so it is tested on its own with made-up waits and ratings.

A *seeker* is one queued person. Two seekers who name each other as ``partner`` are a party
(one unit, seated as partners); a seeker whose partner has not named them back waits for them
and is matched with nobody else. Units are grouped four persons to a rated table, the oldest
unit first, with the units nearest its rating within its band: a band half-width that widens
with the unit's wait (so a long wait finds someone, a short one a close match). A unit whose
wait passed its ``bots_after_s`` and found nobody is seated with bots at an unrated table.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["BAND_CAP", "BotTable", "RatedTable", "Seeker", "band_of", "match"]

BAND_BASE = 100
BAND_STEP = 50
"""Added to the band for every ``BAND_EVERY_MS`` waited."""
BAND_EVERY_MS = 10_000
BAND_CAP = 600
"""The widest band: beyond it a wait is better ended with bots (the seeker's choice)."""


@dataclass(frozen=True, slots=True)
class Seeker:
    player_id: str
    name: str
    rating: int
    since: int
    """When they joined the queue (ms)."""
    partner: str | None = None
    bots_after_s: int | None = None


@dataclass(frozen=True, slots=True)
class RatedTable:
    seats: tuple[Seeker, Seeker, Seeker, Seeker]
    """Seats 0 and 2 are one team, 1 and 3 the other."""


@dataclass(frozen=True, slots=True)
class BotTable:
    seats: tuple[Seeker | None, Seeker | None, Seeker | None, Seeker | None]
    """The people (a party at seats 0 and 2, partners); None: a bot."""


@dataclass(frozen=True, slots=True)
class _Unit:
    members: tuple[Seeker, ...]
    complete: bool
    """A single without a partner, or a party whose members named each other."""

    @property
    def since(self) -> int:
        """A party waits from when its second member came."""
        return max(m.since for m in self.members)

    @property
    def rating(self) -> float:
        return sum(m.rating for m in self.members) / len(self.members)

    @property
    def bots_after_ms(self) -> int | None:
        """The shortest wait any member chose before bots (None: nobody chose bots)."""
        chosen = [m.bots_after_s for m in self.members if m.bots_after_s is not None]
        return min(chosen) * 1000 if chosen else None


def band_of(wait_ms: int) -> int:
    """The rating band's half-width after waiting ``wait_ms``."""
    widened = BAND_BASE + BAND_STEP * (max(0, wait_ms) // BAND_EVERY_MS)
    return min(BAND_CAP, widened)


def match(seekers: Sequence[Seeker], now_ms: int) -> tuple[list[RatedTable], list[BotTable]]:
    """The tables to make now from everyone waiting; each seeker in at most one."""
    units = _units(seekers)
    rated = _group(units, now_ms)
    seated = {m.player_id for table in rated for m in table.seats}
    bots = [
        _bot_table(unit)
        for unit in units
        if unit.members[0].player_id not in seated
        and (after := unit.bots_after_ms) is not None
        and now_ms - unit.since >= after
    ]
    return rated, bots


def _units(seekers: Sequence[Seeker]) -> list[_Unit]:
    by_id = {s.player_id: s for s in seekers}
    units: list[_Unit] = []
    for seeker in seekers:
        partner = None if seeker.partner is None else by_id.get(seeker.partner)
        if partner is not None and partner.partner == seeker.player_id:
            if seeker.player_id < partner.player_id:  # one unit per party
                units.append(_Unit((seeker, partner), complete=True))
        else:
            units.append(_Unit((seeker,), complete=seeker.partner is None))
    return units


def _group(units: list[_Unit], now_ms: int) -> list[RatedTable]:
    """Oldest first, each unit with the nearest-rated free units within its band."""
    free = sorted((u for u in units if u.complete), key=lambda u: (u.rating, u.since))
    ratings = [u.rating for u in free]
    taken = [False] * len(free)
    tables: list[RatedTable] = []
    for anchor in sorted(range(len(free)), key=lambda i: free[i].since):
        if taken[anchor]:
            continue
        band = band_of(now_ms - free[anchor].since)
        group = _fill(free, ratings, taken, anchor, band)
        if group is not None:
            for i in group:
                taken[i] = True
            tables.append(_teams([free[i] for i in group]))
    return tables


def _fill(
    free: list[_Unit], ratings: list[float], taken: list[bool], anchor: int, band: int
) -> list[int] | None:
    """Units for the anchor's table, nearest in rating first (walking out both ways from the
    anchor in the rating order), or None if four persons are not within the band."""
    centre = ratings[anchor]
    left = bisect.bisect_left(ratings, centre - band)
    right = bisect.bisect_right(ratings, centre + band)
    group = [anchor]
    room = 4 - len(free[anchor].members)
    below, above = anchor - 1, anchor + 1
    while room > 0 and (below >= left or above < right):
        nearer_below = above >= right or (
            below >= left and centre - ratings[below] <= ratings[above] - centre
        )
        i = below if nearer_below else above
        if nearer_below:
            below -= 1
        else:
            above += 1
        if not taken[i] and len(free[i].members) <= room:
            group.append(i)
            room -= len(free[i].members)
    return group if room == 0 else None


def _teams(units: list[_Unit]) -> RatedTable:
    """Parties stay together; four singles are paired so the teams' ratings are closest."""
    parties = [u.members for u in units if len(u.members) == 2]
    singles = [u.members[0] for u in units if len(u.members) == 1]
    if len(parties) == 2:
        (a, c), (b, d) = parties
    elif len(parties) == 1:
        (a, c), (b, d) = parties[0], singles
    else:
        total = sum(s.rating for s in singles)
        first = singles[0]
        mate = min(
            singles[1:], key=lambda s: (abs(total - 2 * (first.rating + s.rating)), s.player_id)
        )
        b, d = (s for s in singles[1:] if s is not mate)
        a, c = first, mate
    return RatedTable((a, b, c, d))


def _bot_table(unit: _Unit) -> BotTable:
    if len(unit.members) == 2:
        a, c = unit.members
        return BotTable((a, None, c, None))
    return BotTable((unit.members[0], None, None, None))
