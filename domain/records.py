"""Immutable records for the compiled engine: what msgspec's frozen Structs give, for classes
that mypyc compiles (it cannot compile a Struct).

A record lists its attributes in ``FIELDS`` and declares them ``Final``: the compiled build
refuses every assignment at run time, the type checker (``mypy --strict`` on ``domain/`` and
``server/``) everywhere. Interpreted, the busiest records (``State``, ``Player``) are swapped for
frozen msgspec Structs made from these classes (``interpreted``), which refuse one too; the
others do not: a ``__setattr__`` that did would also run for every attribute of every record
the compiled build makes, at several times the cost of making it. ``Record`` gives equality,
a hash and a repr over those fields; ``KEEP`` is the default of a ``replace`` option.
"""

from __future__ import annotations

import enum
from typing import Any, ClassVar, Final


class Keep(enum.Enum):
    """The default of every ``replace`` option: the field keeps its value. An enum of one
    member, so that ``option is KEEP`` (a pointer comparison, compiled or not) tells the type
    checker the option was given."""

    KEEP = "keep"


KEEP: Final = Keep.KEEP


class Record:
    """Equality, hash and a readable repr over a class's ``FIELDS``, like a Struct's."""

    __slots__ = ()
    FIELDS: ClassVar[tuple[str, ...]] = ()

    def values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self.FIELDS])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record) or type(other) is not type(self):
            return NotImplemented
        return self.values() == other.values()

    def __hash__(self) -> int:
        return hash(self.values())

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its class and field values (in ``FIELDS`` order, the order every
        record's constructor takes them in): the service hands states to the processes that
        run the search bots."""
        return (_rebuild, (type(self), self.values()))

    def __repr__(self) -> str:
        fields = zip(self.FIELDS, self.values(), strict=True)
        pairs = ", ".join(f"{name}={value!r}" for name, value in fields)
        return f"{type(self).__name__}({pairs})"


def _rebuild(cls: type[Record], values: tuple[Any, ...]) -> Record:
    return cls(*values)
