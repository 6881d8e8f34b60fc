"""Properties over thousands of random seeded games between random and heuristic bots, with
random rule options."""

from __future__ import annotations

import random

import msgspec
from botgames import Setup, Step, drive, setups
from hypothesis import HealthCheck, given, settings
from referee import Referee

from domain import (
    CODES,
    Beg,
    CreateGame,
    Deal,
    Dealt,
    Event,
    GiveOne,
    Join,
    Play,
    RevealSeed,
    RuleViolation,
    RunPack,
    SeedRevealed,
    Stand,
    State,
    decide,
    derive_deck,
    evolve,
    fold,
    legal_actions,
    verify,
)

FULL = (1 << 52) - 1
PROPERTY = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def mask(cards) -> int:
    result = 0
    for card in cards:
        result |= 1 << card
    return result


def check_cards_accounted_for(state: State) -> None:
    """Hands, the trick, captured cards, turned-up kicks and the undealt stock: 52, disjoint."""
    if not state.deck:  # before the first deal and after a redeal's collection
        assert state.hands == (0, 0, 0, 0) and not state.kicks
        return
    parts = [
        *state.hands,
        mask(state.trick),
        state.won[0],
        state.won[1],
        mask(state.kicks),
        mask(state.deck[state.next_card :]),
    ]
    assert sum(p.bit_count() for p in parts) == 52, parts
    union = 0
    for part in parts:
        assert union & part == 0, "a card is in two places"
        union |= part
    assert union == FULL
    for seat in range(4):
        assert state.hands[seat] & ~state.dealt[seat] == 0, "a hand holds a card never dealt"
    assert len(state.trick) == len(set(state.trick)) <= 3


def check_end(state: State) -> None:
    target = state.rules.target
    if state.phase == "ended":
        winner = state.winner
        assert winner is not None
        assert state.scores[winner] >= target
        assert state.scores[1 - winner] < target
    else:
        assert state.winner is None
        assert max(state.scores) < target


class GameChecks:
    """Checks made after every step of a game, and over its whole log at the end."""

    def __init__(self) -> None:
        self.referee = Referee()
        self.states: list[State] = []
        """The state after each step, as ``execute`` built it."""

    def __call__(self, step: Step) -> None:
        after = step.after
        assert after.version == step.before.version + len(step.events)
        check_cards_accounted_for(after)
        check_end(after)
        self.states.append(after)
        self.referee.see_all(step.events)

    def finish(self, log: list[Event]) -> None:
        """Fold the stored (serialized, decoded) log event by event: it passes through every
        state built step by step, and no score ever goes down."""
        wire = msgspec.json.decode(msgspec.json.encode(log), type=list[Event])
        assert wire == log
        by_version = {s.version: s for s in self.states}
        state = State()
        for event in wire:
            scores = state.scores
            state = evolve(state, event)
            assert state.scores[0] >= scores[0] and state.scores[1] >= scores[1]
            if state.version in by_version:
                assert state == by_version[state.version]
        assert state == self.states[-1]
        assert fold(log) == state


def tamper_deal(log: list[Event], rng: random.Random) -> list[Event]:
    """Swap two cards between two hands of one Dealt event."""
    dealt_at = [i for i, e in enumerate(log) if isinstance(e, Dealt)]
    index = rng.choice(dealt_at)
    dealt = log[index]
    a, b = rng.sample(range(4), 2)
    i, j = rng.randrange(6), rng.randrange(6)
    hands = [list(h) for h in dealt.hands]
    hands[a][i], hands[b][j] = hands[b][j], hands[a][i]
    tampered = msgspec.structs.replace(dealt, hands=tuple(tuple(h) for h in hands))
    return [*log[:index], tampered, *log[index + 1 :]]


@settings(PROPERTY, max_examples=2000)
@given(setup=setups)
def test_random_games_keep_every_rule(setup: Setup):
    """No exception; 52 cards accounted for at every step; fold equals the state built step by
    step; scores never decrease; the game ends exactly when a team first reaches the target;
    the bots only play legal moves (``drive`` asserts it); the referee finds no foul;
    ``verify`` accepts the log and rejects a tampered deal and a wrong seed."""
    checks = GameChecks()
    final, log = drive(setup, checks)
    checks.finish(log)
    assert final.phase == "ended" and final.seed == setup.seed
    assert checks.referee.ended and checks.referee.revealed_seed
    assert isinstance(log[-1], SeedRevealed)
    assert sum(isinstance(e, SeedRevealed) for e in log) == 1

    assert verify(log).ok, verify(log).problems
    rng = random.Random(setup.seed)
    assert not verify(tamper_deal(log, rng)).ok
    wrong_seed = [*log[:-1], SeedRevealed(seed=rng.randbytes(32).hex())]
    assert not verify(wrong_seed).ok
    assert not verify(log[:-1]).ok


def universe(seat: int) -> list:
    return [
        Stand(seat=seat),
        Beg(seat=seat),
        GiveOne(seat=seat),
        RunPack(seat=seat),
        *(Play(seat=seat, card=c) for c in CODES),
    ]


def refused(state: State, command) -> bool:
    try:
        decide(state, command)
    except RuleViolation:
        return True
    return False


class LegalityChecks:
    """At every state: every legal action is accepted and every other command refused (all of
    them for the seat to act, a random sample for the others), leaving the state as it was."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        self.accepted = 0
        self.refused = 0

    def check_state(self, state: State) -> None:
        copy = state.replace()
        for seat in range(4):
            legal = legal_actions(state, seat)
            assert len(legal) == len(set(legal))
            if seat != state.to_act:
                assert legal == []
                candidates = self.rng.sample(universe(seat), 4)
            else:
                assert legal, "the seat to act always has a legal action"
                candidates = universe(seat)
            for command in candidates:
                if command in legal:
                    events = decide(state, command)
                    assert events
                    self.accepted += 1
                else:
                    assert refused(state, command), f"{command!r} accepted in {state.phase}"
                    self.refused += 1
        # system commands: a deal only when one is due, the seed only after the end
        if state.phase == "dealing":
            decide(state, Deal(deck=derive_deck(self.seed, state.hand_no, state.deal_no)))
            self.accepted += 1
        else:
            assert refused(state, Deal(deck=CODES))
        if state.phase == "ended" and state.seed is None:
            decide(state, RevealSeed(seed=self.seed))
            self.accepted += 1
        else:
            assert refused(state, RevealSeed(seed=self.seed))
        assert refused(state, Join(seat=self.rng.randrange(4), name="late"))
        assert refused(state, CreateGame(rules=state.rules, seed_commitment="", first_dealer=0))
        assert state == copy

    def __call__(self, step: Step) -> None:
        if step.before.phase not in ("new", "seating"):
            self.check_state(step.before)
        if step.after.seed is not None:
            self.check_state(step.after)


@settings(PROPERTY, max_examples=300)
@given(setup=setups)
def test_legal_actions_are_exactly_the_commands_decide_accepts(setup: Setup):
    checks = LegalityChecks(setup.seed)
    drive(setup, checks)
    assert checks.accepted > 0 and checks.refused > 0  # the deal or the seed at least
