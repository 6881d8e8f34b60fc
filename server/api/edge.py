"""The layers every HTTP answer passes through, including 404s and 405s that match no route.

Litestar 2 runs an app's ``middleware`` only inside a matched route, so an answer for an unknown
path or method would miss them: no ``X-Request-ID``, no access line, ``HEAD`` refused, a 405
without ``HEAD`` in its ``Allow``. These layers wrap the app's whole ASGI handler instead (inside
Litestar's own entry point, which sets ``scope["app"]`` first).
"""

from __future__ import annotations

from litestar import Litestar

from server.api.allow import allow_header_fix
from server.api.head import answer_head
from server.api.logs import request_logging


def wrap_edges(app: Litestar, access_log: bool) -> Litestar:
    """``app`` with request ids and logs outermost, then ``HEAD`` and ``Allow``, on every
    request; the access line names the method the client sent (``HEAD``, not ``GET``)."""
    app.asgi_handler = request_logging(access_log)(answer_head(allow_header_fix(app.asgi_handler)))
    return app
