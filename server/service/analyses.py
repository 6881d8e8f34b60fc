"""Finished games' analyses, computed once: a game's analysis is about a hundred searches in
a bot worker (a second or more), and a finished game's never changes. It is kept in Redis
beside the game (any instance answers it from there) for ``ttl_s``, then computed again if
asked; in one process, a game being analysed is analysed once however many ask meanwhile."""

from __future__ import annotations

import asyncio
from typing import Final

import msgspec

from server.codec import decode_event
from server.errors import GameNotFinished
from server.service.games import GameService
from server.service.thinking import Move
from server.store import RedisEventStore
from server.store.keys import secret_key
from server.store.redis_store import guarded

__all__ = ["Analyses"]

ANALYSIS_TTL_S: Final = 7 * 24 * 3600
"""How long a computed analysis is kept (the game's log is kept longer: it can be redone)."""

_decoder = msgspec.json.Decoder(tuple[Move, ...])


class Analyses:
    def __init__(
        self, service: GameService, store: RedisEventStore, *, ttl_s: int = ANALYSIS_TTL_S
    ) -> None:
        self._service = service
        self._redis = store.redis
        self._ttl_s = ttl_s
        self._running: dict[str, asyncio.Future[tuple[Move, ...]]] = {}

    async def of(self, game_id: str) -> tuple[Move, ...]:
        """The game's decisions beside the search's (``Thinker.analyse``); 409
        ``game_not_finished`` while it is played."""
        key = secret_key(game_id, "analysis")
        redis = self._redis
        kept = await guarded(redis.get(key))
        if kept is not None:
            return _decoder.decode(kept)
        running = self._running.get(game_id)
        if running is not None:
            return await asyncio.shield(running)
        future: asyncio.Future[tuple[Move, ...]] = asyncio.get_running_loop().create_future()
        self._running[game_id] = future
        try:
            moves = await self._analyse(game_id)
            await guarded(redis.set(key, msgspec.json.encode(moves), ex=self._ttl_s))
            future.set_result(moves)
            return moves
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: those waiting get it; nobody else needs to
            raise
        except BaseException:  # cancelled: those waiting are cancelled with it
            future.cancel()
            raise
        finally:
            del self._running[game_id]

    async def _analyse(self, game_id: str) -> tuple[Move, ...]:
        service = self._service
        state = await service.state(game_id)
        if state.seed is None:
            raise GameNotFinished("a game is analysed once it is over")
        log = [decode_event(e.data) for e in await service.read_events(game_id)]
        return await service.thinker.analyse(log)
