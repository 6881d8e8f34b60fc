"""The spec types what a client generator reads exactly (issue 25): every card, suit and bot
level is its enum, response fields are required, hands have four entries, hashes have their
pattern, and every ``oneOf`` of tagged messages has a discriminator that a generator can use."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, get_args

import pytest
from support import ROOT

from domain import CODES, EndReason
from domain.bots import BOTS
from domain.cards import SUITS
from domain.wire import BOT_LEVELS, SUIT_LETTERS

SPEC = json.loads((ROOT / "openapi" / "openapi.json").read_text())
SCHEMAS: dict[str, Any] = SPEC["components"]["schemas"]


def resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = SCHEMAS[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def arms(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The non-null alternatives of a schema (itself when it has none)."""
    if "oneOf" in schema:
        return [a for arm in schema["oneOf"] for a in arms(resolve(arm))]
    return [] if schema.get("type") == "null" else [schema]


def only(schema: dict[str, Any]) -> dict[str, Any]:
    (found,) = arms(resolve(schema))
    return found


def prop(name: str, *path: str) -> dict[str, Any]:
    """A property of a component, following ``items`` (``[]``) through the path."""
    schema = SCHEMAS[name]
    for step in path:
        schema = only(schema)
        schema = schema["items"] if step == "[]" else schema["properties"][step]
    return only(schema)


CARD_FIELDS = [
    ("View", "hand", "[]"),
    ("View", "kicks", "[]"),
    ("View", "trick", "[]", "card"),
    ("View", "last_trick", "[]", "card"),
    ("CardPlayed", "card"),
    ("Revealed", "card"),
    ("TrickWon", "cards", "[]"),
    ("Dealt", "hands", "[]", "[]"),
    ("Dealt", "stock", "[]"),
    ("PackRun", "hands", "[]", "[]"),
    ("Award", "card"),
    ("Play", "card"),
    ("PlayCommand", "card"),
    ("DealVector", "deck", "[]"),
    ("DealVector", "hands", "[]", "[]"),
    ("DealVector", "kick"),
    ("Run", "hands", "[]", "[]"),
    ("Run", "kick"),
    ("ReplayVectors", "card_order", "[]"),
]


def enum(schema: dict[str, Any]) -> list[Any]:
    """A schema's values but null (an optional enum lists null among them)."""
    return [value for value in schema["enum"] if value is not None]


@pytest.mark.parametrize("where", CARD_FIELDS, ids=lambda where: ".".join(where))
def test_every_card_is_the_card_enum(where: tuple[str, ...]) -> None:
    """One component, so that a generator makes one card type: a view's card goes back in a
    command as it is."""
    schema = prop(*where)
    assert schema is SCHEMAS["Card"]
    assert schema["type"] == "string" and enum(schema) == list(CODES)


@pytest.mark.parametrize("where", [("View", "trump"), ("TrumpSet", "suit")])
def test_every_suit_is_the_suit_enum(where: tuple[str, ...]) -> None:
    assert prop(*where) is SCHEMAS["Suit"]
    assert enum(prop(*where)) == list(SUIT_LETTERS) == list(SUITS)


def test_no_named_enum_is_written_out_again() -> None:
    """Every schema listing exactly a named enum's values is that component (a copy inline
    would be a second type in generated clients)."""
    named = {"Card": CODES, "Suit": SUIT_LETTERS, "BotLevel": BOT_LEVELS}
    named["EndReason"] = tuple(enum(SCHEMAS["EndReason"]))
    for path, node in walk(SPEC):
        if "enum" in node:
            for name, values in named.items():
                if enum(node) == list(values):
                    assert path == f"/components/schemas/{name}", path


def test_bot_levels_are_one_enum_and_the_domains_levels() -> None:
    assert set(BOT_LEVELS) == set(BOTS)
    for where in [
        ("SeatView", "bot"),
        ("PlayerJoined", "bot"),
        ("AddBot", "kind"),
        ("CreateGame", "stand_in"),
        ("GameCreated", "stand_in"),
        ("View", "stand_in"),
    ]:
        assert prop(*where) is SCHEMAS["BotLevel"], where
    assert prop("CreateGame", "bots", "[]") is SCHEMAS["BotLevel"]
    assert enum(SCHEMAS["BotLevel"]) == list(BOT_LEVELS)


def test_end_reasons_are_one_enum() -> None:
    assert prop("GameSummary", "end_reason") is prop("View", "end_reason") is SCHEMAS["EndReason"]
    assert enum(SCHEMAS["EndReason"]) == list(get_args(EndReason))


def test_hands_have_four_entries_and_hashes_their_pattern() -> None:
    for name in ("Dealt", "PackRun", "DealVector", "Run"):
        hands = SCHEMAS[name]["properties"]["hands"]
        assert hands["minItems"] == hands["maxItems"] == 4
    for deck in (
        SCHEMAS["DealVector"]["properties"]["deck"],
        SCHEMAS["ReplayVectors"]["properties"]["card_order"],
    ):
        assert deck["minItems"] == deck["maxItems"] == 52
    lower = "^[0-9a-f]{64}$"
    assert prop("GameCreated", "seed_commitment")["pattern"] == lower
    assert prop("View", "seed_commitment")["pattern"] == lower
    assert prop("SeedRevealed", "seed")["pattern"] == "^[0-9a-fA-F]{64}$"
    assert prop("View", "seed")["pattern"] == "^[0-9a-fA-F]{64}$"
    assert prop("Replay", "seed")["pattern"] == prop("SeedVector", "seed")["pattern"]
    assert prop("Replay", "seed_commitment")["pattern"] == lower
    assert prop("SeedVector", "commitment")["pattern"] == lower


