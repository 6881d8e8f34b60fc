"""Structured logs: one JSON object per line, each request's lines sharing a request id.

The id comes from the caller's ``X-Request-ID`` (a load balancer's, say) or is made here, and is
echoed in every response, 404s and 405s included (``server.api.edge.layers`` puts this layer
around the whole app), so a client's bug report can be matched with the server's log.
"""

from __future__ import annotations

import contextvars
import json
import logging
import secrets
import time
from typing import Any

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
_access = logging.getLogger("allfours.access")


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        rid = request_id.get()
        if rid is not None:
            entry["request_id"] = rid
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, separators=(",", ":"))


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers[:] = []
        logging.getLogger(name).propagate = True


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


def request_logging(access_log: bool) -> Any:
    """ASGI middleware factory: request ids, and an access line per request if asked."""

    def middleware(app: ASGIApp) -> ASGIApp:
        async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != ScopeType.HTTP:
                await app(scope, receive, send)
                return
            incoming = _header(scope, b"x-request-id")
            rid = incoming if incoming and len(incoming) <= 128 else secrets.token_hex(8)
            token = request_id.set(rid)
            started = time.perf_counter()
            status = 0

            async def send_with_id(message: Message) -> None:
                nonlocal status
                if message["type"] == "http.response.start":
                    status = message["status"]
                    headers = list(message.get("headers", ()))
                    headers.append((b"x-request-id", rid.encode("latin-1")))
                    message = {**message, "headers": headers}
                await send(message)

            try:
                await app(scope, receive, send_with_id)
            finally:
                if access_log:
                    _access.info(
                        "request",
                        extra={
                            "fields": {
                                "method": scope.get("method"),
                                "path": scope.get("path"),
                                "status": status,
                                "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                            }
                        },
                    )
                request_id.reset(token)

        return wrapped

    return middleware
