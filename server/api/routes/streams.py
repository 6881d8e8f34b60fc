"""Server-Sent Events: a game's events, replayed from a version and then live.

Frame: ``id: <version>``, ``event: <event type>``, ``data: <event JSON, redacted for the
viewer>``. Resume with ``Last-Event-ID`` (browsers send it on reconnect) or ``?after=``: the
stream continues right after that version, with no gap and no duplicate. A comment line is
sent as a heartbeat when nothing happened for a while, so proxies keep the connection open.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from functools import partial
from typing import Annotated, Any

from litestar import Controller, Request, get
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import OpenAPIType
from litestar.params import HeaderParameter, QueryParameter
from litestar.response import Stream

from domain import Event, PlayerReplaced, View
from server.api.auth import token_of
from server.api.context import AppContext
from server.api.contract.models import Resync
from server.api.contract.openapi import problems, sse_operation
from server.api.edge.wire import Wire
from server.api.routes.params import MAX_VERSION, SEAT_OPTIONAL, After, GameId, SeatToken
from server.api.routes.view_frames import ViewFrames
from server.api.routes.viewing import seen_by
from server.codec import decode_event, redact_bytes
from server.store import ResyncRequired, StoredEvent, StoreUnavailable, SubscriberLagged

SSE_MEDIA_TYPE = "text/event-stream"
_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Connection": "keep-alive"}


def _event_type(data: bytes) -> bytes:
    # msgspec writes the tag first: b'{"type":"Dealt",...'
    return data[9 : data.index(b'"', 9)]


_SEAT_CHANGES = (b"PlayerLeft", b"PlayerReplaced")
_NEW_CARDS = (b"Dealt", b"PackRun")
"""Events that bring a seat cards it has not held yet: before one is shown as a seat's, the
stream checks that its token still holds the seat (a re-issue to another device changes the
token without an event)."""
"""Events after which a seat's stream no longer shows that seat's cards."""


def frame(version: int, data: bytes) -> bytes:
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (version, _event_type(data), data)


class FrameCache:
    """The frames built last, by (stored event, viewer), so that a game's many streams share
    one frame per viewer instead of each redacting and formatting the event again.

    The hub hands every subscriber of a game the same stored event object: the key is that
    object's bytes (by identity, kept alive by the entry, so the identity cannot be reused
    while cached), its version and the viewer. Oldest entries go first beyond ``size``.
    """

    def __init__(self, size: int = 1_024) -> None:
        self._size = size
        self._frames: dict[tuple[int, int, int | None], tuple[bytes, bytes]] = {}

    def frame(self, version: int, data: bytes, viewer: int | None) -> bytes:
        key = (id(data), version, viewer)
        hit = self._frames.get(key)
        if hit is not None and hit[0] is data:
            return hit[1]
        built = frame(version, redact_bytes(data, viewer))
        if len(self._frames) >= self._size:
            del self._frames[next(iter(self._frames))]
        self._frames[key] = (data, built)
        return built


_FRAMES = FrameCache()


def _joined(frames: list[bytes]) -> bytes:
    return frames[0] if len(frames) == 1 else b"".join(frames)


_MAX_BATCH_FRAMES = 64
"""Frames written at once at most, so that a long catch-up starts reaching the client."""


class _DirectFrames:
    """A parked stream's sink: each live batch as ``viewer``'s frames (and views, if the
    stream sends them), written on the wire at once by the hub's delivery, with no task woken.
    A batch that changes the viewer's seat is declined: the stream's own loop decides what it
    shows next. So is one the socket cannot take now, with the views' state as it was."""

    __slots__ = ("seated_as_of", "view_each", "viewer", "views", "wire", "written")

    def __init__(
        self,
        wire: Wire,
        viewer: int | None,
        seated_as_of: int,
        views: ViewFrames | None,
        view_each: bool,
    ) -> None:
        self.wire = wire
        self.viewer = viewer
        self.seated_as_of = seated_as_of
        self.views = views
        self.view_each = view_each
        self.written = 0  # batches written directly

    def __call__(self, events: Sequence[StoredEvent]) -> bool:
        viewer = self.viewer
        if viewer is not None and any(
            (e.version > self.seated_as_of and _event_type(e.data) in _SEAT_CHANGES)
            or _event_type(e.data) in _NEW_CARDS
            for e in events
        ):
            return False  # the loop checks the seat (and its token) first
        views = self.views
        if views is None:
            body = _joined([_FRAMES.frame(e.version, e.data, viewer) for e in events])
        else:
            before = views.state
            frames = []
            for e in events:
                frames.append(_FRAMES.frame(e.version, e.data, viewer))
                views.see(e.data)
                if self.view_each:
                    frames.append(views.frame(viewer))
            if not self.view_each:
                frames.append(views.frame(viewer))
            body = b"".join(frames)
        if not self.wire.write(body):
            if views is not None:
                views.state = before  # the task's loop folds these events again
            return False
        self.written += 1
        return True


