"""Helpers for the domain tests: hand-built decks and seated games driven through ``decide``.

The deal order (see ``domain.decide``): with dealer ``d`` the deck gives ``deck[0:6]`` to seat
``(d+1)%4``, ``deck[6:12]`` to ``(d+2)%4``, ``deck[12:18]`` to ``(d+3)%4``, ``deck[18:24]`` to the
dealer, and ``deck[24]`` is the kick. Running the pack deals ``deck[25:37]`` three each in the same
seat order and turns up ``deck[37]``; a second run deals ``deck[38:50]`` and turns up ``deck[50]``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pytest
from referee import Referee

from domain import (
    CODES,
    VIOLATION_CODES,
    Award,
    Beg,
    Command,
    CreateGame,
    Deal,
    Event,
    HandScored,
    Join,
    Play,
    Rules,
    RuleViolation,
    RunPack,
    Stand,
    State,
    commit,
    decide,
    execute,
    fold,
    legal_actions,
)

SEED = "5eed" * 16
"""A 32-byte hex seed for hand-built games (their decks are not derived from it)."""

SUITS = "CDHS"
RANKS = "23456789TJQKA"
COUNT = {"T": 10, "J": 1, "Q": 2, "K": 3, "A": 4}
"""Game count by rank, as RULES.md states it (every other rank counts 0)."""


def count_of(cards: Iterable[str]) -> int:
    """The game count of some card codes, by the table in RULES.md."""
    return sum(COUNT.get(c[0], 0) for c in cards)


def seat_order(dealer: int) -> list[int]:
    """The seats in the order the deal serves them: the dealer's right first, the dealer last."""
    return [(dealer + 1 + k) % 4 for k in range(4)]


def build_deck(
    dealer: int,
    hands: Mapping[int, Sequence[str]] | None = None,
    kick: str | None = None,
    runs: Sequence[tuple[Mapping[int, Sequence[str]], str | None]] = (),
    back: str = "",
) -> tuple[str, ...]:
    """A 52-card deck that deals ``hands[seat]`` (up to 6 cards each) and turns up ``kick``.

    ``runs`` gives, for each time the pack is run, the (up to 3) extra cards per seat and the
    card turned up after them. Every position not given is filled from the cards left over:
    cards without game count first, then counting cards, and the suits named in ``back`` last
    (in that order), so a test can keep a suit out of the hands by naming it in ``back``.
    """
    slots: list[str | None] = [None] * 52
    used: set[str] = set()

    def put(position: int, card: str) -> None:
        assert card in CODES, f"not a card code: {card}"
        assert card not in used, f"{card} placed twice"
        assert slots[position] is None
        slots[position] = card
        used.add(card)

    order = seat_order(dealer)
    for k, seat in enumerate(order):
        cards = (hands or {}).get(seat, ())
        assert len(cards) <= 6, f"seat {seat} is dealt 6 cards, not {len(cards)}"
        for j, card in enumerate(cards):
            put(6 * k + j, card)
    if kick is not None:
        put(24, kick)
    start = 25
    for extra, run_kick in runs:
        for k, seat in enumerate(order):
            cards = extra.get(seat, ())
            assert len(cards) <= 3, f"running the pack gives 3 cards, not {len(cards)}"
            for j, card in enumerate(cards):
                put(start + 3 * k + j, card)
        if run_kick is not None:
            put(start + 12, run_kick)
        start += 13

    def fill_key(card: str) -> tuple[int, int, int]:
        suit_rank = back.index(card[1]) + 1 if card[1] in back else 0
        return (suit_rank, COUNT.get(card[0], 0) > 0, CODES.index(card))

    pool = iter(sorted((c for c in CODES if c not in used), key=fill_key))
    deck = tuple(slot if slot is not None else next(pool) for slot in slots)
    assert sorted(deck) == sorted(CODES)
    return deck


