"""``decide``: the rules. A command either becomes the events it causes or is refused.

``execute`` is the working core: it returns the events together with the state they lead to,
so callers that keep state (the service, the benchmarks) fold each event exactly once.

Time enters as data, like the decks: the caller gives the instant of the command (``at``, ms
since the epoch), every event is stamped with it *before* it is folded, and the rules that
depend on time (a deadline passed, a table expired, a seat still reserved) compare against it.
So the state a process caches is exactly the fold of the stored log.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from msgspec.structs import replace

from domain import cards as C
from domain.commands import (
    Abort,
    AbortTable,
    Beg,
    ComeBack,
    Command,
    CreateGame,
    Deal,
    Expire,
    GiveOne,
    Join,
    Leave,
    NoteRematch,
    Play,
    Resign,
    RevealSeed,
    RunPack,
    Stand,
    StepAway,
    TimeOut,
)
from domain.errors import RuleViolation
from domain.events import (
    Award,
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
from domain.evolve import evolve
from domain.legal import follow_mask, give_one_allowed, trick_winner
from domain.seeds import commitment_matches
from domain.state import AWAY_AFTER_TIMEOUTS, Player, State, next_seat, team_of

_CODES: Final = C.CODES


class _Outcome:
    """Events being produced by one command, with the state folded as they are emitted."""

    __slots__ = ("at", "events", "state")

    def __init__(self, state: State, at: int) -> None:
        self.state = state
        self.at = at
        self.events: list[Event] = []

    def emit(self, event: Event) -> State:
        if self.at:
            event = replace(event, at=self.at)
        state = self.state = evolve(self.state, event)
        self.events.append(event)
        return state

    def score(self, event: Event) -> bool:
        """Emit a scoring event; if a team reached the target, end the game. True if ended."""
        s = self.emit(event)
        target = s.rules.target
        for team in (0, 1):
            if s.scores[team] >= target:
                self.emit(GameEnded(winner=team, scores=s.scores))
                return True
        return False


def execute(state: State, command: Command, at: int = 0) -> tuple[State, list[Event]]:
    """The state after ``command``, given at time ``at`` (ms since the epoch; 0 where time
    does not matter, as in self-play), and the events that got it there, stamped with ``at``.

    Raises ``RuleViolation`` (and changes nothing: states are immutable) when refused.
    """
    handler = _HANDLERS[type(command)]
    out = _Outcome(state, at)
    handler(out, state, command)
    return out.state, out.events


def decide(state: State, command: Command, at: int = 0) -> list[Event]:
    """The events ``command`` causes in ``state``; raises ``RuleViolation`` if refused."""
    return execute(state, command, at)[1]


# --- guards -------------------------------------------------------------------------------


def _require_game(state: State) -> None:
    if state.phase == "new":
        raise RuleViolation("no_game", "there is no game yet")
    if state.phase == "ended":
        raise RuleViolation("game_over", "the game is over")


def _require_turn(state: State, phase: str, seat: int, what: str) -> None:
    _require_game(state)
    if state.phase != phase:
        raise RuleViolation("wrong_phase", f"cannot {what} now: the game is {state.phase}")
    if state.to_act != seat:
        raise RuleViolation("not_your_turn", f"it is seat {state.to_act}'s turn, not seat {seat}'s")


# --- system commands ----------------------------------------------------------------------


def _create_game(out: _Outcome, state: State, cmd: CreateGame) -> None:
    if state.phase != "new":
        raise RuleViolation("game_exists", "the game was already created")
    if not 0 <= cmd.first_dealer <= 3:
        raise RuleViolation("invalid_seat", f"there is no seat {cmd.first_dealer}")
    out.emit(
        GameCreated(
            rules=cmd.rules.with_default_clock(),
            seed_commitment=cmd.seed_commitment,
            first_dealer=cmd.first_dealer,
            expires_at=cmd.expires_at,
            rematch_of=cmd.rematch_of,
            reserved=cmd.reserved,
            reserved_until=cmd.reserved_until,
            takeover_grace_ms=cmd.takeover_grace_ms,
            pause_when_absent=cmd.pause_when_absent,
            away_pace_ms=cmd.away_pace_ms,
            idle_expiry_ms=cmd.idle_expiry_ms,
            stand_in=cmd.stand_in,
            rated=cmd.rated,
            private=cmd.private,
        )
    )


def _join(out: _Outcome, state: State, cmd: Join) -> None:
    _require_game(state)
    if not 0 <= cmd.seat <= 3:
        raise RuleViolation("invalid_seat", f"there is no seat {cmd.seat}: seats are 0..3")
    if state.rated and (cmd.bot is not None or cmd.player is None):
        raise RuleViolation("rated_table", "a rated table seats only people with a player id")
    if cmd.player is not None and any(
        other is not None and other.player == cmd.player and seat != cmd.seat
        for seat, other in enumerate(state.players)
    ):
        # One person, one seat: a second would show them two hands (a seat they left
        # included, whose result stays theirs). Only that seat may be taken back.
        raise RuleViolation("already_seated", "you hold another seat at this table")
    held = state.players[cmd.seat]
    if held is not None:
        # A seat whose person left, or has been away for a while, may be taken over.
        takeover_at = held.takeover_at(state.takeover_grace_ms)
        if state.phase == "seating" or cmd.bot is not None or takeover_at is None:
            raise RuleViolation("seat_taken", f"seat {cmd.seat} is taken")
        if out.at < takeover_at:
            raise RuleViolation(
                "seat_taken",
                f"seat {cmd.seat}'s person is away and may come back: the seat may be taken "
                f"over {-(-(takeover_at - out.at) // 1000)} s from now (its takeover_at)",
            )
        if state.rated and cmd.player != held.player:
            # The seat's result is its player's to the end: only they may take it back.
            raise RuleViolation("seat_taken", f"seat {cmd.seat} stays its player's")
        out.emit(PlayerReplaced(seat=cmd.seat, name=cmd.name, player=cmd.player))
        return
    if (
        cmd.seat in state.reserved
        and not cmd.claim
        and state.reserved_until is not None
        and out.at < state.reserved_until
    ):
        raise RuleViolation(
            "seat_reserved", f"seat {cmd.seat} is kept for its player of the last game"
        )
    out.emit(PlayerJoined(seat=cmd.seat, name=cmd.name, bot=cmd.bot, player=cmd.player))


def _deal(out: _Outcome, state: State, cmd: Deal) -> None:
    _require_game(state)
    if state.phase != "dealing":
        raise RuleViolation("wrong_phase", f"cannot deal now: the game is {state.phase}")
    deck = _parse_deck(cmd.deck)
    out.emit(
        Dealt(
            hand=state.hand_no,
            deal=state.deal_no,
            dealer=state.dealer,
            hands=_deal_round(deck, 0, 6, state.dealer),
            stock=tuple([_CODES[c] for c in deck[24:]]),
        )
    )
    _turn_up(out, out.state)


def _deal_round(
    deck: Sequence[int], start: int, each: int, dealer: int
) -> tuple[tuple[str, ...], ...]:
    """``each`` cards to every player from ``deck[start:]``, beginning at the dealer's right;
    the result is indexed by seat."""
    hands: list[tuple[str, ...]] = [(), (), (), ()]
    for k in range(4):
        first = start + each * k
        hands[(dealer + 1 + k) & 3] = tuple([_CODES[c] for c in deck[first : first + each]])
    return tuple(hands)


def _parse_deck(codes: tuple[str, ...]) -> list[int]:
    try:
        deck = C.parse_all(codes)
    except KeyError as exc:
        raise RuleViolation("invalid_deck", f"not a card code: {exc.args[0]!r}") from None
    if len(deck) != C.DECK_SIZE or len(set(deck)) != C.DECK_SIZE:
        raise RuleViolation("invalid_deck", "a deck must hold each of the 52 cards once")
    return deck


def _kick_points(state: State, card: int) -> int:
    rank = card % 13
    if rank == C.ACE:
        return 1
    if rank == C.JACK:
        return 3
    if rank == (C.TWO if state.rules.tobago_kick else C.SIX):
        return 2
    return 0


def _turn_up(out: _Outcome, state: State) -> bool:
    """Turn up the next card for the dealer's team. True if its points ended the game."""
    card = state.deck[state.next_card]
    points = _kick_points(state, card)
    event = Revealed(card=_CODES[card], points=points, team=team_of(state.dealer))
    if points:
        return out.score(event)
    out.emit(event)
    return False


