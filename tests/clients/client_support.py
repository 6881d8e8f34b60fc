"""Paths and tools of the client tests (a module of its own: ``conftest`` is not importable by
name when several directories have one)."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from domain import CODES

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


# Ways a spec could type less than the server sends: a generated client's strict use must
# stop type-checking on each (the TypeScript and the Python client tests).


def _optional_target(spec: dict[str, Any]) -> None:
    spec["components"]["schemas"]["Rules"]["required"].remove("target")


def _walk(node: Any, change: Callable[[dict[str, Any]], None]) -> None:
    """``change`` every object of a spec, at any depth."""
    if isinstance(node, dict):
        change(node)
        for value in node.values():
            _walk(value, change)
    elif isinstance(node, list):
        for value in node:
            _walk(value, change)


def _cards_as_strings(spec: dict[str, Any]) -> None:
    _walk(spec, lambda node: node.pop("enum") if node.get("enum") == list(CODES) else None)


def _no_discriminator(spec: dict[str, Any]) -> None:
    _walk(spec, lambda node: node.pop("discriminator", None))
    for schema in spec["components"]["schemas"].values():
        if "const" in schema.get("properties", {}).get("type", {}):
            schema["properties"]["type"] = {"type": "string"}


LOOSER = {
    "a response field made optional": _optional_target,
    "cards made plain strings": _cards_as_strings,
    "events no longer told apart by their type": _no_discriminator,
}
