"""Prometheus metrics: per-route request metrics, and commands by outcome, streams, store latency.

The per-route metrics keep the names and labels of Litestar's Prometheus plugin
(``litestar_requests_total``, ``litestar_request_duration_seconds``,
``litestar_requests_in_progress``, ``litestar_requests_error_total``; labels ``method``,
``path`` (the route's template, never a game id), ``status_code``, ``app_name``), but are kept
by :func:`request_metrics`, a plain ASGI middleware that looks each label set's series up once
and then reuses it: the plugin's middleware built a ``Request``, two label dicts and four
label look-ups per request, about 8% of a command's server CPU.
"""

from __future__ import annotations

import time
from typing import Any

from litestar.types import ASGIApp, Receive, Send
from prometheus_client import Counter, Gauge, Histogram

APP_NAME = "allfours"
_LABELS = ("method", "path", "status_code", "app_name")


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
        self.requests = Counter("litestar_requests_total", "Total requests", _LABELS)
        self.request_time = Histogram(
            "litestar_request_duration_seconds", "Request duration, in seconds", _LABELS
        )
        self.in_progress = Gauge(
            "litestar_requests_in_progress",
            "Total requests currently in progress",
            _LABELS,
            multiprocess_mode="livesum",
        )
        self.request_errors = Counter(
            "litestar_requests_error_total", "Total errors in requests", _LABELS
        )
        self._series: dict[tuple[str, str, int], tuple[Any, Any, Any]] = {}

    @classmethod
    def shared(cls) -> Metrics:
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def series(self, method: str, path: str, status: int) -> tuple[Any, Any, Any]:
        """(request counter, duration histogram, error counter) of one label set, cached.

        The label sets are bounded: methods x route templates x status codes."""
        key = (method, path, status)
        found = self._series.get(key)
        if found is None:
            values = (method, path, str(status), APP_NAME)
            found = (
                self.requests.labels(*values),
                self.request_time.labels(*values),
                self.request_errors.labels(*values),
            )
            self._series[key] = found
        return found


def request_metrics(app: ASGIApp) -> ASGIApp:
    """Litestar middleware (it runs after routing, so ``path_template`` is known): count each
    HTTP request by method, route template and status, and time it to its last body byte."""
    metrics = Metrics.shared()
    in_progress: dict[tuple[str, str], Any] = {}

    # (scope and messages typed loosely: Litestar's TypedDict unions do not narrow on "type")
    async def measured(scope: Any, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        method: str = scope["method"]
        path: str = scope.get("path_template") or scope["path"]
        gauge = in_progress.get((method, path))
        if gauge is None:
            gauge = metrics.in_progress.labels(method, path, "200", APP_NAME)
            in_progress[(method, path)] = gauge
        started = time.perf_counter()
        span = [200, 0.0]  # status, duration

        async def timed_send(message: Any) -> None:
            kind = message["type"]
            if kind == "http.response.start":
                span[0] = message["status"]
            elif kind == "http.response.body":
                span[1] = time.perf_counter() - started
            await send(message)

        gauge.inc()
        try:
            await app(scope, receive, timed_send)
        finally:
            gauge.dec()
            status = int(span[0])
            count, duration, errors = metrics.series(method, path, status)
            if status >= 500:
                errors.inc()
            count.inc()
            duration.observe(span[1])

    return measured
