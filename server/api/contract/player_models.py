"""Bodies of the player endpoints: identities, game lists, profiles, the leaderboard,
matchmaking."""

from __future__ import annotations

from typing import Annotated, Literal

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


class JoinQueue(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    partner: Annotated[str, msgspec.Meta(pattern=r"^p[0-9a-f]{16}$")] | None = None
    """A player to sit with as partners (the same team): the two are one party once each
    has named the other, and wait until both joined. Null: anyone."""
    bots_after_s: Annotated[int, msgspec.Meta(ge=10, le=600)] | None = None
    """After this wait (seconds), be seated at once at a new unrated table with ``strong``
    bots in the other seats (a party as partners). Null: wait for people."""


class Ticket(msgspec.Struct, frozen=True):
    status: Literal["idle", "waiting", "seated"]
    """``idle``: not queued; ``waiting``: in the queue; ``seated``: a table was made (for
    about 10 minutes, or until you queue again)."""
    waiting_since: int | None
    """When you joined the queue (ms since the epoch); null when idle."""
    partner: str | None
    """The partner you named."""
    bots_after_s: int | None
    """When bots fill your table (seconds of waiting); null: never."""
    band: int
    """The rating band's half-width now: you are matched with people rated within it. It
    widens the longer you wait."""
    game_id: str | None
    """Your table, once seated (ask reissueSeatToken for your seat token)."""
    seat: int | None
    """Your seat there, once seated."""
    rated: bool
    """Whether your table is (or will be) rated: a table of four people is; one with bots
    is not."""
    waiting: int
    """People in the queue now."""
    playing: int
    """People seated by matchmaking at tables still in progress."""


class QueueStats(msgspec.Struct, frozen=True):
    waiting: int
    """People in the queue now."""
    playing: int
    """People seated by matchmaking at tables still in progress."""