def _reveal_seed(out: _Outcome, state: State, cmd: RevealSeed) -> None:
    if state.phase == "new":
        raise RuleViolation("no_game", "there is no game yet")
    if state.phase != "ended":
        raise RuleViolation("wrong_phase", "the seed is revealed only when the game is over")
    if state.seed is not None:
        raise RuleViolation("game_over", "the seed was already revealed")
    if not commitment_matches(cmd.seed, state.seed_commitment):
        raise RuleViolation("seed_mismatch", "that seed does not match the game's commitment")
    out.emit(SeedRevealed(seed=cmd.seed))


# --- time and the table's lifecycle -------------------------------------------------------


def _person(state: State, seat: int) -> Player:
    """The seat's person, still at the table (away counts); refused for bots and the left."""
    _require_game(state)
    player = state.players[seat]
    if player is None or not player.person_present:
        raise RuleViolation("not_a_person", f"no person holds seat {seat}")
    return player


def _in_play(state: State, what: str) -> None:
    if state.phase == "seating":
        raise RuleViolation("wrong_phase", f"cannot {what} before the game starts")


def _time_out(out: _Outcome, state: State, cmd: TimeOut) -> None:
    _require_game(state)
    deadline = state.deadline
    if state.to_act != cmd.seat or deadline is None or out.at < deadline:
        raise RuleViolation("not_due", f"seat {cmd.seat} has no deadline that has passed")
    s = out.emit(TurnTimedOut(seat=cmd.seat, deadline=deadline))
    player = s.players[cmd.seat]
    assert player is not None
    if player.timeouts >= AWAY_AFTER_TIMEOUTS:
        out.emit(SeatAway(seat=cmd.seat, reason="timed_out"))


