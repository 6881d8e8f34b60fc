"""The pieces of ``server.supervise`` on their own, on real processes: the data directory lock,
and the Redis supervisor bringing a SIGKILLed redis-server back, or giving up."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from pathlib import Path

import pytest
from redis.asyncio import Redis
from resilience_support import eventually

from server.redis_server import EmbeddedRedis
from server.supervise import DataDirBusy, DataDirLock, RedisSupervisor

pytestmark = pytest.mark.timeout(60)


def test_the_data_dir_lock_is_exclusive_and_names_its_holder(tmp_path: Path) -> None:
    with DataDirLock(tmp_path / "d") as held:
        assert held.path.read_text() == f"{os.getpid()}\n"
        with pytest.raises(DataDirBusy) as busy:
            DataDirLock(tmp_path / "d").acquire()
        assert busy.value.holder == os.getpid()
        assert held.path.read_text() == f"{os.getpid()}\n"  # the refused one wrote nothing
    with DataDirLock(tmp_path / "d"):  # released: free again
        pass


async def test_a_killed_redis_is_brought_back_with_its_data(tmp_path: Path) -> None:
    redis = EmbeddedRedis(tmp_path, port=0)
    await redis.start()
    supervisor = RedisSupervisor(redis, give_up_after_s=10, on_give_up=lambda: None)
    supervisor.start()
    try:
        async with Redis.from_url(redis.tcp_url) as client:
            await client.set("k", "v")
        for round_ in range(1, 3):
            pid = redis.pid
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            await eventually(
                lambda: supervisor.restarts == round_ and redis.running, 10, "back again"
            )
            assert redis.pid != pid
            async with Redis.from_url(redis.tcp_url) as client:
                assert await client.get("k") == b"v"  # same port, AOF replayed
    finally:
        supervisor.stop()
        await redis.stop()
    assert not supervisor.gave_up


async def test_the_supervisor_gives_up_once_after_the_limit(tmp_path: Path) -> None:
    redis = EmbeddedRedis(tmp_path, port=0)
    await redis.start()
    called = threading.Event()
    supervisor = RedisSupervisor(redis, give_up_after_s=1, on_give_up=called.set)
    supervisor.start()
    try:
        (tmp_path / "appendonly.aof").unlink()
        (tmp_path / "appendonly.aof").mkdir()  # no restart can open it
        assert redis.pid is not None
        os.kill(redis.pid, signal.SIGKILL)
        assert await asyncio.to_thread(called.wait, 15)
        assert supervisor.gave_up and supervisor.restarts == 0
    finally:
        supervisor.stop()
        redis.kill()
