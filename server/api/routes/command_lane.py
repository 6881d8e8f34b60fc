"""``sendCommand``'s lane: a well-formed command answered without the framework's per-request
machinery, every other request passed on to the app untouched.

A play is the request a game makes most, and Litestar's routing, parameter model, dependency
injection, hooks and response objects cost it more than the command itself: about 140 µs of a
core per play on the bench machine, where the whole play took 330 (``tests/bench/http.py``). The
lane serves the one request shape that a client sends for each move, with the same checks in
the same order and the same answer (``commands.accept_command`` decides both; refusals are the
same problem documents, rendered by the app's own handler); the route in ``commands`` remains
the contract (the OpenAPI spec is made from it) and serves everything the lane passes on.

The lane takes a request only if nothing about it needs the framework: ``POST`` to the
canonical path of a command with no query, a JSON body of a stated length within the limit,
no ``Origin`` (CORS is the framework's), a valid ``Host``, and at most one of each header it
reads. It then reads the body, and if that does not decode as a command (strictly, as
``app.check_body_strictly`` would, a key given twice included), or was cut short by a
disconnect, it hands the request on
with the messages it read, as they came, so that the route words the error (or, for a client
gone, stores nothing), and counts it. Request ids, logs, security headers and the stream cap
stay outside, around both; a command the lane answers is counted in the metrics under the
route's template.
"""

from __future__ import annotations

import re
from typing import Any, Final

import msgspec
from litestar import Request
from litestar._asgi.utils import is_valid_host
from litestar.types import (
    ASGIApp,
    HTTPResponseBodyEvent,
    HTTPResponseStartEvent,
    Receive,
    ReceiveMessage,
    Send,
)

from server.api.auth import bearer_in
from server.api.context import AppContext
from server.api.contract.models import CommandBody
from server.api.contract.problems import EXCEPTION_HANDLERS
from server.api.edge.metrics import request_metrics
from server.api.edge.request_guard import JSON_MEDIA_TYPE, key_given_twice
from server.api.routes.commands import accept_command

PATH: Final = re.compile(r"/v1/games/([A-Za-z0-9_-]{1,64})/seats/([0-3])/commands")
"""The route's path, with its parameters' patterns (``params.GameId``, ``params.SeatPath``)."""
PATH_TEMPLATE: Final = "/v1/games/{game_id}/seats/{seat}/commands"
"""The route's template as the framework names it in ``scope`` (the metrics' label)."""
_READ: Final = frozenset(
    {b"authorization", b"content-length", b"content-type", b"host", b"idempotency-key"}
)
_DECODE: Final = msgspec.json.Decoder(CommandBody)
_ENCODE: Final = msgspec.json.Encoder()
_JSON: Final = JSON_MEDIA_TYPE.encode()
_to_problem = EXCEPTION_HANDLERS[Exception]
_TAKEN: Final = "allfours.command"
"""The scope's key for what the lane read of a request it took: game id, seat, headers and
the command."""


def headers_in_lane(scope: Any, max_body_bytes: int) -> dict[bytes, bytes] | None:
    """The headers the lane reads, if ``scope`` (an HTTP request to a command's path) is one
    it may take (see the module); None to pass it on."""
    if scope["method"] != "POST" or scope["query_string"]:
        return None
    found: dict[bytes, bytes] = {}
    for name, value in scope["headers"]:
        if name in _READ:
            if name in found:
                return None
            found[name] = value
        elif name in (b"origin", b"transfer-encoding"):
            return None
    length = found.get(b"content-length", b"")
    media_type = found.get(b"content-type", b"").split(b";", 1)[0].strip().lower()
    key = found.get(b"idempotency-key")
    host = found.get(b"host")
    if (
        not length.isdigit()
        or not 0 < int(length) <= max_body_bytes
        or media_type != _JSON
        or (key is not None and not 1 <= len(key) <= 200)
        or (host is not None and not is_valid_host(host))
    ):
        return None
    return found


def command_lane(app: ASGIApp, max_body_bytes: int, *, counted: bool) -> ASGIApp:
    """``app`` with ``sendCommand``'s lane before it (``counted``: in the request metrics,
    as the app's middleware counts its routes)."""

    # (scopes typed loosely, as in ``edge.metrics``: Litestar's TypedDicts do not narrow)
    async def lane(scope: Any, receive: Receive, send: Send) -> None:
        ctx: AppContext = scope["app"].state.ctx
        game_id, seat, headers, data = scope[_TAKEN]
        request: Request[Any, Any, Any] = Request(scope, receive)
        try:
            await ctx.limiter.check(request)
            authorization = headers.get(b"authorization")
            key = headers.get(b"idempotency-key")
            answer = await accept_command(
                ctx,
                game_id,
                seat,
                data,
                None if authorization is None else bearer_in(authorization.decode("latin-1")),
                None if key is None else key.decode("latin-1"),
            )
        except Exception as exc:
            refusal = _to_problem(request, exc).to_asgi_response(app=None, request=request)
            await refusal(scope, receive, send)
            return
        content = _ENCODE.encode(answer)
        start: HTTPResponseStartEvent = {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", _JSON), (b"content-length", str(len(content)).encode())],
        }
        await send(start)
        body_event: HTTPResponseBodyEvent = {
            "type": "http.response.body",
            "body": content,
            "more_body": False,
        }
        await send(body_event)

    measured_lane = request_metrics(lane) if counted else lane

    async def entry(scope: Any, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and (match := PATH.fullmatch(scope["path"])):
            headers = headers_in_lane(scope, max_body_bytes)
            if headers is not None:
                received = await _received(receive)
                data = _command_in(received)
                if data is None:
                    # Its answer is the route's: given the messages as they came (a body cut
                    # short by a disconnect stays cut short), and counted by the route alone.
                    await app(scope, _replay(received, receive), send)
                    return
                scope["path_template"] = PATH_TEMPLATE
                scope[_TAKEN] = (match[1], int(match[2]), headers, data)
                await measured_lane(scope, receive, send)
                return
        await app(scope, receive, send)

    return entry


async def _received(receive: Receive) -> list[ReceiveMessage]:
    """The request's messages up to its body's last (or up to whatever ended it early)."""
    messages = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request" or not message.get("more_body", False):
            return messages


def _command_in(messages: list[ReceiveMessage]) -> CommandBody | None:
    """The command a whole body holds; None for a body cut short or not a command."""
    last = messages[-1]
    if last["type"] != "http.request" or last.get("more_body", False):
        return None
    body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.request")
    try:
        command = _DECODE.decode(body)
    except (msgspec.DecodeError, RecursionError):
        return None
    return None if key_given_twice(body) is not None else command


def _replay(messages: list[ReceiveMessage], receive: Receive) -> Receive:
    """``receive`` for an app that has not read what the lane read: those messages first."""
    pending = list(messages)

    async def replay() -> ReceiveMessage:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay
