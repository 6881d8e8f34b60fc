"""Connection-level guards: caps on open connections, and a deadline for reading a request.

uvicorn keeps a connection that never sends a request open for ever, and reads headers and
bodies as slowly as the client sends them: a few hundred idle or trickling sockets from one
client would use up the open-file limit, and then nobody (``/livez`` included) gets in. The
HTTP protocol here (uvicorn's httptools protocol, subclassed) adds, per worker process:

- a read deadline: a request's headers and body must arrive within ``read_timeout_s`` of its
  first byte (or of the connection's opening), else 408 and the connection is closed;
- a size limit on a request's headers (``MAX_HEADER_BYTES``; 431 beyond, then closed);
- a cap per peer address (trusted proxies exempt) and a cap in all: a connection beyond
  either closes the *idlest idle* connection that is over it (one with no request in
  progress: waiting for its first request or between keep-alive requests) to make room, so
  idle sockets can never lock anyone out; only when every one is busy is the newcomer refused
  (429 ``too_many_connections`` for an address, 503 ``busy`` in all, with ``Retry-After``).

These refusals, and the 400 for a request that is not HTTP (uvicorn's own answer was plain
text; a ``Host`` whose port is no number counts), are problems like every other answer, with
the security headers of every answer (``server.api.edge.layers``): they are written here,
before any ASGI layer could add them.

:func:`uvicorn_options` gives uvicorn this protocol and the other settings of the edge: the
keep-alive timeout, and ``X-Forwarded-For`` believed from the trusted proxies only (the client
is the rightmost address not among them; uvicorn's ``*`` would take the leftmost, which the
client writes itself).
"""

from __future__ import annotations

import asyncio
import ipaddress
import resource
import secrets
import time
from collections import defaultdict
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from server.api.contract.problems import READ_DEADLINE, problem_body
from server.api.edge.layers import RAW_ANSWER_HEADERS
from server.settings import Settings

MAX_HEADER_BYTES = 65_536
"""The most a request line and its headers may take; browsers send a few kilobytes."""

_RESERVED_FILES = 128
"""Open files kept out of the connection cap: Redis connections, logs, the listening socket."""


def trusted_networks(spec: str) -> list[str]:
    """The trusted proxies of ``ALLFOURS_TRUSTED_PROXIES`` as a list, each checked."""
    networks = [item.strip() for item in spec.split(",") if item.strip()]
    for item in networks:
        ipaddress.ip_network(item, strict=False)  # ValueError names the bad one
    return networks


def _is_trusted(host: str, networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network]) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return any(address in network for network in networks)


