"""Errors of the service layer that the HTTP layer maps to problem details.

Rule violations come from the domain (``domain.RuleViolation``); store outages from the store
(``StoreUnavailable``). These cover what lies between: missing games, stale versions, auth.
"""

from __future__ import annotations


class ServiceError(Exception):
    code: str = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class GameNotFound(ServiceError):
    code = "not_found"


class VersionConflict(ServiceError):
    """The client's ``expected_version`` is not the game's version."""

    code = "version_conflict"

    def __init__(self, message: str, current_version: int) -> None:
        super().__init__(message)
        self.current_version = current_version


class GameNotFinished(ServiceError):
    code = "game_not_finished"


class IdempotencyKeyReused(ServiceError):
    """An ``Idempotency-Key`` sent again with a different request: neither is acted on twice,
    and the second is refused rather than answered with the first one's outcome."""

    code = "idempotency_key_reused"


class Unauthorized(ServiceError):
    code = "unauthorized"


class Forbidden(ServiceError):
    code = "forbidden"


class TooManyConflicts(ServiceError):
    """Contention on one game outlasted the retry budget; the client may simply retry."""

    code = "busy"


class BotsBusy(ServiceError):
    """The bot workers did not answer a search asked for by a person (a hint, an analysis)
    in time, or lost it (a worker died): the client may retry."""

    code = "bots_busy"


class ShuttingDown(ServiceError):
    """This instance is shutting down: the request is for another one (or for this one once
    it is back)."""

    code = "unavailable"


class SeatMismatch(ServiceError):
    """A command body names a seat other than the path's (the path's token acts)."""

    code = "seat_mismatch"
