"""``evolve``: apply one event to a state. Never fails on events ``decide`` produced, never
reads the clock or randomness, so folding a stored log always rebuilds the same state."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from msgspec.structs import replace

from domain import cards as C
from domain.events import (
    Begged,
    CardPlayed,
    Dealt,
    Event,
    GameCreated,
    GameEnded,
    GaveOne,
    HandScored,
    PackRun,
    PlayerJoined,
    Redealt,
    Revealed,
    SeedRevealed,
    Stood,
    TrickWon,
    TrumpSet,
)
from domain.state import Player, State, next_seat

_PARSE = C.parse


def _add(pair: tuple[int, int], team: int, points: int) -> tuple[int, int]:
    return (pair[0] + points, pair[1]) if team == 0 else (pair[0], pair[1] + points)


def _game_created(s: State, e: GameCreated) -> State:
    return replace(
        s,
        version=s.version + 1,
        phase="seating",
        rules=e.rules,
        seed_commitment=e.seed_commitment,
        dealer=e.first_dealer,
    )


def _player_joined(s: State, e: PlayerJoined) -> State:
    players = list(s.players)
    players[e.seat] = Player(e.name, e.bot)
    seated = all(p is not None for p in players)
    return replace(
        s,
        version=s.version + 1,
        players=tuple(players),
        phase="dealing" if seated else "seating",
        hand_no=1 if seated else 0,
        deal_no=1 if seated else 0,
    )


def _dealt(s: State, e: Dealt) -> State:
    hands = [C.cardset(map(_PARSE, h or ())) for h in e.hands]
    h = (hands[0], hands[1], hands[2], hands[3])
    return replace(
        s,
        version=s.version + 1,
        phase="begging",
        dealer=e.dealer,
        hand_no=e.hand,
        deal_no=e.deal,
        deck=tuple(map(_PARSE, e.pack_order())),
        next_card=24,
        hands=h,
        dealt=h,
        kicks=(),
        trump=None,
        leader=next_seat(e.dealer),
        trick=(),
        last_trick=(),
        tricks_played=0,
        won=(0, 0),
    )


def _revealed(s: State, e: Revealed) -> State:
    return replace(
        s,
        version=s.version + 1,
        kicks=(*s.kicks, _PARSE(e.card)),
        next_card=s.next_card + 1,
        scores=_add(s.scores, e.team, e.points) if e.points else s.scores,
    )


def _begged(s: State, e: Begged) -> State:
    return replace(s, version=s.version + 1, phase="dealer_choice")


def _stood(s: State, e: Stood) -> State:
    return replace(s, version=s.version + 1)


def _gave_one(s: State, e: GaveOne) -> State:
    return replace(s, version=s.version + 1, scores=_add(s.scores, e.team, e.points))


def _pack_run(s: State, e: PackRun) -> State:
    extra = [C.cardset(map(_PARSE, h or ())) for h in e.hands]
    hands = s.hands
    dealt = s.dealt
    return replace(
        s,
        version=s.version + 1,
        next_card=s.next_card + 12,
        hands=(
            hands[0] | extra[0],
            hands[1] | extra[1],
            hands[2] | extra[2],
            hands[3] | extra[3],
        ),
        dealt=(
            dealt[0] | extra[0],
            dealt[1] | extra[1],
            dealt[2] | extra[2],
            dealt[3] | extra[3],
        ),
    )


def _trump_set(s: State, e: TrumpSet) -> State:
    return replace(
        s,
        version=s.version + 1,
        phase="playing",
        trump=C.SUITS.index(e.suit),
        leader=next_seat(s.dealer),
    )


def _redealt(s: State, e: Redealt) -> State:
    return replace(
        s,
        version=s.version + 1,
        phase="dealing",
        deal_no=s.deal_no + 1,
        hands=(0, 0, 0, 0),
        dealt=(0, 0, 0, 0),
        deck=(),
        kicks=(),
    )


def _card_played(s: State, e: CardPlayed) -> State:
    card = _PARSE(e.card)
    hands = list(s.hands)
    hands[e.seat] &= ~(1 << card)
    return replace(
        s,
        version=s.version + 1,
        hands=(hands[0], hands[1], hands[2], hands[3]),
        trick=(*s.trick, card),
    )


def _trick_won(s: State, e: TrickWon) -> State:
    taken = C.cardset(s.trick)
    won = (s.won[0] | taken, s.won[1]) if e.team == 0 else (s.won[0], s.won[1] | taken)
    return replace(
        s,
        version=s.version + 1,
        won=won,
        last_trick=s.trick,
        last_trick_leader=s.leader,
        leader=e.seat,
        trick=(),
        tricks_played=s.tricks_played + 1,
    )


def _hand_scored(s: State, e: HandScored) -> State:
    if max(e.scores) >= s.rules.target:
        # GameEnded follows: the table stays as the last hand left it, no next deal is due.
        return replace(s, version=s.version + 1, scores=e.scores)
    return replace(
        s,
        version=s.version + 1,
        phase="dealing",
        scores=e.scores,
        hand_no=s.hand_no + 1,
        deal_no=1,
        dealer=next_seat(s.dealer),
    )


def _game_ended(s: State, e: GameEnded) -> State:
    return replace(s, version=s.version + 1, phase="ended", winner=e.winner, scores=e.scores)


def _seed_revealed(s: State, e: SeedRevealed) -> State:
    return replace(s, version=s.version + 1, seed=e.seed)


_HANDLERS: dict[type[Any], Callable[[State, Any], State]] = {
    GameCreated: _game_created,
    PlayerJoined: _player_joined,
    Dealt: _dealt,
    Revealed: _revealed,
    PackRun: _pack_run,
    TrumpSet: _trump_set,
    Redealt: _redealt,
    CardPlayed: _card_played,
    TrickWon: _trick_won,
    HandScored: _hand_scored,
    GameEnded: _game_ended,
    SeedRevealed: _seed_revealed,
    GaveOne: _gave_one,
    Begged: _begged,
    # Standing changes nothing by itself: the TrumpSet that follows starts the play.
    Stood: _stood,
}


def evolve(state: State, event: Event) -> State:
    """The state after ``event``."""
    return _HANDLERS[type(event)](state, event)


def fold(events: Iterable[Event], state: State | None = None) -> State:
    """The state after all ``events``, starting from a new game (or from ``state``)."""
    s = State() if state is None else state
    for event in events:
        s = evolve(s, event)
    return s
