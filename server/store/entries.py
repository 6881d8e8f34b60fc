"""A game's stream entry: what the store keeps of a command id, and an entry read back (one
definition, for reads and live feeds).

An entry is ``(b"<version>-0", {b"e": event bytes, b"c": command digest or b""})`` (see
:mod:`server.store.keys`); the command's digest rides on the first entry of the batch it
appended. Entries written before digests hold the command id itself there, and no ``c`` at
all where there was none.
"""

from __future__ import annotations

import base64
import hashlib

from .model import StoredEvent

__all__ = ["command_digest", "decode_entry"]


def command_digest(command_id: str) -> str:
    """What the store keeps of a command id, in the log and in the idempotency records: 16
    characters of its BLAKE2b digest (96 bits). Ids are the clients' keys, often longer (a
    UUID and a prefix: about 40 bytes on each command's entry, forever), and a seating's key
    works as a secret; a digest tells one command from another as well as the id does."""
    digest = hashlib.blake2b(command_id.encode(), digest_size=12).digest()
    return base64.urlsafe_b64encode(digest).decode()


def decode_entry(entry: tuple[bytes, dict[bytes, bytes] | list[bytes]]) -> StoredEvent:
    """The stored event of one XRANGE / XREAD entry: its fields as redis-py parses them (a
    dict) or as Redis sends them (a flat list: field, value, field, value...)."""
    entry_id, raw = entry
    fields = raw if isinstance(raw, dict) else dict(zip(raw[::2], raw[1::2], strict=True))
    command = fields.get(b"c") or None
    # Ids are "<version>-0": dropping the "-0" leaves the version.
    return StoredEvent(
        int(entry_id[:-2]), fields[b"e"], command.decode() if command is not None else None
    )
