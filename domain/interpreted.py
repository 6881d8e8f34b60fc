"""The interpreted engine's records: msgspec Structs with the fields and methods of a compiled
record class.

A ``Record`` is what the compiled engine wants (mypyc reads its attributes straight from the
object), but interpreted it is slow where the engine is busiest: ``State.replace`` is 41
conditional expressions and ``__init__`` 41 attribute stores, all bytecode, for every event
folded and every card of a playout. A frozen msgspec Struct does both in C. So where the
engine runs interpreted (no compiler on the platform, or ``ALLFOURS_PURE_PYTHON``), the
record module swaps its class for a Struct made here from the class itself: the same fields in
the same order with the same defaults, the same methods and properties, the same equality,
hash and pickling. The field list stays written once, in the class.
"""

from __future__ import annotations

from typing import Any, TypeVar, cast

import msgspec

from domain.records import Record

R = TypeVar("R", bound=Record)

_SKIPPED = frozenset(
    {"__init__", "__slots__", "__dict__", "__weakref__", "__module__", "__annotations__"}
    | {"__hash__", "replace"}
)
"""What the Struct makes for itself: its constructor, slots, field descriptors and hash (over
the same fields) replace the class's."""


def as_struct(cls: type[R], *, gc: bool = True) -> type[R]:
    """A frozen Struct standing in for ``cls``: its ``FIELDS`` with the defaults of its
    ``__init__``, its methods and properties (``Record``'s ``values`` included), and a
    ``replace`` that takes the same options. ``gc=False`` for a record that can be in no
    reference cycle: the collector then never tracks it, and a game makes one per event."""
    defaults: tuple[Any, ...] = getattr(cls.__init__, "__defaults__", None) or ()
    required = len(cls.FIELDS) - len(defaults)
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = [
        (name, Any) for name in cls.FIELDS[:required]
    ]
    fields += [
        (name, Any, default) for name, default in zip(cls.FIELDS[required:], defaults, strict=True)
    ]
    namespace = {
        name: member
        for name, member in vars(cls).items()
        if name not in _SKIPPED and name not in cls.FIELDS
    }
    namespace["values"] = Record.values
    # Struct's own ``__replace__`` (``copy.replace``'s method): a method of the base type,
    # called as one (no bound object made per call), where a Python-level descriptor cost a
    # third more per event folded than the copy itself.
    namespace["replace"] = msgspec.Struct.__replace__
    struct = msgspec.defstruct(
        cls.__name__, fields, namespace=namespace, module=cls.__module__, frozen=True, gc=gc
    )
    return cast("type[R]", struct)
