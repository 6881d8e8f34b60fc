"""The compiled build is loaded exactly when it is a build of the current sources and the pure
modules were not asked for; ``make test`` runs the domain's tests both ways."""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path

import pytest

import domain
from domain.compiled import COMPILED, PURE_ENV, build_dir, compiled_path, fingerprint

PACKAGE = Path(domain.__file__).parent


def _loaded_from(name: str) -> str:
    return importlib.import_module(f"domain.{name}").__file__ or ""


def test_this_process_runs_the_build_of_these_sources_unless_pure_was_asked():
    pure = os.environ.get(PURE_ENV, "") not in ("", "0")
    built = (build_dir(PACKAGE) / "domain").is_dir()
    if not pure and not built:
        pytest.skip("no build of these sources: `make env` compiles them")
    for name in COMPILED:
        path = _loaded_from(name)
        if pure:
            assert path == str(PACKAGE / f"{name}.py")
        else:
            assert path.startswith(str(build_dir(PACKAGE))) and path.endswith(".so"), path
    # Struct-defining modules always run as written.
    assert _loaded_from("events") == str(PACKAGE / "events.py")


def test_a_build_of_other_sources_is_not_found(tmp_path):
    package = tmp_path / "domain"
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    assert fingerprint(package) == fingerprint(PACKAGE)
    (build_dir(package) / "domain").mkdir(parents=True)
    assert compiled_path(package, {}) == str(build_dir(package) / "domain")
    assert compiled_path(package, {PURE_ENV: "1"}) is None
    assert compiled_path(package, {PURE_ENV: "0"}) is not None

    edited = package / "decide.py"
    edited.write_text(edited.read_text() + "\n# an edit\n")
    assert compiled_path(package, {}) is None