def _expire(out: _Outcome, state: State, cmd: Expire) -> None:
    """Close a table that waited for players past its expiry, or sat idle past its limit."""
    _require_game(state)
    if state.phase == "seating":
        expires = state.expires_at
        if expires is None or out.at < expires:
            raise RuleViolation("not_due", "the table is not waiting past its expiry")
        out.emit(GameAborted(reason="expired"))
        return
    idle = state.idle_expires_at
    if idle is None or out.at < idle:
        raise RuleViolation("not_due", "the table is neither waiting for players nor idle")
    out.emit(GameAborted(reason="idle"))


def _step_away(out: _Outcome, state: State, cmd: StepAway) -> None:
    if _person(state, cmd.seat).away:
        raise RuleViolation("already_away", f"seat {cmd.seat} is already away")
    _in_play(state, "step away")
    out.emit(SeatAway(seat=cmd.seat, reason="stepped_away"))


def _come_back(out: _Outcome, state: State, cmd: ComeBack) -> None:
    if not _person(state, cmd.seat).away:
        raise RuleViolation("not_away", f"seat {cmd.seat} is not away")
    out.emit(SeatBack(seat=cmd.seat))


def _leave(out: _Outcome, state: State, cmd: Leave) -> None:
    _person(state, cmd.seat)
    out.emit(PlayerLeft(seat=cmd.seat))


def _resign(out: _Outcome, state: State, cmd: Resign) -> None:
    _person(state, cmd.seat)
    _in_play(state, "resign")
    winner = 1 - team_of(cmd.seat)
    out.emit(GameEnded(winner=winner, scores=state.scores, reason="resigned", seat=cmd.seat))


def _abort(out: _Outcome, state: State, cmd: Abort) -> None:
    _person(state, cmd.seat)
    if state.first_card_played:
        raise RuleViolation("too_late_to_abort", "a card was played: resign or leave instead")
    out.emit(GameAborted(reason="aborted", seat=cmd.seat))


def _abort_table(out: _Outcome, state: State, cmd: AbortTable) -> None:
    _require_game(state)
    if state.first_card_played:
        raise RuleViolation("too_late_to_abort", "a card was played: the table plays on")
    out.emit(GameAborted(reason="aborted", seat=None))


def _note_rematch(out: _Outcome, state: State, cmd: NoteRematch) -> None:
    if state.phase != "ended":
        raise RuleViolation("wrong_phase", "a rematch follows the end of the game")
    if state.rematch is not None:
        raise RuleViolation("rematch_exists", f"the rematch is game {state.rematch}")
    out.emit(RematchCreated(game_id=cmd.game_id))


# --- the kick, standing and begging --------------------------------------------------------


