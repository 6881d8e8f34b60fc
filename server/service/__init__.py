"""The game service: commands in, events stored. The only writer of game streams.

Each command runs against a cached state (fast-forwarded from the store when another instance
moved the game on), is decided by the pure domain, and is appended with the version it was
decided on. A conflict means someone else wrote first: fast-forward and decide again, a
bounded number of times. Whatever the game owes itself after a command (the next deal, the
bots' moves, the seed reveal at the end) is decided in the same step and stored in the same
atomic append, so a game never stalls half-way and two instances can never fork it.

Its collaborators, one job each: :mod:`~server.service.state_cache` (the per-process cache of
states), :mod:`~server.service.idempotency` (what a command id is recorded with, and its earlier
outcome), :mod:`~server.service.deciding` (a command and what the game owes itself, decided
purely), :mod:`~server.service.thinking` (the bots' decisions, the searching levels in worker
processes, off the event loop), :mod:`~server.service.game_ids` (random and derived game ids) and
:mod:`~server.service.issuing` (seat and creator tokens), :mod:`~server.service.analyses`
(finished games' analyses, computed once and kept); :mod:`~server.service.games` holds
:class:`GameService`, which ties them to the store and the lobby.
"""

from server.service.analyses import Analyses
from server.service.game_ids import game_id_for_key, new_game_id, rematch_id_of
from server.service.games import GameService, TableOptions
from server.service.results import CommandResult, SeatGrant
from server.service.thinking import Thinker

__all__ = [
    "Analyses",
    "CommandResult",
    "GameService",
    "SeatGrant",
    "TableOptions",
    "Thinker",
    "game_id_for_key",
    "new_game_id",
    "rematch_id_of",
]
