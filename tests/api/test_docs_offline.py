"""The spec is served at a documented path, ``/docs`` links it and works with no other host
reachable (checked in a real browser that may reach nothing but the server), ``info.version``
is the package's, and ``/metrics`` is described as an operations endpoint."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from importlib.metadata import version
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from chromium import browser_page
from support import ROOT, ServerProcess

from server.api.spec import DOCS_PATH, SPEC_PATH

COMMITTED: dict[str, Any] = json.loads((ROOT / "openapi" / "openapi.json").read_text())


class _References(HTMLParser):
    """Every URL a page names in ``src``, ``href`` or a ``data-`` attribute."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and (name in ("src", "href") or name.startswith("data-")):
                self.urls.append(value)
                if tag == "a":
                    self.links.append(value)


async def references(client: httpx.AsyncClient) -> _References:
    page = await client.get(DOCS_PATH)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    parser = _References()
    parser.feed(page.text)
    return parser


@pytest.mark.parametrize("path", [SPEC_PATH, "/openapi.json"])
async def test_the_spec_is_served_at_its_documented_paths(
    client: httpx.AsyncClient, path: str
) -> None:
    served = await client.get(path)
    assert served.status_code == 200, served.text
    assert served.headers["content-type"].startswith("application/vnd.oai.openapi+json")
    assert served.json() == COMMITTED
    assert path in COMMITTED["info"]["description"]


async def test_docs_link_the_spec_and_name_no_other_host(client: httpx.AsyncClient) -> None:
    page = await references(client)
    assert SPEC_PATH in page.links, page.links
    assert page.urls, "the page loads nothing?"
    for url in page.urls:
        parts = urlsplit(url)
        assert not parts.scheme and not parts.netloc and url.startswith("/"), url
        loaded = await client.get(url)
        assert loaded.status_code == 200, (url, loaded.status_code)
    assert not re.search(r"https?://", (await client.get(DOCS_PATH)).text)


def test_info_version_is_the_package_version() -> None:
    assert COMMITTED["info"]["version"] == version("allfours")


def test_metrics_is_described_as_an_operations_endpoint() -> None:
    description = COMMITTED["info"]["description"]
    assert "GET /metrics" in description and "Prometheus" in description
    assert "/metrics" not in COMMITTED["paths"]


async def test_docs_render_in_a_browser_that_reaches_only_the_server(
    server: ServerProcess,
) -> None:
    own = urlsplit(server.url).netloc
    refused: list[str] = []

    async def only_the_server(route: Any) -> None:
        if urlsplit(route.request.url).netloc == own:
            await route.continue_()
        else:
            refused.append(route.request.url)
            await route.abort()

    operations = sum(
        method in ("get", "post", "put", "patch", "delete")
        for item in COMMITTED["paths"].values()
        for method in item
    )
    async with browser_page() as (page, errors):
        await page.route("**/*", only_the_server)
        await page.goto(server.url + DOCS_PATH)
        await page.wait_for_selector(".opblock", timeout=15_000)
        shown = await page.locator(".opblock").count()
        title = await page.locator(".info .title").inner_text()
        # "Try it out" calls this server (the spec's own server is a generated client's).
        tried_on = await page.locator(".servers select").input_value()
    assert tried_on == server.url, tried_on
    assert not errors, errors
    assert not refused, f"the docs reached for other hosts: {refused}"
    assert shown == operations, (shown, operations)
    assert version("allfours") in title, title
