"""Fixtures of the browser tests: Debian's chromium driven by Playwright against a real
``allfours serve`` on the shared test Redis.

The browser is installed when missing (``install_chromium.sh``, as root); Playwright never
downloads one. Screenshots go to ``ALLFOURS_SCREENSHOTS`` when set (``docs/screenshots`` to
refresh the README's), else to a temporary folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Browser, BrowserContext, Page, async_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))
from restartable import RestartableServer
from support import ServerProcess, start_server
from webplay import INSTANT_PACE

CHROMIUM = Path("/usr/bin/chromium")
INSTALLER = Path(__file__).with_name("install_chromium.sh")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Headless, as root, and quiet: without the networking flags Chromium tries to reach Google's
hosts at every start, which this machine's closed network refuses."""


@pytest.fixture(scope="session")
def chromium() -> Path:
    """Debian's chromium, installed first if missing (a minute or two: the browser tests'
    timeouts leave room for it, since it happens in the first one's setup)."""
    if not CHROMIUM.exists():
        if os.geteuid() != 0:
            pytest.skip("chromium is missing and only root can install it (install_chromium.sh)")
        subprocess.run(["bash", str(INSTALLER)], check=True, timeout=600)
    return CHROMIUM


@pytest.fixture(scope="session")
async def web_server(
    redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[ServerProcess]:
    """One ``allfours serve`` for the browser tests; it must stop cleanly after them."""
    process = await start_server(redis_url, tmp_path_factory.mktemp("web-server"))
    try:
        yield process
    finally:
        code = await process.stop()
    assert code == 0, f"the server crashed or hung:\n{process.log_tail()}"


@pytest.fixture(scope="session")
async def browser(chromium: Path) -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=str(chromium), args=CHROMIUM_ARGS, headless=True
        )
        yield launched
        await launched.close()


@pytest.fixture
async def context(browser: Browser, web_server: ServerProcess) -> AsyncIterator[BrowserContext]:
    """A fresh browser profile (its own localStorage: one person), at the instant pace."""
    ctx = await browser.new_context(
        base_url=web_server.url, viewport={"width": 1280, "height": 900}
    )
    await ctx.add_init_script(INSTANT_PACE)
    ctx.set_default_timeout(15_000)
    yield ctx
    await ctx.close()


@pytest.fixture
async def page(context: BrowserContext) -> AsyncIterator[Page]:
    """A page that fails the test on any script error (network errors are the tests' own
    business: a refused command or a dropped stream is logged by the browser too)."""
    new_page = await context.new_page()
    problems: list[str] = []
    new_page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    yield new_page
    assert not problems, problems


@pytest.fixture
async def api(web_server: ServerProcess) -> AsyncIterator[httpx.AsyncClient]:
    """The same server over HTTP, to compare what the page shows with what the API says."""
    async with httpx.AsyncClient(base_url=web_server.url, timeout=10.0) as client:
        yield client


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    chosen = os.environ.get("ALLFOURS_SCREENSHOTS")
    folder = Path(chosen) if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
async def restartable_server(redis_url: str, tmp_path: Path) -> AsyncIterator[RestartableServer]:
    server = RestartableServer(redis_url, tmp_path)
    await server.start()
    yield server
    if server.process is not None and server.process.proc.poll() is None:
        await server.stop()
