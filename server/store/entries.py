"""A game's stream entry as the store reads it back: one definition, for reads and live feeds.

An entry is ``(b"<version>-0", {b"e": event bytes[, b"c": command id]})`` (see
:mod:`server.store.keys`); the command id rides on the first entry of the batch it appended.
"""

from __future__ import annotations

from .model import StoredEvent

__all__ = ["decode_entry"]


def decode_entry(entry: tuple[bytes, dict[bytes, bytes]]) -> StoredEvent:
    """The stored event of one XRANGE / XREAD entry."""
    entry_id, fields = entry
    command = fields.get(b"c")
    # Ids are "<version>-0": dropping the "-0" leaves the version.
    return StoredEvent(
        int(entry_id[:-2]), fields[b"e"], command.decode() if command is not None else None
    )
