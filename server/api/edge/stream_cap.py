"""A cap on the SSE streams one client address holds open at once (in this worker).

A stream lasts as long as its client wants and costs a subscription, a task and a socket: one
client opening thousands would starve everyone else. Beyond ``ALLFOURS_MAX_STREAMS_PER_ADDRESS``
open streams, a new one is refused with 429 ``too_many_streams`` and ``Retry-After``. The
address is the client's as uvicorn reports it (through the trusted proxies only).
"""

from __future__ import annotations

import re
from collections import Counter

from litestar.enums import ScopeType
from litestar.types import (
    ASGIApp,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    Receive,
    Scope,
    Send,
)

from server.api.contract.problems import problem_body

_STREAM_PATH = re.compile(r"^/v1/games/[^/]+/stream$")
_RETRY_AFTER_S = 5


def limit_streams(app: ASGIApp, per_address: int) -> ASGIApp:
    """``app`` with at most ``per_address`` open streams per client address (0: no cap)."""
    if per_address <= 0:
        return app
    open_streams: Counter[str] = Counter()

    async def capped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or not _STREAM_PATH.match(scope.get("path", "")):
            await app(scope, receive, send)
            return
        client = scope.get("client")
        address = client[0] if client else "?"
        if open_streams[address] >= per_address:
            await _refuse(scope, send, per_address)
            return
        open_streams[address] += 1
        try:
            await app(scope, receive, send)
        finally:
            open_streams[address] -= 1
            if not open_streams[address]:
                del open_streams[address]

    return capped


async def _refuse(scope: Scope, send: Send, cap: int) -> None:
    body = problem_body(
        429,
        "too_many_streams",
        f"at most {cap} open streams per client: close one first",
        instance=scope.get("path"),
        retry_after=_RETRY_AFTER_S,
    )
    start: HTTPResponseStartEvent = {
        "type": "http.response.start",
        "status": 429,
        "headers": [
            (b"content-type", b"application/problem+json"),
            (b"content-length", str(len(body)).encode()),
            (b"retry-after", str(_RETRY_AFTER_S).encode()),
        ],
    }
    end: HTTPResponseBodyEvent = {"type": "http.response.body", "body": body, "more_body": False}
    await send(start)
    await send(end)
