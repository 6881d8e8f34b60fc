"""Field descriptions for the OpenAPI spec, taken from the docstrings under struct fields.

The domain documents each field where it is declared (a string literal right under it, as in
``domain/events.py``). Python keeps no such docstring at run time, so they are read here from
the source, once per class, along the class's bases: the code stays the one place a field is
described, and the spec a client reads says the same.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import textwrap
from functools import cache

__all__ = ["field_descriptions", "type_description"]


@cache
def field_descriptions(cls: type) -> dict[str, str]:
    """``{field: docstring}`` for ``cls`` and its bases (the nearest definition wins)."""
    found: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        found.update(_own_field_docs(klass))
    return found


def type_description(cls: type) -> str | None:
    """The class docstring, as one paragraph per blank-line-separated block."""
    doc = cls.__dict__.get("__doc__")
    return inspect.cleandoc(doc) if doc else None


def _own_field_docs(klass: type) -> dict[str, str]:
    if klass.__module__ in ("builtins", "msgspec"):
        return {}
    try:
        source = textwrap.dedent(inspect.getsource(klass))
    except (OSError, TypeError):
        return {}
    tree = ast.parse(source)
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs: dict[str, str] = {}
    for node, following in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[node.target.id] = inspect.cleandoc(following.value.value)
    return docs
