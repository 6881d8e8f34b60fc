"""The wheel's build hook: the compiled engine goes into every wheel the build backend makes.

``uv build``, ``pip install .`` and the container image's ``uv sync --no-editable`` all build
the wheel through hatchling, which runs this hook. It compiles the domain's logic modules with
mypyc (``scripts/compile_domain.py``'s :func:`build`) and ships them in ``domain/_native/``
beside a file naming the sources they were built from; ``domain/compiled.py`` loads them from
there. The wheel is then tagged for this interpreter and platform.

An editable install (what ``uv sync`` makes for a work tree) is left alone: there
``make env``/``make run`` keep the build under ``build/native/``. ``ALLFOURS_PURE_PYTHON=1``
builds a pure wheel, for a platform without a C compiler; otherwise a failed compilation
fails the build, so an image never ships the slow engine by accident.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

ROOT = Path(__file__).resolve().parent


def _compile_domain() -> ModuleType:
    """``scripts/compile_domain.py`` (not a package): loaded from its path."""
    spec = importlib.util.spec_from_file_location(
        "compile_domain", ROOT / "scripts" / "compile_domain.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class CompiledEngineHook(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":
            return
        compile_domain = _compile_domain()  # which puts this tree's domain on sys.path
        from domain import compiled

        if compiled.pure_requested(os.environ):
            return
        self._work = Path(tempfile.mkdtemp(prefix="allfours-engine-"))
        compile_domain.build(self._work)
        built = self._work / "domain"
        (built / compiled.WHEEL_FINGERPRINT).write_text(compiled.fingerprint(ROOT / "domain"))
        for path in sorted(built.iterdir()):
            build_data["force_include"][str(path)] = f"domain/{compiled.WHEEL_DIR}/{path.name}"
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        work = getattr(self, "_work", None)
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
