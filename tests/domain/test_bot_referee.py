"""A referee of bot information: search bots play whole games while a referee, which follows
each search seat through the events redacted for that seat only, checks that the bot is given
nothing else and imagines nothing its seat could not.

At every decision of a search seat the referee checks that:

- the ``BotView`` the bot decides from holds only what the seat's redacted events told it:
  its own cards, the kicks, the trump, the beg, every card played and by whom;
- every world the search plays out (``sampled_worlds`` from the same rng state, the very worlds
  ``action_values`` uses) agrees with that knowledge: the seat's own hand as it is, the cards
  played, the kicks, each other seat holding as many cards as it has left and none of a suit
  it showed it lacks (or, where undertrumping is forbidden, only lower trumps after it
  undertrumped), and the other hands with the rest of the pack exactly the cards it has not seen;
- the same seat in the same game with the hidden cards dealt otherwise (another deal it cannot
  tell apart) gets the same view and the same worlds from the same rng state, so the same
  decision: no hidden card can reach the search, by any path.

The referee's knowledge is derived here from the card codes of the redacted events, sharing no
code with ``domain.worlds`` (which derives the search's knowledge from the view).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from domain import (
    CardPlayed,
    Dealt,
    Event,
    PackRun,
    Redealt,
    Revealed,
    Rules,
    State,
    TrumpSet,
    execute,
    heuristic_bot,
    legal_actions,
    redact,
)
from domain import cards as C
from domain.autoplay import due_system_command, opening_commands
from domain.bots import random_bot
from domain.search import Budget, best_action, sampled_worlds
from domain.sight import bot_view

BUDGET = Budget(deals=8, worlds=4, playouts=16)
RANKS = "23456789TJQKA"


@dataclass
class SeatKnowledge:
    """What one seat knows of the hand, from its redacted events only (card codes)."""

    seat: int
    own: set[str] = field(default_factory=set)
    kicks: list[str] = field(default_factory=list)
    trump: str | None = None
    plays: list[tuple[int, str]] = field(default_factory=list)
    dealt_each: int = 0
    lacks: dict[int, set[str]] = field(default_factory=dict)
    """Per other seat, suits it showed it does not hold."""
    only_below: dict[int, int] = field(default_factory=dict)
    """Per other seat that undertrumped (where forbidden): it holds only trumps below this rank."""

    def learn(self, event: Event, rules: Rules) -> None:
        if isinstance(event, (Dealt, Redealt)):
            mine: tuple[str, ...] | None = ()
            if isinstance(event, Dealt):
                mine = event.hands[self.seat]
                assert all(h is None for s, h in enumerate(event.hands) if s != self.seat)
                assert event.stock is None, "the pack reached the seat"
            self.own, self.kicks, self.trump, self.plays = set(mine or ()), [], None, []
            self.dealt_each, self.lacks, self.only_below = len(mine or ()), {}, {}
        elif isinstance(event, PackRun):
            assert all(h is None for s, h in enumerate(event.hands) if s != self.seat)
            added = event.hands[self.seat] or ()
            self.own |= set(added)
            self.dealt_each += len(added)
        elif isinstance(event, Revealed):
            self.kicks.append(event.card)
        elif isinstance(event, TrumpSet):
            self.trump = event.suit
        elif isinstance(event, CardPlayed):
            self._played(event.seat, event.card, rules)

    def _played(self, seat: int, card: str, rules: Rules) -> None:
        trick = self.plays[len(self.plays) - len(self.plays) % 4 :]
        self.plays.append((seat, card))
        self.own.discard(card)
        if not trick:
            return
        led = trick[0][1][1]
        if card[1] != led and card[1] != self.trump:
            self.lacks.setdefault(seat, set()).add(led)  # did not follow, did not trump
        elif card[1] == self.trump != led and rules.undertrump == "forbidden":
            tops = [RANKS.index(c[0]) for _, c in trick if c[1] == self.trump]
            if tops and RANKS.index(card[0]) < max(tops):
                self.only_below[seat] = min(self.only_below.get(seat, 13), max(tops))
        elif led == self.trump and card[1] != led:
            self.lacks.setdefault(seat, set()).add(led)

    def seen(self) -> set[str]:
        return self.own | set(self.kicks) | {c for _, c in self.plays}

    def left(self, seat: int) -> int:
        return self.dealt_each - sum(1 for s, _ in self.plays if s == seat)


def check_view(sight, knows: SeatKnowledge) -> None:
    """The bot's input holds the seat's knowledge and nothing of another seat's cards."""
    assert set(C.codes_in(sight.hand_cards)) == knows.own
    assert [C.code(k) for k in sight.kick_cards] == knows.kicks
    assert [(e >> 6, C.code(e & 63)) for e in sight.plays] == knows.plays
    played_by_me = {c for s, c in knows.plays if s == knows.seat}
    assert set(C.codes_in(sight.dealt_cards)) == knows.own | played_by_me
    trump = None if sight.trump_suit is None else C.SUITS[sight.trump_suit]
    assert trump == knows.trump


