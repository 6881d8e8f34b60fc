"""How the OpenAPI document presents the service: its version (the package's), the overview a
client reads first (the contract's text from ``contract_text``, headers on every answer, where
the document and the operations endpoints are), the seat-token scheme, and where it is served:
``/docs/openapi.json``, shown at ``/docs``."""

from __future__ import annotations

from importlib.metadata import version

from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme, Server, ServerVariable

from server.api.contract.contract_text import CONTRACT
from server.api.edge.cors import EXPOSED_HEADERS
from server.api.routes.docs_page import OfflineSwaggerUI

DOCS_PATH = "/docs"
SPEC_PATH = f"{DOCS_PATH}/openapi.json"

DESCRIPTION = f"""All Fours (Trinidad) game server: create tables, take seats, play over HTTP \
and follow games live over Server-Sent Events. Errors are RFC 9457 problem details with a \
stable ``code``.
{CONTRACT}
**This document** is served at ``{SPEC_PATH}`` (and ``/openapi.json``); ``{DOCS_PATH}`` shows \
it (Swagger UI, served by this server: no other host is needed).

**Headers.** Every answer, errors and unknown paths included, carries ``X-Request-ID``: the \
caller's own (at most 128 characters) or one made up. Quote it in a bug report: the server's \
log lines for that request carry it too. ``HEAD`` is answered wherever ``GET`` is, with the \
same status and headers and no body (RFC 9110); ``Allow`` (on ``OPTIONS`` and 405) lists it. \
A browser page on an allowed origin (``ALLFOURS_CORS_ORIGINS``) may read these response \
headers: {", ".join(f"``{name}``" for name in EXPOSED_HEADERS)}.

**Operations endpoints**: ``GET /livez`` and ``GET /readyz`` (below), and ``GET /metrics``, \
the Prometheus text exposition format for an operator's scraper, left out of the operations \
here because no client needs it: requests by path template, ``allfours_commands_total``, \
``allfours_sse_subscribers``, ``allfours_store_append_seconds``, counted per worker process."""


def openapi_config() -> OpenAPIConfig:
    """The app's OpenAPI settings: ``info.version`` is the installed package's version."""
    return OpenAPIConfig(
        title="allfours",
        version=version("allfours"),
        description=DESCRIPTION,
        # One server, its base URL a variable: a generated client takes the default
        # (``make run``'s address) or its own. Not "/": generators that bake the first
        # server into the client made every request relative, to no host. The /docs page
        # puts its own origin there instead (static/docs.js).
        servers=[
            Server(
                url="{base}",
                description="An allfours server: scheme, host and port, no path",
                variables={
                    "base": ServerVariable(
                        default="http://127.0.0.1:8000",
                        description="``make run`` serves on http://127.0.0.1:8000",
                    )
                },
            ),
        ],
        path=DOCS_PATH,
        render_plugins=[OfflineSwaggerUI(), JsonRenderPlugin()],
        components=Components(
            security_schemes={
                "seatToken": SecurityScheme(
                    type="http",
                    scheme="bearer",
                    description="The seat token returned once by takeSeat "
                    "(``<game>.<seat>.<secret>``), sent as ``Authorization: Bearer <token>``. "
                    "Reads (GET) also take it as the ``token`` query parameter, for a "
                    "browser's EventSource, which cannot set headers; writes (POST) only in "
                    "the header (a token in a POST's query is not read).",
                ),
                "creatorToken": SecurityScheme(
                    type="http",
                    scheme="bearer",
                    description="The creator token returned once by createGame "
                    "(``<game>.creator.<secret>``), sent as ``Authorization: Bearer <token>``: "
                    "it seats bots in the table (addBot) and closes it before its first card "
                    "(abortTable), whether or not its holder sits at the table.",
                ),
                "playerKey": SecurityScheme(
                    type="http",
                    scheme="bearer",
                    description="The player key returned once by createPlayer "
                    "(``<player id>.player.<secret>``), sent as ``Authorization: Bearer "
                    "<key>``, never in a URL: the player's own endpoints, reissueSeatToken, "
                    "and takeSeat (the seat is then linked to the player).",
                ),
            }
        ),
    )
