"""Where the compiled build of the engine is, and whether this process may use it.

The logic modules of the domain (``COMPILED``) can be compiled with mypyc into C extensions
(``scripts/compile_domain.py``, run by ``make env``): the same source, about three times the
self-played games a second of the pure modules. Modules that define msgspec Structs stay
interpreted, and every module keeps its pure-Python source, which is what runs whenever the
build is missing, stale, or refused.

In a work tree a build lives in ``build/native/<fingerprint>/domain/``; in an installed wheel
(built by ``hatch_build.py``) in the package's ``_native/`` folder, with the fingerprint in a
file beside the modules. The fingerprint covers every source file of the package and the
interpreter: a build of other sources is never loaded, so an edited module runs as written
until the next build. ``ALLFOURS_PURE_PYTHON=1`` refuses the build (``make test`` runs the
domain tests both ways). This is the domain's only reading of files and of the environment,
once, at import, to choose which code runs the same rules.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Mapping
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType

PURE_ENV = "ALLFOURS_PURE_PYTHON"
"""Set (to anything but empty or 0) to run the pure-Python modules even when a build exists."""
COMPILED = (
    "records",
    "cards",
    "seeds",
    "state",
    "legal",
    "evolve",
    "decide",
    "sight",
    "policy",
    "winprob",
    "worlds",
    "playout",
    "search",
    "bots",
    "autoplay",
)
"""The modules a build compiles: the state, the rules and the self-play loop, no msgspec Struct
among them (mypyc cannot compile a Struct class)."""
BUILD_FORMAT = 1
"""Bumped when the layout of a build changes, so that older builds are no longer found."""
WHEEL_DIR = "_native"
"""The folder of the package that holds a wheel's compiled modules."""
WHEEL_FINGERPRINT = "FINGERPRINT"
"""The file of that folder naming the sources it was built from."""


def fingerprint(package_dir: Path) -> str:
    """A digest of every source file of the package, the build format and the interpreter."""
    digest = hashlib.sha256(f"{BUILD_FORMAT}:{sys.implementation.cache_tag}".encode())
    for source in sorted(package_dir.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def build_dir(package_dir: Path) -> Path:
    """Where the build of the package's current sources is (or would be)."""
    return package_dir.parent / "build" / "native" / fingerprint(package_dir)


def pure_requested(environ: Mapping[str, str]) -> bool:
    return environ.get(PURE_ENV, "") not in ("", "0")


def compiled_path(package_dir: Path, environ: Mapping[str, str]) -> str | None:
    """The folder of compiled modules to search before the sources, or None to run pure."""
    if pure_requested(environ):
        return None
    modules = build_dir(package_dir) / "domain"
    if modules.is_dir():
        return str(modules)
    wheel = package_dir / WHEEL_DIR
    try:
        built_from = (wheel / WHEEL_FINGERPRINT).read_text().strip()
    except OSError:
        return None
    return str(wheel) if built_from == fingerprint(package_dir) else None


def engine_of(module: ModuleType) -> str:
    """``compiled`` when ``module`` was loaded from a C extension, else ``pure``: what runs,
    not what was asked for (a stale or missing build runs the sources)."""
    path = getattr(module, "__file__", None) or ""
    return "compiled" if path.endswith(tuple(EXTENSION_SUFFIXES)) else "pure"
