"""``bot_view``: what a bot decides from, made for every decision a bot takes.

This module is compiled with the engine (``compiled``), so ``BotView`` is a record
(``records``) rather than a Struct: nothing encodes it, and a bot's view is built for each of
the ~150 decisions of a self-played game. Interpreted, it is swapped for a Struct made from it
(``interpreted``), as ``State`` is, so its constructor runs in C: ``bot_view`` takes the facts
from the state and the record only holds them.
"""

from __future__ import annotations

from typing import Final

from domain import cards as C
from domain.commands import PlayerCommand
from domain.legal import legal_moves
from domain.records import Record
from domain.rules import Rules
from domain.state import Phase, State, hand_plays
from domain.visibility import PlayedCard, played_cards


class BotView(Record):
    """What a bot decides from: the part of its seat's ``View`` that bots read and what the
    seat has seen of the hand so far (every card played and by whom, the kicks, the beg, its
    own dealt cards), built from that seat's visible facts only, as the engine's card numbers.
    The codes are made when a bot reads them (``hand``, ``kicks``, ``trick``, ``trump``), so a
    bot that reads only its legal actions, as the random one does, costs no conversion:
    building a whole ``View`` for every decision was most of the time of a self-played game."""

    FIELDS = (
        "viewer",
        "legal_actions",
        "rules",
        "scores",
        "hand_cards",
        "trump_suit",
        "kick_cards",
        "trick_cards",
        "trick_leader",
        "phase",
        "dealer",
        "dealt_cards",
        "played_tricks",
        "begged",
        "won_cards",
        "tricks_played",
    )
    __slots__ = FIELDS

    viewer: Final[int]
    """The seat deciding."""
    legal_actions: Final[tuple[PlayerCommand, ...]]
    """Exactly the moves the seat may make now, as in ``View``."""
    rules: Final[Rules]
    scores: Final[tuple[int, int]]
    """Both teams' scores, team 0 first."""
    hand_cards: Final[C.CardSet]
    """The seat's own cards."""
    trump_suit: Final[int | None]
    """The trump suit's number once it is set."""
    kick_cards: Final[tuple[int, ...]]
    """Cards turned up this hand, first kick first."""
    trick_cards: Final[tuple[int, ...]]
    """The trick in play, in play order from ``trick_leader``."""
    trick_leader: Final[int]
    # What the seat remembers of the hand: all of it public but its own dealt cards.
    phase: Final[Phase]
    dealer: Final[int]
    dealt_cards: Final[C.CardSet]
    """Every card the seat was dealt this hand (its hand and the cards it has played)."""
    played_tricks: Final[tuple[int, ...]]
    """This hand's complete tricks, packed (``State.played_tricks``): with the trick in play,
    every card played this hand (``plays``)."""
    begged: Final[bool]
    """The dealer's right begged this hand (then one kick and a trump: the dealer gave one)."""
    won_cards: Final[tuple[int, int]]
    """The cards each team has captured this hand, team 0 first."""
    tricks_played: Final[int]

    def __init__(
        self,
        viewer: int,
        legal_actions: tuple[PlayerCommand, ...],
        rules: Rules,
        scores: tuple[int, int],
        hand_cards: C.CardSet,
        trump_suit: int | None,
        kick_cards: tuple[int, ...],
        trick_cards: tuple[int, ...],
        trick_leader: int,
        phase: Phase,
        dealer: int,
        dealt_cards: C.CardSet,
        played_tricks: tuple[int, ...],
        begged: bool,
        won_cards: tuple[int, int],
        tricks_played: int,
    ) -> None:
        self.viewer = viewer
        self.legal_actions = legal_actions
        self.rules = rules
        self.scores = scores
        self.hand_cards = hand_cards
        self.trump_suit = trump_suit
        self.kick_cards = kick_cards
        self.trick_cards = trick_cards
        self.trick_leader = trick_leader
        self.phase = phase
        self.dealer = dealer
        self.dealt_cards = dealt_cards
        self.played_tricks = played_tricks
        self.begged = begged
        self.won_cards = won_cards
        self.tricks_played = tricks_played

    @property
    def hand(self) -> tuple[str, ...]:
        return C.codes_in(self.hand_cards)

    @property
    def trump(self) -> str | None:
        return None if self.trump_suit is None else C.SUITS[self.trump_suit]

    @property
    def kicks(self) -> tuple[str, ...]:
        return tuple([C.CODES[c] for c in self.kick_cards])

    @property
    def trick(self) -> tuple[PlayedCard, ...]:
        return played_cards(self.trick_leader, self.trick_cards)

    @property
    def plays(self) -> tuple[int, ...]:
        """Every card played this hand, in play order, as ``seat << 6 | card``: who led
        what, and who failed to follow (a void). Made when read, as the codes are."""
        return hand_plays(self.played_tricks, self.trick_leader, self.trick_cards)


def bot_view(state: State, seat: int) -> BotView:
    """What the bot of ``seat`` may see of ``state``: the same facts as ``view(state, seat)``."""
    won = state.won
    return BotView(
        seat,
        legal_moves(state, seat),
        state.rules,
        state.scores,
        state.hands[seat],
        state.trump,
        state.kicks,
        state.trick,
        state.leader,
        state.phase,
        state.dealer,
        state.dealt[seat],
        state.played_tricks,
        state.begged,
        (won[0], won[1]),
        state.tricks_played,
    )
