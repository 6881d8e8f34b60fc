"""The API's documentation page, ``/docs``: Swagger UI served from this package; and the spec at
``/openapi.json`` too, where tools look for it first.

Litestar's own pages load their scripts, styles, fonts and icon from CDNs, so ``/docs`` was blank
wherever the server cannot reach the internet (and told third parties who read the docs). Here the
page, Swagger UI's files (vendored from npm's ``swagger-ui-dist``, see ``static/swagger-ui``) and
the spec all come from the server itself, and the page links the spec a client is generated from.

The page's Content-Security-Policy allows what Swagger UI needs and nothing else: its script,
styles and icons from this server (``data:`` images: its stylesheet's icons), requests to this
server only (the spec, "Try it out"), no inline script or style (``static/docs.js`` starts it,
``static/docs.css`` styles the page's own line).
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from litestar import MediaType, Request, Response, Router, get
from litestar.datastructures import ResponseHeader
from litestar.enums import OpenAPIMediaType
from litestar.openapi.plugins import OpenAPIRenderPlugin
from litestar.utils import ensure_async_callable

from server.api.contract.problems import problem_response
from server.api.routes.static_files import static_files_router

ASSETS = Path(__file__).resolve().parent.parent / "static"
"""The files served under ``<docs path>/assets/``."""
_ASSETS_ROUTE = "docs_assets"
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)
"""The Content-Security-Policy of the docs (see the module)."""


class OfflineSwaggerUI(OpenAPIRenderPlugin):
    """Swagger UI at the docs root (and ``/swagger``), reading the spec from ``openapi.json``."""

    def __init__(self) -> None:
        super().__init__(path=["/", "/swagger"], favicon="")

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        spec = escape(self.get_openapi_json_route(request))
        title = escape(f"{openapi_schema['info']['title']} {openapi_schema['info']['version']}")

        def asset(name: str) -> str:
            return escape(request.app.route_reverse(_ASSETS_ROUTE, file_path=name))

        return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" type="image/png" href="{asset("swagger-ui/favicon-32x32.png")}">
<link rel="stylesheet" href="{asset("swagger-ui/swagger-ui.css")}">
<link rel="stylesheet" href="{asset("docs.css")}">
<script src="{asset("swagger-ui/swagger-ui-bundle.js")}" defer></script>
<script src="{asset("docs.js")}" defer></script>
</head>
<body>
<p class="spec-link">{title}: the OpenAPI document is
<a href="{spec}">{spec}</a>, what clients are generated from.</p>
<div id="swagger-ui" data-spec="{spec}"></div>
</body>
</html>
""".encode()

    def receive_router(self, router: Router) -> None:
        """The docs router (Litestar's, before it is registered): the assets, the page's
        policy on its answers, and problems instead of Litestar's HTML page for unknown paths."""
        router.register(static_files_router("/assets", ASSETS, _ASSETS_ROUTE))
        router.response_headers = [
            *(router.response_headers or ()),
            ResponseHeader(name="Content-Security-Policy", value=POLICY),
        ]
        router.after_request = ensure_async_callable(_problem_for_unknown_paths)


def _problem_for_unknown_paths(response: Response[Any]) -> Response[Any]:
    """Litestar answers an unknown path under the docs with an HTML "Error 404" page of its
    own, the one such answer of the API: the usual ``not_found`` problem instead."""
    if response.status_code == 404 and response.media_type == MediaType.HTML:
        return problem_response(None, 404, "not_found", "no such page of the documentation")
    return response


@get("/openapi.json", include_in_schema=False, sync_to_thread=False)
def spec_at_root(request: Request[Any, Any, Any]) -> Response[dict[str, Any]]:
    """The document of ``/docs/openapi.json``, at the path API tools try by default."""
    return Response(
        request.app.openapi_schema.to_schema(), media_type=OpenAPIMediaType.OPENAPI_JSON
    )
