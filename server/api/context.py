"""Everything a request handler needs, built once per process by the app's lifespan."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from server.api.auth import SeatAuth
from server.api.edge.metrics import Metrics
from server.api.edge.rate_limit import RateLimiter
from server.players.accounts import PlayerAccounts
from server.players.matchmaker import Matchmaker
from server.players.projection import PlayerProjection
from server.service import Analyses, GameService
from server.settings import Settings
from server.store import RedisEventStore, Subscription


@dataclass(slots=True)
class AppContext:
    settings: Settings
    store: RedisEventStore
    service: GameService
    auth: SeatAuth
    limiter: RateLimiter
    metrics: Metrics
    accounts: PlayerAccounts
    players: PlayerProjection
    matchmaker: Matchmaker
    analyses: Analyses
    shutting_down: asyncio.Event = field(default_factory=asyncio.Event)
    streams: set[Subscription] = field(default_factory=set)
    """Open SSE subscriptions, closed on shutdown so their clients reconnect elsewhere."""

    def begin_shutdown(self) -> None:
        """Shutdown began: streams end (their clients reconnect elsewhere) and searches in
        flight end (so that no request holds the worker for the grace period)."""
        self.shutting_down.set()
        for subscription in list(self.streams):
            subscription.close()
        self.service.thinker.stop()
