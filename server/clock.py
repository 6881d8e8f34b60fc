"""The clock: milliseconds since the Unix epoch, as one callable that every part of the server
is handed (the service, the lobby, the rate limiter, the sweeper, the operator jobs), so that
each reads it once per operation and tests move time by hand instead of sleeping."""

from __future__ import annotations

import time
from collections.abc import Callable

__all__ = ["Clock", "system_clock"]

Clock = Callable[[], int]
"""Milliseconds since the epoch, read once per operation by whoever holds it."""


def system_clock() -> int:
    """The wall clock in milliseconds: what every part reads unless given another."""
    return int(time.time() * 1000)
