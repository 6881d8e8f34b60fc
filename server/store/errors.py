"""The exceptions the event store raises: few, named for what the caller must do about them."""

from __future__ import annotations

__all__ = [
    "ResyncRequired",
    "StoreError",
    "StoreRegressed",
    "StoreUnavailable",
    "SubscriberLagged",
    "SubscriptionDropped",
]


class StoreError(Exception):
    """Base class of every error the event store raises."""


class StoreUnavailable(StoreError):
    """Redis cannot be reached, is loading its data, or is a read-only replica right now.

    Transient: the HTTP layer maps it to 503. The store needs no help to recover: connections
    are re-made and the append script re-loaded on the next call once Redis is back.
    """


class StoreRegressed(StoreError):
    """The store holds fewer events for a game than this process has already seen.

    Versions never go down, so this means Redis lost acknowledged data (restart without a
    durable AOF, failover to a lagging replica, a restored backup). Anything cached for the
    game must be dropped and rebuilt from the store; the store has already reset what it
    remembers so that the next call works against the new reality.
    """

    def __init__(self, game_id: str, seen: int, actual: int) -> None:
        super().__init__(
            f"store for game {game_id!r} went back from version {seen} to {actual}: "
            "acknowledged events were lost; drop cached state and resync"
        )
        self.game_id = game_id
        self.seen = seen
        self.actual = actual


class SubscriptionDropped(StoreError):
    """A live subscription ended abnormally; ``position`` is the last version it delivered."""

    def __init__(self, game_id: str, position: int, reason: str) -> None:
        super().__init__(
            f"subscription to game {game_id!r} dropped at version {position}: {reason}"
        )
        self.game_id = game_id
        self.position = position


class SubscriberLagged(SubscriptionDropped):
    """The subscriber did not keep up and its bounded queue overflowed.

    Nothing is lost: subscribe again from ``position`` (SSE clients do this by reconnecting
    with ``Last-Event-ID``).
    """


class ResyncRequired(SubscriptionDropped):
    """The store regressed below what this subscription delivered: versions were reused.

    Resuming from ``position`` would be wrong; the consumer must reload the game from scratch.
    """
