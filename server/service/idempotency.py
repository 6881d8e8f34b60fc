"""Idempotent commands: what a command id is recorded with (its fingerprint), and a command's
earlier outcome, answered only to the holder of the seat it acted for."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

import msgspec

from domain import Command
from server.errors import IdempotencyKeyReused, Unauthorized
from server.service.results import CommandResult
from server.store import AppendResult, EventStore

__all__ = ["EarlierOutcomes", "fingerprint_of", "same_command"]


def fingerprint_of(commands: Sequence[Command]) -> str:
    """What a command id is recorded with, so that its reuse for another command is caught."""
    return hashlib.sha256(msgspec.json.encode(list(commands))).hexdigest()[:32]


def same_command(recorded: AppendResult, fingerprint: str) -> None:
    """409 ``idempotency_key_reused`` when ``recorded`` was another command than this one."""
    if recorded.fingerprint and fingerprint and recorded.fingerprint != fingerprint:
        raise IdempotencyKeyReused(
            "this Idempotency-Key was used for a different request; use a new key per request"
        )


class EarlierOutcomes:
    """Looks up what a command id did, for a retry the game would now refuse."""

    def __init__(self, store: EventStore) -> None:
        self._store = store

    async def of(
        self,
        game_id: str,
        command_id: str | None,
        fingerprint: str,
        required_token: tuple[int | str, str] | None,
    ) -> CommandResult | None:
        """The outcome recorded for ``command_id``, if any, as its duplicate; but only to a
        request whose token holds the seat now (as the append script checks it): 401 else."""
        if command_id is None:
            return None
        if required_token is not None:
            seat, digest = required_token
            held = await self._store.seat_token_hash(game_id, seat)
            if not hmac.compare_digest(held or "", digest):
                raise Unauthorized("this seat token does not hold the seat")
        recorded = await self._store.recorded_command(game_id, command_id)
        if recorded is None:
            return None
        same_command(recorded, fingerprint)
        return CommandResult(game_id, recorded.first_version, recorded.version, duplicate=True)
