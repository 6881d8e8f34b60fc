"""OpenAPI helpers: the problem responses every operation documents, links between
operations, and schemas that say when a body refuses unknown fields."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from functools import cache
from typing import TYPE_CHECKING, get_args, get_type_hints

from litestar._openapi.schema_generation.plugins.struct import StructSchemaPlugin
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import (
    Discriminator,
    Link,
    OpenAPIHeader,
    OpenAPIResponse,
    OpenAPIType,
    Operation,
    Parameter,
    Reference,
    RequestBody,
    Schema,
)
from msgspec import Struct, UnsetType

from server.api.contract.field_docs import field_descriptions, type_description
from server.api.contract.named_enums import named
from server.api.contract.problems import PROBLEM_MEDIA_TYPE, STATUS_OF, Problem

if TYPE_CHECKING:
    from litestar._openapi.schema_generation import SchemaCreator
    from litestar.typing import FieldDefinition

_DESCRIPTIONS = {
    304: "Not modified: the game is still at the version of your ETag (sent again in "
    "``ETag``; no body)",
    400: "Malformed request (``invalid_request``)",
    401: "Missing or unknown credential: seat token, creator token or player key, as the "
    "operation's security says (``unauthorized``)",
    403: "A token of another seat or game (``forbidden``)",
    404: "No such game (``not_found``)",
    409: "Refused by the rules or the game's state: ``not_your_turn``, ``must_follow_suit``, "
    "``version_conflict`` (with ``current_version``), ``seat_taken``, "
    "``idempotency_key_reused`` (an Idempotency-Key sent again with another request), …",
    413: "Request body too large (``payload_too_large``)",
    422: "A value the game cannot use, such as an unknown card (``unknown_card``)",
    429: "Rate limited (``rate_limited``); see ``Retry-After``",
    500: "An unexpected error (``internal``): a bug, never the client's input",
    503: "The event store is unreachable, the game or the bot workers too busy "
    "(``unavailable``, ``busy``, ``bots_busy``); see ``Retry-After``",
}


WRITE_LIMITS: tuple[str, ...] = (
    "payload_too_large",
    "unsupported_media_type",
    "rate_limited",
    "unavailable",
    "busy",
)
"""What any write may be refused with before (or instead of) its own checks: its body, the
rate limit, and the store being away or too busy."""
SEAT_REFUSALS: tuple[str, ...] = ("invalid_request", "unauthorized", "forbidden", "not_found")
"""What any request naming a game and proving a token may be refused with."""


def problems(*entries: int | str) -> dict[int, ResponseSpec]:
    """Response specs for an operation's problems, and 415 and 500: each entry a problem
    ``code`` (it goes under its status, and the status's description lists the operation's
    codes) or a bare status (described generally); 304 has no body."""
    codes: dict[int, list[str]] = {}
    for entry in entries:
        if isinstance(entry, str):
            codes.setdefault(STATUS_OF[entry], []).append(entry)
        else:
            codes.setdefault(entry, [])
    codes.setdefault(500, []).append("internal")
    # Any request that carries a body not declared JSON is refused before its route runs,
    # a GET's included (``edge.request_guard.check_content_type``).
    codes.setdefault(415, []).append("unsupported_media_type")
    specs: dict[int, ResponseSpec] = {}
    for status in sorted(codes):
        if status == 304:
            specs[status] = ResponseSpec(
                data_container=None, description=_DESCRIPTIONS[304], generate_examples=False
            )
            continue
        listed = ", ".join(f"``{code}``" for code in sorted(set(codes[status])))
        specs[status] = ResponseSpec(
            data_container=Problem,
            description=f"{_TITLES[status]}: {listed}" if listed else _DESCRIPTIONS[status],
            media_type=PROBLEM_MEDIA_TYPE,
            generate_examples=False,
        )
    return specs


_TITLES = {
    400: "Malformed request",
    401: "Missing or unknown credential (seat token, creator token or player key)",
    403: "A token of another seat or game",
    404: "No such game",
    409: "Refused by the rules or the game's state",
    413: "Request body too large",
    415: "A body not sent as ``application/json``",
    422: "A value the game cannot use",
    429: "Rate limited (see ``Retry-After``)",
    500: "An unexpected error (a bug, never the client's input)",
    503: "Unavailable; retry after ``Retry-After`` (for a write, with the same "
    "``Idempotency-Key``: it may have been applied)",
}


class StrictStructSchemaPlugin(StructSchemaPlugin):
    """Litestar's schemas for msgspec structs, plus what a client needs that they leave out:

    - ``additionalProperties: false`` for the structs that refuse unknown fields
      (``forbid_unknown_fields``, the request bodies): the spec must not promise that a body
      with extra properties is accepted when the server answers 400;
    - every field ``required`` in what the server sends (the other structs): it always writes
      every field, defaults included, except a field that may be unset (``UnsetType``);
    - the descriptions written under each field and class in the code;
    - cards, suits and bot levels as references to one component each (``named_enums``).
    """

    def to_openapi_schema(
        self, field_definition: FieldDefinition, schema_creator: SchemaCreator
    ) -> Schema:
        schema = super().to_openapi_schema(field_definition, schema_creator)
        struct = field_definition.type_
        config = struct.__struct_config__
        if config.forbid_unknown_fields:
            schema.additional_properties = False
        elif not config.omit_defaults and schema.properties:
            schema.required = sorted(
                name for name in schema.properties if not _may_be_unset(struct, name)
            )
            for prop in schema.properties.values():
                if isinstance(prop, Schema):  # sent always: a default would only mislead
                    prop.default = None
        for name, prop in (schema.properties or {}).items():
            if isinstance(prop, Schema):
                schema.properties[name] = _tidy(prop)  # type: ignore[index]
        if schema.description is None:
            schema.description = type_description(struct)
        docs = field_descriptions(struct)
        if config.tag_field is not None:
            docs = {config.tag_field: f"Always ``{config.tag}``: the kind of message.", **docs}
        for name, prop in (schema.properties or {}).items():
            if name in docs and isinstance(prop, Schema) and prop.description is None:
                prop.description = docs[name]
        for name, prop in (schema.properties or {}).items():
            if isinstance(prop, Schema):
                schema.properties[name] = named(prop, schema_creator)  # type: ignore[index]
        return schema


def _tidy(schema: Schema) -> Schema:
    """``schema`` as a client generator needs it, through arrays' items at any depth: without
    the empty ``{}`` arm Litestar adds to the ``oneOf`` of a tuple field with a default
    (``tuple[X, ...] = ()`` comes out as ``oneOf: [X, {}]``, which admits anything and makes
    generated types ``unknown``), a ``oneOf`` of one arm folded into its parent, and a
    ``discriminator`` on a ``oneOf`` of tagged structs (events, commands)."""
    if isinstance(schema.items, Schema):
        schema.items = _tidy(schema.items)
    if schema.one_of is not None:
        arms = [
            _tidy(arm) if isinstance(arm, Schema) else arm
            for arm in schema.one_of
            if not (isinstance(arm, Schema) and arm == Schema())
        ]
        if len(arms) == 1 and isinstance(arms[0], Schema):
            only = arms[0]
            schema.one_of = None
            for key in _SCHEMA_FIELDS:
                if getattr(schema, key) is None and getattr(only, key) is not None:
                    setattr(schema, key, getattr(only, key))
        else:
            schema.one_of = _grouped(arms)
            schema.discriminator = _discriminator(schema.one_of)
            if schema.pattern is not None:  # an optional string's pattern: on the string
                for arm in arms:
                    if isinstance(arm, Schema) and arm.type == OpenAPIType.STRING:
                        arm.pattern = schema.pattern
                schema.pattern = None
    return schema


def _present(schema: Schema) -> Schema:
    """An optional parameter's schema without its ``null`` arm: absent is how a header or a
    query parameter says None, and a generator that sends the arm sends the text "null"."""
    if schema.one_of is not None:
        schema.one_of = [
            arm
            for arm in schema.one_of
            if not (isinstance(arm, Schema) and arm.type == OpenAPIType.NULL)
        ]
    return _tidy(schema)


def _grouped(arms: list[Schema | Reference]) -> list[Schema | Reference]:
    """A ``oneOf`` that mixes tagged structs with other schemas (a stream's data: an event, a
    view or ``{}``) with the tagged ones gathered into one discriminated ``oneOf`` arm."""
    tagged = [arm for arm in arms if _discriminator([arm]) is not None]
    if len(tagged) < 2 or len(tagged) == len(arms):
        return arms
    events = Schema(one_of=tagged, discriminator=_discriminator(tagged))
    return [events, *(arm for arm in arms if arm not in tagged)]


def _discriminator(arms: Sequence[Schema | Reference]) -> Discriminator | None:
    """The discriminator of a ``oneOf`` whose arms are all tagged structs with one tag field
    (msgspec's tagged unions): each tag mapped to its arm's schema."""
    mapping: dict[str, str] = {}
    fields_: set[str] = set()
    for arm in arms:
        if not isinstance(arm, Reference):
            return None
        # While the document is built a reference names its type by its whole import path
        # (``domain_commands_Stand``); the document names the schema by the class's name,
        # unique among tagged structs (a test checks every mapping against the document).
        name = arm.ref.rsplit("/", 1)[-1].rsplit("_", 1)[-1]
        tagged = _tagged_structs().get(name)
        if tagged is None:
            return None
        fields_.add(tagged[0])
        mapping[tagged[1]] = f"#/components/schemas/{name}"
    if len(fields_) != 1:
        return None
    return Discriminator(property_name=fields_.pop(), mapping=mapping)


@cache
def _tagged_structs() -> dict[str, tuple[str, str]]:
    """Each tagged struct's schema name (its class name) with its tag field and tag, for the
    names that only one tagged struct has (found on first use: once every model module is
    imported)."""
    found: dict[str, list[tuple[str, str]]] = {}
    pending: list[type[Struct]] = [Struct]
    while pending:
        struct = pending.pop()
        pending.extend(struct.__subclasses__())
        config = struct.__struct_config__
        if config.tag_field is not None and isinstance(config.tag, str):
            found.setdefault(struct.__name__, []).append((config.tag_field, config.tag))
    return {name: tags[0] for name, tags in found.items() if len(tags) == 1}


_SCHEMA_FIELDS = tuple(f.name for f in fields(Schema) if f.default is None)
"""The fields of a schema that are unset when None."""


def _may_be_unset(struct: type, name: str) -> bool:
    hint = get_type_hints(struct).get(name)
    return hint is not None and UnsetType in get_args(hint)


def link(operation_id: str, description: str, **parameters: str) -> Link:
    """An OpenAPI link to ``operation_id``, its parameters taken from this response, e.g.
    ``game_id="$response.body#/game_id"``."""
    return Link(operation_id=operation_id, parameters=parameters, description=description)


def _header(description: str, type_: OpenAPIType = OpenAPIType.STRING) -> OpenAPIHeader:
    return OpenAPIHeader(schema=Schema(type=type_), description=description)


_REQUEST_ID = _header(
    "The request's id: the caller's own ``X-Request-ID`` (at most 128 characters) or one made "
    "up; the server's log lines for the request carry it."
)
_RETRY_AFTER = _header("Seconds to wait before retrying.", OpenAPIType.INTEGER)
_CHALLENGE = _header('``Bearer realm="allfours seat"``: send a seat token.')


@dataclass
class DocumentedOperation(Operation):
    """An operation whose responses document the headers every answer of that status has:
    ``X-Request-ID`` on all, ``Retry-After`` with 429 and 503, ``WWW-Authenticate`` with 401."""

    def __post_init__(self) -> None:
        for parameter in self.parameters or ():
            if isinstance(parameter, Parameter) and isinstance(parameter.schema, Schema):
                parameter.schema = _present(parameter.schema)
        body = self.request_body
        if isinstance(body, RequestBody):
            for media in (body.content or {}).values():
                if isinstance(media.schema, Schema):
                    media.schema = _tidy(media.schema)
        for status, response in (self.responses or {}).items():
            if not isinstance(response, OpenAPIResponse):
                continue
            headers = dict(response.headers or {})
            headers["X-Request-ID"] = _REQUEST_ID
            if status in ("429", "503"):
                headers["Retry-After"] = _RETRY_AFTER
            if status == "401":
                headers["WWW-Authenticate"] = _CHALLENGE
            response.headers = headers


def with_links(**links: Link) -> type[Operation]:
    """An ``operation_class`` whose success response documents ``links``: what a client (or a
    stateful test generator) can call next with the values this response returns."""

    @dataclass
    class LinkedOperation(DocumentedOperation):
        def __post_init__(self) -> None:
            super().__post_init__()
            for status, response in (self.responses or {}).items():
                if status.startswith("2") and isinstance(response, OpenAPIResponse):
                    response.links = dict(links)

    return LinkedOperation


_GAME = "$response.body#/game_id"
GAME_LINKS = {
    "getGame": link("getGame", "The game's view", game_id=_GAME),
    "listEvents": link("listEvents", "The game's events", game_id=_GAME),
    "streamEvents": link("streamEvents", "Follow the game live", game_id=_GAME),
    "getReplay": link("getReplay", "The finished game's log and seed", game_id=_GAME),
}
"""Links from any response that names a game (``game_id`` in its body)."""
CREATED_LINKS = {
    **GAME_LINKS,
    "takeSeat": link("takeSeat", "Take a seat at this game", game_id=_GAME),
    "addBot": link("addBot", "Seat a bot at this game", game_id=_GAME),
}
"""Links from a response that created a game or changed its seats."""
_SEAT = {"game_id": _GAME, "seat": "$response.body#/seat"}
_SEAT_READER = {"game_id": _GAME, "token": "$response.body#/token"}
SEAT_LINKS = {
    "getGame": link("getGame", "The seat's view", **_SEAT_READER),
    "listEvents": link("listEvents", "The events as this seat sees them", **_SEAT_READER),
    "streamEvents": link("streamEvents", "Follow the game as this seat", **_SEAT_READER),
    "sendCommand": link("sendCommand", "Act for this seat (send the token)", **_SEAT),
}
"""Links from a granted seat: its token reads the seat's view (``token`` query parameter)."""


def sse_operation(media_type: str) -> type[Operation]:
    """An ``operation_class`` for a Server-Sent Events endpoint: its 200 ``schema`` is the
    type of each message's ``data`` (the JSON a client parses), as client generators read a
    response's schema; the framing (``id``, ``event``, ``data`` lines, ``:`` heartbeats) is
    the SSE protocol's, and the response's description says how it is used."""

    @dataclass
    class SSEOperation(DocumentedOperation):
        def __post_init__(self) -> None:
            super().__post_init__()
            response = (self.responses or {}).get("200")
            if not isinstance(response, OpenAPIResponse) or not response.content:
                return
            media = response.content[media_type]
            if isinstance(media.schema, Schema):
                media.schema = _tidy(media.schema)

    return SSEOperation
