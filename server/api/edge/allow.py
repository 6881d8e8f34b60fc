"""A correct ``Allow`` header, on ``OPTIONS`` answers and on 405s.

Litestar 2.x answers ``OPTIONS`` on a path served by two handlers (``GET /v1/games`` lists,
``POST /v1/games`` creates) with only one handler's method (litestar-org/litestar#4169, fixed
in 3.x). Clients and API tooling read ``Allow`` to learn what a resource supports, so the
header is rewritten from the routes the app really has. ``HEAD`` is listed wherever ``GET`` is,
since every ``GET`` also answers ``HEAD`` (``server.api.edge.head``).

This wraps the whole app, not one route: a 405 is answered before any route's middleware runs.
"""

from __future__ import annotations

from typing import Any

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send


def allowed(methods: set[str]) -> bytes:
    """The ``Allow`` value for ``methods``: sorted, with ``HEAD`` wherever ``GET`` is."""
    if "GET" in methods:
        methods = {*methods, "HEAD"}
    return ", ".join(sorted(methods)).encode()


def _methods_by_path(app: Any) -> dict[str, set[str]]:
    return {
        route.path_format: set(route.methods) for route in app.routes if hasattr(route, "methods")
    }


def _listed(value: bytes) -> set[str]:
    return {method.strip().upper() for method in value.decode("latin-1").split(",") if method}


def allow_header_fix(app: ASGIApp) -> ASGIApp:
    known: dict[str, set[str]] = {}

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return

        async def send_with_allow(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                given = [value for key, value in headers if key.lower() == b"allow"]
                if given:
                    if not known:
                        known.update(_methods_by_path(scope["app"]))
                    # The router names the matched route's template; a 405 matched none.
                    methods = known.get(scope.get("path_template", ""), _listed(given[0]))
                    headers = [(k, v) for k, v in headers if k.lower() != b"allow"]
                    message = {**message, "headers": [*headers, (b"allow", allowed(methods))]}
            await send(message)

        await app(scope, receive, send_with_allow)

    return wrapped
