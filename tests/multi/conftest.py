"""Fixtures of the multi-instance tests: fleets of real ``allfours serve`` processes sharing one
Redis (the session's server, or the session's cluster).

The server process helpers are the API tests' (``tests/api/support.py``): same environment (no
rate limit unless asked, heartbeats every 0.2 s), same readiness check.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))

from multi_support import Fleet, start_fleet, stop_fleet


@pytest.fixture(scope="module")
async def fleet(
    standalone_redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Fleet]:
    """Three instances on the session's Redis server."""
    instances = await start_fleet(standalone_redis_url, tmp_path_factory.mktemp("fleet"), 3)
    yield instances
    instances.check_alive()
    await stop_fleet(instances)


@pytest.fixture(scope="module")
async def cluster_fleet(
    cluster_redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Fleet]:
    """Three instances on the session's Redis Cluster, with the rate limiter on (its counters
    live on the cluster too)."""
    instances = await start_fleet(
        cluster_redis_url,
        tmp_path_factory.mktemp("cluster-fleet"),
        3,
        {"ALLFOURS_RATE_LIMIT": "100000"},
    )
    yield instances
    instances.check_alive()
    await stop_fleet(instances)
