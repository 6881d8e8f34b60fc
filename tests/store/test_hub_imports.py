"""The store's modules import one another one way only: the store builds its hubs, the hubs see
the store through the reader protocol of ``port.py``, and nothing imports back (the store, the
hub and the cluster hub used to import each other in a circle)."""

from __future__ import annotations

import ast
from pathlib import Path

import server.store

STORE = Path(server.store.__file__).parent


def store_imports() -> dict[str, set[str]]:
    """Each module of ``server/store`` (by name) with the sibling modules it imports."""
    siblings = {path.stem for path in STORE.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in STORE.glob("*.py"):
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
                imported.add(node.module.split(".")[0])
            elif isinstance(node, ast.ImportFrom) and node.level == 1:
                imported |= {alias.name for alias in node.names}
        graph[path.stem] = imported & siblings
    return graph


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(graph[start])
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(graph[module])
    return seen


def test_no_store_module_imports_itself_back() -> None:
    graph = store_imports()
    assert {name for name in graph if name in reachable(graph, name)} == set()


def test_the_hubs_do_not_depend_on_the_store() -> None:
    graph = store_imports()
    for hub in ("hub", "cluster_hub", "doorbells", "puller", "subscription"):
        assert "redis_store" not in reachable(graph, hub), hub
    assert "cluster_hub" not in reachable(graph, "hub")
