"""The state of one game: the fold of its events. Immutable; ``evolve`` makes the next one.

``State`` and ``Player`` are records (``records``), not msgspec Structs, because this module is
compiled with the engine (``compiled``): compiled code reads the attributes of its own classes
straight from the object, where each read of a Struct's field was a lookup by name, and the
engine reads the state dozens of times per card. Nothing encodes a state (views do).
"""

from __future__ import annotations

from typing import Final, Literal

from domain.cards import CardSet
from domain.records import KEEP, Keep, Record
from domain.rules import Rules

Phase = Literal[
    "new",  # no GameCreated yet
    "seating",  # waiting for four players
    "dealing",  # waiting for the service's Deal (a new hand or a redeal)
    "begging",  # the player on the dealer's right stands or begs
    "dealer_choice",  # after a beg: the dealer gives one or runs the pack
    "playing",
    "ended",
]


AWAY_AFTER_TIMEOUTS: Final = 2
"""Timeouts in a row after which a person is marked away (and the bot plays at once)."""

TAKEOVER_GRACE_MS: Final = 60_000
"""How long an away seat stays its person's before a newcomer may take it over, unless the
server says otherwise (recorded in ``GameCreated``): long enough to come back from a short
break or a dropped connection, so that a table with a short clock is no trap that hands a
seat to a watcher seconds after its person sat down."""

EndReason = Literal["target", "resigned", "aborted", "expired", "idle"]

Hands = tuple[CardSet, ...]
"""One card set per seat (four), or per team (two, for ``won``). Typed of any length on purpose:
the compiled build keeps a fixed-length tuple of ints unboxed inside the state, and boxing the
52-bit card sets again (an allocation each) whenever a card was played cost more than the rest
of folding it."""


class Player(Record):
    FIELDS = ("name", "bot", "away", "left", "timeouts", "away_since", "player")
    __slots__ = FIELDS

    name: Final[str]
    bot: Final[str | None]
    away: Final[bool]
    """The person is away (stepped away, or timed out too often): the bot plays at once."""
    left: Final[bool]
    """The person left for good: the bot plays the seat to the end of the game."""
    timeouts: Final[int]
    """Timeouts in a row: reset when the person decides for themselves."""
    away_since: Final[int | None]
    """When the person went away (ms, the ``SeatAway`` event's time); None when not away."""
    player: Final[str | None]
    """The public id of the person's player identity (None: anonymous, or a bot)."""

    def __init__(
        self,
        name: str,
        bot: str | None = None,
        away: bool = False,
        left: bool = False,
        timeouts: int = 0,
        away_since: int | None = None,
        player: str | None = None,
    ) -> None:
        self.name = name
        self.bot = bot
        self.away = away
        self.left = left
        self.timeouts = timeouts
        self.away_since = away_since
        self.player = player

    def replace(
        self,
        *,
        away: bool | Keep = KEEP,
        left: bool | Keep = KEEP,
        timeouts: int | Keep = KEEP,
        away_since: int | Keep | None = KEEP,
    ) -> Player:
        """This player with the given fields changed (a seat's name, bot and player never
        change)."""
        return Player(
            self.name,
            self.bot,
            self.away if away is KEEP else away,
            self.left if left is KEEP else left,
            self.timeouts if timeouts is KEEP else timeouts,
            self.away_since if away_since is KEEP else away_since,
            self.player,
        )

    def __hash__(self) -> int:
        # Views cache the seats by the players (``visibility._seats``): hashed for every view.
        return hash(
            (self.name, self.bot, self.away, self.left, self.timeouts, self.away_since, self.player)
        )

    def takeover_at(self, grace_ms: int) -> int | None:
        """From when a newcomer may take this seat over (ms): at once once its person left,
        ``grace_ms`` after they went away; None while a person plays it (or a bot)."""
        if self.bot is not None:
            return None
        if self.left:
            return 0
        if self.away:
            return (self.away_since or 0) + grace_ms
        return None

    @property
    def autoplayed(self) -> bool:
        """Whether a bot makes this seat's decisions now, without waiting."""
        return self.bot is not None or self.away or self.left

    @property
    def person_present(self) -> bool:
        """A person holds the seat and has not left it (away still counts: they may return)."""
        return self.bot is None and not self.left


def team_of(seat: int) -> int:
    """Partners sit opposite: team 0 is seats 0 and 2, team 1 is seats 1 and 3."""
    return seat & 1


