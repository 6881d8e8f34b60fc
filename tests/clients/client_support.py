"""Paths and tools of the client tests (a module of its own: ``conftest`` is not importable by
name when several directories have one)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "openapi" / "openapi.json"
VECTORS = ROOT / "docs" / "replay-vectors.json"
VERIFIER = Path(__file__).resolve().parent / "js" / "verify_replay.mjs"

# The API tests' helpers (a real server process, the SSE reader) serve these tests too.
sys.path.insert(0, str(ROOT / "tests" / "api"))


def tool_or_skip(name: str, what: str) -> str:
    """The executable ``name`` on PATH, or skip the test saying what is skipped."""
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"`{name}` is not on PATH (Node.js/npm not installed): {what} skipped")
    return found
