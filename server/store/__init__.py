"""Event store: per-game append-only event logs on Redis Streams, with live subscriptions.

Public API::

    store = connect_store("redis://127.0.0.1:6379")   # or "redis+cluster://host:port,..."
    result = await store.append(game_id, expected_version, [event_bytes, ...], command_id)
    events = await store.read(game_id, after=version, limit=100)
    async with store.subscribe(game_id, after=version) as sub:
        async for event in sub: ...
    await store.aclose()

Errors: :class:`StoreUnavailable` (Redis down: 503, retry later), :class:`StoreRegressed`
(Redis lost acknowledged events: drop caches), :class:`SubscriberLagged` and
:class:`ResyncRequired` (a subscription ended; resubscribe / reload).
"""

from .clients import RedisClient, is_cluster_url
from .cluster_hub import ClusterSubscriptionHub
from .entries import command_digest
from .errors import (
    ResyncRequired,
    StoreError,
    StoreRegressed,
    StoreUnavailable,
    SubscriberLagged,
    SubscriptionDropped,
)
from .hub import SubscriptionHub
from .keys import bell_channel, cmds_key, events_key
from .model import AppendResult, AppendStatus, Due, DueUpdate, StoredEvent
from .port import EventReader, EventStore, EventSubscription
from .redis_store import REDIS_ERRORS, RedisEventStore, connect_store
from .subscription import Subscription

__all__ = [
    "REDIS_ERRORS",
    "AppendResult",
    "AppendStatus",
    "ClusterSubscriptionHub",
    "Due",
    "DueUpdate",
    "EventReader",
    "EventStore",
    "EventSubscription",
    "RedisClient",
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
    "bell_channel",
    "cmds_key",
    "command_digest",
    "connect_store",
    "events_key",
    "is_cluster_url",
]
