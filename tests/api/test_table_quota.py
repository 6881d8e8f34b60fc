"""The hourly table quota when a creation fails half-way (the store gave out): the count is
given back only when the creation's key shows no table was made. Driven directly on the
limiter, on the real Redis under test, with creations that fail as the store would."""

from __future__ import annotations

import types
import uuid
from typing import Any

import pytest

from server.api.contract.problems import RateLimited
from server.api.edge.rate_limit import RateLimiter
from server.errors import IdempotencyKeyReused
from server.service import CommandResult
from server.store import RedisEventStore, StoreUnavailable


def _request() -> Any:
    """A request from an address of its own (each test gets a fresh quota)."""
    return types.SimpleNamespace(client=types.SimpleNamespace(host=f"x-{uuid.uuid4().hex}"))


async def _lost() -> CommandResult:
    raise StoreUnavailable("redis unavailable: connection lost")


async def _made() -> CommandResult:
    return CommandResult("g", 1, 1)


def _answer(value: bool | Exception) -> Any:
    async def made_already() -> bool:
        if isinstance(value, Exception):
            raise value
        return value

    return made_already


async def _room_left(limiter: RateLimiter, request: Any) -> int:
    """New tables the request's address may still create (each one counted)."""
    made = 0
    while True:
        try:
            await limiter.within_table_quota(request, _made, None)
        except RateLimited:
            return made
        made += 1


@pytest.mark.parametrize(
    ("made_already", "counted"),
    [
        (_answer(False), 0),  # the key shows no table: given back
        (_answer(True), 1),  # the table was made, only the answer lost: kept
        (_answer(StoreUnavailable("still down")), 1),  # nobody can tell: kept
        (None, 1),  # no key to ask with: kept
    ],
)
async def test_a_creation_the_store_lost_is_given_back_only_if_no_table_was_made(
    store: RedisEventStore, made_already: Any, counted: int
) -> None:
    limiter = RateLimiter(store, limit=1000, window_s=60, tables_per_hour=3)
    request = _request()
    with pytest.raises(StoreUnavailable):
        await limiter.within_table_quota(request, _lost, made_already)
    assert await _room_left(limiter, request) == 3 - counted


async def test_refusals_and_duplicates_are_given_back(store: RedisEventStore) -> None:
    limiter = RateLimiter(store, limit=1000, window_s=60, tables_per_hour=2)
    request = _request()

    async def refused() -> CommandResult:
        raise IdempotencyKeyReused("another body")

    async def duplicate() -> CommandResult:
        return CommandResult("g", 1, 1, duplicate=True)

    for _ in range(3):
        with pytest.raises(IdempotencyKeyReused):
            await limiter.within_table_quota(request, refused, _answer(False))
        assert (await limiter.within_table_quota(request, duplicate, _answer(True))).duplicate
    assert await _room_left(limiter, request) == 2
    # At the limit a retry of a table made before is still answered; a new one is not.
    assert (await limiter.within_table_quota(request, duplicate, _answer(True))).duplicate
    with pytest.raises(RateLimited):
        await limiter.within_table_quota(request, _made, _answer(False))
