"""``HEAD`` wherever ``GET`` is served (RFC 9110 §9.3.2): the ``GET`` answer's status and
headers, without its body.

Litestar 2 routes ``HEAD`` only to handlers declared for it, so every ``GET`` route would answer
405. This layer runs the request as ``GET`` and drops the body instead. A ``GET`` whose body never
ends (the SSE stream) is told the client left once its headers are out, so it stops at once.
A path without ``GET`` still answers 405, as for any other method it does not serve.
"""

from __future__ import annotations

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, ReceiveMessage, Scope, Send

_DISCONNECT: ReceiveMessage = {"type": "http.disconnect"}


def answer_head(app: ASGIApp) -> ASGIApp:
    """ASGI middleware: ``HEAD`` answered as ``GET`` without a body."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope["method"] != "HEAD":
            await app(scope, receive, send)
            return
        headers_sent = False
        body_ended = False

        async def send_headers_only(message: Message) -> None:
            nonlocal headers_sent, body_ended
            if message["type"] == "http.response.start":
                headers_sent = True
                await send(message)
            elif message["type"] == "http.response.body" and not body_ended:
                body_ended = True
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            # anything later (the rest of a streamed body) is not for a HEAD request

        async def receive_until_answered() -> ReceiveMessage:
            if headers_sent:
                return _DISCONNECT  # a streamed body stops: nobody reads it
            return await receive()

        await app({**scope, "method": "GET"}, receive_until_answered, send_headers_only)
        if headers_sent and not body_ended:  # a stream stopped before its first chunk
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    return wrapped