def check_world(world: State, knows: SeatKnowledge) -> None:
    """One imagined world agrees with everything the seat knows."""
    me = knows.seat
    hands = [set(C.codes_in(world.hands[s])) for s in range(4)]
    stock = {C.code(c) for c in world.deck[world.next_card :]}
    assert hands[me] == knows.own, "the world changed the seat's own hand"
    assert [C.code(k) for k in world.kicks] == knows.kicks
    assert [(e >> 6, C.code(e & 63)) for e in world.plays] == knows.plays
    unseen = set(C.CODES) - knows.seen()
    others = [s for s in range(4) if s != me]
    assert set().union(*(hands[s] for s in others)) | stock == unseen
    assert sum(len(hands[s]) for s in others) + len(stock) == len(unseen), "a card twice"
    for s in others:
        assert len(hands[s]) == knows.left(s), f"seat {s} holds the wrong count"
        assert not any(c[1] in knows.lacks.get(s, ()) for c in hands[s]), "a shown void broken"
        if s in knows.only_below:
            top = knows.only_below[s]
            assert all(c[1] == knows.trump and RANKS.index(c[0]) < top for c in hands[s])


def reshuffled(state: State, seat: int, rng: random.Random) -> State:
    """``state`` with the cards ``seat`` has not seen dealt again among the other hands and
    the rest of the pack, each keeping its count. The redeal may break a void the seat saw (a
    deal no legal play leads to): that only makes the check stronger, as nothing of the other
    hands, true or not, may reach the search."""
    others = [s for s in range(4) if s != seat]
    pool = [c for s in others for c in C.cards_in(state.hands[s])]
    pool += list(state.deck[state.next_card :])
    rng.shuffle(pool)
    hands, dealt, at = list(state.hands), list(state.dealt), 0
    for s in others:
        count = state.hands[s].bit_count()
        hands[s] = C.cardset(pool[at : at + count])
        dealt[s] = hands[s] | (state.dealt[s] & ~state.hands[s])
        at += count
    other = state.replace(
        hands=tuple(hands),
        dealt=tuple(dealt),
        deck=state.deck[: state.next_card] + tuple(pool[at:]),
    )
    return other


Tamper = Callable[[State, SeatKnowledge], State | None]


