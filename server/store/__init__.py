"""Event store: per-game append-only event logs on Redis Streams, with live subscriptions.

Public API::

    store = connect_store("redis://127.0.0.1:6379")
    result = await store.append(game_id, expected_version, [event_bytes, ...], command_id)
    events = await store.read(game_id, after=version, limit=100)
    async with store.subscribe(game_id, after=version) as sub:
        async for event in sub: ...
    await store.aclose()

Errors: :class:`StoreUnavailable` (Redis down: 503, retry later), :class:`StoreRegressed`
(Redis lost acknowledged events: drop caches), :class:`SubscriberLagged` and
:class:`ResyncRequired` (a subscription ended; resubscribe / reload).
"""

from .errors import (
    ResyncRequired,
    StoreError,
    StoreRegressed,
    StoreUnavailable,
    SubscriberLagged,
    SubscriptionDropped,
)
from .hub import Subscription, SubscriptionHub
from .keys import cmds_key, events_key
from .lua import APPEND_SCRIPT_SHA
from .model import AppendResult, AppendStatus, StoredEvent
from .port import EventStore, EventSubscription
from .redis_store import RedisEventStore, connect_store

__all__ = [
    "APPEND_SCRIPT_SHA",
    "AppendResult",
    "AppendStatus",
    "EventStore",
    "EventSubscription",
    "RedisEventStore",
    "ResyncRequired",
    "StoreError",
    "StoreRegressed",
    "StoreUnavailable",
    "StoredEvent",
    "SubscriberLagged",
    "Subscription",
    "SubscriptionDropped",
    "SubscriptionHub",
    "cmds_key",
    "connect_store",
    "events_key",
]
