"""Prometheus metrics: per-route request metrics, and commands by outcome, streams, store latency.

The per-route metrics keep the names and labels of Litestar's Prometheus plugin
(``litestar_requests_total``, ``litestar_request_duration_seconds``,
``litestar_requests_in_progress``, ``litestar_requests_error_total``; labels ``method``,
``path`` (the route's template, never a game id), ``status_code``, ``app_name``), but are kept
by :func:`request_metrics`, a plain ASGI middleware that looks each label set's series up once
and then reuses it: the plugin's middleware built a ``Request``, two label dicts and four
label look-ups per request, about 8% of a command's server CPU.

With several worker processes, each would count only its own requests, and ``/metrics`` would
show whichever worker answered the scrape. So ``allfours serve`` with ``ALLFOURS_WORKERS`` > 1
runs prometheus_client's multiprocess mode (:func:`shared_across_workers`): every worker writes
its samples to files in ``PROMETHEUS_MULTIPROC_DIR`` and any worker's ``/metrics`` sums them all
(:func:`metrics_endpoint` reads that directory when the variable is set). Counters and histograms
keep what a dead worker had counted; gauges count live workers only (``livesum``).

Who may read ``/metrics`` is a setting (``ALLFOURS_METRICS``, :func:`metrics_endpoint`): anyone
(``public``, the default, as Prometheus exporters usually are), only a scraper that sends the
bearer token ``ALLFOURS_METRICS_TOKEN`` (``token``: Prometheus's ``authorization`` in a scrape
config), or nobody (``off``: no route, and requests are not counted).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from litestar import Request, Response, get
from litestar.handlers import HTTPRouteHandler
from litestar.types import ASGIApp, Receive, Send
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.multiprocess import MultiProcessCollector

from domain import ENGINE
from server.api.contract.problems import problem_response

__all__ = [
    "APP_NAME",
    "MULTIPROC_ENV",
    "Metrics",
    "metrics_endpoint",
    "request_metrics",
    "shared_across_workers",
]

APP_NAME = "allfours"
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
_LABELS = ("method", "path", "status_code", "app_name")
_CHALLENGE = 'Bearer realm="allfours metrics"'


class Metrics:
    """Created once per process (prometheus_client registers metrics globally)."""

    _instance: Metrics | None = None

    def __init__(self) -> None:
        self.commands = Counter(
            "allfours_commands_total", "Player commands by type and outcome", ["type", "outcome"]
        )
        self.sse_subscribers = Gauge(
            "allfours_sse_subscribers", "Open SSE streams", multiprocess_mode="livesum"
        )
        # Added up as each stream ends (a counter's update per frame would cost what a
        # direct write saves): how many writes of frames went straight from the hub.
        self.sse_writes = Counter(
            "allfours_sse_writes_total",
            "Writes of SSE frames by ended streams: direct (from the hub's delivery) or task",
            ["path"],
        )
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
        # Which rules engine answers (compiled or pure): a deploy that lost its build shows.
        self.engine = Gauge(
            "allfours_engine_info",
            "The rules engine this process runs: 1 on its label",
            ["engine"],
            multiprocess_mode="max",
        )
        self.engine.labels(ENGINE).set(1)
        self._series: dict[tuple[str, str, int], tuple[Any, Any, Any]] = {}
        self._outcomes: dict[tuple[str, str], Any] = {}

    @classmethod
    def shared(cls) -> Metrics:
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def count_command(self, kind: str, outcome: str) -> None:
        """One more command of ``kind`` (its body's type) with ``outcome`` (``ok``,
        ``duplicate`` or a problem code): the labelled counter is looked up once per pair."""
        counter = self._outcomes.get((kind, outcome))
        if counter is None:
            counter = self._outcomes[(kind, outcome)] = self.commands.labels(kind, outcome)
        counter.inc()

    def count_sse_writes(self, direct: int, task: int) -> None:
        """An ended stream's writes: ``direct`` batches from the hub, ``task`` through its task."""
        if direct:
            self.sse_writes.labels("direct").inc(direct)
        if task:
            self.sse_writes.labels("task").inc(task)

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


def metrics_endpoint(token: str | None) -> HTTPRouteHandler:
    """``GET /metrics``, the Prometheus text format: for anyone (``token`` None), else only for
    a request whose ``Authorization`` is ``Bearer <token>``; any other gets a 401 problem."""
    expected = None if token is None else _digest(token)

    @get("/metrics", include_in_schema=False, sync_to_thread=False)
    def metrics(request: Request[Any, Any, Any]) -> Response[Any]:
        if expected is not None and not _bears(request, expected):
            detail = "send the metrics token: Authorization: Bearer <token>"
            refusal = problem_response(request, 401, "unauthorized", detail)
            refusal.headers["WWW-Authenticate"] = _CHALLENGE  # not a seat's realm
            return refusal
        registry = REGISTRY
        if MULTIPROC_ENV in os.environ:  # the workers' samples, summed (see the module)
            registry = CollectorRegistry()
            MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        # (as a header: a media type would get a second charset)
        return Response(generate_latest(registry), headers={"Content-Type": CONTENT_TYPE_LATEST})

    return metrics


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def _bears(request: Request[Any, Any, Any], expected: bytes) -> bool:
    """Whether ``request`` is authorized by the token whose digest is ``expected``. Digests of
    equal length are compared, in constant time: the time taken tells nothing of the token,
    not even its length."""
    scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
    matches = hmac.compare_digest(_digest(credentials.strip()), expected)
    return matches and scheme.lower() == "bearer"


@contextmanager
def shared_across_workers(workers: int) -> Iterator[Callable[[int], None]]:
    """Set up multiprocess metrics for the worker processes about to be started; yields the
    function to call with the pid of a worker that has ended.

    ``PROMETHEUS_MULTIPROC_DIR`` given: that directory is used, and emptied of its sample files
    first (samples of processes from an earlier run would be summed with today's). Not given,
    with several workers: a private temporary directory, removed on exit. One worker and no
    directory given: nothing to do (the process's own registry is the truth).
    """
    given = os.environ.get(MULTIPROC_ENV)
    if not given and workers <= 1:
        yield lambda pid: None
        return
    made = None if given else tempfile.mkdtemp(prefix="allfours-metrics-")
    directory = Path(given or str(made))
    if given:
        directory.mkdir(parents=True, exist_ok=True)
        for stale in directory.glob("*.db"):
            stale.unlink(missing_ok=True)
    os.environ[MULTIPROC_ENV] = str(directory)  # inherited by the workers, read at their import

    def retire(pid: int) -> None:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid, str(directory))  # type: ignore[no-untyped-call]

    try:
        yield retire
    finally:
        if made is not None:
            os.environ.pop(MULTIPROC_ENV, None)
            shutil.rmtree(made, ignore_errors=True)
