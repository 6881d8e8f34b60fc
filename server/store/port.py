"""The event store port: what the game service needs from any event store."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Protocol

from .model import AppendResult, Due, DueUpdate, StoredEvent

__all__ = ["EventReader", "EventStore", "EventSubscription"]


class EventSubscription(Protocol):
    """Events from a version on, stored then live, with no gap and no duplicate."""

    position: int

    def __aiter__(self) -> AsyncIterator[StoredEvent]: ...

    async def __anext__(self) -> StoredEvent: ...

    def close(self) -> None: ...


class EventReader(Protocol):
    """What a live-update hub needs from the store it serves: reads, and what it has seen.

    The hub depends on this, not on the store class, so the store can build its hub without
    the two modules importing each other.
    """

    async def read(
        self, game_id: str, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]: ...

    async def current_version(self, game_id: str) -> int:
        """The game's version as stored now, without any regression check."""
        ...

    def note_seen(self, game_id: str, version: int) -> None:
        """The store held at least ``version`` events of the game (a live delivery saw them)."""
        ...


class EventStore(Protocol):
    """Append-only per-game event logs with optimistic concurrency and idempotent commands."""

    async def append(
        self,
        game_id: str,
        expected_version: int,
        events: Sequence[bytes],
        command_id: str | None = None,
        *,
        seat_token: tuple[int | str, str] | None = None,
        fingerprint: str = "",
        due: DueUpdate = None,
        required_token: tuple[int | str, str] | None = None,
    ) -> AppendResult: ...

    async def read(
        self, game_id: str, after: int = 0, limit: int | None = None
    ) -> list[StoredEvent]: ...

    async def version(self, game_id: str) -> int: ...

    async def exists(self, game_id: str) -> bool: ...

    async def recorded_command(self, game_id: str, command_id: str) -> AppendResult | None: ...

    async def seat_token_hash(self, game_id: str, seat: int | str) -> str | None: ...

    async def put_secret(self, game_id: str, secret: str, *, name: str = "secret") -> str: ...

    async def get_secret(self, game_id: str, *, name: str = "secret") -> str | None: ...

    async def due_games(
        self, now_ms: int, limit: int = 200, *, slots: Sequence[int] = ()
    ) -> list[tuple[str, int]]: ...

    async def fix_due(self, game_id: str, version: int, due: Due) -> bool: ...

    async def replace_seat_token(
        self, game_id: str, seat: int, token_hash: str, version: int
    ) -> bool: ...

    def subscribe(self, game_id: str, after: int = 0) -> EventSubscription: ...

    async def ping(self) -> None: ...

    async def aclose(self) -> None: ...