def _stand(out: _Outcome, state: State, cmd: Stand) -> None:
    _require_turn(state, "begging", cmd.seat, "stand")
    out.emit(Stood(seat=cmd.seat))
    out.emit(TrumpSet(suit=C.SUITS[state.kicks[0] // 13]))


def _beg(out: _Outcome, state: State, cmd: Beg) -> None:
    _require_turn(state, "begging", cmd.seat, "beg")
    out.emit(Begged(seat=cmd.seat))


def _give_one(out: _Outcome, state: State, cmd: GiveOne) -> None:
    _require_turn(state, "dealer_choice", cmd.seat, "give one")
    if not give_one_allowed(state):
        raise RuleViolation(
            "give_one_forbidden", "the begging team is one point short: the dealer must run"
        )
    if out.score(GaveOne(seat=cmd.seat, team=team_of(next_seat(cmd.seat)), points=1)):
        return
    out.emit(TrumpSet(suit=C.SUITS[state.kicks[0] // 13]))


def _run_pack(out: _Outcome, state: State, cmd: RunPack) -> None:
    _require_turn(state, "dealer_choice", cmd.seat, "run the pack")
    first_suit = state.kicks[0] // 13
    dealer = state.dealer
    s = state
    while True:
        s = out.emit(PackRun(seat=dealer, hands=_deal_round(s.deck, s.next_card, 3, dealer)))
        if _turn_up(out, s):
            return
        s = out.state
        suit = s.kicks[-1] // 13
        if suit != first_suit:
            out.emit(TrumpSet(suit=C.SUITS[suit]))
            return
        if s.next_card + 13 > C.DECK_SIZE:
            out.emit(Redealt(dealer=dealer))
            return


# --- play ----------------------------------------------------------------------------------


def _play(out: _Outcome, state: State, cmd: Play) -> None:
    _require_turn(state, "playing", cmd.seat, "play")
    seat = cmd.seat
    try:
        card = C.parse(cmd.card)
    except KeyError:
        raise RuleViolation("unknown_card", f"{cmd.card!r} is not a card code") from None
    if not state.hands[seat] >> card & 1:
        raise RuleViolation("card_not_in_hand", f"seat {seat} does not hold {_CODES[card]}")
    allowed, undertrump_applied = follow_mask(state, seat)
    if not allowed >> card & 1:
        if undertrump_applied and card // 13 == state.trump:
            raise RuleViolation(
                "undertrump_forbidden", "a lower trump may not follow a higher one here"
            )
        raise RuleViolation("must_follow_suit", "follow the suit led or play a trump")
    s = out.emit(CardPlayed(seat=seat, card=_CODES[card]))
    if len(s.trick) < 4:
        return
    winner = _trick_winner(s)
    s = out.emit(TrickWon(seat=winner, team=winner & 1, cards=tuple([_CODES[c] for c in s.trick])))
    if not (s.hands[0] | s.hands[1] | s.hands[2] | s.hands[3]):
        _score_hand(out, s)


def _trick_winner(state: State) -> int:
    assert state.trump is not None
    return trick_winner(state.trick, state.leader, state.trump)


def _holder(state: State, card: int) -> int:
    for seat in range(4):
        if state.dealt[seat] >> card & 1:
            return seat
    raise AssertionError("a card in play has a holder")


def hand_awards(state: State) -> tuple[list[Award], tuple[int, int]]:
    """Every award of a finished hand in the order it is given (High, Low, Jack, Game), and
    the teams' game counts. Awarding stops at the target: see ``_score_hand``."""
    assert state.trump is not None
    trump_mask = C.SUIT_MASKS[state.trump]
    dealt = state.dealt
    in_play = dealt[0] | dealt[1] | dealt[2] | dealt[3]
    trumps = in_play & trump_mask
    awards: list[Award] = []
    if trumps:
        for kind, card in (("high", C.highest(trumps)), ("low", C.lowest(trumps))):
            holder = _holder(state, card)
            awards.append(Award(kind, holder & 1, 1, _CODES[card], holder))  # type: ignore[arg-type]
    jack = state.trump * 13 + C.JACK
    if in_play >> jack & 1:
        holder = _holder(state, jack)
        taker = 0 if state.won[0] >> jack & 1 else 1
        if taker == holder & 1:
            awards.append(Award("jack", taker, 1, _CODES[jack], holder))
        else:
            awards.append(Award("hang_jack", taker, 3, _CODES[jack], holder))
    counts = (C.game_count(state.won[0]), C.game_count(state.won[1]))
    if counts[0] != counts[1]:
        awards.append(Award("game", 0 if counts[0] > counts[1] else 1, 1))
    return awards, counts


def _score_hand(out: _Outcome, state: State) -> None:
    awards, counts = hand_awards(state)
    target = state.rules.target
    scores = list(state.scores)
    given: list[Award] = []
    for award in awards:
        given.append(award)
        scores[award.team] += award.points
        if scores[award.team] >= target:
            break
    out.score(HandScored(awards=tuple(given), game_counts=counts, scores=(scores[0], scores[1])))


_HANDLERS: Final[dict[type[Any], Callable[[_Outcome, State, Any], None]]] = {
    CreateGame: _create_game,
    Join: _join,
    Deal: _deal,
    Stand: _stand,
    Beg: _beg,
    GiveOne: _give_one,
    RunPack: _run_pack,
    Play: _play,
    RevealSeed: _reveal_seed,
    TimeOut: _time_out,
    Expire: _expire,
    StepAway: _step_away,
    ComeBack: _come_back,
    Leave: _leave,
    Resign: _resign,
    Abort: _abort,
    AbortTable: _abort_table,
    NoteRematch: _note_rematch,
}
