"""Bodies of the player endpoints: identities, game lists, profiles, the leaderboard."""

from __future__ import annotations

import msgspec

from server.api.contract.models import Name


class NewPlayer(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: Name
    """The name shown for the player (the name policy of seats: 400 ``invalid_name``)."""


class Rename(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: Name
    """The new name (shown on the leaderboard and in new seats; old games keep theirs)."""


class PlayerCreated(msgspec.Struct, frozen=True):
    player_id: str
    """The player's public id (profiles and the leaderboard show it)."""
    name: str
    """The player's name."""
    key: str
    """The player's secret key (``<player id>.player.<secret>``), shown this once: only its
    hash is kept. Send it as ``Authorization: Bearer`` to the player endpoints and to
    takeSeat; it is also the recovery code that signs the player in on another device."""
    created_at: int
    """When the identity was made (ms since the epoch)."""


class Rating(msgspec.Struct, frozen=True):
    rating: int
    """The shown rating: 1500 for a newcomer; openskill's conservative estimate
    ``mu - 3 sigma``, scaled by 40, plus 1500."""
    games: int
    """Rated games played."""
    wins: int
    """Rated games won."""


class PlayerSelf(msgspec.Struct, frozen=True):
    player_id: str
    """The player's public id."""
    name: str
    """The player's name."""
    created_at: int
    """When the identity was made (ms since the epoch)."""
    rating: Rating
    """The player's rating (a newcomer's until a rated game ends)."""


class RatedGame(msgspec.Struct, frozen=True):
    game_id: str
    """The rated game."""
    at: int
    """When it ended (ms since the epoch)."""
    won: bool
    """Whether the player's team won (a resignation is a loss)."""
    rating: int
    """The player's rating after it."""
    change: int
    """How much it moved the rating."""


class Profile(msgspec.Struct, frozen=True):
    player_id: str
    """The player's public id."""
    name: str
    """The player's name."""
    rating: Rating
    """The player's rating."""
    history: tuple[RatedGame, ...]
    """The player's rated games, newest first (the last 20): the rating history."""


class LeaderboardEntry(msgspec.Struct, frozen=True):
    rank: int
    """1 for the best rated."""
    player_id: str
    """The player's public id."""
    name: str
    """The player's name."""
    rating: int
    """The player's shown rating."""
    games: int
    """Rated games played."""


class Leaderboard(msgspec.Struct, frozen=True):
    entries: tuple[LeaderboardEntry, ...]
    """From rank ``offset + 1``, best first."""
    total: int
    """How many players are rated."""
