"""A parked subscription (``Subscription.park``): the hub hands its live batches straight to a
sink, in order and from where the consumer is, and anything the sink cannot take (a declined
batch, a gap) goes back to the consumer's own ``__anext__`` with nothing lost or repeated.
Against a real Redis, with the hub's real delivery."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from server.store import RedisEventStore, StoredEvent, Subscription

pytestmark = pytest.mark.backends


class Sink:
    """Takes batches while ``accept`` says so; keeps what it took."""

    def __init__(self, accept: bool = True) -> None:
        self.accept = accept
        self.batches: list[list[int]] = []

    def __call__(self, events: Sequence[StoredEvent]) -> bool:
        if not self.accept:
            return False
        self.batches.append([e.version for e in events])
        return True


async def caught_up(store: RedisEventStore, game_id: str) -> Subscription:
    """A subscription that has read the game's two stored events."""
    sub = store.subscribe(game_id, after=0)
    for version in (1, 2):
        assert (await asyncio.wait_for(anext(sub), 5)).version == version
    return sub


async def parked_on(
    store: RedisEventStore, game_id: str, sink: Sink
) -> tuple[Subscription, asyncio.Future[None]]:
    """A subscription to a game of two stored events, read, then parked on ``sink``."""
    await store.append(game_id, 0, [b"1", b"2"])
    sub = await caught_up(store, game_id)
    parked = sub.park(sink)
    assert parked is not None
    return sub, parked


async def until(check: object, within: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while not check():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.01)


async def test_a_parked_subscription_hands_live_batches_to_its_sink_in_order(
    store: RedisEventStore, game_id: str
) -> None:
    sink = Sink()
    sub, parked = await parked_on(store, game_id, sink)
    await store.append(game_id, 2, [b"3", b"4", b"5"])
    await store.append(game_id, 5, [b"6"])
    await until(lambda: sub.position == 6)
    # One batch per read of the hub (an append's events stay together; two may be read as one).
    assert [v for batch in sink.batches for v in batch] == [3, 4, 5, 6]
    assert sink.batches[0][:3] == [3, 4, 5]
    assert not parked.done()
    sub.unpark()
    assert parked.done()
    await store.append(game_id, 6, [b"7"])  # back to the queue, and to __anext__
    taken = list(sink.batches)
    assert (await asyncio.wait_for(anext(sub), 5)).version == 7
    assert sink.batches == taken
    sub.close()


async def test_a_declined_batch_goes_to_the_consumer_and_ends_the_parking(
    store: RedisEventStore, game_id: str
) -> None:
    sub, parked = await parked_on(store, game_id, Sink(accept=False))
    await store.append(game_id, 2, [b"3", b"4"])
    await asyncio.wait_for(parked, 5)
    got = [(await asyncio.wait_for(anext(sub), 5)).version for _ in range(2)]
    assert got == [3, 4] and sub.position == 4
    sub.close()


async def test_a_gap_ends_the_parking_and_is_read_from_the_store(
    store: RedisEventStore, game_id: str
) -> None:
    sink = Sink()
    sub, parked = await parked_on(store, game_id, sink)
    await store.append(game_id, 2, [b"3", b"4"])
    sub._push([StoredEvent(4, b"4")])  # 3 not delivered yet: a hole before it
    await asyncio.wait_for(parked, 5)
    assert sink.batches == []
    got = [(await asyncio.wait_for(anext(sub), 5)).version for _ in range(2)]
    assert got == [3, 4]
    sub.close()


async def test_no_parking_with_something_in_hand_and_a_close_ends_it(
    store: RedisEventStore, game_id: str
) -> None:
    await store.append(game_id, 0, [b"1", b"2"])
    fresh = store.subscribe(game_id, after=0)
    assert fresh.park(Sink()) is None  # its stored events are not read yet
    fresh.close()
    sub = await caught_up(store, game_id)
    sub._push([StoredEvent(3, b"3")])  # queued, not yet taken
    assert sub.park(Sink()) is None
    assert (await asyncio.wait_for(anext(sub), 5)).version == 3
    parked = sub.park(Sink())
    assert parked is not None
    sub.close()
    assert parked.done()
    with pytest.raises(StopAsyncIteration):
        await asyncio.wait_for(anext(sub), 5)
