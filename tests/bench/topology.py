"""Topology benchmark: the compose topology (three replicas behind nginx, on one Redis) against
one replica reached directly, both in containers on this machine, with one JSON line out.

Brings up ``deploy/compose.yaml`` with podman as the container tests do (``tests/deploy/
topology.py``: local stand-in images, the test override), plus one more replica of the same
image and settings with its port published. Then, on each target in turn, ``--games`` (8)
games are played at once by four people each (``tests/deploy/lb_players.py``: every seat on
its own SSE stream, acting when its view says so). Reported per target:

- ``commands_per_s``: accepted player commands over the wall time of the round;
- ``sse_p50_ms``, ``sse_p99_ms``: from sending a command to reading its first event on the
  sender's own stream (so it covers nginx both ways, the append and the fan-out).

The clients (httpx) run in this one process: on two cores they compete with the containers,
so the figures compare the two paths on one machine, not the server's capacity. Needs root and
podman (see ``deploy/local-images/build.sh``). Run with
``uv run python tests/bench/topology.py [--games 8] [--no-build]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

# This folder holds ``http.py``, which would shadow the standard library's ``http`` for
# httpx: move the folder behind the standard library, then reach the test helpers.
# ruff: noqa: E402
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path += [str(_HERE.parent / "deploy"), str(_HERE.parent / "api")]

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from typing import Any

import httpx
from lb_players import Player
from podman_support import APP_IMAGE, build_images, image_size_mb, podman, scope, unavailable
from support import create_game, free_port, take_seat
from topology import Topology

GAME_S = 300


async def play_games(url: str, games: int, seed: int) -> dict[str, Any]:
    """``games`` games at once through ``url``; the round's figures."""
    limits = httpx.Limits(max_connections=games * 12, max_keepalive_connections=games * 12)
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits) as client:
        rng = random.Random(seed)
        deadline = time.monotonic() + GAME_S
        players: list[Player] = []
        for _ in range(games):
            game = (await create_game(client, [None] * 4, target=7))["game_id"]
            for seat in range(4):
                token = await take_seat(client, game, seat, f"p{seat}")
                players.append(Player(client, game, seat, token, rng, deadline))
        started = time.monotonic()
        await asyncio.gather(*(p.play() for p in players))
        elapsed = time.monotonic() - started
    lags = sorted(
        (p.stream.arrived[version] - sent) * 1000
        for p in players
        for version, sent in p.sent_at.items()
    )
    return {
        "commands": len(lags),
        "commands_per_s": round(len(lags) / elapsed, 1),
        "sse_p50_ms": round(statistics.median(lags), 1),
        "sse_p99_ms": round(lags[min(len(lags) - 1, int(len(lags) * 0.99))], 1),
    }


def solo_replica(topology: Topology) -> str:
    """One more replica like the others (same image, settings, network), its port published;
    its URL."""
    port = free_port()
    solo = topology.start("app", "solo", 20, "-p", f"127.0.0.1:{port}:8000")
    topology.wait_healthy(solo, "app")
    return f"http://127.0.0.1:{port}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--no-build", action="store_true", help="use the images as they are")
    args = parser.parse_args()
    reason = unavailable()
    if reason is not None:
        sys.exit(f"cannot run: {reason}")
    if not args.no_build:
        build_images()
    podman("image", "exists", APP_IMAGE)
    with scope() as made, tempfile.TemporaryDirectory() as workdir:
        topology = Topology(made, Path(workdir), free_port())
        topology.up()
        direct = solo_replica(topology)
        through_nginx = asyncio.run(play_games(topology.url, args.games, 1))
        one_direct = asyncio.run(play_games(direct, args.games, 1))
    print(
        json.dumps(
            {
                "bench": "topology",
                "games": args.games,
                "nginx_3_replicas": through_nginx,
                "direct_1_replica": one_direct,
                "image_mb": image_size_mb(APP_IMAGE),
            }
        )
    )


if __name__ == "__main__":
    main()
