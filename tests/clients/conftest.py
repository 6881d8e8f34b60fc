"""Fixtures of the client tests: the API tests' own (one real ``allfours serve`` for the
session on the shared test Redis, and an HTTP client of it), loaded from their file."""

from __future__ import annotations

import importlib.util

from client_support import ROOT

_spec = importlib.util.spec_from_file_location(
    "allfours_api_conftest", ROOT / "tests" / "api" / "conftest.py"
)
assert _spec is not None and _spec.loader is not None
_api = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_api)

server = _api.server
client = _api.client