def next_seat(seat: int) -> int:
    """Seats are numbered counterclockwise, so the next player (the right-hand one) is +1."""
    return (seat + 1) & 3


def hand_plays(
    played_tricks: tuple[int, ...], leader: int, trick: tuple[int, ...]
) -> tuple[int, ...]:
    """Every card played this hand, in play order, as ``seat << 6 | card``: the complete
    tricks (``State.played_tricks``) and then ``trick``, led by ``leader``."""
    plays: list[int] = []
    for start in range(0, len(played_tricks), 5):
        led_by = played_tricks[start]
        plays.extend([((led_by + i) & 3) << 6 | played_tricks[start + 1 + i] for i in range(4)])
    plays.extend([((leader + i) & 3) << 6 | trick[i] for i in range(len(trick))])
    return tuple(plays)


_NO_PLAYERS: Final[tuple[Player | None, ...]] = (None, None, None, None)
_NO_CARDS: Final[Hands] = (0, 0, 0, 0)
_DEFAULT_RULES: Final = Rules()


class State(Record):
    # The fields, in order, each with its default (``# = ...``): the one place they are
    # written. FIELDS, __init__ and replace are generated from them below. The fields a card
    # played or a trick won changes come first: the interpreted engine's record (a msgspec
    # Struct) finds each of ``replace``'s keywords by scanning the fields in this order, and
    # two events in three are cards (3.5% fewer instructions a fold than in the order of the
    # game's story; the compiled record's ``replace`` does not depend on the order).
    version: Final[int]  # = 0
    """How many events have been folded: the stream version this state stands for."""
    hands: Final[Hands]  # = _NO_CARDS
    trick: Final[tuple[int, ...]]  # = ()
    """Cards of the trick in progress, in play order from ``leader``."""
    players: Final[tuple[Player | None, ...]]  # = _NO_PLAYERS
    turn_at: Final[int]  # = 0
    """When the seat to act got the turn (the ``at`` of that event), or play resumed after a
    pause (``evolve._resumed_at``): its clock starts there."""
    turn_timed_out: Final[bool]  # = False
    """The seat to act let its deadline pass: the bot makes this one decision."""
    won: Final[Hands]  # = (0, 0)
    """Cards captured in tricks by each team this hand."""
    last_trick: Final[tuple[int, ...]]  # = ()
    last_trick_leader: Final[int]  # = 0
    leader: Final[int]  # = 0
    tricks_played: Final[int]  # = 0
    played_tricks: Final[tuple[int, ...]]  # = ()
    """This hand's complete tricks in order, each as its leader and then its four cards: with
    ``trick``, every card played this hand (``plays``). Kept by the trick, not by the card,
    where a tuple of every play grown at each card cost the interpreted engine 4% of a
    self-played game (issue 24: it is to be as fast as the engine before the bots' memory)."""
    phase: Final[Phase]  # = "new"
    rules: Final[Rules]  # = _DEFAULT_RULES
    seed_commitment: Final[str]  # = ""
    seed: Final[str | None]  # = None
    dealer: Final[int]  # = 0
    hand_no: Final[int]  # = 0
    deal_no: Final[int]  # = 0
    deck: Final[tuple[int, ...]]  # = ()
    """The current deal's whole pack in order (hidden information)."""
    next_card: Final[int]  # = 0
    """Index in ``deck`` of the next card to come off the pack."""
    dealt: Final[Hands]  # = _NO_CARDS
    """Every card dealt to each seat this hand: who was the original holder, for High/Low/Jack."""
    kicks: Final[tuple[int, ...]]  # = ()
    """Cards turned up this hand, first kick first. Out of play."""
    trump: Final[int | None]  # = None
    scores: Final[tuple[int, int]]  # = (0, 0)
    winner: Final[int | None]  # = None
    expires_at: Final[int | None]  # = None
    rematch_of: Final[str | None]  # = None
    reserved: Final[tuple[int, ...]]  # = ()
    reserved_until: Final[int | None]  # = None
    rematch: Final[str | None]  # = None
    """The id of this game's rematch table, once someone asked for it."""
    end_reason: Final[EndReason | None]  # = None
    takeover_grace_ms: Final[int]  # = 0
    """How long an away seat stays its person's before a newcomer may take it over (from
    ``GameCreated``: 0 in logs written before the grace existed)."""
    presence_at: Final[int]  # = 0
    """When who is at the table last changed (a seat taken or taken over, a person away, back
    or gone): with ``turn_at``, when the table was last active."""
    pause_when_absent: Final[bool]  # = False
    """From ``GameCreated``: the game waits while every person at the table is away or gone."""
    away_pace_ms: Final[int]  # = 0
    """From ``GameCreated``: how long after its turn came the bot plays an away person's
    seat (0: at once, as in logs written before the pace existed)."""
    idle_expiry_ms: Final[int | None]  # = None
    """From ``GameCreated``: a game paused, or waiting with no clock on a person, this long
    after it was last active is closed as idle (None: never)."""
    begged: Final[bool]  # = False
    """The dealer's right begged this hand (public): with the kicks, how trump was made."""
    stand_in: Final[str]  # = "heuristic"
    """From ``GameCreated``: the bot level that decides for a person who is away, gone or
    out of time."""
    rated: Final[bool]  # = False
    """From ``GameCreated``: only people with player identities sit here; no hints."""
    private: Final[bool]  # = False
    """From ``GameCreated``: not listed; seated only by its creator or invitation holders."""

    # --- generated by scripts/generate_records.py from the fields above: do not edit ---
    FIELDS = (
        "version",
        "hands",
        "trick",
        "players",
        "turn_at",
        "turn_timed_out",
        "won",
        "last_trick",
        "last_trick_leader",
        "leader",
        "tricks_played",
        "played_tricks",
        "phase",
        "rules",
        "seed_commitment",
        "seed",
        "dealer",
        "hand_no",
        "deal_no",
        "deck",
        "next_card",
        "dealt",
        "kicks",
        "trump",
        "scores",
        "winner",
        "expires_at",
        "rematch_of",
        "reserved",
        "reserved_until",
        "rematch",
        "end_reason",
        "takeover_grace_ms",
        "presence_at",
        "pause_when_absent",
        "away_pace_ms",
        "idle_expiry_ms",
        "begged",
        "stand_in",
        "rated",
        "private",
    )
    __slots__ = FIELDS

    def __init__(
        self,
        version: int = 0,
        hands: Hands = _NO_CARDS,
        trick: tuple[int, ...] = (),
        players: tuple[Player | None, ...] = _NO_PLAYERS,
        turn_at: int = 0,
        turn_timed_out: bool = False,
        won: Hands = (0, 0),
        last_trick: tuple[int, ...] = (),
        last_trick_leader: int = 0,
        leader: int = 0,
        tricks_played: int = 0,
        played_tricks: tuple[int, ...] = (),
        phase: Phase = "new",
        rules: Rules = _DEFAULT_RULES,
        seed_commitment: str = "",
        seed: str | None = None,
        dealer: int = 0,
        hand_no: int = 0,
        deal_no: int = 0,
        deck: tuple[int, ...] = (),
        next_card: int = 0,
        dealt: Hands = _NO_CARDS,
        kicks: tuple[int, ...] = (),
        trump: int | None = None,
        scores: tuple[int, int] = (0, 0),
        winner: int | None = None,
        expires_at: int | None = None,
        rematch_of: str | None = None,
        reserved: tuple[int, ...] = (),
        reserved_until: int | None = None,
        rematch: str | None = None,
        end_reason: EndReason | None = None,
        takeover_grace_ms: int = 0,
        presence_at: int = 0,
        pause_when_absent: bool = False,
        away_pace_ms: int = 0,
        idle_expiry_ms: int | None = None,
        begged: bool = False,
        stand_in: str = "heuristic",
        rated: bool = False,
        private: bool = False,
    ) -> None:
        self.version = version
        self.hands = hands
        self.trick = trick
        self.players = players
        self.turn_at = turn_at
        self.turn_timed_out = turn_timed_out
        self.won = won
        self.last_trick = last_trick
        self.last_trick_leader = last_trick_leader
        self.leader = leader
        self.tricks_played = tricks_played
        self.played_tricks = played_tricks
        self.phase = phase
        self.rules = rules
        self.seed_commitment = seed_commitment
        self.seed = seed
        self.dealer = dealer
        self.hand_no = hand_no
        self.deal_no = deal_no
        self.deck = deck
        self.next_card = next_card
        self.dealt = dealt
        self.kicks = kicks
        self.trump = trump
        self.scores = scores
        self.winner = winner
        self.expires_at = expires_at
        self.rematch_of = rematch_of
        self.reserved = reserved
        self.reserved_until = reserved_until
        self.rematch = rematch
        self.end_reason = end_reason
        self.takeover_grace_ms = takeover_grace_ms
        self.presence_at = presence_at
        self.pause_when_absent = pause_when_absent
        self.away_pace_ms = away_pace_ms
        self.idle_expiry_ms = idle_expiry_ms
        self.begged = begged
        self.stand_in = stand_in
        self.rated = rated
        self.private = private

    def replace(
        self,
        *,
        version: int | Keep = KEEP,
        hands: Hands | Keep = KEEP,
        trick: tuple[int, ...] | Keep = KEEP,
        players: tuple[Player | None, ...] | Keep = KEEP,
        turn_at: int | Keep = KEEP,
        turn_timed_out: bool | Keep = KEEP,
        won: Hands | Keep = KEEP,
        last_trick: tuple[int, ...] | Keep = KEEP,
        last_trick_leader: int | Keep = KEEP,
        leader: int | Keep = KEEP,
        tricks_played: int | Keep = KEEP,
        played_tricks: tuple[int, ...] | Keep = KEEP,
        phase: Phase | Keep = KEEP,
        rules: Rules | Keep = KEEP,
        seed_commitment: str | Keep = KEEP,
        seed: str | Keep | None = KEEP,
        dealer: int | Keep = KEEP,
        hand_no: int | Keep = KEEP,
        deal_no: int | Keep = KEEP,
        deck: tuple[int, ...] | Keep = KEEP,
        next_card: int | Keep = KEEP,
        dealt: Hands | Keep = KEEP,
        kicks: tuple[int, ...] | Keep = KEEP,
        trump: int | Keep | None = KEEP,
        scores: tuple[int, int] | Keep = KEEP,
        winner: int | Keep | None = KEEP,
        expires_at: int | Keep | None = KEEP,
        rematch_of: str | Keep | None = KEEP,
        reserved: tuple[int, ...] | Keep = KEEP,
        reserved_until: int | Keep | None = KEEP,
        rematch: str | Keep | None = KEEP,
        end_reason: EndReason | Keep | None = KEEP,
        takeover_grace_ms: int | Keep = KEEP,
        presence_at: int | Keep = KEEP,
        pause_when_absent: bool | Keep = KEEP,
        away_pace_ms: int | Keep = KEEP,
        idle_expiry_ms: int | Keep | None = KEEP,
        begged: bool | Keep = KEEP,
        stand_in: str | Keep = KEEP,
        rated: bool | Keep = KEEP,
        private: bool | Keep = KEEP,
    ) -> State:
        """This state with the given fields changed (``msgspec.structs.replace``, for a
        class the compiler knows: a call names its options at compile time, so it costs
        no more than building the new state)."""
        return State(
            self.version if version is KEEP else version,
            self.hands if hands is KEEP else hands,
            self.trick if trick is KEEP else trick,
            self.players if players is KEEP else players,
            self.turn_at if turn_at is KEEP else turn_at,
            self.turn_timed_out if turn_timed_out is KEEP else turn_timed_out,
            self.won if won is KEEP else won,
            self.last_trick if last_trick is KEEP else last_trick,
            self.last_trick_leader if last_trick_leader is KEEP else last_trick_leader,
            self.leader if leader is KEEP else leader,
            self.tricks_played if tricks_played is KEEP else tricks_played,
            self.played_tricks if played_tricks is KEEP else played_tricks,
            self.phase if phase is KEEP else phase,
            self.rules if rules is KEEP else rules,
            self.seed_commitment if seed_commitment is KEEP else seed_commitment,
            self.seed if seed is KEEP else seed,
            self.dealer if dealer is KEEP else dealer,
            self.hand_no if hand_no is KEEP else hand_no,
            self.deal_no if deal_no is KEEP else deal_no,
            self.deck if deck is KEEP else deck,
            self.next_card if next_card is KEEP else next_card,
            self.dealt if dealt is KEEP else dealt,
            self.kicks if kicks is KEEP else kicks,
            self.trump if trump is KEEP else trump,
            self.scores if scores is KEEP else scores,
            self.winner if winner is KEEP else winner,
            self.expires_at if expires_at is KEEP else expires_at,
            self.rematch_of if rematch_of is KEEP else rematch_of,
            self.reserved if reserved is KEEP else reserved,
            self.reserved_until if reserved_until is KEEP else reserved_until,
            self.rematch if rematch is KEEP else rematch,
            self.end_reason if end_reason is KEEP else end_reason,
            self.takeover_grace_ms if takeover_grace_ms is KEEP else takeover_grace_ms,
            self.presence_at if presence_at is KEEP else presence_at,
            self.pause_when_absent if pause_when_absent is KEEP else pause_when_absent,
            self.away_pace_ms if away_pace_ms is KEEP else away_pace_ms,
            self.idle_expiry_ms if idle_expiry_ms is KEEP else idle_expiry_ms,
            self.begged if begged is KEEP else begged,
            self.stand_in if stand_in is KEEP else stand_in,
            self.rated if rated is KEEP else rated,
            self.private if private is KEEP else private,
        )

    # --- end of generated code ---

    @property
    def plays(self) -> tuple[int, ...]:
        """Every card played this hand, in play order, as ``seat << 6 | card``: public (the
        whole table saw each), and what a bot remembers of the hand (who led what, who
        showed a void)."""
        return hand_plays(self.played_tricks, self.leader, self.trick)

    @property
    def deadline(self) -> int | None:
        """When the person to act times out (ms since the epoch); None when nobody is on the
        clock: no clock, no decision due, or a bot deciding. Derived from the log alone."""
        seat = self.to_act
        if seat is None:
            return None
        clock = self.rules.clock_ms
        player = self.players[seat]
        if clock is None or player is None or player.autoplayed or self.turn_timed_out:
            return None
        if self.paused:
            return None
        return self.turn_at + clock

    @property
    def paused(self) -> bool:
        """The game waits for its people: the table pauses when nobody is there (its
        ``pause_when_absent``), the game is under way, and every person holding a seat is
        away or gone. Nothing moves until one comes back or a newcomer takes a seat over (or
        the table is closed as idle)."""
        if not self.pause_when_absent or self.phase in ("new", "seating", "ended"):
            return False
        people = 0
        for player in self.players:
            if player is not None and player.bot is None:
                if not (player.away or player.left):
                    return False
                people += 1
        return people > 0

    @property
    def away_due_at(self) -> int | None:
        """When the bot plays the seat to act for its away person, at the table's pace
        (``away_pace_ms`` after the turn came to it); None when that is not the case or it
        plays at once."""
        seat = self.to_act
        if seat is None or self.away_pace_ms <= 0 or self.turn_timed_out:
            return None
        player = self.players[seat]
        if player is None or player.bot is not None or not player.away or player.left:
            return None
        return None if self.paused else self.turn_at + self.away_pace_ms

    @property
    def idle_expires_at(self) -> int | None:
        """When the game is closed as idle (``GameAborted``, reason ``idle``): while it is
        paused, or waits with no clock on a person who is there, ``idle_expiry_ms`` after it
        was last active (a move or a change of who is at the table); else None."""
        limit = self.idle_expiry_ms
        if limit is None or self.phase in ("new", "seating", "ended"):
            return None
        if not self.paused:
            seat = self.to_act
            if self.rules.clock_ms is not None or seat is None:
                return None
            player = self.players[seat]
            if player is None or player.autoplayed:
                return None
        return max(self.turn_at, self.presence_at) + limit

    @property
    def wakeup_at(self) -> int | None:
        """When time alone next changes this game (a deadline, an away seat's paced move, an
        idle table's closing, or the expiry of a table still waiting for players): what the
        service's due-index holds for it."""
        if self.phase == "seating":
            return self.expires_at
        due = [t for t in (self.deadline, self.away_due_at, self.idle_expires_at) if t is not None]
        return min(due) if due else None

    @property
    def first_card_played(self) -> bool:
        return self.hand_no > 1 or self.tricks_played > 0 or bool(self.trick)

    def bot_to_act(self, at: int | None = None) -> tuple[int, str] | None:
        """The seat to act and the bot kind that decides for it now, if a bot does. ``at``:
        the time (an away person's seat is played at the table's pace: not before its
        ``away_due_at``); None: at once, whatever the pace. Nobody plays while paused."""
        seat = self.to_act
        if seat is None:
            return None
        player = self.players[seat]
        if player is None or self.paused:
            return None
        if player.bot is not None:
            return seat, player.bot
        if player.left or self.turn_timed_out:
            return seat, self.stand_in
        if player.away:
            due = self.away_due_at
            return (seat, self.stand_in) if at is None or due is None or at >= due else None
        return None

    @property
    def to_act(self) -> int | None:
        """The seat whose move it is, or None when no player is to act."""
        phase = self.phase
        if phase == "playing":
            return (self.leader + len(self.trick)) & 3
        if phase == "begging":
            return next_seat(self.dealer)
        if phase == "dealer_choice":
            return self.dealer
        return None
