"""Bots: pure functions of one seat's information (never the full state), so they cannot cheat.

Every bot is a ``Bot``: it gets its seat's ``BotView`` (the view and what the seat has seen of
the hand) and an rng. ``random_bot`` plays a uniformly random legal action. ``heuristic_bot``
plays like a careful beginner (``policy``). ``strong`` and ``master`` search the deals the
seat cannot tell apart (``search``), with more deals for ``master``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final, Protocol

from domain import cards as C
from domain import policy, search
from domain.commands import PlayerCommand
from domain.rules import Rules
from domain.sight import BotView
from domain.visibility import PlayedCard, Viewer


class SeatSight(Protocol):
    """What bots read of a seat's view: a ``View``, or the lighter ``BotView`` that self-play and
    the service give them (``sight.bot_view``: the same facts of the same seat)."""

    @property
    def viewer(self) -> Viewer: ...
    @property
    def legal_actions(self) -> tuple[PlayerCommand, ...]: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def scores(self) -> tuple[int, int]: ...
    @property
    def hand(self) -> tuple[str, ...] | None: ...
    @property
    def trump(self) -> str | None: ...
    @property
    def kicks(self) -> tuple[str, ...]: ...
    @property
    def trick(self) -> tuple[PlayedCard, ...]: ...


Bot = Callable[[BotView, random.Random], PlayerCommand]
"""The one interface of every bot: the seat's view and memory of the hand (``bot_view``, its
information only), and an rng of its own (never one seeded with the deck's seed)."""


def random_bot(view: SeatSight, rng: random.Random) -> PlayerCommand:
    """A uniformly random legal action: the one ``rng.choice`` would pick."""
    actions = view.legal_actions
    return actions[choice_index(rng, len(actions))]


def choice_index(rng: random.Random, n: int) -> int:
    """The index in 0..n-1 that ``rng.choice`` of ``n`` items draws, drawn as it draws it
    (``Random._randbelow_with_getrandbits``): compiled code calls ``getrandbits`` directly,
    where ``choice`` ran two interpreted frames for every decision of a self-played game. A
    test holds the two together, and the self-play fixture pins every game's choices."""
    if n <= 0:
        raise IndexError("Cannot choose from an empty sequence")
    bits = n.bit_length()
    index = rng.getrandbits(bits)
    while index >= n:
        index = rng.getrandbits(bits)
    return index


def heuristic_bot(view: SeatSight, rng: random.Random) -> PlayerCommand:
    """A sensible legal action (``policy``): the same from a ``View`` as from a ``BotView``;
    ``rng`` is not used (the heuristic breaks ties by the order of the legal actions)."""
    me = view.viewer
    assert me is not None
    trump = view.trump
    trick = view.trick
    return policy.heuristic_action(
        view.legal_actions,
        me,
        C.cardset(C.parse_all(view.hand or ())),
        None if trump is None else C.SUITS.index(trump),
        tuple([C.parse(p.card) for p in trick]),
        trick[0].seat if trick else me,
        C.SUITS.index(view.kicks[0][1]),
        view.scores[(me + 1) & 1],
        view.rules.target,
    )


BOTS: Final[dict[str, Bot]] = {
    "random": random_bot,
    "heuristic": heuristic_bot,
    "strong": search.strong_bot,
    "master": search.master_bot,
}
"""Bot kinds by the name a seat records in ``PlayerJoined.bot``."""
