"""The client's files as the server ships them: every page address answers with the page,
every file a module imports is there, nothing is loaded from elsewhere, and the API around
them (``/docs``, ``/v1``, ``/livez``, ``/metrics``) is untouched and undocumented by them."""

from __future__ import annotations

import re

import httpx
import pytest

from server.api.routes.web import WEB_DIR

pytestmark = pytest.mark.e2e

MODULES = sorted((WEB_DIR / "js").glob("*.js"))
IMPORT = re.compile(r'^import .* from "\./([\w.]+)";$', re.MULTILINE)


@pytest.mark.parametrize(
    "path",
    ["/", "/replay", "/table/abc123", "/replay/abc123", "/me", "/leaderboard", "/players/p0a"],
)
async def test_every_page_address_answers_with_the_page(api: httpx.AsyncClient, path: str) -> None:
    response = await api.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/static/js/app.js">' in response.text
    policy = response.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "connect-src 'self'" in policy


async def test_every_file_the_page_loads_is_served(api: httpx.AsyncClient) -> None:
    page = (await api.get("/")).text
    assets = re.findall(r'(?:href|src)="(/static/[^"]+)"', page)
    assert len(assets) >= 3, assets
    for module in MODULES:
        assets.append(f"/static/js/{module.name}")
        for imported in IMPORT.findall(module.read_text()):
            assert (WEB_DIR / "js" / imported).exists(), f"{module.name} imports {imported}"
    for asset in assets:
        response = await api.get(asset)
        assert response.status_code == 200, asset
        assert response.headers["cache-control"] == "no-cache", asset
    js = await api.get("/static/js/app.js")
    assert js.headers["content-type"].startswith("text/javascript")


def test_nothing_is_loaded_from_elsewhere() -> None:
    """Offline by construction: no CDN, no web font, no absolute URL in any file."""
    for path in WEB_DIR.rglob("*"):
        if path.is_file() and path.suffix in {".html", ".css", ".js"}:
            text = path.read_text()
            assert not re.search(r"https?://|//cdn|@import|url\(", text), path.name


async def test_the_api_around_the_pages_is_unchanged(api: httpx.AsyncClient) -> None:
    assert (await api.get("/livez")).status_code == 200
    assert (await api.get("/metrics")).status_code == 200
    assert (await api.get("/docs/openapi.json")).status_code == 200
    spec = (await api.get("/docs/openapi.json")).json()
    assert all(path.startswith(("/v1/", "/livez", "/readyz")) for path in spec["paths"])
    missing = await api.get("/v1/no-such-thing")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")
