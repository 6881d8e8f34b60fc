"""A correct ``Allow`` header on ``OPTIONS``.

Litestar 2.x answers ``OPTIONS`` on a path served by two handlers (``GET /v1/games`` lists,
``POST /v1/games`` creates) with only one handler's method (litestar-org/litestar#4169, fixed
in 3.x). Clients and API tooling read ``Allow`` to learn what a resource supports, so the
header is rewritten from the routes the app really has.
"""

from __future__ import annotations

from typing import Any

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send


def _methods_by_path(app: Any) -> dict[str, bytes]:
    return {
        route.path_format: ", ".join(sorted(route.methods)).encode()
        for route in app.routes
        if hasattr(route, "methods")
    }


def allow_header_fix(app: ASGIApp) -> ASGIApp:
    known: dict[str, bytes] = {}

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope["method"] != "OPTIONS":
            await app(scope, receive, send)
            return
        if not known:
            known.update(_methods_by_path(scope["app"]))
        allow = known.get(scope.get("path_template", ""))

        async def send_with_allow(message: Message) -> None:
            if allow is not None and message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", ()) if k.lower() != b"allow"]
                message = {**message, "headers": [*headers, (b"allow", allow)]}
            await send(message)

        await app(scope, receive, send_with_allow)

    return wrapped