def play_refereed(
    seed: str, rules: Rules, kinds: tuple[str, str, str, str], tamper: Tamper | None = None
) -> tuple[int, int]:
    """One whole game, every search decision refereed: the number of worlds checked (with
    ``tamper``, the number of worlds it changed, each of which must fail the check), and how
    many of them came after an undertrump the seat saw."""
    names = [f"{kind} {seat}" for seat, kind in enumerate(kinds)]
    state = State()
    search_seats = [s for s, kind in enumerate(kinds) if kind == "search"]
    knows = {s: SeatKnowledge(s) for s in search_seats}
    rng = random.Random(f"referee:{seed}")
    shuffler = random.Random(1)
    checked = undertrumps = 0
    pending = list(opening_commands(seed, rules, names, names))
    while state.seed is None:
        if pending:
            command = pending.pop(0)
        elif (seat := state.to_act) is None:
            command = due_system_command(state, seed)
        elif kinds[seat] == "search":
            sight = bot_view(state, seat)
            check_view(sight, knows[seat])
            if len(sight.legal_actions) > 1:
                before = rng.getstate()
                worlds = sampled_worlds(sight, rng, BUDGET)
                for world, _ in worlds:
                    if tamper is None:
                        check_world(world, knows[seat])
                        checked += 1
                        undertrumps += bool(knows[seat].only_below)
                    elif (bad := tamper(world, knows[seat])) is not None:
                        try:
                            check_world(bad, knows[seat])
                        except AssertionError:
                            checked += 1
                        else:
                            raise AssertionError("a world breaking a void passed the referee")
                other = reshuffled(state, seat, shuffler)
                assert bot_view(other, seat) == sight
                twin = random.Random()
                twin.setstate(before)
                assert sampled_worlds(bot_view(other, seat), twin, BUDGET) == worlds
                rng.setstate(before)
            command = best_action(sight, rng, BUDGET)
            assert command in legal_actions(state, seat)
        elif kinds[seat] == "heuristic":
            command = heuristic_bot(bot_view(state, seat), rng)
        else:
            command = random_bot(bot_view(state, seat), rng)
        state, events = execute(state, command)
        for event in events:
            for seat, seat_knows in knows.items():
                seat_knows.learn(redact(event, seat), rules)
    return checked, undertrumps


SEATS: tuple[tuple[str, str, str, str], ...] = (
    ("search", "search", "heuristic", "random"),
    ("random", "search", "random", "search"),
    ("search", "heuristic", "search", "heuristic"),
)
GAMES = (
    (40, Rules(), SEATS[0]),
    (42, Rules(target=11, tobago_kick=True), SEATS[2]),
)


def test_search_bots_get_and_imagine_only_their_seats_information():
    checked = 0
    for seed, rules, kinds in GAMES:
        checked += play_refereed(f"{seed:064x}", rules, kinds)[0]
    assert checked > 250
    # And a game where undertrumping is forbidden and a search seat saw a seat undertrump:
    # which game shows one depends on every bot's choices (a change to the search moves it),
    # so the first of a run of seeds that does.
    for seed in range(200, 800):  # (about one game in 50 shows one)
        worlds, undertrumps = play_refereed(f"{seed:064x}", Rules(undertrump="forbidden"), SEATS[1])
        if undertrumps:
            break
    assert undertrumps > 0 and worlds > 50


def _break_a_void(world: State, knows: SeatKnowledge) -> State | None:
    """``world`` with a card of a suit some seat showed it lacks swapped into its hand from
    another seat's, or None when there is no such card to swap."""
    me = knows.seat
    for seat, suits in knows.lacks.items():
        for other in range(4):
            if other in (me, seat) or not world.hands[seat]:
                continue
            for card in C.cards_in(world.hands[other]):
                if C.SUITS[card // 13] in suits:
                    given = C.cards_in(world.hands[seat])[0]
                    hands = list(world.hands)
                    hands[seat] ^= 1 << card | 1 << given
                    hands[other] ^= 1 << card | 1 << given
                    return world.replace(hands=tuple(hands))
    return None


def test_the_referee_catches_a_world_that_breaks_a_void():
    broken = play_refereed(f"{40:064x}", Rules(target=7), SEATS[0], tamper=_break_a_void)[0]
    broken += play_refereed(f"{41:064x}", Rules(target=7), SEATS[1], tamper=_break_a_void)[0]
    assert broken > 10
