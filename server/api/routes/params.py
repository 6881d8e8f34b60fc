"""Path, query and header parameters shared by the game routes, and their security
requirements as the spec states them."""

from __future__ import annotations

from typing import Annotated

from litestar.params import HeaderParameter, Parameter, QueryParameter

GameId = Annotated[str, Parameter(pattern=r"^[A-Za-z0-9_-]{1,64}$", description="The game's id")]
SeatPath = Annotated[int, Parameter(ge=0, le=3, description="Seat 0..3, counterclockwise")]
IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        required=False,
        min_length=1,
        max_length=200,
        description="A client-chosen key that makes a write safe to retry. The same key with "
        "the same body returns the first outcome (``duplicate: true``) instead of acting "
        "twice; the same key with another body is refused (409 ``idempotency_key_reused``). "
        "A command's keys belong to the token that holds its seat (two seats may use the same "
        "keys, and only that token hears a key's first outcome). A refused request stores "
        "nothing, so its retry is decided "
        "anew. Keys are kept as long as the game. After a 503 (or a lost answer) the write may "
        "have been applied: retry with the same key to learn its outcome.",
    ),
]
SECRET_KEY_LENGTH = 16
"""The shortest key accepted where a key works as a secret: with 16 random characters nobody
guesses another client's key."""
SecretKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        required=False,
        min_length=SECRET_KEY_LENGTH,
        max_length=200,
        # Visible ASCII only: a header's surrounding spaces are not part of its value.
        pattern=r"^[!-~]+$",
        description="A random client-chosen key of at least 16 characters (a UUID): a retry "
        "with the same key and body after a lost answer returns the same answer, the seat "
        "token or creator token included. The key works as a secret (whoever sends it again "
        "gets that token), so a shorter one is refused (400).",
    ),
]
"""The key of a creation or a seating, which hands out a token."""
SeatToken = Annotated[
    str | None,
    QueryParameter(
        name="token",
        required=False,
        description="The seat token for clients that cannot send ``Authorization: Bearer`` "
        "(browsers' EventSource). Prefer the header.",
    ),
]
MAX_VERSION = 2**53 - 1
"""The largest version a client may name: every JSON client holds it exactly, and it stays
well inside the store's 64-bit stream ids (a larger one made Redis refuse the read: a 503)."""
After = Annotated[
    int, Parameter(ge=0, le=MAX_VERSION, description="Only events after this version")
]

SEAT_REQUIRED: list[dict[str, list[str]]] = [{"seatToken": []}]
SEAT_OPTIONAL: list[dict[str, list[str]]] = [{"seatToken": []}, {}]
"""Reads work without a token too (as a spectator); with one, as that seat."""
CREATOR_REQUIRED: list[dict[str, list[str]]] = [{"creatorToken": []}]
HOST_REQUIRED: list[dict[str, list[str]]] = [{"creatorToken": []}, {"seatToken": []}]
PLAYER_REQUIRED: list[dict[str, list[str]]] = [{"playerKey": []}]
ListCursor = Annotated[
    str | None,
    Parameter(
        pattern=r"^[0-9]{1,16}:[A-Za-z0-9_-]{1,64}$",
        required=False,
        description="``next_cursor`` of the previous page",
    ),
]
"""The table's creator, or a person seated at it."""
