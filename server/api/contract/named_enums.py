"""The enums the spec names as components (``Card``, ``Suit``, ``BotLevel``, ``EndReason``), so
that a client generator makes one type of each, used wherever a card, a suit, a bot level or the
way a game ended appears.

The wire types (``domain.wire``) are ``Literal`` aliases, which Litestar writes inline: 52
card codes repeated under every field, which a generator turns into a separate enum per field
(openapi-python-client made fourteen card classes, and a card of a view could not be sent back
as a command's without converting it). The spec instead refers to one component per enum: each
inline schema whose values are exactly one of these enums' becomes a reference to it (with
null beside it where the field may be null). Only the document changes: the server still
decodes and encodes the plain strings of ``domain.wire``.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, get_args

from litestar.openapi.spec import OpenAPIType, Reference, Schema
from litestar.typing import FieldDefinition

from domain import CODES, EndReason
from domain.wire import BOT_LEVELS, SUIT_LETTERS

if TYPE_CHECKING:
    from litestar._openapi.schema_generation import SchemaCreator

__all__ = ["NAMED_ENUMS", "named"]


def _enum(name: str, values: tuple[str, ...], doc: str) -> type[Enum]:
    made = Enum(name, [(value, value) for value in values], type=str)  # type: ignore[misc]
    made.__doc__ = doc
    return made


NAMED_ENUMS: tuple[type[Enum], ...] = (
    _enum(
        "Card",
        CODES,
        "A card: its rank (2 3 4 5 6 7 8 9 T J Q K A) then its suit (C D H S), e.g. ``TC`` "
        "(ten of clubs) or ``AS``; listed in the order the shuffle starts from.",
    ),
    _enum("Suit", SUIT_LETTERS, "A suit's letter: clubs, diamonds, hearts or spades."),
    _enum("BotLevel", BOT_LEVELS, "A bot level, weakest first."),
    _enum(
        "EndReason",
        get_args(EndReason),
        "How a game ended: ``target`` (a team reached the target), ``resigned``, "
        "``aborted`` (closed before its first card), ``expired`` (no players came) or "
        "``idle`` (nobody played for too long).",
    ),
)
_BY_VALUES = {tuple(member.value for member in enum): enum for enum in NAMED_ENUMS}


def named(schema: Schema, creator: SchemaCreator) -> Schema | Reference:
    """``schema`` with every inline enum of a named one's values (through array items and
    ``oneOf`` arms) replaced by a reference to it; its description stays on the reference."""
    if isinstance(schema.items, Schema):
        schema.items = named(schema.items, creator)
    if schema.one_of is not None:
        schema.one_of = [named(a, creator) if isinstance(a, Schema) else a for a in schema.one_of]
    values = tuple(value for value in schema.enum or () if value is not None)
    enum = _BY_VALUES.get(values)
    if enum is None:
        return schema
    ref = creator.for_field_definition(FieldDefinition.from_annotation(enum))
    assert isinstance(ref, Reference), ref  # an enum is always a component
    if None in (schema.enum or ()):
        return Schema(one_of=[ref, Schema(type=OpenAPIType.NULL)], description=schema.description)
    ref.description = schema.description
    return ref