async def sse_frames(
    ctx: AppContext,
    game_id: str,
    after: int,
    viewer: int | None,
    views: ViewFrames | None = None,
    seated_as_of: int = 0,
    view_each: bool = False,
    wire: Wire | None = None,
    still_holds: Callable[[], Awaitable[bool]] | None = None,
) -> AsyncIterator[bytes]:
    """The stream's frames from ``after`` on, as ``viewer`` sees them. ``viewer`` is who the
    token showed the game to at version ``seated_as_of``: seat changes up to that version are
    earlier occupants' history (the token's holder sat down after them, or has left already
    and ``viewer`` is None), so only later ones change whom the stream shows the game to.
    ``view_each``: a view frame after every event, not only at the end of a batch. ``wire``:
    the response's socket, on which a caught-up stream has its live batches written directly
    while it is parked (see :class:`_DirectFrames`)."""
    heartbeat = ctx.settings.sse_heartbeat_s
    yield b"retry: 1000\n: stream of game %s from version %d\n\n" % (game_id.encode(), after)
    if views is not None and after > 0:
        # Where the client resumes: the game as it has it. From 0 there is no game yet to
        # show (phase "new"): the snapshot after the first batch comes at once.
        yield views.frame(viewer)
    subscription = ctx.store.subscribe(game_id, after)
    ctx.streams.add(subscription)
    ctx.metrics.sse_subscribers.inc()
    # A batch's frames (the events one append stored, or a page of catch-up) go out in one
    # write: the same bytes, but one trip through the response machinery per batch instead
    # of one per event, which is most of a frame's cost with thousands of streams.
    pending: list[bytes] = []
    direct = None if wire is None else _DirectFrames(wire, viewer, seated_as_of, views, view_each)
    task_writes = 0
    try:
        while True:
            if direct is not None and not pending:
                direct.viewer = viewer
                parked = subscription.park(direct)
                if parked is not None:
                    written = direct.written
                    try:
                        async with asyncio.timeout(heartbeat):
                            await parked
                        idle = False
                    except TimeoutError:
                        idle = True
                    finally:
                        subscription.unpark()
                    if idle:  # a heartbeat, unless frames went out meanwhile
                        if direct.written == written:
                            yield b": heartbeat\n\n"
                        continue
                    # Woken: a batch for this loop (declined or after a gap), a failure, a close.
            try:
                if pending:  # the batch goes on: its next event is at hand, no timer needed
                    event = await subscription.__anext__()
                else:
                    # asyncio.timeout, not wait_for: no extra task per event and subscriber.
                    async with asyncio.timeout(heartbeat):
                        event = await subscription.__anext__()
            except TimeoutError:
                yield b": heartbeat\n\n"
                continue
            except StopAsyncIteration:
                break  # closed: server shutting down; the client reconnects elsewhere
            except StoreUnavailable:
                if pending:
                    yield _joined(pending)
                    pending.clear()
                yield b": store unavailable, waiting\n\n"
                await asyncio.sleep(1)
                continue
            except SubscriberLagged:
                break  # the client reconnects with Last-Event-ID and catches up
            except ResyncRequired:
                pending.append(b"event: resync\ndata: {}\n\n")
                break
            if (
                viewer is not None
                and still_holds is not None
                and _event_type(event.data) in _NEW_CARDS
                and not await still_holds()
            ):
                break  # the seat's token was replaced (a re-issue): it shows the seat no more
            pending.append(_FRAMES.frame(event.version, event.data, viewer))
            if (
                viewer is not None
                and event.version > seated_as_of
                and _event_type(event.data) in _SEAT_CHANGES
            ):
                changed = decode_event(event.data)
                if getattr(changed, "seat", None) == viewer:
                    if isinstance(changed, PlayerReplaced):
                        break  # the seat is someone else's now: this token shows it no more
                    viewer = None  # left: the bot's hand is not theirs to see
            if views is not None:
                views.see(event.data)
                if view_each:
                    pending.append(views.frame(viewer))
            if not subscription.next_at_hand():  # the end of a batch: one snapshot, one write
                if views is not None and not view_each:
                    pending.append(views.frame(viewer))
                yield _joined(pending)
                pending.clear()
                task_writes += 1
            elif len(pending) >= _MAX_BATCH_FRAMES:
                yield _joined(pending)
                pending.clear()
        if pending:  # what the stream had to say before it ended
            yield _joined(pending)
    finally:
        ctx.streams.discard(subscription)
        ctx.metrics.sse_subscribers.dec()
        ctx.metrics.count_sse_writes(direct.written if direct else 0, task_writes)
        subscription.close()


