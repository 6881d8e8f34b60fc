"""Prometheus metrics beyond the per-route ones: commands by outcome, streams, store latency."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram


class Metrics:
    """Created once per process (prometheus_client registers metrics globally)."""

    _instance: Metrics | None = None

    def __init__(self) -> None:
        self.commands = Counter(
            "allfours_commands_total", "Player commands by type and outcome", ["type", "outcome"]
        )
        self.sse_subscribers = Gauge("allfours_sse_subscribers", "Open SSE streams")
        self.store_latency = Histogram(
            "allfours_store_append_seconds",
            "Latency of a command's decide-and-append through the store",
            buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1.0),
        )

    @classmethod
    def shared(cls) -> Metrics:
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance
