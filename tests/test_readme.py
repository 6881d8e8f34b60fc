"""The README's Python example runs as written (docs that drift from the code mislead)."""

from __future__ import annotations

import re
from pathlib import Path

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