def exhausting_deck(dealer: int, kicks: tuple[str, str, str]) -> tuple[str, ...]:
    """A deck whose three kicks (the 25th, 38th and 51st cards) are ``kicks``: if they share a
    suit, running the pack exhausts it."""
    return build_deck(dealer, kick=kicks[0], runs=[({}, kicks[1]), ({}, kicks[2])])


def sweep_deck(dealer: int, team: int, suit: str) -> tuple[str, ...]:
    """A deck whose kick is the 2 of ``suit`` and whose other twelve cards of ``suit`` go to the
    two seats of ``team``, six each; the other team gets no card of that suit. When a player
    stands, ``team`` holds every trump in play and so wins every trick."""
    trumps = [r + suit for r in RANKS[1:]]
    others = [c for c in CODES if c[1] != suit]
    hands: dict[int, list[str]] = {}
    for seat in range(4):
        if seat % 2 == team:
            hands[seat] = trumps[:6]
            trumps = trumps[6:]
        else:
            hands[seat] = others[:6]
            others = others[6:]
    return build_deck(dealer, hands, kick="2" + suit)


class Game:
    """A game driven through ``decide`` and ``fold``, keeping its state and its whole log.

    Every command goes through ``decide`` and the events are folded onto the state; the result
    is checked against ``execute`` (the two must agree), and the independent ``Referee`` checks
    every event against the rules as it comes."""

    def __init__(
        self,
        rules: Rules | None = None,
        first_dealer: int = 0,
        seed: str = SEED,
        takeover_grace_ms: int = 0,
        bots: Sequence[str | None] = (None, None, None, None),
        **table: Any,
    ) -> None:
        """Four seats (``bots[seat]`` a bot kind, or None for a person); ``table``: more of
        ``CreateGame``'s table options (``pause_when_absent``, ``away_pace_ms``...)."""
        self.seed = seed
        self.state = State()
        self.log: list[Event] = []
        self.referee = Referee()
        self.do(
            CreateGame(
                rules=rules or Rules(),
                seed_commitment=commit(seed),
                first_dealer=first_dealer,
                takeover_grace_ms=takeover_grace_ms,
                **table,
            )
        )
        for seat in range(4):
            kind = bots[seat]
            name = f"{kind} bot" if kind else f"player {seat}"
            # A rated table seats players: seat N's is "pN".
            player = f"p{seat}" if table.get("rated") else None
            self.do(Join(seat=seat, name=name, bot=kind, player=player))
        assert self.state.phase == "dealing"

    # --- driving --------------------------------------------------------------------------

    def do(self, *commands: Command, at: int = 0) -> list[Event]:
        """Apply commands in turn, given at time ``at``; the events of all of them."""
        produced: list[Event] = []
        for command in commands:
            events = decide(self.state, command, at)
            after = fold(events, self.state)
            assert execute(self.state, command, at) == (after, events)
            self.state = after
            self.log.extend(events)
            self.referee.see_all(events)
            produced.extend(events)
        return produced

    def deal(self, deck: Sequence[str]) -> list[Event]:
        return self.do(Deal(deck=tuple(deck)))

    def stand(self) -> list[Event]:
        seat = self.state.to_act
        assert seat is not None
        return self.do(Stand(seat=seat))

    def beg_and_run(self) -> list[Event]:
        """The player on the dealer's right begs and the dealer runs the pack."""
        dealer = self.state.dealer
        return self.do(Beg(seat=(dealer + 1) % 4), RunPack(seat=dealer))

    def play(self, *cards: str) -> list[Event]:
        """Play ``cards`` one after another, each by the seat whose turn it is."""
        produced: list[Event] = []
        for card in cards:
            seat = self.state.to_act
            assert seat is not None, f"nobody is to play {card}: the game is {self.state.phase}"
            produced.extend(self.do(Play(seat=seat, card=card)))
        return produced

    def play_out(self, pick: Callable[[list[Play]], Play] | None = None) -> list[Event]:
        """Play the rest of the hand, every seat playing ``pick`` of its legal cards (by default
        the first one the engine lists)."""
        produced: list[Event] = []
        while self.state.phase == "playing":
            seat = self.state.to_act
            assert seat is not None
            plays = [a for a in legal_actions(self.state, seat) if isinstance(a, Play)]
            produced.extend(self.do((pick or (lambda ps: ps[0]))(plays)))
        return produced

    def refuse(self, command: Command, code: str, at: int = 0) -> RuleViolation:
        """Assert ``command`` is refused with ``code`` and changes nothing."""
        error = self.refuse_any(command, at)
        assert error.code == code, f"{command!r}: {error!r}, expected {code}"
        return error

    def refuse_any(self, command: Command, at: int = 0) -> RuleViolation:
        """Assert ``command`` is refused (with any code) and changes nothing."""
        before = self.state
        copy = before.replace()
        shown = repr(before)  # every field, players included
        with pytest.raises(RuleViolation) as info:
            decide(before, command, at)
        assert info.value.code in VIOLATION_CODES
        with pytest.raises(RuleViolation):
            execute(before, command, at)
        assert before == copy
        assert repr(before) == shown
        assert fold(self.log) == before
        return info.value

    # --- reading --------------------------------------------------------------------------

    @property
    def scores(self) -> tuple[int, int]:
        return self.state.scores

    def hand_of(self, seat: int) -> set[str]:
        return {CODES[c] for c in range(52) if self.state.hands[seat] >> c & 1}


