"""The search bots: legal, reproducible, and deciding from their seat's information alone.

Budgets here are tiny (a few deals): these tests check what a search decides from, not how
well it plays (``tests/bench/bots.py`` measures that).
"""

from __future__ import annotations

import random

import pytest
from botgames import Setup, Step, drive, setups
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from domain import BOTS, Event, Rules, State, execute, fold, heuristic_bot, legal_actions
from domain import cards as C
from domain.autoplay import bot_rng, due_system_command, opening_commands
from domain.search import LEVELS, Budget, action_values, best_action, hints, ranked
from domain.sight import bot_view
from domain.winprob import win_probability
from domain.worlds import Knowledge, sample_hands

TINY = Budget(deals=6, worlds=3, playouts=12)


def _decisions(setup: Setup) -> list[State]:
    """Every state of one game where a seat has a decision to make."""
    states: list[State] = []

    def keep(step: Step) -> None:
        if step.after.to_act is not None:
            states.append(step.after)

    drive(setup, keep)
    return states


GAMES = [
    Setup(f"{i:064x}", bots, rules)
    for i, (bots, rules) in enumerate(
        [
            (("heuristic",) * 4, Rules()),
            (("random", "heuristic", "random", "heuristic"), Rules(undertrump="forbidden")),
        ]
    )
]
DECISIONS = [state for setup in GAMES for state in _decisions(setup)]


def _hidden_reshuffled(state: State, seat: int, rng: random.Random) -> State:
    """``state`` with the cards ``seat`` has not seen dealt again among the other hands and
    the rest of the pack (each seat keeping its count): the same game from ``seat``'s chair."""
    others = [s for s in range(4) if s != seat]
    rest = list(state.deck[state.next_card :])
    pool = [c for s in others for c in C.cards_in(state.hands[s])] + rest
    rng.shuffle(pool)
    hands = list(state.hands)
    dealt = list(state.dealt)
    at = 0
    for s in others:
        count = state.hands[s].bit_count()
        hands[s] = C.cardset(pool[at : at + count])
        dealt[s] = hands[s] | (state.dealt[s] & ~state.hands[s])
        at += count
    deck = state.deck[: state.next_card] + tuple(pool[at:])
    return state.replace(hands=tuple(hands), dealt=tuple(dealt), deck=deck)


def test_a_search_decides_the_same_whatever_the_hidden_cards_are():
    """Two states that differ only in cards the seat has not seen look the same to it, and
    its search decides the same from them with the same rng."""
    shuffler = random.Random(7)
    compared = 0
    for state in DECISIONS[::9]:
        seat = state.to_act
        other = _hidden_reshuffled(state, seat, shuffler)
        compared += other.hands != state.hands
        assert bot_view(other, seat) == bot_view(state, seat)
        mine = best_action(bot_view(state, seat), random.Random(3), TINY)
        theirs = best_action(bot_view(other, seat), random.Random(3), TINY)
        assert mine == theirs
    assert compared > 20


def test_the_same_view_and_rng_give_the_same_values():
    for state in DECISIONS[5::40]:
        sight = bot_view(state, state.to_act)
        assert action_values(sight, random.Random(11), TINY) == action_values(
            sight, random.Random(11), TINY
        )


def test_the_true_deal_keeps_to_what_the_seat_inferred_and_samples_are_deals_like_it():
    """What a seat infers (voids, undertrumps) holds in the true deal, and every sampled deal
    gives each seat its count of cards it may hold, from the cards the seat has not seen."""
    rng = random.Random(5)
    for state in DECISIONS:
        seat = state.to_act
        sight = bot_view(state, seat)
        knowledge = Knowledge(sight)
        rest = C.cardset(state.deck[state.next_card :])
        assert knowledge.unseen == rest | sum(state.hands[s] for s in range(4) if s != seat)
        for s in range(4):
            assert knowledge.excluded[s] & state.hands[s] == 0, (s, state.version)
            assert knowledge.held[s] == state.hands[s].bit_count()
        hands = sample_hands(knowledge, sight.hand_cards, rng)
        assert hands[seat] == state.hands[seat]
        assert sum(hands[s] for s in range(5) if s != seat) == knowledge.unseen
        for s in range(4):
            assert hands[s].bit_count() == knowledge.held[s]
            assert hands[s] & knowledge.excluded[s] == 0


