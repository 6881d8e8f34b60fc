"""CORS for browser clients on other origins (``ALLFOURS_CORS_ORIGINS``).

A page on another origin sees only the CORS-safelisted response headers unless the answer names
the others in ``Access-Control-Expose-Headers``; the contract's headers (the view's ``ETag``,
``Retry-After`` on 429 and 503, the request id, the 401's challenge) would be invisible to it.
Every header the contract documents is listed here (a test compares this with the spec).
"""

from __future__ import annotations

from collections.abc import Sequence

from litestar.config.cors import CORSConfig

EXPOSED_HEADERS = ("Allow", "ETag", "Retry-After", "WWW-Authenticate", "X-Request-ID")
"""The response headers of the contract that a cross-origin script may read."""


def cors_config(origins: Sequence[str]) -> CORSConfig | None:
    """CORS for ``origins`` (none: no CORS headers, browsers keep to the same origin)."""
    if not origins:
        return None
    return CORSConfig(allow_origins=list(origins), expose_headers=list(EXPOSED_HEADERS))
