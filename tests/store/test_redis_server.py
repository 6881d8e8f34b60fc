"""The embedded redis-server launcher: starts, is configured as asked, stops, reports crashes."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
from pathlib import Path

import pytest
from redis.asyncio import Redis

from server.redis_server import EmbeddedRedis, EmbeddedRedisError, RedisCrashed


async def config(url: str, *names: str) -> dict[str, str]:
    client = Redis.from_url(url, decode_responses=True)
    try:
        return {name: str((await client.config_get(name))[name]) for name in names}
    finally:
        await client.aclose()


def refuses(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


async def test_starts_configured_and_stops(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path)
    await server.start()
    try:
        assert server.running and server.poll() is None
        assert server.url == f"redis://127.0.0.1:{server.port}"
        assert await config(
            server.url, "appendonly", "appendfsync", "maxmemory-policy", "dir", "save"
        ) == {
            "appendonly": "yes",
            "appendfsync": "always",
            "maxmemory-policy": "noeviction",
            "dir": str(tmp_path),  # pytest's tmp_path is already absolute and resolved
            "save": "",
        }
    finally:
        await server.stop()
    assert not server.running
    assert server.port is not None and refuses(server.port)
    assert (tmp_path / "appendonly.aof").exists()  # data directory kept on disk


async def test_appendfsync_is_configurable(tmp_path: Path) -> None:
    async with EmbeddedRedis(tmp_path, appendfsync="everysec") as server:
        assert await config(server.url, "appendfsync") == {"appendfsync": "everysec"}


async def test_unix_socket(tmp_path: Path) -> None:
    async with EmbeddedRedis(tmp_path, port=None, unix_socket=True) as server:
        assert server.url == f"unix://{tmp_path / 'redis.sock'}"
        client = Redis.from_url(server.url)
        assert await client.ping()
        await client.aclose()


async def test_temporary_data_dir_is_removed(tmp_path: Path) -> None:
    async with EmbeddedRedis() as server:
        data_dir = server.data_dir
        assert data_dir.is_dir()
    assert not data_dir.exists()


async def test_restart_keeps_port_and_data(tmp_path: Path) -> None:
    async with EmbeddedRedis(tmp_path) as server:
        port = server.port
        client = Redis.from_url(server.url)
        await client.set("k", "v")
        await client.aclose()
        server.kill()
        assert server.poll() is None and not server.running
        await server.restart()
        assert server.port == port
        client = Redis.from_url(server.url)
        assert await client.get("k") == b"v"  # the AOF was replayed
        await client.aclose()


async def test_crash_of_the_child_is_reported(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path)
    await server.start()
    server.check()  # healthy: no error
    assert server.pid is not None
    os.kill(server.pid, signal.SIGKILL)  # not through kill(): an unexpected death
    await server.wait()
    assert server.returncode == -signal.SIGKILL
    with pytest.raises(RedisCrashed) as crashed:
        server.check()
    assert crashed.value.returncode == -signal.SIGKILL
    assert "Ready to accept connections" in crashed.value.log_tail
    with pytest.raises(RedisCrashed):
        await server.stop()  # reported at the latest when stopping, never swallowed
    assert not server.running


async def test_bad_config_fails_start_with_the_reason(tmp_path: Path) -> None:
    server = EmbeddedRedis(tmp_path, extra_config={"maxmemory-policy": "bogus"})
    with pytest.raises(EmbeddedRedisError, match="maxmemory-policy"):
        await server.start()
    assert not server.running


async def test_taken_port_is_not_mistaken_for_our_server(tmp_path: Path) -> None:
    async with EmbeddedRedis(tmp_path / "a") as first:
        second = EmbeddedRedis(tmp_path / "b", port=first.port, startup_timeout=3)
        with pytest.raises(EmbeddedRedisError, match="Address already in use"):
            await second.start()


async def test_needs_an_address() -> None:
    with pytest.raises(ValueError):
        EmbeddedRedis(port=None, unix_socket=False)


async def test_pid_file_while_running(tmp_path: Path) -> None:
    async with EmbeddedRedis(tmp_path) as server:
        assert server.pid_path.read_text().strip() == str(server.pid)
    assert not server.pid_path.exists()  # removed by a clean exit


async def test_a_leftover_server_on_the_data_dir_is_stopped_before_starting(
    tmp_path: Path,
) -> None:
    """As if its owner had been SIGKILLed: a second launcher on the same directory stops the
    first server (cleanly: it writes its AOF) instead of running beside it on the same files."""
    first = EmbeddedRedis(tmp_path, port=None, unix_socket=True)
    await first.start()
    client = Redis.from_url(first.url)
    await client.set("k", "v")
    await client.aclose()
    second = EmbeddedRedis(tmp_path, port=None, unix_socket=True)
    try:
        await second.start()
        assert first.poll() == 0  # ended by SIGTERM, cleanly
        assert second.pid != first.pid and second.pid_path.read_text().strip() == str(second.pid)
        client = Redis.from_url(second.url)
        assert await client.get("k") == b"v"
        await client.aclose()
    finally:
        await second.stop()
        first.kill()


async def test_a_pid_file_naming_another_process_is_ignored(tmp_path: Path) -> None:
    """A pid file outlives its redis (SIGKILL), and the pid may since belong to anyone."""
    stranger = await asyncio.create_subprocess_exec("sleep", "30")
    try:
        (tmp_path / "redis.pid").write_text(f"{stranger.pid}\n")
        async with EmbeddedRedis(tmp_path) as server:
            assert server.running
        assert stranger.returncode is None
    finally:
        stranger.kill()
        await stranger.wait()
