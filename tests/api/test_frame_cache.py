"""The SSE frame cache: one frame per (stored event, viewer), never another viewer's."""

from __future__ import annotations

from domain import Dealt
from server.api.routes.streams import FrameCache, frame
from server.codec import encode_events, redact_bytes

HANDS = (("2H",) * 6, ("3H",) * 6, ("4H",) * 6, ("5H",) * 6)


def stored_deal() -> bytes:
    return encode_events([Dealt(hands=HANDS, stock=("6H",))])[0]


def test_each_viewer_gets_its_own_redaction_and_repeats_are_the_same_bytes() -> None:
    cache = FrameCache()
    data = stored_deal()
    for viewer in (None, 0, 1, None, 1, 0):
        got = cache.frame(7, data, viewer)
        assert got == frame(7, redact_bytes(data, viewer))
    assert cache.frame(7, data, 0) is cache.frame(7, data, 0)
    assert b"3H" not in cache.frame(7, data, 0) and b"2H" in cache.frame(7, data, 0)
    assert b"2H" not in cache.frame(7, data, None)


def test_equal_bytes_in_another_object_or_version_are_not_taken_for_a_cached_frame() -> None:
    cache = FrameCache(size=2)
    first = stored_deal()
    assert cache.frame(1, first, None).startswith(b"id: 1\n")
    assert cache.frame(2, first, None).startswith(b"id: 2\n")
    other = stored_deal()
    assert other is not first
    assert cache.frame(3, other, None).startswith(b"id: 3\n")  # evicts the oldest
    assert cache.frame(1, first, None).startswith(b"id: 1\n")  # built again, right
