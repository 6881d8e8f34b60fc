"""``bot_view``: what a bot decides from, made for every decision a bot takes.

This module is compiled with the engine (``compiled``), so ``BotView`` is a record
(``records``) rather than a Struct: nothing encodes it, and a bot's view is built for each of
the ~150 decisions of a self-played game.
"""

from __future__ import annotations

from typing import Final

from domain import cards as C
from domain.commands import PlayerCommand
from domain.legal import legal_moves
from domain.records import Record
from domain.rules import Rules
from domain.state import Phase, State
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
        "plays",
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
    plays: Final[tuple[int, ...]]
    """Every card played this hand, in play order, as ``seat << 6 | card`` (``State.plays``):
    who led what, and who failed to follow (a void)."""
    begged: Final[bool]
    """The dealer's right begged this hand (then one kick and a trump: the dealer gave one)."""
    won_cards: Final[tuple[int, int]]
    """The cards each team has captured this hand, team 0 first."""
    tricks_played: Final[int]

    def __init__(self, state: State, seat: int) -> None:
        """What the bot of ``seat`` may see of ``state``: the same facts as ``view``'s."""
        self.viewer = seat
        self.legal_actions = legal_moves(state, seat)
        self.rules = state.rules
        self.scores = state.scores
        self.hand_cards = state.hands[seat]
        self.trump_suit = state.trump
        self.kick_cards = state.kicks
        self.trick_cards = state.trick
        self.trick_leader = state.leader
        self.phase = state.phase
        self.dealer = state.dealer
        self.dealt_cards = state.dealt[seat]
        self.plays = state.plays
        self.begged = state.begged
        won = state.won
        self.won_cards = (won[0], won[1])
        self.tricks_played = state.tricks_played

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


def bot_view(state: State, seat: int) -> BotView:
    """What the bot of ``seat`` may see of ``state``: the same facts as ``view(state, seat)``."""
    return BotView(state, seat)
