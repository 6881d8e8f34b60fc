"""Compile the domain's logic modules with mypyc, with this machine's C compiler.

``make env`` and ``make run`` run this after syncing the environment. It does nothing when the
build of the current sources is already there (see ``domain/compiled.py``, which decides what
is loaded), and nothing when ``ALLFOURS_PURE_PYTHON`` is set. A failed build fails loudly (set
that variable to work without a C compiler), except with ``--or-pure``, which ``make run``
passes: a machine without a compiler still serves, on the pure engine, and says so.
The wheel's build hook (``hatch_build.py``) compiles with :func:`build` too.

Several processes may build at once (people and CI share a work tree): each builds in a folder
of its own and renames it into place; the first rename wins and the others are discarded.
Builds of older sources are removed.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the domain package as it is in this work tree

from domain.compiled import COMPILED, build_dir, pure_requested  # noqa: E402


def main(args: list[str]) -> int:
    if pure_requested(os.environ):
        print("compile_domain: ALLFOURS_PURE_PYTHON is set, nothing to build")
        return 0
    package = ROOT / "domain"
    target = build_dir(package)
    if target.is_dir():
        return 0
    target.parent.mkdir(parents=True, exist_ok=True)
    print(f"compile_domain: compiling domain/{{{','.join(COMPILED)}}}.py with mypyc")
    work = Path(tempfile.mkdtemp(prefix=".building-", dir=target.parent))
    try:
        try:
            build(work)
        except (Exception, SystemExit) as exc:  # no compiler, no headers: the sources run
            if "--or-pure" not in args:
                raise
            print(f"compile_domain: could not compile ({exc}); the pure engine will run")
            return 0
        try:
            work.rename(target)
        except OSError:  # another process put the same build in place first
            return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for older in target.parent.iterdir():
        if older != target and not older.name.startswith(".building-"):
            shutil.rmtree(older, ignore_errors=True)
    return 0


def build(work: Path) -> None:
    """Compile the modules of ``COMPILED`` into ``work/domain/`` (and nothing else there)."""
    from mypyc.build import mypycify
    from setuptools import setup  # type: ignore[import-untyped]

    here = Path.cwd()
    try:
        # mypyc names modules by their path from the current folder.
        os.chdir(ROOT)
        extensions = mypycify(
            [f"domain/{name}.py" for name in COMPILED],
            opt_level="3",
            group_name="domain.engine",
            target_dir=str(work / "c"),
        )
        # setuptools reads the pyproject.toml of the current folder: build away from it.
        os.chdir(work)
        setup(
            name="allfours-domain-compiled",
            packages=[],
            ext_modules=extensions,
            script_args=[
                "--quiet",
                "build_ext",
                "--build-lib",
                str(work),
                "--build-temp",
                str(work / "objects"),
            ],
        )
    finally:
        os.chdir(here)
    shutil.rmtree(work / "c")
    shutil.rmtree(work / "objects")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