@dataclass
class _Registry:
    """This process's open connections: by peer address and in all, each with its state."""

    per_address: int
    total: int
    trusted: list[ipaddress.IPv4Network | ipaddress.IPv6Network]
    by_address: dict[str, set[GuardedProtocol]] = field(default_factory=lambda: defaultdict(set))
    everyone: set[GuardedProtocol] = field(default_factory=set)

    def admit(self, conn: GuardedProtocol) -> tuple[int, str] | None:
        """Register ``conn``, making room by closing idle ones; the (status, code) to refuse
        it with when there is no room."""
        if not conn.exempt:
            mine = self.by_address[conn.address]
            if len(mine) >= self.per_address and not self._evict(mine):
                return 429, "too_many_connections"
        if len(self.everyone) >= self.total and not self._evict(self.everyone):
            return 503, "busy"
        self.everyone.add(conn)
        if not conn.exempt:
            self.by_address[conn.address].add(conn)
        return None

    def forget(self, conn: GuardedProtocol) -> None:
        self.everyone.discard(conn)
        mine = self.by_address.get(conn.address)
        if mine is not None:
            mine.discard(conn)
            if not mine:
                del self.by_address[conn.address]

    def _evict(self, among: set[GuardedProtocol]) -> bool:
        idle = [conn for conn in among if conn.idle_since is not None]
        if not idle:
            return False
        victim = min(idle, key=lambda conn: conn.idle_since or 0.0)
        self.forget(victim)
        victim.transport.close()
        return True


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the caps and the read deadline (see the module)."""

    registry: _Registry
    read_timeout_s: float

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.address = "?"
        self.exempt = False
        self.idle_since: float | None = time.monotonic()
        """When it became idle (no request in progress); None while a request is."""
        self._deadline: asyncio.TimerHandle | None = None
        self._header_bytes = 0
        """Bytes received since the request began while its headers were incomplete."""
        self._in_headers = True
        self._oversized = False
        """The headers, read whole, were over ``MAX_HEADER_BYTES`` (answered 431)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.address = self.client[0] if self.client else "?"
        self.exempt = _is_trusted(self.address, self.registry.trusted)
        refusal = self.registry.admit(self)
        if refusal is not None:
            self._refuse(*refusal)
            return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self.registry.forget(self)
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        # Counted before the parser reads the chunk, judged after, while the headers are not
        # whole: a chunk that ends them and carries the body's start is no header overflow (a
        # large body read in one chunk with its headers was refused 431, where it is the app's
        # 413); headers that came whole are measured as they are (``on_headers_complete``).
        if self._in_headers:
            self._header_bytes += len(data)
        super().data_received(data)
        if (
            self._in_headers
            and self._header_bytes > MAX_HEADER_BYTES
            and not self.transport.is_closing()
        ):
            self._refuse(431, "headers_too_large")

    def send_400_response(self, msg: str) -> None:
        """A request that does not parse as HTTP, or whose headers came whole in one chunk
        but over the limit (``on_headers_complete``): a problem, as any other refusal."""
        del msg  # uvicorn's text; the problem has its own
        if self._oversized:
            self._refuse(431, "headers_too_large")
        else:
            self._refuse(400, "invalid_request")

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.idle_since = None
        if self._deadline is None:
            self._arm()

    def on_headers_complete(self) -> None:
        self._in_headers = False
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if size > MAX_HEADER_BYTES:
            self._oversized = True
            raise ValueError("the request's headers are over the limit")
        if not all(has_numeric_port(value) for name, value in self.headers if name == b"host"):
            # Not HTTP (a port is digits), and no URL can be made of it: every answer that
            # names the request's path was a bare 500. Raised here, the parser's error is
            # uvicorn's 400 (``send_400_response`` below).
            raise ValueError("the Host header's port is not a number")
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()
        self._in_headers, self._header_bytes = True, 0

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self.idle_since = time.monotonic()

    def _arm(self) -> None:
        self._deadline = self.loop.call_later(self.read_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        """The request did not arrive in time: 408 ``request_timeout`` and close, once a
        request has begun and nothing has been answered yet (a connection that never sent a
        byte is only closed; a response on its way is not cut into). A handler waiting for
        the body is told why (``READ_DEADLINE``), so that it counts a 408, not a client gone."""
        self._deadline = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            cycle.scope[READ_DEADLINE] = True  # type: ignore[literal-required]
            if cycle.response_started:
                self.transport.close()
                return
        if self.idle_since is None:
            self._refuse(408, "request_timeout")
        else:
            self.transport.close()

    def _refuse(self, status: int, code: str) -> None:
        """Answer with a problem (and ``Retry-After`` unless the request itself is at fault),
        then close."""
        retry = "retry-after: 1\r\n" if status in (429, 503) else ""
        body = problem_body(status, code, _DETAILS[status], retry_after=1 if retry else None)
        # A request id and a date as every answer of the app has (``edge.logs``): a client's
        # report of a refusal names it like any other.
        head = (
            f"HTTP/1.1 {status} {_REASONS[status]}\r\ncontent-type: application/problem+json\r\n"
            f"{retry}{_SECURITY_HEADERS}x-request-id: {secrets.token_hex(8)}\r\n"
            f"date: {formatdate(usegmt=True)}\r\n"
            f"connection: close\r\ncontent-length: {len(body)}\r\n\r\n"
        )
        self.transport.write(head.encode() + body)
        self.transport.close()


_SECURITY_HEADERS = "".join(f"{k.decode()}: {v.decode()}\r\n" for k, v in RAW_ANSWER_HEADERS)
_REASONS = {
    400: "Bad Request",
    408: "Request Timeout",
    429: "Too Many Requests",
    431: "Request Header Fields Too Large",
    503: "Service Unavailable",
}
_DETAILS = {
    400: "the request is not valid HTTP/1.1",
    408: "the request's headers and body did not arrive in time",
    429: "too many open connections from this address; close idle ones and retry",
    431: f"the request's headers take more than {MAX_HEADER_BYTES} bytes",
    503: "too many open connections; retry shortly",
}


def has_numeric_port(host: bytes) -> bool:
    """Whether a ``Host`` header's port, if it names one, is a port number (``[::1]:80``,
    ``example.org:8000``, ``example.org``; not ``a:b``, ``a:99999`` or ``a:``)."""
    _, bracket, after_address = host.rpartition(b"]")
    tail = after_address if bracket else host
    if b":" not in tail:
        return True
    port = tail.rpartition(b":")[2]
    return port.isdigit() and int(port) <= 65_535


def _open_file_limit() -> int:
    """Raise this process's soft open-file limit to its hard one; the limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        wanted = 1_048_576 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return soft


def guarded_protocol(settings: Settings) -> type[GuardedProtocol]:
    """A protocol class bound to this process's registry and ``settings``' limits."""
    room = max(_open_file_limit() - _RESERVED_FILES, 1)
    total = min(settings.max_connections, room) if settings.max_connections > 0 else room
    per_address = settings.max_connections_per_address
    registry = _Registry(
        per_address=per_address if per_address > 0 else total,
        total=total,
        trusted=[
            ipaddress.ip_network(n, strict=False)
            for n in trusted_networks(settings.trusted_proxies)
        ],
    )
    return type(
        "BoundGuardedProtocol",
        (GuardedProtocol,),
        {"registry": registry, "read_timeout_s": settings.read_timeout_s},
    )


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's settings for the edge: the guarded protocol, timeouts, trusted proxies."""
    trusted = trusted_networks(settings.trusted_proxies)
    return {
        "http": guarded_protocol(settings),
        "timeout_keep_alive": settings.keep_alive_s,
        "proxy_headers": bool(trusted),
        "forwarded_allow_ips": trusted or "",
    }
