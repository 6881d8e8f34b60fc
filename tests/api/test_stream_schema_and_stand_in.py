"""Two contract points a client relies on (issue 25, issue 22 item 5): every stream message's
data is what the spec's streamEvents 200 schema says (schemathesis reads that schema as an SSE
frame, so this test checks it instead), and a table chooses the level of its stand-in bot."""

from __future__ import annotations

import json
from typing import Any

import httpx
from jsonschema import Draft202012Validator
from support import ROOT, create_game, problem_of, sse_frames, take_seat

SPEC = json.loads((ROOT / "openapi" / "openapi.json").read_text())


def message_validator() -> Draft202012Validator:
    """A validator of one stream message's data, its references resolved in the spec."""
    ok = SPEC["paths"]["/v1/games/{game_id}/stream"]["get"]["responses"]["200"]
    schema = {**ok["content"]["text/event-stream"]["schema"], "components": SPEC["components"]}
    return Draft202012Validator(schema)


async def test_every_stream_message_is_what_the_spec_says(client: httpx.AsyncClient) -> None:
    validator = message_validator()
    game = (await create_game(client, [None, "random", "random", "random"], target=3))["game_id"]
    token = await take_seat(client, game, 0, "ann")
    await client.post(
        f"/v1/games/{game}/seats/0/commands",
        json={"type": "resign"},
        headers={"Authorization": f"Bearer {token}"},
    )
    kinds: set[str] = set()
    async for frame in sse_frames(
        client, f"/v1/games/{game}/stream", params={"token": token, "view": "true"}
    ):
        data: Any = json.loads(frame.data)
        errors = [error.message for error in validator.iter_errors(data)]
        assert not errors, (frame.event, errors[:3])
        kinds.add(frame.event or "")
        if frame.event == "view" and "SeedRevealed" in kinds:  # the catch-up's closing view
            break
    assert {"GameCreated", "Dealt", "view", "GameEnded", "SeedRevealed"} <= kinds
    # And the validator is a real check: a card that is not one is refused.
    assert list(validator.iter_errors({"type": "CardPlayed", "at": 1, "seat": 0, "card": "1Z"}))


async def test_a_table_chooses_its_stand_in_level(client: httpx.AsyncClient) -> None:
    made = await client.post(
        "/v1/games", json={"bots": [None, "random", None, "random"], "stand_in": "heuristic"}
    )
    assert made.status_code == 201, made.text
    game = made.json()["game_id"]
    view = (await client.get(f"/v1/games/{game}")).json()
    assert view["stand_in"] == "heuristic"
    events = (await client.get(f"/v1/games/{game}/events")).json()["events"]
    assert events[0]["event"]["stand_in"] == "heuristic"
    # Left out, the server's setting (strong by default) is the table's.
    default = (await create_game(client, [None, "random", None, "random"]))["game_id"]
    assert (await client.get(f"/v1/games/{default}")).json()["stand_in"] == "strong"
    refused = await client.post("/v1/games", json={"stand_in": "grandmaster"})
    problem_of(refused, 400, "invalid_request")
