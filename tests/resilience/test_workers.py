"""``ALLFOURS_WORKERS`` > 1: a worker that dies is replaced, and ``/metrics`` adds up every
worker's counts whichever worker answers the scrape (a dead worker's counts included: counters
never go back); bot workers end with a server killed with SIGKILL."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import time
from pathlib import Path

import httpx
import pytest
from resilience_support import children, cmdline, eventually, running, workers_of
from support import ServerProcess, start_server

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

COUNTED = re.compile(r'^litestar_requests_total\{[^}]*path="/readyz"[^}]*\} ([0-9.e+]+)$', re.M)


async def fresh_get(url: str) -> httpx.Response:
    """On a new connection each time, so that requests spread over the workers."""
    async with httpx.AsyncClient(timeout=10.0) as client:
        return await client.get(url)


async def both_ready(server: ServerProcess, within_s: float = 20.0) -> None:
    """Until ten ``/readyz`` in a row, on new connections (so on either worker), are 200:
    each worker is ready once its own bot worker is up."""
    deadline = time.monotonic() + within_s
    in_a_row = 0
    while in_a_row < 10:
        assert time.monotonic() < deadline, f"not ready:\n{server.log_tail()}"
        ready = (await fresh_get(f"{server.url}/readyz")).status_code == 200
        in_a_row = in_a_row + 1 if ready else 0
        if not ready:
            await asyncio.sleep(0.05)


async def readyz_counted(server: ServerProcess) -> float:
    metrics = await fresh_get(f"{server.url}/metrics")
    assert metrics.status_code == 200
    return sum(float(count) for count in COUNTED.findall(metrics.text))


async def test_a_dead_worker_is_replaced_and_metrics_add_up_over_workers(
    redis_url: str, tmp_path: Path, servers: list[ServerProcess]
) -> None:
    server = await start_server(redis_url, tmp_path, {"ALLFOURS_WORKERS": "2"})
    servers.append(server)
    await eventually(lambda: len(workers_of(server)) == 2, 20, "two workers")
    await both_ready(server)
    before = await readyz_counted(server)
    for _ in range(30):
        assert (await fresh_get(f"{server.url}/readyz")).status_code == 200
    for _ in range(6):
        assert await readyz_counted(server) == before + 30

    victim = workers_of(server)[0]
    os.kill(victim, signal.SIGKILL)
    await eventually(lambda: not running(victim), 5, "the worker dies")
    assert await readyz_counted(server) == before + 30  # the dead worker's counts are kept
    await eventually(
        lambda: len(workers_of(server)) == 2 and victim not in workers_of(server),
        20,
        "a new worker in its place",
    )
    replacement = next(pid for pid in workers_of(server) if pid != victim)
    server.check_alive()
    await both_ready(server)  # (the replacement once its bot worker is up)
    before = await readyz_counted(server)
    for _ in range(20):
        assert (await fresh_get(f"{server.url}/readyz")).status_code == 200
    for _ in range(6):  # every worker's, the replacement's too
        assert await readyz_counted(server) == before + 20
    assert replacement in workers_of(server)
    assert await server.stop() == 0, server.log_tail()
    assert workers_of(server) == []


async def test_bot_workers_end_with_a_server_killed_with_sigkill(
    redis_url: str, tmp_path: Path
) -> None:
    """A killed server never shuts its bot pool down: its workers notice and end by themselves
    (instead of waiting for work forever, one set per crash)."""
    server = await start_server(redis_url, tmp_path, {"ALLFOURS_BOT_WORKERS": "2"})
    await eventually(  # the pool starts them on demand: the warm-up's one at least
        lambda: any("spawn_main" in cmdline(p) for p in children(server.proc.pid)),
        30,
        "a bot worker",
    )
    bots = [p for p in children(server.proc.pid) if "spawn_main" in cmdline(p)]
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait()
    await eventually(lambda: not any(running(p) for p in bots), 10, "bot workers gone")
