"""The import contract (``pyproject.toml``'s ``[tool.importlinter]``, run by ``make test``) can
fail: a copy of the sources with one forbidden import added is refused, naming the contract,
while the copy as it is passes. Each case plants the import a careless change would make."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _copy(tmp_path: Path) -> Path:
    for package in ("domain", "server"):
        shutil.copytree(
            ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("*.so", "__pycache__")
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_sources_as_they_are_keep_every_contract(tmp_path: Path) -> None:
    result = _lint(_copy(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "planted", "contract"),
    [
        ("domain/cards.py", "import server.api.app", "The rules (domain) import nothing"),
        ("server/store/keys.py", "import server.service", "The store and the tokens"),
        ("server/tokens.py", "import server.api.auth", "The store and the tokens"),
        ("server/ops/check.py", "import server.api.routes.games", "do not import each other"),
        ("server/api/contract/problems.py", "import server.api.routes.games", "Inside the API"),
        ("server/api/edge/cors.py", "import server.api.app", "Inside the API"),
    ],
)
def test_a_forbidden_import_breaks_the_contract(
    tmp_path: Path, module: str, planted: str, contract: str
) -> None:
    tree = _copy(tmp_path)
    target = tree / module
    target.write_text(target.read_text() + f"\n{planted}  # planted by the test\n")
    result = _lint(tree)
    assert result.returncode != 0, result.stdout
    broken = result.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken, result.stdout
