"""``evolve``: apply one event to a state. Never fails on events ``decide`` produced, never
reads the clock or randomness, so folding a stored log always rebuilds the same state."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final, TypeVar

from domain import cards as C
from domain.events import (
    Begged,
    CardPlayed,
    Dealt,
    Event,
    GameAborted,
    GameCreated,
    GameEnded,
    GaveOne,
    HandScored,
    PackRun,
    PlayerJoined,
    PlayerLeft,
    PlayerReplaced,
    Redealt,
    RematchCreated,
    Revealed,
    SeatAway,
    SeatBack,
    SeedRevealed,
    Stood,
    TrickWon,
    TrumpSet,
    TurnTimedOut,
)
from domain.state import Player, State, next_seat

T = TypeVar("T")

_CARD: Final = C.INDEX
"""Card codes to cards (``cards.parse`` without the call)."""


def _add(pair: tuple[int, int], team: int, points: int) -> tuple[int, int]:
    return (pair[0] + points, pair[1]) if team == 0 else (pair[0], pair[1] + points)


def _put(items: tuple[T, ...], index: int, item: T) -> tuple[T, ...]:
    """``items`` with ``item`` in place of the one at ``index``."""
    changed = list(items)
    changed[index] = item
    return tuple(changed)


def _with_player(s: State, seat: int, player: Player | None) -> tuple[Player | None, ...]:
    return _put(s.players, seat, player)


def _acted(s: State, seat: int) -> tuple[Player | None, ...]:
    """The players after ``seat`` made a decision: a person deciding for themselves (not the
    bot after a timeout) ends their run of timeouts."""
    player = s.players[seat]
    if s.turn_timed_out or player is None or not player.timeouts:
        return s.players
    return _with_player(s, seat, player.replace(timeouts=0))


def _game_created(s: State, e: GameCreated) -> State:
    return s.replace(
        version=s.version + 1,
        phase="seating",
        rules=e.rules,
        seed_commitment=e.seed_commitment,
        dealer=e.first_dealer,
        expires_at=e.expires_at,
        rematch_of=e.rematch_of,
        reserved=e.reserved,
        reserved_until=e.reserved_until,
        turn_at=e.at,
        takeover_grace_ms=e.takeover_grace_ms,
        pause_when_absent=e.pause_when_absent,
        away_pace_ms=e.away_pace_ms,
        idle_expiry_ms=e.idle_expiry_ms,
        stand_in=e.stand_in,
        rated=e.rated,
        private=e.private,
    )


def _player_joined(s: State, e: PlayerJoined) -> State:
    players = _with_player(s, e.seat, Player(e.name, e.bot, player=e.player))
    seated = all(p is not None for p in players)
    return s.replace(
        version=s.version + 1,
        players=players,
        phase="dealing" if seated else "seating",
        hand_no=1 if seated else 0,
        deal_no=1 if seated else 0,
        presence_at=e.at,
    )


def _dealt(s: State, e: Dealt) -> State:
    h = tuple([C.cardset(C.parse_all(cards or ())) for cards in e.hands])
    return s.replace(
        version=s.version + 1,
        phase="begging",
        dealer=e.dealer,
        hand_no=e.hand,
        deal_no=e.deal,
        deck=tuple(C.parse_all(e.pack_order())),
        next_card=24,
        hands=h,
        dealt=h,
        turn_at=e.at,
        turn_timed_out=False,
        kicks=(),
        trump=None,
        leader=next_seat(e.dealer),
        trick=(),
        last_trick=(),
        tricks_played=0,
        won=(0, 0),
        played_tricks=(),
        begged=False,
    )


def _revealed(s: State, e: Revealed) -> State:
    return s.replace(
        version=s.version + 1,
        kicks=(*s.kicks, C.parse(e.card)),
        next_card=s.next_card + 1,
        scores=_add(s.scores, e.team, e.points) if e.points else s.scores,
    )


def _begged(s: State, e: Begged) -> State:
    return s.replace(
        version=s.version + 1,
        phase="dealer_choice",
        players=_acted(s, e.seat),
        begged=True,
        turn_at=e.at,
        turn_timed_out=False,
    )


def _stood(s: State, e: Stood) -> State:
    # Standing changes nothing else by itself: the TrumpSet that follows starts the play.
    return s.replace(version=s.version + 1, players=_acted(s, e.seat))


def _gave_one(s: State, e: GaveOne) -> State:
    return s.replace(
        version=s.version + 1,
        scores=_add(s.scores, e.team, e.points),
        players=_acted(s, e.seat),
    )


def _pack_run(s: State, e: PackRun) -> State:
    extra = [C.cardset(C.parse_all(h or ())) for h in e.hands]
    hands = s.hands
    dealt = s.dealt
    return s.replace(
        version=s.version + 1,
        players=_acted(s, e.seat),
        next_card=s.next_card + 12,
        hands=tuple([held | more for held, more in zip(hands, extra, strict=True)]),
        dealt=tuple([held | more for held, more in zip(dealt, extra, strict=True)]),
    )


def _trump_set(s: State, e: TrumpSet) -> State:
    return s.replace(
        version=s.version + 1,
        phase="playing",
        trump=C.SUITS.index(e.suit),
        leader=next_seat(s.dealer),
        turn_at=e.at,
        turn_timed_out=False,
    )


def _redealt(s: State, e: Redealt) -> State:
    return s.replace(
        version=s.version + 1,
        phase="dealing",
        deal_no=s.deal_no + 1,
        hands=(0, 0, 0, 0),
        dealt=(0, 0, 0, 0),
        deck=(),
        kicks=(),
    )


def _card_played(s: State, e: CardPlayed) -> State:
    # The busiest handler (two events in three): written out, with no helper calls on the
    # common path, which the interpreted engine pays for per call.
    card = _CARD[e.card]
    seat = e.seat
    hands = list(s.hands)
    hands[seat] &= ~(1 << card)
    player = s.players[seat]
    return s.replace(
        version=s.version + 1,
        hands=tuple(hands),
        trick=(*s.trick, card),
        players=s.players
        if s.turn_timed_out or player is None or not player.timeouts
        else _acted(s, seat),
        turn_at=e.at,
        turn_timed_out=False,
    )


def _trick_won(s: State, e: TrickWon) -> State:
    taken = C.cardset(s.trick)
    return s.replace(
        version=s.version + 1,
        won=_put(s.won, e.team, s.won[e.team] | taken),
        last_trick=s.trick,
        last_trick_leader=s.leader,
        leader=e.seat,
        trick=(),
        tricks_played=s.tricks_played + 1,
        played_tricks=(*s.played_tricks, s.leader, *s.trick),
        turn_at=e.at,
        turn_timed_out=False,
    )


def _hand_scored(s: State, e: HandScored) -> State:
    if max(e.scores) >= s.rules.target:
        # GameEnded follows: the table stays as the last hand left it, no next deal is due.
        return s.replace(version=s.version + 1, scores=e.scores)
    return s.replace(
        version=s.version + 1,
        phase="dealing",
        scores=e.scores,
        hand_no=s.hand_no + 1,
        deal_no=1,
        dealer=next_seat(s.dealer),
    )


def _game_ended(s: State, e: GameEnded) -> State:
    return s.replace(
        version=s.version + 1,
        phase="ended",
        winner=e.winner,
        scores=e.scores,
        end_reason=e.reason,
    )


def _game_aborted(s: State, e: GameAborted) -> State:
    return s.replace(version=s.version + 1, phase="ended", end_reason=e.reason)


def _seed_revealed(s: State, e: SeedRevealed) -> State:
    return s.replace(version=s.version + 1, seed=e.seed)


def _turn_timed_out(s: State, e: TurnTimedOut) -> State:
    player = s.players[e.seat]
    assert player is not None
    return s.replace(
        version=s.version + 1,
        players=_with_player(s, e.seat, player.replace(timeouts=player.timeouts + 1)),
        turn_timed_out=True,
    )


def _seat_away(s: State, e: SeatAway) -> State:
    player = s.players[e.seat]
    assert player is not None
    away = player.replace(away=True, away_since=e.at)
    return s.replace(version=s.version + 1, players=_with_player(s, e.seat, away), presence_at=e.at)


def _seat_back(s: State, e: SeatBack) -> State:
    player = s.players[e.seat]
    assert player is not None
    back = player.replace(away=False, timeouts=0, away_since=None)
    return s.replace(
        version=s.version + 1,
        players=_with_player(s, e.seat, back),
        presence_at=e.at,
        turn_at=_resumed_at(s, e.at),
    )


def _player_left(s: State, e: PlayerLeft) -> State:
    player = s.players[e.seat]
    assert player is not None
    # Before the start the seat simply opens again; after, the bot plays it to the end.
    gone = None if s.phase == "seating" else player.replace(left=True, away=False)
    return s.replace(version=s.version + 1, players=_with_player(s, e.seat, gone), presence_at=e.at)


def _player_replaced(s: State, e: PlayerReplaced) -> State:
    return s.replace(
        version=s.version + 1,
        players=_with_player(s, e.seat, Player(e.name, player=e.player)),
        presence_at=e.at,
        turn_at=_resumed_at(s, e.at),
    )


def _resumed_at(s: State, at: int) -> int:
    """When the turn's clock starts after a person comes back or takes a seat over at ``at``:
    then, if the game was paused (its clock stood still: the turn to act starts afresh, where
    the deadline from before the pause had passed and timed the person out at once); else
    when the turn came, as before."""
    return at if s.paused else s.turn_at


def _rematch_created(s: State, e: RematchCreated) -> State:
    return s.replace(version=s.version + 1, rematch=e.game_id)


_HANDLERS: Final[dict[type[Any], Callable[[State, Any], State]]] = {
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
    Stood: _stood,
    GameAborted: _game_aborted,
    TurnTimedOut: _turn_timed_out,
    SeatAway: _seat_away,
    SeatBack: _seat_back,
    PlayerLeft: _player_left,
    PlayerReplaced: _player_replaced,
    RematchCreated: _rematch_created,
}


def evolve(state: State, event: Event) -> State:
    """The state after ``event``."""
    return _HANDLERS[type(event)](state, event)


def fold(events: Iterable[Event], state: State | None = None) -> State:
    """The state after all ``events``, starting from a new game (or from ``state``)."""
    s = State() if state is None else state
    handlers = _HANDLERS  # (evolve's work without its call per event)
    for event in events:
        s = handlers[type(event)](s, event)
    return s