@settings(max_examples=25, deadline=None)
@given(setup=setups, pick=st.integers(min_value=0, max_value=10**6), seed=st.integers(0, 99))
def test_a_search_bot_always_plays_a_legal_action(setup, pick, seed):
    states = _decisions(setup)
    assume(states)  # a low target can be reached by the kick before anyone decides
    state = states[pick % len(states)]
    seat = state.to_act
    command = best_action(bot_view(state, seat), random.Random(seed), TINY)
    assert command in legal_actions(state, seat)


def test_hints_rank_every_legal_action_with_its_chance():
    for state in DECISIONS[3::60]:
        sight = bot_view(state, state.to_act)
        ranked_hints = ranked(sight, action_values(sight, random.Random(2), TINY))
        assert {a for a, _ in ranked_hints} == set(sight.legal_actions)
        chances = [p for _, p in ranked_hints]
        assert chances == sorted(chances, reverse=True)
        assert all(0.0 <= p <= 1.0 for p in chances)
        if len(sight.legal_actions) > 1:
            assert ranked_hints[0][0] == best_action(sight, random.Random(2), TINY)
    assert hints(bot_view(DECISIONS[0], (DECISIONS[0].to_act + 1) % 4), random.Random(0)) == ()


def test_among_equal_chances_the_heuristics_choice_comes_first():
    """Where every world plays out alike, the search makes the heuristic's move (the one its
    partner's inference expects), not the first legal action; a better chance still wins."""
    tried = 0
    for state in DECISIONS:
        sight = bot_view(state, state.to_act)
        actions = sight.legal_actions
        usual = heuristic_bot(sight, random.Random(0))
        if usual == actions[0]:
            continue
        tried += 1
        assert ranked(sight, [(a, 0.5) for a in actions])[0][0] == usual
        better = [(a, 0.6 if a == actions[0] else 0.5) for a in actions]
        assert ranked(sight, better)[0] == (actions[0], 0.6)
        assert ranked(sight, better)[1][0] == usual
    assert tried >= 20, tried


def _game_with_a_search(seed: str, rules: Rules) -> list[Event]:
    """A game with a tiny search at seat 0 and the heuristic at the others, bots' rng apart."""
    rng = bot_rng(seed)
    names = ["search", "heuristic", "heuristic", "heuristic"]
    state, log = State(), []
    for command in opening_commands(seed, rules, names, names):
        state, events = execute(state, command)
        log.extend(events)
    while state.seed is None:
        seat = state.to_act
        if seat is None:
            command = due_system_command(state, seed)
        elif seat == 0:
            command = best_action(bot_view(state, seat), rng, TINY)
        else:
            command = heuristic_bot(bot_view(state, seat), rng)
        state, events = execute(state, command)
        log.extend(events)
    return log


def test_a_game_with_a_search_bot_is_complete_and_replays_the_same():
    seed, rules = "c0" * 32, Rules(target=7)
    log = _game_with_a_search(seed, rules)
    assert fold(log).phase == "ended"
    assert _game_with_a_search(seed, rules) == log


def test_the_search_levels_are_bots_by_name():
    assert {"random", "heuristic", "strong", "master"} <= set(BOTS)
    assert set(LEVELS) == {"strong", "master"}


def test_the_bots_rng_is_reproducible_and_not_seeded_with_the_deck_seed():
    seed = "ab" * 32
    assert bot_rng(seed).getstate() == bot_rng(seed).getstate()
    assert bot_rng(seed).getstate() != random.Random(seed).getstate()


def test_the_chance_of_winning_grows_with_the_score_and_favours_the_next_dealer():
    for dealer in range(4):
        chances = [win_probability((score, 7), 0, 14, dealer) for score in range(14)]
        assert chances == sorted(chances) and chances[0] > 0 and chances[-1] < 1
        assert win_probability((14, 3), 0, 14, dealer) == 1.0
        assert win_probability((3, 14), 0, 14, dealer) == 0.0
    for score in range(14):
        ours, theirs = (win_probability((score, score), 0, 14, dealer) for dealer in (0, 1))
        # A tie: the next dealer's kick is the only edge, and the two chances complement.
        assert ours >= 0.5 >= theirs and ours + theirs == pytest.approx(1.0)
    # At 13-13 the dealing team wins on the kick alone (an ace, six or jack: 3 in 13).
    assert win_probability((13, 13), 0, 14, 0) > 3 / 13 + 0.5 * 10 / 13 - 1e-9