def walk(node: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from walk(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk(value, f"{path}/{i}")


def test_every_oneof_of_tagged_messages_has_a_discriminator_that_names_each_tag() -> None:
    seen = 0
    for path, node in walk(SPEC):
        alternatives = node.get("oneOf")
        if not alternatives or not all("$ref" in arm for arm in alternatives):
            continue
        discriminator = node.get("discriminator")
        assert discriminator, f"{path}: a oneOf of messages without a discriminator"
        field = discriminator["propertyName"]
        mapped = discriminator["mapping"]
        assert sorted(mapped.values()) == sorted(arm["$ref"] for arm in alternatives), path
        for tag, ref in mapped.items():
            assert resolve({"$ref": ref})["properties"][field]["const"] == tag, (path, tag)
        seen += 1
    assert seen >= 6  # events, legal and seat actions, hints, analysis, the command body


def test_no_schema_admits_anything() -> None:
    """Litestar writes ``oneOf: [X, {}]`` for a tuple with a default: the ``{}`` arm would make
    every generated type ``unknown``."""
    for path, node in walk(SCHEMAS):
        for arm in node.get("oneOf", []):
            assert arm != {}, path


def test_responses_require_every_field_and_requests_default_them() -> None:
    rules = SCHEMAS["Rules"]
    assert set(rules["required"]) == set(rules["properties"]) - {"turn_seconds"}
    assert "required" not in SCHEMAS["RuleChoices"] or not SCHEMAS["RuleChoices"]["required"]
    assert SCHEMAS["CreateGame"]["properties"]["rules"]["$ref"].endswith("/RuleChoices")
    assert SCHEMAS["View"]["properties"]["rules"]["$ref"].endswith("/Rules")
    assert SCHEMAS["GameCreated"]["properties"]["rules"]["$ref"].endswith("/Rules")
    for name in ("View", "SeatView", "GameSummary", "Dealt", "GameCreated", "CommandAccepted"):
        schema = SCHEMAS[name]
        assert set(schema["required"]) == set(schema["properties"]), name
        assert not [p for p, s in schema["properties"].items() if "default" in s], name


def test_one_table_of_error_codes_makes_the_enum_the_statuses_and_the_readme() -> None:
    from domain import VIOLATION_CODES
    from server.api.contract.error_codes import ERROR_CODES
    from server.api.contract.problems import PROBLEM_CODES, STATUS_OF

    assert set(VIOLATION_CODES) <= set(ERROR_CODES)  # every rule's refusal has its row
    assert set(PROBLEM_CODES) == set(ERROR_CODES)
    assert {code: entry.status for code, entry in ERROR_CODES.items()} == STATUS_OF
    code = SCHEMAS["Problem"]["properties"]["code"]
    assert set(code["enum"]) == set(ERROR_CODES)
    for name, entry in ERROR_CODES.items():
        assert f"``{name}`` ({entry.status}): {entry.meaning}" in code["description"]
    readme = (ROOT / "README.md").read_text()
    table = readme.split("### Error codes", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "`" in line]
    assert rows == [f"| {e.status} | `{c}` | {e.meaning} |" for c, e in ERROR_CODES.items()]


def test_the_stream_documents_its_cap_and_every_read_its_media_type_refusal() -> None:
    stream = SPEC["paths"]["/v1/games/{game_id}/stream"]["get"]["responses"]
    assert "too_many_streams" in stream["429"]["description"]
    assert (
        "unsupported_media_type"
        in SPEC["paths"]["/v1/games/{game_id}"]["get"]["responses"]["415"]["description"]
    )
    # One absolute base URL for generated clients, never "/" (the /docs page uses its own
    # origin: tests/api/test_docs_offline.py).
    (server,) = SPEC["servers"]
    assert server["url"] == "{base}"
    assert server["variables"]["base"]["default"] == "http://127.0.0.1:8000"


def reachable(node: Any, found: set[str]) -> set[str]:
    """The component schemas ``node`` refers to, at any depth."""
    for _, child in walk(node):
        if "$ref" in child:
            name = child["$ref"].rsplit("/", 1)[-1]
            if name not in found:
                found.add(name)
                reachable(SCHEMAS[name], found)
    return found


def test_what_a_response_may_leave_out_is_exactly_what_the_readme_says() -> None:
    """Every property of every schema an answer can hold is required, but the few a response
    may really leave out (README, "Writing a client"): a new optional one fails here."""
    answered: set[str] = set()
    for item in SPEC["paths"].values():
        for operation in item.values():
            reachable(operation["responses"], answered)
    optional = {
        (name, field)
        for name in answered
        for field in SCHEMAS[name].get("properties", {})
        if field not in SCHEMAS[name].get("required", [])
    }
    problem = {("Problem", f) for f in ("detail", "instance", "current_version", "retry_after")}
    assert optional == problem | {("Rules", "turn_seconds")}


def test_every_read_that_takes_a_seat_token_lists_its_query_parameter() -> None:
    """A GET authenticated by a seat token takes it as ``?token=`` too (browsers' EventSource
    sends no header): the spec says so wherever the server does (hints did not say)."""
    reads = [
        (path, operation)
        for path, methods in SPEC["paths"].items()
        if (operation := methods.get("get"))
        and any("seatToken" in requirement for requirement in operation.get("security", []))
    ]
    assert len(reads) >= 4, reads
    for path, operation in reads:
        query = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
        assert "token" in query, path
