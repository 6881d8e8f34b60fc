"""OpenAPI helpers: the problem responses every operation documents."""

from __future__ import annotations

from litestar.openapi.datastructures import ResponseSpec

from server.api.problems import PROBLEM_MEDIA_TYPE, Problem

_DESCRIPTIONS = {
    304: "Not modified: the game is still at the version of your ETag",
    400: "Malformed request (``invalid_request``)",
    401: "Missing or unknown seat token (``unauthorized``)",
    403: "A token of another seat or game (``forbidden``)",
    404: "No such game (``not_found``)",
    409: "Refused by the rules or the game's state: ``not_your_turn``, ``must_follow_suit``, "
    "``version_conflict`` (with ``current_version``), ``seat_taken``, …",
    413: "Request body too large (``payload_too_large``)",
    422: "A value the game cannot use, such as an unknown card (``unknown_card``)",
    429: "Rate limited (``rate_limited``); see ``Retry-After``",
    503: "The event store is unreachable or the game too busy (``unavailable``, ``busy``); "
    "see ``Retry-After``",
}


def problems(*statuses: int) -> dict[int, ResponseSpec]:
    """Response specs for ``statuses``: problem details, except 304 which has no body."""
    specs: dict[int, ResponseSpec] = {}
    for status in statuses:
        if status == 304:
            specs[status] = ResponseSpec(
                data_container=None, description=_DESCRIPTIONS[304], generate_examples=False
            )
        else:
            specs[status] = ResponseSpec(
                data_container=Problem,
                description=_DESCRIPTIONS[status],
                media_type=PROBLEM_MEDIA_TYPE,
                generate_examples=False,
            )
    return specs
