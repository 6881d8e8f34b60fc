"""Checks of a request before its handler runs: what its body is, and what a new table may be.

- A body must say it is JSON (``Content-Type: application/json``), else 415: a cross-site
  HTML form can send ``text/plain`` without a CORS preflight, and the body would otherwise be
  read as JSON all the same. No object in it gives a key twice (``key_given_twice``).
- A game of four bots is played out, whole, by the request that creates it: its ``target``
  is capped (``ALLFOURS_MAX_BOT_TARGET``) so that one request cannot write an unbounded log.
- A path's game id, seat and player id, and a number in the query (``after``, ``limit``,
  ``offset``), have one shape each (the routes' ``int`` would read ``+1``, ``01``, ``1e3`` or
  ``2.0`` too, and their patterns a trailing newline); a query parameter or ``Authorization``
  comes once.
- A turn clock has a floor (``ALLFOURS_MIN_TURN_SECONDS``, default 10): a one-second clock
  marks a person away before they can read their cards, a trap for whoever sits down.

The hourly quota of new tables per address is counted by the creation itself
(``GamesController.create_game``), which alone knows whether a table was made.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

import msgspec
from litestar import Request
from litestar.exceptions import HTTPException

from server.api.contract.models import CreateGame
from server.errors import ServiceError
from server.service.thinking import SEARCHING

JSON_MEDIA_TYPE = "application/json"


class TargetTooHigh(ServiceError):
    """A game of four bots asked for a ``target`` above the configured cap."""

    code = "target_too_high"


class SearchWithoutPerson(ServiceError):
    """A game of four bots asked for a searching bot: its whole game would be searched in the
    request that creates it."""

    code = "search_needs_a_person"


class ClockTooShort(ServiceError):
    """A new table asked for a turn clock below the configured floor."""

    code = "clock_too_short"


_PLAIN_NUMBER: Final = re.compile(r"0|[1-9][0-9]*", re.ASCII)
_PATH_PARTS: Final = (
    (
        re.compile(r"^/v1/games/([^/]+)"),
        re.compile(r"[A-Za-z0-9_-]{1,64}", re.ASCII),
        "the game id is 1 to 64 ASCII letters, digits, _ or -",
    ),
    (
        re.compile(r"/seats/([^/]*)"),
        _PLAIN_NUMBER,
        "the seat in the path is a number 0..3 in ASCII digits",
    ),
    (
        re.compile(r"^/v1/players/([^/]+)"),
        re.compile(r"me|p[0-9a-f]{16}", re.ASCII),
        "a player id is p and 16 hex digits",
    ),
)
"""A path's ids and seat, with the whole shape each must have. The routes' own patterns end
in ``$``, which lets a trailing newline through ("abc\\n" was looked up as a game)."""
NUMBER_QUERIES: Final = ("after", "limit", "offset")
"""The query parameters read as whole numbers, by any route."""


def check_shapes(request: Request[Any, Any, Any]) -> None:
    """400 for a path's game id, seat or player id, or a query's number, not written in its
    one shape: the routes' ``int`` reads ``+1``, `` 1``, ``01``, ``1e3``, ``2.0``, ``-0`` and
    other scripts' digits (Arabic-Indic, full-width), so one seat or page had many URLs and
    ``after=1e3`` meant 1000; and for a query parameter or ``Authorization`` given twice (the
    first counted, silently). Nothing is looked up first. (A plain number out of a route's
    range is the route's own 400.)"""
    path = request.scope["path"]
    for where, shape, detail in _PATH_PARTS:
        found = where.search(path)
        if found is not None and shape.fullmatch(found.group(1)) is None:
            raise HTTPException(status_code=400, detail=detail)
    query = request.query_params
    for name, values in query.dict().items():
        if len(values) > 1:  # which one counts is no client's guess to make
            raise HTTPException(status_code=400, detail=f"{name} is given more than once")
    if len(request.headers.getall("authorization", [])) > 1:
        raise HTTPException(status_code=400, detail="Authorization is given more than once")
    for name in NUMBER_QUERIES:
        for value in query.getall(name, ()):
            if _PLAIN_NUMBER.fullmatch(value) is None:
                raise HTTPException(
                    status_code=400, detail=f"{name} is a whole number in ASCII digits"
                )


class _GivenTwice(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _object_of(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    made = dict(pairs)
    if len(made) != len(pairs):
        names = [name for name, _ in pairs]
        raise _GivenTwice(next(name for name in names if names.count(name) > 1))
    return made


def key_given_twice(body: bytes) -> str | None:
    """The first key that an object of the JSON ``body`` gives twice; None when none does (or
    the body is no JSON: that is the decoder's to word). RFC 8259 leaves such a body's meaning
    to each parser (msgspec keeps the last, others the first), so two readers of one request,
    a proxy and the server say, could see two different commands: it is refused."""
    try:
        json.loads(body, object_pairs_hook=_object_of)
    except _GivenTwice as twice:
        return twice.key
    except (ValueError, RecursionError):
        return None
    return None


def check_content_type(request: Request[Any, Any, Any]) -> None:
    """415 for a request with a body that is not declared ``application/json``."""
    headers = request.headers
    length = headers.get("content-length")
    has_body = (length is not None and length.strip() != "0") or "transfer-encoding" in headers
    if not has_body:
        return
    media_type = headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != JSON_MEDIA_TYPE:
        raise HTTPException(
            status_code=415,
            detail=f"send the body as {JSON_MEDIA_TYPE} (Content-Type: {JSON_MEDIA_TYPE})",
        )


def is_creation(request: Request[Any, Any, Any]) -> bool:
    """Whether the request creates a table (``createGame``)."""
    return getattr(request.route_handler, "operation_id", None) == "createGame"


async def check_new_table(
    request: Request[Any, Any, Any], *, max_bot_target: int, min_turn_seconds: int
) -> None:
    """409 ``search_needs_a_person`` for a game of four bots with a searching one, 409
    ``target_too_high`` for a game of four bots above ``max_bot_target``, 409
    ``clock_too_short`` for a clock under ``min_turn_seconds`` (a body that does not parse is
    left to the body's own validation)."""
    try:
        # Not strict, as the body itself is read: a target of 85.0 is 85 here too.
        wanted = msgspec.json.decode(await request.body() or b"{}", type=CreateGame, strict=False)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return
    only_bots = all(kind is not None for kind in wanted.bots)
    if only_bots and any(kind in SEARCHING for kind in wanted.bots):
        raise SearchWithoutPerson(
            "a table of four bots may seat only random and heuristic bots (it is played out "
            "in the request that creates it); strong and master play at tables with people"
        )
    if only_bots and wanted.rules.target > max_bot_target:
        raise TargetTooHigh(
            f"a game of four bots may have a target of at most {max_bot_target}, "
            f"not {wanted.rules.target}"
        )
    seconds = wanted.rules.turn_seconds
    if isinstance(seconds, int) and seconds < min_turn_seconds:
        raise ClockTooShort(
            f"a turn clock must give at least {min_turn_seconds} s per decision, not {seconds} "
            "(or null for no clock)"
        )
