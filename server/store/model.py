"""Values that cross the store's boundary: what a read yields and what an append answers."""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ["AppendResult", "AppendStatus", "Due", "DueUpdate", "StoredEvent"]

AppendStatus = Literal["ok", "conflict", "duplicate", "rejected"]


class StoredEvent(msgspec.Struct, frozen=True, gc=False):
    """One event as stored: its version (stream position, from 1) and its opaque encoded bytes.

    ``command_id`` is set on the first event of a batch appended with a command id: the id's
    :func:`~server.store.entries.command_digest` (the id itself in entries written before
    digests); it lets audits (and the race tests) check that every command was applied
    exactly once.
    """

    version: int
    data: bytes
    command_id: str | None = None


class AppendResult(msgspec.Struct, frozen=True, gc=False):
    """Outcome of :meth:`EventStore.append`.

    - ``ok``: the batch was written as versions ``first_version..version``.
    - ``conflict``: nothing written; ``version`` is the game's current version (the caller's
      expected version was stale). ``first_version`` is 0.
    - ``duplicate``: nothing written; this command id was applied before, as versions
      ``first_version..version``. Treat it as success: it is how a retried append learns that
      its first attempt went through.
    - ``rejected``: nothing written; the seat token the append required no longer holds the
      seat (someone took it over, or the store was restored to a time before it was issued).
    """

    status: AppendStatus
    version: int
    first_version: int
    fingerprint: str = ""
    """With ``duplicate``: the fingerprint recorded with the command id the first time, so a
    caller can tell a true retry from the same id reused for a different command."""


class Due(msgspec.Struct, frozen=True, gc=False):
    """A game's entry in the due-index: when time alone next changes it (ms since the epoch),
    or None for no entry (nobody on the clock, no table waiting to expire)."""

    at: int | None


DueUpdate = Due | None
"""What an append does to the due-index: set or remove the entry (a ``Due``), or nothing."""
