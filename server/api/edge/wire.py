"""A direct line to a streaming response's socket, for SSE frames written without a task.

An SSE stream's frames normally go from its task, through Litestar's streaming response and
the ASGI ``send`` of every middleware layer, to uvicorn, which writes them as HTTP/1.1 chunks.
With thousands of streams, waking each task and walking those layers for every event cost
several times the write itself. So the outermost layer (:func:`expose_wire`) keeps uvicorn's
own ``send`` in the request's scope, and :meth:`Wire.of` finds through it the connection's
transport: a parked stream (see ``server.store.subscription``) then writes each batch of
frames as one chunk, synchronously, from the hub's delivery.

Only a live chunked response of uvicorn's httptools protocol has a wire, and only while the
socket takes writes at once: a client whose socket is backed up (uvicorn's flow control
paused), a disconnected one, or another server gets no direct writes, and its frames go the
usual way, through the task, with uvicorn's backpressure. Nothing but whole chunks is written
here, and only between the task's own writes (the stream parks only when it has none pending).
"""

from __future__ import annotations

from typing import Any

from litestar.enums import ScopeType
from litestar.types import ASGIApp, Receive, Scope, Send

__all__ = ["WIRE_KEY", "Wire", "expose_wire"]

WIRE_KEY = "allfours.server_send"
"""The scope key of the server's own ``send``."""


class Wire:
    """uvicorn's response cycle of one request, written to directly."""

    __slots__ = ("_cycle",)

    def __init__(self, cycle: Any) -> None:
        self._cycle = cycle

    @classmethod
    def of(cls, scope: Scope) -> Wire | None:
        """The wire of a request whose server is uvicorn's httptools protocol, else None."""
        send = scope.get(WIRE_KEY)
        cycle = getattr(send, "__self__", None)
        if cycle is None or not all(
            hasattr(cycle, name)
            for name in (
                "transport",
                "flow",
                "disconnected",
                "chunked_encoding",
                "response_started",
                "response_complete",
            )
        ):
            return None
        return cls(cycle)

    def write(self, body: bytes) -> bool:
        """Write ``body`` as one chunk of the response now, or False when it cannot be: the
        response is not a started chunked one, the client is gone, or its socket is backed up
        (then the caller sends it through ``send``, which waits)."""
        cycle = self._cycle
        if (
            cycle.disconnected
            or cycle.flow.write_paused
            or not cycle.response_started
            or cycle.chunked_encoding is not True
            or cycle.response_complete
        ):
            return False
        cycle.transport.write(b"%x\r\n%s\r\n" % (len(body), body))
        return True


def expose_wire(app: ASGIApp) -> ASGIApp:
    """``app`` with the server's own ``send`` in each HTTP request's scope (see :class:`Wire`)."""

    async def exposed(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        scope[WIRE_KEY] = send  # type: ignore[literal-required]
        try:
            await app(scope, receive, send)
        finally:
            # uvicorn's cycle holds the scope, and ``send`` is the cycle's: left in the scope,
            # every request (its scope, Litestar's state, the cycle) would be freed by the
            # garbage collector only, whose full passes are rare here (``app``), so the
            # server's memory grew with every request it answered.
            del scope[WIRE_KEY]  # type: ignore[misc]

    return exposed
