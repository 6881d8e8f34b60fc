"""TypeScript types generated from ``openapi/openapi.json`` by ``openapi-typescript`` type-check
a small client (``ts/client.ts``: create, take a seat, view, command, events, stream, replay).

The npm packages are pinned by the committed ``ts/package-lock.json`` and installed with
``npm ci`` once per lock file, into a cache under /var/tmp (a directory named by the lock's
hash), so later runs only generate and compile. Skipped, saying so, where Node.js or npm is
missing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from client_support import LOOSER, SPEC, tool_or_skip

TS = Path(__file__).resolve().parent / "ts"
CACHE_ROOT = Path(os.environ.get("ALLFOURS_NPM_CACHE", "/var/tmp"))
GENERATOR_OPTIONS = ("--default-non-nullable", "false")
"""openapi-typescript 7 makes every property that has a default required, in request bodies
too (a client would have to send every rule option): the README's "Generated clients" says why
this option is given."""


def run(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )


def installed_packages() -> Path:
    """``node_modules`` of the committed lock file, installed by ``npm ci`` on first use."""
    npm = tool_or_skip("npm", "the TypeScript client check")
    lock = (TS / "package-lock.json").read_bytes() + (TS / "package.json").read_bytes()
    cache = CACHE_ROOT / f"allfours-ts-{hashlib.sha256(lock).hexdigest()[:16]}"
    if not (cache / "node_modules" / ".bin" / "tsc").exists():
        building = cache.with_name(f"{cache.name}.building-{os.getpid()}")
        shutil.rmtree(building, ignore_errors=True)
        building.mkdir(parents=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy(TS / name, building / name)
        result = run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], building)
        assert result.returncode == 0, result.stdout + result.stderr
        try:
            building.rename(cache)  # atomic: a concurrent run either sees all of it or none
        except OSError:
            shutil.rmtree(building, ignore_errors=True)  # another run got there first
    return cache / "node_modules"


def checked_client(
    where: Path, extra: str = "", spec: Path = SPEC
) -> subprocess.CompletedProcess[str]:
    """Generate the types from ``spec`` into ``where`` next to the client (plus ``extra``
    code) and run ``tsc --noEmit`` over it."""
    node = tool_or_skip("node", "the TypeScript client check")
    modules = installed_packages()
    where.mkdir(parents=True, exist_ok=True)
    (where / "node_modules").symlink_to(modules, target_is_directory=True)
    shutil.copy(TS / "tsconfig.json", where / "tsconfig.json")
    (where / "client.ts").write_text((TS / "client.ts").read_text() + extra)
    generator = modules / "openapi-typescript" / "bin" / "cli.js"
    generated = run(
        [node, str(generator), *GENERATOR_OPTIONS, str(spec), "-o", "schema.d.ts"], where
    )
    output = generated.stdout + generated.stderr
    assert generated.returncode == 0, output
    assert "warn" not in output.lower(), f"openapi-typescript warns about the spec:\n{output}"
    return run([node, str(modules / "typescript" / "bin" / "tsc"), "-p", "tsconfig.json"], where)


def test_the_client_type_checks_against_the_generated_types(tmp_path: Path) -> None:
    result = checked_client(tmp_path / "client")
    assert result.returncode == 0, result.stdout + result.stderr


MISTAKES = {
    "an unknown bot kind": 'void createClient<paths>({}).POST("/v1/games", '
    '{ body: { bots: ["genius", null, null, null] } });',
    "a path the spec does not have": "void createClient<paths>({}).GET("
    '"/v1/games/{game_id}/moves", { params: { path: { game_id: "g" } } });',
    "a card that is no card": 'export const card: Schemas["PlayCommand"]["card"] = "1Z";',
    "a view field that does not exist": (
        'export const seen = (view: Schemas["View"]): number => view.hand_count;'
    ),
}


def test_the_types_refuse_what_the_spec_refuses(tmp_path: Path) -> None:
    first = len((TS / "client.ts").read_text().splitlines()) + 2
    result = checked_client(tmp_path / "client", "\n" + "\n".join(MISTAKES.values()) + "\n")
    for line, mistake in enumerate(MISTAKES, start=first):
        assert f"client.ts({line}," in result.stdout, f"tsc accepted {mistake}:\n{result.stdout}"


@pytest.mark.parametrize("loosen", LOOSER.values(), ids=list(LOOSER))
def test_the_client_stops_compiling_on_a_looser_spec(
    tmp_path: Path, loosen: Callable[[dict[str, Any]], None]
) -> None:
    """The client's strict part is a real check: each way a spec could type less than the
    server sends makes it fail to compile."""
    spec = json.loads(SPEC.read_text())
    loosen(spec)
    looser = tmp_path / "openapi.json"
    looser.write_text(json.dumps(spec))
    result = checked_client(tmp_path / "client", spec=looser)
    assert result.returncode != 0, "tsc accepted a looser spec"
