"""The browser client's routes: its static files and the pages that load it.

The client (``server/web/``) is plain files: ES modules, one stylesheet, no build step. It is
served as it is in the package, at ``/static/``; every page a person can land on (the lobby,
a table, a replay, my games, a profile, the leaderboard) answers with the same ``index.html``,
whose script routes by the URL, so a table's or a replay's link can be shared and reloaded.
None of this is part of the API: the routes stay out of the OpenAPI document, and the client
uses only the public ``/v1`` API.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar import MediaType, Request, Response, Router, get
from litestar.datastructures import CacheControlHeader
from litestar.params import FromPath

from server.api.routes.static_files import static_files_router

__all__ = ["WEB_DIR", "not_found_page", "wants_a_page", "web_router"]

WEB_DIR = Path(__file__).resolve().parents[2] / "web"
"""The client's files, shipped inside the ``server`` package."""

_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
"""Content-Security-Policy of the pages: the client talks to this server only, so a stray
third-party request (a CDN, a font) is refused by the browser instead of quietly working. (The
headers every answer has, ``nosniff`` and the others, come from ``server.api.edge.layers``.)"""

_REVALIDATE = CacheControlHeader(no_cache=True)
"""Files are not fingerprinted: browsers revalidate them (cheap, with ETags) so a new server
version is picked up at the next load."""


_NOT_PAGES = ("/v1/", "/docs", "/static/", "/metrics", "/livez", "/readyz", "/openapi")
"""Paths whose misses are the API's (a problem in JSON), whatever the client accepts."""


def wants_a_page(request: Request[Any, Any, Any]) -> bool:
    """Whether a miss should answer with a page: a browser (it accepts HTML) asking for a
    path outside the API, the docs and the static files."""
    if request.method not in ("GET", "HEAD"):
        return False
    path = request.url.path
    return "text/html" in request.headers.get("accept", "") and not path.startswith(_NOT_PAGES)


def not_found_page() -> Response[bytes]:
    """The client's page with status 404: its router shows "page not found" for the URL."""
    return _page(status_code=404)


def _page(status_code: int = 200) -> Response[bytes]:
    # Read per request: a few KB, and an edited file shows at the next reload in development.
    return Response(
        (WEB_DIR / "index.html").read_bytes(),
        status_code=status_code,
        media_type=MediaType.HTML,
        headers={
            "Content-Security-Policy": _POLICY,
            "Cache-Control": _REVALIDATE.to_header(),
        },
    )


@get(["/", "/replay", "/me", "/leaderboard"], include_in_schema=False, sync_to_thread=False)
def lobby_page() -> Response[bytes]:
    """The lobby, the replay viewer's file picker, the person's own page (settings and their
    games) and the leaderboard."""
    return _page()


@get(
    ["/table/{game_id:str}", "/replay/{game_id:str}"], include_in_schema=False, sync_to_thread=False
)
def game_page(game_id: FromPath[str]) -> Response[bytes]:
    """A table (seated or watching) or a finished game's replay: the script reads the id."""
    del game_id  # routed by the script from the URL
    return _page()


@get("/players/{player_id:str}", include_in_schema=False, sync_to_thread=False)
def profile_page(player_id: FromPath[str]) -> Response[bytes]:
    """A player's public profile: the script reads the id."""
    del player_id  # routed by the script from the URL
    return _page()


web_router = Router(
    path="/",
    route_handlers=[
        lobby_page,
        game_page,
        profile_page,
        static_files_router("/static", WEB_DIR, "web", cache_control=_REVALIDATE),
    ],
    include_in_schema=False,
)
