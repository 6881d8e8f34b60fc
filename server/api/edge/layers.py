"""The layers every HTTP answer passes through, including 404s and 405s that match no route.

Litestar 2 runs an app's ``middleware`` only inside a matched route, so an answer for an unknown
path or method would miss them: no ``X-Request-ID``, no access line, ``HEAD`` refused, a 405
without ``HEAD`` in its ``Allow``, no security headers. These layers wrap the app's whole ASGI
handler instead (inside Litestar's own entry point, which sets ``scope["app"]`` first), so they
also cover what raw ASGI code inside it writes (the stream cap's 429) and no route can forget
them.

Security headers (:func:`secure_answers`): every answer says ``nosniff`` (a JSON or text body is
never run as a script or a page), is never to be framed (``X-Frame-Options`` and CSP
``frame-ancestors``: no clickjacking) and sends no ``Referer`` onwards (a table's address or a
stream's ``?token=`` must not leak to another site). An answer that is no page of its own gets
the strictest policy, ``default-src 'none'``: nothing in it may run or load. The pages (the web
client, ``/docs``) send their own policy, which says what they load, and keep it. The connection
guards, which answer before any ASGI code runs, write :data:`RAW_ANSWER_HEADERS` themselves.
"""

from __future__ import annotations

from litestar import Litestar
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from server.api.edge.allow import allow_header_fix
from server.api.edge.head import answer_head
from server.api.edge.logs import request_logging
from server.api.edge.wire import expose_wire

__all__ = ["RAW_ANSWER_HEADERS", "secure_answers", "wrap_edges"]

_POLICY = b"content-security-policy"
_EVERY_ANSWER: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)
"""On every answer. ``no-referrer`` suits the web client too: it talks to this server only, which
reads no ``Referer``."""
RAW_ANSWER_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    *_EVERY_ANSWER,
    (_POLICY, b"default-src 'none'; frame-ancestors 'none'"),
)
"""What an answer that is no page gets: the headers of every answer, and a policy that lets
nothing run, load or frame it. (Header names in lower case, as Litestar and ASGI write them.)"""


def secure_answers(app: ASGIApp) -> ASGIApp:
    """ASGI middleware: the security headers on every HTTP answer (see the module). The headers
    are built once; per answer it only looks for a policy of the answer's own."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message.get("headers", ())
                added = RAW_ANSWER_HEADERS
                for name, _ in headers:
                    if name == _POLICY:
                        added = _EVERY_ANSWER
                        break
                message = {**message, "headers": [*headers, *added]}
            await send(message)

        await app(scope, receive, send_secured)

    return wrapped


def wrap_edges(app: Litestar, access_log: bool) -> Litestar:
    """``app`` with request ids and logs outermost (inside only the server's ``send`` kept
    for SSE streams' direct writes), then the security headers, then ``HEAD`` and ``Allow``,
    on every request; the access line names the method the client sent (``HEAD``, not
    ``GET``)."""
    app.asgi_handler = expose_wire(
        request_logging(access_log)(secure_answers(answer_head(allow_header_fix(app.asgi_handler))))
    )
    return app
