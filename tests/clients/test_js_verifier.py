"""A replay verifier in another language, written from ``docs/REPLAY_VERIFICATION.md`` alone
(``js/verify_replay.mjs``: Node.js and its built-in crypto), checks the test vectors and the
replays of games played on a real ``allfours serve``, and catches forged ones.

Skipped, saying so, where Node.js is not installed.
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import random
import subprocess
from pathlib import Path
from typing import Any

import httpx
import msgspec
from client_support import VECTORS, VERIFIER, tool_or_skip
from support import bearer, create_game, drive, take_seat

from domain import Event, verify


def run_verifier(mode: str, *documents: Any, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``node verify_replay.mjs <mode> files…`` over ``documents`` written to ``tmp_path``."""
    node = tool_or_skip("node", "the JavaScript replay verifier")
    paths = []
    for index, document in enumerate(documents):
        path = tmp_path / f"document-{len(list(tmp_path.iterdir()))}-{index}.json"
        path.write_text(json.dumps(document))
        paths.append(str(path))
    return subprocess.run(
        [node, str(VERIFIER), mode, *paths],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def assert_verified(result: subprocess.CompletedProcess[str], count: int) -> None:
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == f"{count} passed, 0 failed", result.stdout


def assert_refused(result: subprocess.CompletedProcess[str], because: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert because in result.stdout, result.stdout


def domain_verdict(replay: dict[str, Any]) -> bool:
    events = [msgspec.convert(e["event"], Event) for e in replay["events"]]
    return verify(events).ok


def test_the_verifier_checks_every_vector_and_catches_a_wrong_one(tmp_path: Path) -> None:
    vectors = json.loads(VECTORS.read_text())
    result = run_verifier("--vectors", vectors, tmp_path=tmp_path)
    checks = 1 + len(vectors["below_examples"]) + 1 + len(vectors["cases"])
    checks += sum(3 + 8 * len(seed["deals"]) for seed in vectors["seeds"])
    assert_verified(result, checks)

    wrong = copy.deepcopy(vectors)
    deck = wrong["seeds"][1]["deals"][2]["deck"]
    deck[10], deck[11] = deck[11], deck[10]
    assert_refused(run_verifier("--vectors", wrong, tmp_path=tmp_path), "deck 3:1 deck")


async def test_the_served_vectors_verify(client: httpx.AsyncClient, tmp_path: Path) -> None:
    response = await client.get("/v1/replay-verification")
    assert response.status_code == 200, response.text
    result = run_verifier("--vectors", response.json(), tmp_path=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


async def finished_replay(client: httpx.AsyncClient, game_id: str) -> dict[str, Any]:
    """The replay of ``game_id`` once published (bots finish a game in well under a minute)."""
    for _ in range(600):
        response = await client.get(f"/v1/games/{game_id}/replay")
        if response.status_code == 200:
            replay: dict[str, Any] = response.json()
            return replay
        assert response.status_code == 409, response.text
        await asyncio.sleep(0.1)
    raise AssertionError(f"game {game_id} did not finish")


async def real_replays(client: httpx.AsyncClient) -> dict[str, dict[str, Any]]:
    """Replays of real games: bots alone; a person with bots, played to the end and then
    rematched (``RematchCreated`` follows the seed); a table aborted while it waited for players."""
    bots = await create_game(client, ["random"] * 4, target=7, tobago_kick=True, turn_seconds=None)
    person = await create_game(
        client, [None, "heuristic", "heuristic", "heuristic"], turn_seconds=None
    )
    token = await take_seat(client, person["game_id"], 0, "verifier")
    await drive(client, person["game_id"], {0: token}, lambda view: False, random.Random(9))
    rematch = await client.post(f"/v1/games/{person['game_id']}/rematch", headers=bearer(token))
    assert rematch.status_code == 201, rematch.text
    aborted = await create_game(client, [None] * 4, turn_seconds=None)
    abort_token = await take_seat(client, aborted["game_id"], 0, "quitter")
    response = await client.post(
        f"/v1/games/{aborted['game_id']}/seats/0/commands",
        json={"type": "abort"},
        headers=bearer(abort_token),
    )
    assert response.status_code == 200, response.text
    games = {"bots": bots, "rematched": person, "aborted": aborted}
    return {name: await finished_replay(client, g["game_id"]) for name, g in games.items()}


async def test_real_replays_verify_and_forgeries_do_not(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    tool_or_skip("node", "the JavaScript replay verifier")
    replays = await real_replays(client)
    kinds = {name: [e["event"]["type"] for e in r["events"]] for name, r in replays.items()}
    # Every hand is stood on or begged (a random bot begs and gives one as often as not: a game
    # of begs given one shows neither Stood nor PackRun).
    assert {"Stood", "Begged"} & set(kinds["bots"])
    assert kinds["rematched"][-2:] == ["SeedRevealed", "RematchCreated"]
    assert "GameAborted" in kinds["aborted"] and "CardPlayed" not in kinds["aborted"]
    assert_verified(run_verifier("--replay", *replays.values(), tmp_path=tmp_path), 3)
    assert domain_verdict(replays["bots"]) and domain_verdict(replays["aborted"])

    for because, forged in forgeries(replays["bots"]):
        assert_refused(run_verifier("--replay", forged, tmp_path=tmp_path), because)
        assert not domain_verdict(forged), f"domain.verify accepts a forgery: {because}"


def forgeries(replay: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Copies of a genuine replay, each changed the way a cheating server might, with the
    words the verifier must refuse it with."""
    events = [e["event"] for e in replay["events"]]
    first_deal = next(i for i, e in enumerate(events) if e["type"] == "Dealt")
    found: list[tuple[str, dict[str, Any]]] = []

    swapped = copy.deepcopy(replay)
    hands = swapped["events"][first_deal]["event"]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    found.append(("the hands are not the ones the seed deals", swapped))

    other_seed = copy.deepcopy(replay)
    seed = hashlib.sha256(b"another seed").hexdigest()
    commitment = hashlib.sha256(bytes.fromhex(seed)).hexdigest()
    other_seed["seed"], other_seed["seed_commitment"] = seed, commitment
    other_seed["events"][0]["event"]["seed_commitment"] = commitment
    other_seed["events"][-1]["event"]["seed"] = seed
    found.append(("is not the next card of the pack", other_seed))

    wrong_commitment = copy.deepcopy(replay)
    wrong_commitment["events"][-1]["event"]["seed"] = seed
    wrong_commitment["seed"] = seed
    found.append(("the seed does not match the commitment", wrong_commitment))

    other_dealer = copy.deepcopy(replay)
    created = other_dealer["events"][0]["event"]
    created["first_dealer"] = (created["first_dealer"] + 1) % 4
    found.append(("the first dealer is not the one the seed gives", other_dealer))
    return found
