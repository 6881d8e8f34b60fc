"""Every problem ``code`` the API answers, with its status and what it means: the one table
from which the spec's ``Problem.code`` enum and its description, the status each operation
lists a code under, and the README's error table are all made (a test compares the README's
table with this one). The rules' own codes are the domain's (``domain.errors``); a test
checks that each of them is here."""

from __future__ import annotations

from typing import Final, NamedTuple

__all__ = ["ERROR_CODES", "ErrorCode"]


class ErrorCode(NamedTuple):
    status: int
    """The HTTP status it comes with."""
    meaning: str
    """When it is answered, in a sentence (Markdown: the README shows it as it is)."""


ERROR_CODES: Final[dict[str, ErrorCode]] = {
    "invalid_request": ErrorCode(
        400,
        "a malformed body, parameter or header (a number, seat or id has one spelling: "
        "plain ASCII digits, no sign, leading zero or exponent; no trailing newline; a query "
        "parameter, `Authorization` and a body's key come once)",
    ),
    "invalid_name": ErrorCode(
        400, "a name that cannot be shown as it is (see Seat names; the `detail` says why)"
    ),
    "unauthorized": ErrorCode(
        401,
        "a missing or unknown seat token, creator token or player key: checked before "
        "anything of the game or player is read or changed (a request malformed in itself, "
        "which tells nothing of them, may be refused for its form first: 400, 415, 422)",
    ),
    "forbidden": ErrorCode(
        403,
        "a token of another seat or game; a bot seated with the token of a seat you left; a "
        "private table without its invitation; a seat token asked for a seat not the player's",
    ),
    "not_found": ErrorCode(404, "no such game, player or path"),
    "method_not_allowed": ErrorCode(405, "a method the path does not take (see `Allow`)"),
    "request_timeout": ErrorCode(
        408,
        "a request whose headers and body did not all arrive within `ALLFOURS_READ_TIMEOUT_S` "
        "of its first byte; the connection is closed after it",
    ),
    "not_your_turn": ErrorCode(409, "another seat is to act"),
    "wrong_phase": ErrorCode(409, "not a move of this phase of the hand or table"),
    "card_not_in_hand": ErrorCode(409, "a card the seat does not hold"),
    "must_follow_suit": ErrorCode(409, "the seat holds the suit led (or trump) and must play it"),
    "undertrump_forbidden": ErrorCode(409, "an undertrump where the rules forbid it"),
    "give_one_forbidden": ErrorCode(
        409, "giving one would let the begging team win (`give_one_at_13: forbidden`)"
    ),
    "seat_taken": ErrorCode(409, "someone sits there"),
    "already_seated": ErrorCode(
        409, "the player key holds another seat at this table (one person, one seat)"
    ),
    "game_over": ErrorCode(409, "the game has ended"),
    "no_game": ErrorCode(409, "a table whose game has not been set up"),
    "game_exists": ErrorCode(409, "the game was set up already (a second creation)"),
    "seed_mismatch": ErrorCode(409, "a seed that does not match the game's commitment"),
    "seat_reserved": ErrorCode(409, "a rematch's seat kept for its player of the last game"),
    "not_a_person": ErrorCode(409, "a bot's seat, or one its person left"),
    "already_away": ErrorCode(409, "the person is away already"),
    "not_away": ErrorCode(409, "the person is not away"),
    "too_late_to_abort": ErrorCode(409, "the game's first card was played"),
    "rematch_exists": ErrorCode(
        409,
        "the game has its rematch already (the engine's refusal of a second one; over HTTP "
        "createRematch answers the rematch there is, `duplicate: true`)",
    ),
    "not_due": ErrorCode(409, "a timeout before its deadline"),
    "rated_table": ErrorCode(
        409, "a rated table seats only people with a player identity, and gives no hints"
    ),
    "version_conflict": ErrorCode(
        409, "`expected_version` is not the game's version (`current_version` says which is)"
    ),
    "game_not_finished": ErrorCode(409, "a replay or analysis of a game still in play"),
    "idempotency_key_reused": ErrorCode(
        409, "an `Idempotency-Key` sent again with another request"
    ),
    "seat_mismatch": ErrorCode(409, "a command body naming another seat than the path's"),
    "name_taken": ErrorCode(409, "another seat shows that name, or one that looks like it"),
    "target_too_high": ErrorCode(
        409, "a game of four bots above `ALLFOURS_MAX_BOT_TARGET` (this server's limit)"
    ),
    "search_needs_a_person": ErrorCode(
        409,
        "a table of four bots with a `strong` or `master` one (it would be played out in the "
        "request that creates it)",
    ),
    "clock_too_short": ErrorCode(409, "a `turn_seconds` below `ALLFOURS_MIN_TURN_SECONDS`"),
    "payload_too_large": ErrorCode(413, "a body over the size limit"),
    "unsupported_media_type": ErrorCode(415, "a body not sent as `application/json`"),
    "unknown_card": ErrorCode(422, "not a card code"),
    "invalid_deck": ErrorCode(422, "a deck that is not the 52 cards once each"),
    "invalid_seat": ErrorCode(
        422,
        "a seat number outside 0..3 given to the engine (over HTTP the path refuses it first: "
        "400 `invalid_request`)",
    ),
    "rate_limited": ErrorCode(429, "too many requests from this address or player"),
    "quota_exceeded": ErrorCode(429, "too many tables or player identities this hour"),
    "too_many_streams": ErrorCode(429, "too many open streams from this address"),
    "too_many_connections": ErrorCode(429, "too many open connections from this address"),
    "headers_too_large": ErrorCode(431, "request headers over the size limit"),
    "internal": ErrorCode(500, "a bug: never the client's input; logged with the request id"),
    "unavailable": ErrorCode(
        503,
        "Redis is unreachable, or the server is shutting down (`/readyz`: or its bot workers "
        "are starting)",
    ),
    "busy": ErrorCode(503, "contention on the game outlasted the retries"),
    "bots_busy": ErrorCode(
        503, "the bot workers did not answer a hint or an analysis in time (a busy machine)"
    ),
}
"""In the README's order: by status, the rules' refusals first among the 409s. Every 429 and
503 comes with ``Retry-After``."""
