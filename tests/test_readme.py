"""The README's examples run as written (docs that drift from the code mislead): the Python
example, and the curl walkthrough against a real server."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "api"))
from support import start_server

README = Path(__file__).parent.parent / "README.md"


def test_readme_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "the README shows how to play a chosen deal"
    for block in blocks:
        namespace: dict[str, object] = {}
        exec(compile(block, str(README), "exec"), namespace)
        assert "state" in namespace


def test_readme_shows_the_two_commands() -> None:
    text = README.read_text()
    assert "make run" in text and "make test" in text


def walkthrough() -> str:
    """The shell blocks of the curl walkthrough, in order, as one script."""
    text = README.read_text()
    section = text[text.index("## Playing over HTTP") : text.index("## The API at a glance")]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert len(blocks) >= 5, "the walkthrough is shell blocks"
    return "\n".join(blocks)


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed (.ci/run installs it)")
async def test_the_curl_walkthrough_runs_as_written(
    redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    server = await start_server(redis_url, tmp_path_factory.mktemp("readme"))
    try:
        done = await asyncio.to_thread(
            subprocess.run,
            ["bash", "-e", "-c", walkthrough()],
            env={**os.environ, "BASE": server.url},
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        assert await server.stop() == 0
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(r'"phase":"ended","end_reason":"target","winner":[01]', out), out
    assert '"code":"game_over"' in out, out
    assert "event: GameCreated" in out, out
    assert '"format":"allfours-replay"' in out, out