def of_type(events: Iterable[Event], kind: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def last_scored(events: Iterable[Event]) -> HandScored:
    scored = of_type(events, HandScored)
    assert scored, "no hand was scored"
    return scored[-1]


def awards_by_kind(scored: HandScored) -> dict[str, Award]:
    kinds = [a.kind for a in scored.awards]
    assert len(kinds) == len(set(kinds)), kinds
    return {a.kind: a for a in scored.awards}


def event_types(events: Iterable[Event]) -> list[str]:
    return [type(e).__name__ for e in events]


def add_kick_points(game: Game, kicks: tuple[str, str, str]) -> list[Event]:
    """One deal whose three kicks share a suit: the dealer's team scores their kick points and
    the pack is exhausted, so the same dealer redeals."""
    assert len({k[1] for k in kicks}) == 1
    events = game.deal(exhausting_deck(game.state.dealer, kicks))
    events += game.beg_and_run()
    assert event_types(events)[-1] == "Redealt"
    return events


def sweep_hand(game: Game, team: int, suit: str = "S") -> HandScored:
    """A whole hand in which ``team`` holds every trump in play and wins every trick: it scores
    High, Low, Jack and Game (4 points), the other team nothing."""
    before = game.scores
    game.deal(sweep_deck(game.state.dealer, team, suit))
    game.stand()
    scored = last_scored(game.play_out())
    assert [(a.kind, a.team) for a in scored.awards] == [
        ("high", team),
        ("low", team),
        ("jack", team),
        ("game", team),
    ]
    expected = list(before)
    expected[team] += 4
    assert game.scores == tuple(expected)
    return scored


def reach_begging_team_at(points: int, rules: Rules) -> Game:
    """A game at the dealer's choice where the begging team holds ``points``: in hand 1
    (dealer 0) team 0 scores ``points`` in kicks, then team 1 sweeps the hand (4 points);
    hand 2 is dealt by seat 1 (kick 3D; running the pack turns up the 4S) and seat 2 (team 0)
    begs."""
    kicks = {6: ("JH", "AH", "6H"), 5: ("JH", "6H", "2H"), 4: ("JH", "AH", "2H")}[points]
    game = Game(rules=rules, first_dealer=0)
    add_kick_points(game, kicks)
    sweep_hand(game, team=1, suit="C")
    assert game.scores == (points, 4)
    game.deal(build_deck(1, kick="3D", runs=[({}, "4S")]))
    game.do(Beg(seat=2))
    return game
