"""Helpers shared by the benchmarks: a private Redis, percentiles, JSON lines, limits.

Not a benchmark itself (the leading underscore keeps it apart from the runnable scripts).
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import signal
import statistics
import sys
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
"""The repository root (so the scripts run from anywhere)."""

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def emit(record: dict[str, Any]) -> None:
    """One JSON object per line, flushed at once (a run that is cut short keeps its lines)."""
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def note(message: str) -> None:
    """Progress for humans, on stderr so that stdout stays JSON lines."""
    sys.stderr.write(f"[{time.strftime('%H:%M:%S')}] {message}\n")
    sys.stderr.flush()


def percentile(samples: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank; NaN for no samples."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))
    return ordered[index]


def ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def latency_summary(samples_s: Sequence[float], prefix: str = "") -> dict[str, float]:
    """p50/p99/max (ms) of latencies given in seconds."""
    return {
        f"{prefix}p50_ms": ms(percentile(samples_s, 0.50)),
        f"{prefix}p99_ms": ms(percentile(samples_s, 0.99)),
        f"{prefix}max_ms": ms(max(samples_s)) if samples_s else float("nan"),
    }


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def exit_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit, so that cleanups (``finally``, ``atexit``) stop the
    servers a benchmark started instead of leaving them behind."""

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)


def raise_fd_limit(wanted: int) -> int:
    """Raise the soft open-files limit towards ``wanted`` (capped by the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


def check_loopback(url: str) -> None:
    """The benchmarks only ever talk to this machine."""
    if url.startswith("unix://"):
        return
    host = url.split("://", 1)[-1].split("@")[-1].split("/")[0].rsplit(":", 1)[0]
    if host.strip("[]") not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"refusing to benchmark a non-loopback Redis: {url}")


@contextlib.asynccontextmanager
async def redis_for_bench(appendfsync: str, *, unix_socket: bool = True) -> AsyncIterator[str]:
    """``REDIS_URL`` if set (must be loopback), else a private embedded Redis for the run.

    The embedded one lives in a temporary directory on disk, so ``appendfsync always`` really
    fsyncs; it is stopped and its directory removed on exit.
    """
    external = os.environ.get("REDIS_URL")
    if external:
        check_loopback(external)
        yield external
        return
    from server.redis_server import EmbeddedRedis

    server = EmbeddedRedis(
        port=None if unix_socket else 0,
        unix_socket=unix_socket,
        appendfsync=appendfsync,  # type: ignore[arg-type]
    )
    await server.start()
    try:
        yield server.url
        server.check()
    finally:
        await server.close()


def fsync_label(appendfsync: str) -> str:
    return "external" if os.environ.get("REDIS_URL") else appendfsync
