"""The parts of the client contract that OpenAPI has no field for, as text for the spec's
overview: the live stream's frames, ETags, idempotency and retries, rate limits, the turn clock.

Written once here so the spec says it (clients generated from the spec carry it), and the
README's "Writing a client" follows the same words.
"""

from __future__ import annotations

__all__ = ["CONTRACT"]

CONTRACT = """
**Playing.** ``GET /v1/games/{id}`` with the seat token (``Authorization: Bearer``) is that \
seat's view: its hand, ``to_act``, ``legal_actions`` (exactly the moves it may send now; each \
can be sent back as it is), ``seat_actions`` (step away, come back, leave, resign, abort) and \
``deadline``. ``POST .../seats/{seat}/commands`` answers with the events the command stored and \
the seat's new ``view``: one POST per decision, no extra read.

**The stream** (``GET /v1/games/{id}/stream``, ``text/event-stream``): each event is a message \
``id: <version>``, ``event: <the event's type>``, ``data: <the event's JSON>`` (the event \
schemas; redacted for the caller). With ``view=true``, an ``event: view`` message (data: the \
View schema, no ``id``) follows each batch of events (one command's, or a page of catch-up), \
and a stream resumed after a version (``after`` or ``Last-Event-ID`` above 0) starts with one, \
the game as of that version; from version 0 the first view is the one after the first batch. \
The 200 response's schema is the type of each message's ``data``: an event (told apart by its \
``type``), a View, or the ``{}`` of ``event: resync``. \
Lines starting with ``:`` are comments: heartbeats every ``ALLFOURS_SSE_HEARTBEAT_S`` (15 s by \
default) on an idle stream. Resume after a dropped connection with ``Last-Event-ID`` (browsers \
send it by themselves; it wins over ``after``) or ``?after=<version>``: the stream continues \
right after it, with no gap and no duplicate. Browsers' ``EventSource`` cannot send headers: \
send the token as ``?token=`` (reads only). A stream never ends by itself at the end of a game \
(``SeedRevealed`` is the last event of the game, only ``RematchCreated`` may follow): close it \
when you have what you need. It ends when the server shuts down or you fall too far behind \
(reconnect with ``Last-Event-ID``), with ``event: resync`` (data ``{}``) when it cannot go on \
from the asked version (reload the view and follow from its version), and when your seat is \
taken over by someone else while you are away, or its token re-issued to another device \
(reissueSeatToken: the stream ends before the seat's next cards). After you leave a seat \
it goes on as a spectator's. Seat changes before your own seating are history: read from \
the start, your stream shows your seat's cards throughout.

**Polling.** The view's ``ETag`` is ``W/"<version>-<seat>"`` (``-s`` for a spectator); send it \
back in ``If-None-Match`` to get 304 (no body) until the game moves.

**Idempotency.** Send an ``Idempotency-Key`` with every write. The same key with the same body \
returns the first outcome with ``duplicate: true``; the same key with another body is 409 \
``idempotency_key_reused``. Command keys belong to the token that holds the seat. A refused \
request stores nothing, so its retry is decided anew. Keys are kept as long as the game. A 503 \
(or a lost answer) after a write means the write may have been applied: retry with the same \
key. The key of a creation or of a seating works as a secret (its retry returns the same \
creator or seat token), so it must be random and at least 16 characters long (a shorter one \
is 400). A seating retried after its token was replaced (re-issued, or the seat taken over) \
is 409 ``seat_taken``: that token is dead.

**Rate limits.** Writes (POST) are limited per client per window (``ALLFOURS_RATE_LIMIT`` per \
``ALLFOURS_RATE_WINDOW_S``, 600 a minute by default, shared across instances); reads are not. \
Beyond it: 429 ``rate_limited`` with ``Retry-After`` (seconds), also in the problem's \
``retry_after``. 503 ``unavailable``, ``busy`` and ``bots_busy`` carry ``Retry-After`` too.

**The clock.** Each table has ``rules.turn_seconds`` (30 by default; null: none). The view's \
``deadline`` is when the seat to act times out, in milliseconds since the Unix epoch (every \
``at`` is in the same unit): draw a countdown from it against your clock, corrected by the \
``Date`` header if you like. At the deadline the server records ``TurnTimedOut`` and its bot \
decides for the seat; after 2 in a row the seat is away (``SeatAway``) until ``come_back``.

**Errors** are RFC 9457 problem details (``application/problem+json``) with a stable ``code``; \
each operation lists the codes it can answer, under their status.
"""