LastEventId = Annotated[
    str | None,
    HeaderParameter(
        name="Last-Event-ID",
        required=False,
        pattern=r"^[0-9]{1,16}$",
        description="Resume after this version (an ``id`` this stream sent; browsers send it "
        "when they reconnect). Takes precedence over ``after``. Anything but a decimal "
        "version is refused (400 ``invalid_request``).",
        # A header is sent or not, never null: the spec says a string, not ``string | null``.
        schema_extra={"one_of": None, "type": OpenAPIType.STRING},
    ),
]


def _resume_point(last_event_id: str | None, after: int) -> int:
    """Where the stream starts: ``Last-Event-ID`` (checked against its pattern already), else
    ``after``. A version beyond any game's is kept at the largest one, as a resync."""
    if last_event_id is None:
        return after
    return min(int(last_event_id), MAX_VERSION)


class StreamController(Controller):
    path = "/v1/games"
    tags = ("games",)

    @get(
        "/{game_id:str}/stream",
        operation_id="streamEvents",
        security=SEAT_OPTIONAL,
        summary="Follow a game live (Server-Sent Events)",
        description="Each SSE message: ``id`` = version, ``event`` = the event type, "
        "``data`` = the event JSON (one of the event schemas) redacted for the caller. "
        "Resume with ``Last-Event-ID`` or ``after``. Lines starting with ``:`` are heartbeats. "
        "A stream that cannot continue from the asked version (beyond the game's) ends with "
        "an ``event: resync`` message: reload the view and follow again from its version. "
        "With ``view=true``, ``event: view`` messages (data: the View schema, no ``id``) "
        "follow each batch of events (with ``view_each=true``, each event). A stream of a "
        "seat whose person leaves goes on as a spectator's; one whose seat is taken over by "
        "someone else while its person is away "
        "ends. Seat changes before the token's own seating are history: a stream read from "
        "the start by a seat's newcomer shows that seat's cards throughout.",
        media_type=SSE_MEDIA_TYPE,
        operation_class=sse_operation(SSE_MEDIA_TYPE),
        responses={
            200: ResponseSpec(
                # A union documents each message's data. The View comes before Resync: a
                # generator that tries the arms in order (openapi-python-client) would read
                # any view as the resync's {}, whose schema has no required field.
                data_container=Event | View | Resync,  # type: ignore[arg-type]
                description="An endless ``text/event-stream``. Each message has ``id:`` (the "
                "event's version; none on a view), ``event:`` (the event's type, or ``view``, "
                "or ``resync``) and one ``data:`` line, a JSON value of this schema: an event "
                "(its ``type`` names it), with ``view=true`` a View (``event: view``), and in a "
                "last ``event: resync`` message ``{}``. Lines starting with ``:`` are heartbeats.",
                media_type=SSE_MEDIA_TYPE,
                generate_examples=False,
            ),
            **problems(
                "invalid_request",
                "unauthorized",
                "forbidden",
                "not_found",
                "too_many_streams",
                "unavailable",
            ),
        },
    )
    async def stream(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        ctx: NamedDependency[AppContext],
        after: After = 0,
        token: SeatToken = None,
        last_event_id: LastEventId = None,
        view: Annotated[
            bool,
            QueryParameter(
                name="view",
                description="``true``: after each batch of events (one command's, or a "
                "page of catch-up) an ``event: view`` message whose data is the caller's view "
                "(the View schema) as of the events sent so far; it has no ``id``. A stream "
                "resumed after a version above 0 starts with one (the game as of that "
                "version); from version 0 the first comes after the first batch.",
            ),
        ] = False,
        view_each: Annotated[
            bool,
            QueryParameter(
                name="view_each",
                description="``true``: the view after every event instead of after each "
                "batch (implies ``view``), so a client that shows moves one at a time, as "
                "the web client does at a person's pace, has the position of each moment "
                "without folding events itself. The server never spaces the bots' moves (they "
                "play at once, except an away person's seat, played at the table's pace): "
                "pacing them for people is the client's choice.",
            ),
        ] = False,
    ) -> Stream:
        token = token_of(request)
        seat = await ctx.auth.seat_of(game_id, token, required=False)
        state = await ctx.service.state(game_id)
        viewer = seen_by(state, seat)
        start = _resume_point(last_event_id, after)
        wants_views = view or view_each
        views = await ViewFrames.at(ctx.service, game_id, start) if wants_views else None
        return Stream(
            sse_frames(
                ctx,
                game_id,
                start,
                viewer,
                views,
                seated_as_of=state.version,
                view_each=view_each,
                wire=Wire.of(request.scope),
                still_holds=None if token is None else partial(ctx.auth.holds, game_id, token),
            ),
            media_type=SSE_MEDIA_TYPE,
            headers=_HEADERS,
        )
