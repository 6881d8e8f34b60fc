"""The matchmaker's grouping with made-up waits and ratings (pure: the instant is given):
the band widens with the wait, far ratings meet only once it is wide enough, parties stay
partners, four singles are paired to balance the teams, a half party waits for its partner,
and a wait past ``bots_after_s`` ends at a table with bots."""

from __future__ import annotations

from server.players.matching import (
    BAND_CAP,
    BotTable,
    RatedTable,
    Seeker,
    band_of,
    match,
)

T0 = 1_800_000_000_000


def seeker(name: str, rating: int = 1500, waited_s: int = 0, **extra: object) -> Seeker:
    return Seeker(name, name, rating, T0 - waited_s * 1000, **extra)  # type: ignore[arg-type]


def ids(table: RatedTable | BotTable) -> list[str | None]:
    return [None if s is None else s.player_id for s in table.seats]


def test_the_band_widens_with_the_wait_up_to_its_cap() -> None:
    assert band_of(0) == 100 and band_of(9_999) == 100
    assert band_of(10_000) == 150 and band_of(60_000) == 400
    assert band_of(3_600_000) == BAND_CAP
    assert band_of(-5) == 100  # a clock a little behind the join


def test_four_close_ratings_make_one_table_and_far_ones_wait_for_a_wider_band() -> None:
    near = [seeker("a", 1500), seeker("b", 1550), seeker("c", 1450), seeker("d", 1520)]
    rated, bots = match(near, T0)
    assert len(rated) == 1 and bots == []
    assert sorted(ids(rated[0])) == ["a", "b", "c", "d"]  # type: ignore[type-var]

    far = [seeker("a", 1500), seeker("b", 1500), seeker("c", 1500), seeker("e", 1800)]
    assert match(far, T0) == ([], [])
    # The oldest has waited 40 s: a band of 300 now reaches 1800.
    far[0] = seeker("a", 1500, waited_s=40)
    (table,), _ = match(far, T0)
    assert sorted(ids(table)) == ["a", "b", "c", "e"]  # type: ignore[type-var]


def test_the_nearest_ratings_are_chosen_and_each_seeker_sits_once() -> None:
    people = [seeker(f"s{i}", 1000 + 10 * i, waited_s=i) for i in range(10)]
    rated, _ = match(people, T0)
    seated = [p for table in rated for p in ids(table)]
    assert len(rated) == 2 and len(seated) == len(set(seated)) == 8
    assert sorted(ids(rated[0])) == ["s6", "s7", "s8", "s9"]  # the oldest, its nearest


def test_four_singles_are_paired_to_balance_the_teams() -> None:
    people = [seeker("a", 1700), seeker("b", 1650), seeker("c", 1400), seeker("d", 1350)]
    people[0] = seeker("a", 1700, waited_s=60)
    (table,), _ = match(people, T0)
    a, b, c, d = table.seats
    # 1700 + 1350 against 1650 + 1400: as close as four such players go.
    assert {a.player_id, c.player_id} in ({"a", "d"}, {"b", "c"})
    assert abs((a.rating + c.rating) - (b.rating + d.rating)) == 0


def test_a_party_sits_as_partners_and_a_half_party_waits() -> None:
    party = [seeker("ann", partner="bob"), seeker("bob", partner="ann")]
    half = [seeker("cy", partner="nobody")]
    singles = [seeker("di"), seeker("ed")]
    (table,), bots = match([*party, *half, *singles], T0)
    seats = ids(table)
    assert seats.index("ann") % 2 == seats.index("bob") % 2
    assert "cy" not in seats and bots == []

    two_parties = [*party, seeker("cy", partner="di"), seeker("di", partner="cy")]
    (table,), _ = match(two_parties, T0)
    seats = ids(table)
    assert seats.index("ann") % 2 == seats.index("bob") % 2
    assert seats.index("cy") % 2 == seats.index("di") % 2 != seats.index("ann") % 2

    # Three people and a half party make no table.
    assert match([seeker("x"), seeker("y"), seeker("z"), *half], T0) == ([], [])


def test_a_wait_past_bots_after_s_ends_with_bots() -> None:
    alone = seeker("lone", waited_s=9, bots_after_s=10)
    assert match([alone], T0) == ([], [])
    (table,) = match([alone], T0 + 1000)[1]
    assert ids(table) == ["lone", None, None, None]

    party = [seeker("ann", waited_s=30, partner="bob", bots_after_s=20)]
    party.append(seeker("bob", waited_s=25, partner="ann"))
    (table,) = match(party, T0)[1]
    assert ids(table) == ["ann", None, "bob", None]

    # People first: a table of four takes a seeker who would have had bots.
    people = [alone, seeker("b"), seeker("c"), seeker("d")]
    rated, bots = match(people, T0 + 1000)
    assert len(rated) == 1 and bots == []
