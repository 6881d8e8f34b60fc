"""Which cards and commands a seat may play now: the rules' move generator."""

from __future__ import annotations

from typing import Final

from domain import cards as C
from domain.commands import (
    Abort,
    Beg,
    ComeBack,
    GiveOne,
    Leave,
    Play,
    PlayerCommand,
    Resign,
    RunPack,
    SeatCommand,
    Stand,
    StepAway,
)
from domain.state import State


def follow_mask(state: State, seat: int) -> tuple[C.CardSet, bool]:
    """The cards ``seat`` may play by the follow and undertrump rules, and whether the
    undertrump rule removed any (so a refusal can name the rule that was broken)."""
    trick = state.trick
    if not trick:
        return state.hands[seat], False
    trump = state.trump
    assert trump is not None  # playing phase always has a trump
    return follow_cards(state.hands[seat], trick, trump, state.rules.undertrump == "forbidden")


def follow_cards(
    hand: C.CardSet, trick: tuple[int, ...], trump: int, undertrump_forbidden: bool
) -> tuple[C.CardSet, bool]:
    """``follow_mask`` for a ``hand`` facing ``trick``: the rule itself, on plain numbers, for
    the search's playouts as for the game."""
    if not trick:
        return hand, False
    led = trick[0] // 13
    trump_mask = C.SUIT_MASKS[trump]
    led_cards = hand & C.SUIT_MASKS[led]
    allowed = (led_cards | (hand & trump_mask)) if led_cards else hand
    if undertrump_forbidden and led != trump:
        trumps_played = C.cardset(trick) & trump_mask
        if trumps_played:
            below_top = (1 << C.highest(trumps_played)) - 1
            under = allowed & trump_mask & below_top
            if under and allowed & ~under:
                return allowed & ~under, True
    return allowed, False


def trick_winner(trick: tuple[int, ...], leader: int, trump: int) -> int:
    """The seat that wins a complete ``trick`` led by ``leader``: the highest trump, else the
    highest card of the suit led."""
    played = C.cardset(trick)
    trumps = played & C.SUIT_MASKS[trump]
    best = C.highest(trumps if trumps else played & C.SUIT_MASKS[trick[0] // 13])
    return (leader + trick.index(best)) & 3


# Commands are immutable values, so the legal moves are picked from these instead of being built
# anew for every decision of every game.
_PLAYS: Final[tuple[tuple[Play, ...], ...]] = tuple(
    tuple(Play(seat, card_code) for card_code in C.CODES) for seat in range(4)
)
_STAND_OR_BEG: Final[tuple[tuple[PlayerCommand, ...], ...]] = tuple(
    (Stand(seat), Beg(seat)) for seat in range(4)
)
_GIVE_OR_RUN: Final[tuple[tuple[PlayerCommand, ...], ...]] = tuple(
    (GiveOne(seat), RunPack(seat)) for seat in range(4)
)
_RUN: Final[tuple[tuple[PlayerCommand, ...], ...]] = tuple((RunPack(seat),) for seat in range(4))


def play_of(seat: int, card: C.Card) -> Play:
    """The command of ``seat`` playing ``card`` (the very value ``legal_moves`` offers)."""
    return _PLAYS[seat][card]


def legal_actions(state: State, seat: int) -> list[PlayerCommand]:
    """Exactly the commands ``decide`` would accept from ``seat`` now."""
    return list(legal_moves(state, seat))


def legal_moves(state: State, seat: int) -> tuple[PlayerCommand, ...]:
    """``legal_actions`` as a tuple (what views hold), in the same order."""
    if state.to_act != seat:
        return ()
    phase = state.phase
    if phase == "playing":
        plays = _PLAYS[seat]
        return tuple([plays[card] for card in C.cards_in(follow_mask(state, seat)[0])])
    if phase == "begging":
        return _STAND_OR_BEG[seat]
    if phase == "dealer_choice":
        return _GIVE_OR_RUN[seat] if give_one_allowed(state) else _RUN[seat]
    return ()


def give_one_allowed(state: State) -> bool:
    """Under ``give_one_at_13 = forbidden`` the dealer must run the pack when the begging
    team is one point short of the target."""
    if state.rules.give_one_at_13 == "allowed":
        return True
    begging_team = (state.dealer + 1) & 1
    return state.scores[begging_team] != state.rules.target - 1


def seat_actions(state: State, seat: int) -> list[SeatCommand]:
    """Exactly the lifecycle commands ``decide`` would accept from ``seat``'s person now."""
    player = state.players[seat]
    phase = state.phase
    if player is None or not player.person_present or phase in ("new", "ended"):
        return []
    actions: list[SeatCommand] = []
    started = phase != "seating"
    if player.away:
        actions.append(ComeBack(seat))
    elif started:
        actions.append(StepAway(seat))
    actions.append(Leave(seat))
    if started:
        actions.append(Resign(seat))
    if not state.first_card_played:
        actions.append(Abort(seat))
    return actions
