"""Events on the wire and in the store: msgspec JSON, one encoder and decoder per process."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from domain import Event, Viewer, redact

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Event)

# Only these events carry cards some viewer may not see; the rest pass through as stored bytes,
# so fanning an event out to many subscribers costs no decoding for most of them.
_SECRET_TYPES = (b'"type":"Dealt"', b'"type":"PackRun"')


def encode_events(events: Iterable[Event]) -> list[bytes]:
    """Stored form of a command's events (the rules stamped them with its time already)."""
    encode = _encoder.encode
    return [encode(event) for event in events]


def decode_event(data: bytes) -> Event:
    return _decoder.decode(data)


def _has_secrets(data: bytes) -> bool:
    return any(marker in data for marker in _SECRET_TYPES)


def redact_bytes(data: bytes, viewer: Viewer) -> bytes:
    """A stored event as ``viewer`` may see it."""
    if not _has_secrets(data):
        return data
    return _encoder.encode(redact(_decoder.decode(data), viewer))
