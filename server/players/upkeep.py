"""A process's background chores for the player features, each run every few seconds: rate
ended games whose rating was not settled at their end (a crash, a lost lease), and whatever
else is registered (the matchmaker's pass). One chore's failure is logged and never stops
the others or the loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from server.store import StoreUnavailable

_log = logging.getLogger("allfours.players")

Chore = Callable[[], Awaitable[object]]


class Upkeep:
    def __init__(self, chores: list[tuple[str, float, Chore]]) -> None:
        """``chores``: (name, every how many seconds, what to do)."""
        self._chores = chores
        self._stopping = asyncio.Event()

    async def run(self) -> None:
        await asyncio.gather(*(self._loop(*chore) for chore in self._chores))

    async def _loop(self, name: str, every_s: float, chore: Chore) -> None:
        while not self._stopping.is_set():
            try:
                await chore()
            except StoreUnavailable as exc:
                _log.warning("%s: %s", name, exc)
            except Exception:
                _log.exception("%s failed", name)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), every_s)

    def stop(self) -> None:
        self._stopping.set()
