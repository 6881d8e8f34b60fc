"""Debian's chromium for the API's browser tests, driven by Playwright (which never downloads a
browser of its own here): installed when missing, launched headless, one page per test."""

from __future__ import annotations

import os
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from support import ROOT

CHROMIUM = Path("/usr/bin/chromium")
INSTALLER = ROOT / "tests" / "web" / "install_chromium.sh"
CHROMIUM_ARGS = [
    *("--no-sandbox", "--headless", "--disable-gpu", "--disable-quic", "--no-first-run"),
    *("--disable-background-networking", "--disable-component-update", "--disable-sync"),
]
"""Headless, as root, and quiet: no calls to Google's hosts, which this network refuses."""


def ensure_chromium() -> Path | None:
    """The browser, installed first if missing and we may (root); None if it cannot be had."""
    if not CHROMIUM.exists():
        if os.geteuid() != 0 or not INSTALLER.exists():
            return None
        subprocess.run(["bash", str(INSTALLER)], check=True, timeout=600)
    return CHROMIUM


@asynccontextmanager
async def browser_page() -> AsyncIterator[tuple[Any, list[str]]]:
    """A page of a fresh browser, and the script errors it reports; the test is skipped where
    Playwright or chromium cannot be had."""
    playwright = pytest.importorskip("playwright.async_api")
    chromium = ensure_chromium()
    if chromium is None:
        pytest.skip("Debian's chromium is missing (apt-get install chromium, as root)")
    async with playwright.async_playwright() as driver:
        browser = await driver.chromium.launch(
            executable_path=str(chromium), args=CHROMIUM_ARGS, headless=True
        )
        try:
            page = await browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            yield page, errors
        finally:
            await browser.close()
