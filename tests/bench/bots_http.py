"""Persons' commands beside search-bot games: does a table of people answer as fast while many
tables of search bots are being played on the same server?

Starts a real ``allfours serve`` (``--bot-workers`` processes for the searching bots) and, in
one run, alternates two phases ``--rounds`` times:

- ``quiet``: ``--games`` games of four people (the bench holds every seat, as in
  ``http.py``) played as fast as the server answers: their commands' latencies;
- ``busy``: the same, while ``--bot-games`` games of one person and three ``--level`` bots are
  played at the same time (each of their commands makes the server search three bots' moves).

With ``--rate R`` the people's games send R commands a second in all, on a fixed schedule,
instead of as fast as answered: the latency a table of people sees at a load the server
carries, where the saturated figure is mostly queueing (its p99 follows the throughput lost).

Prints one JSON line: ``p50_ms``/``p99_ms`` and ``plays_per_s`` of the persons' commands in
each phase (medians of the rounds), ``p99_ratio`` = busy / quiet, and ``bot_commands_per_s``
(the bot games' commands answered, each with three search decisions). Run with
``uv run python tests/bench/bots_http.py [--bot-games 200 --duration 8 --rounds 4]``.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from _common import HOST, Conn, HttpError, Server, emit, exit_on_sigterm, median, note, percentile

_spec = importlib.util.spec_from_file_location("bench_http", Path(__file__).with_name("http.py"))
assert _spec is not None and _spec.loader is not None
bench_http = importlib.util.module_from_spec(_spec)
sys.modules["bench_http"] = bench_http
_spec.loader.exec_module(bench_http)  # the people's games exactly as http.py plays them


class BotGame:
    """One person (the bench, at seat 0) and three bots of ``level``, played move after move:
    the person's command returns once the bots have answered it."""

    def __init__(self, port: int, level: str, rng: random.Random) -> None:
        self.conn = Conn(port)
        self.level = level
        self.rng = rng
        self.game_id = ""
        self.auth = b""
        self.commands = 0

    async def create(self) -> None:
        body = json.dumps(
            {"rules": {"turn_seconds": None}, "bots": [None, self.level, self.level, self.level]}
        ).encode()
        status, answer = await self.conn.request("POST", "/v1/games", body)
        if status != 201:
            raise HttpError(f"create: {status} {answer[:200]!r}")
        self.game_id = json.loads(answer)["game_id"]
        status, answer = await self.conn.request(
            "POST", f"/v1/games/{self.game_id}/seats/0", b'{"name":"bench"}'
        )
        if status != 201:
            raise HttpError(f"seat: {status} {answer[:200]!r}")
        self.auth = b"Authorization: Bearer %s\r\n" % json.loads(answer)["token"].encode()

    async def play(self, until: float) -> None:
        if not self.game_id:
            await self.create()
        while time.perf_counter() < until:
            status, answer = await self.conn.request(
                "GET", f"/v1/games/{self.game_id}", headers=self.auth
            )
            view = json.loads(answer)
            if view["phase"] == "ended":
                await self.create()
                continue
            if view["to_act"] != 0 or not view["legal_actions"]:
                await asyncio.sleep(0.05)
                continue
            action = dict(self.rng.choice(view["legal_actions"]))
            action.pop("seat", None)
            action["expected_version"] = view["version"]
            status, _ = await self.conn.request(
                "POST",
                f"/v1/games/{self.game_id}/seats/0/commands",
                json.dumps(action).encode(),
                self.auth,
            )
            self.commands += status == 200


async def phase(
    people: list[Any], bots: list[BotGame], duration: float, pace: float | None
) -> tuple[float, list[float], float]:
    until = time.perf_counter() + duration
    before = sum(b.commands for b in bots)
    driving = [asyncio.create_task(b.play(until)) for b in bots]
    rate, stats = await bench_http.plays_phase(people, duration, pace)
    await asyncio.gather(*driving)
    bot_rate = (sum(b.commands for b in bots) - before) / duration
    return rate, stats.latencies, bot_rate


async def run(args: argparse.Namespace) -> None:
    server = Server(1, "everysec", env={"ALLFOURS_BOT_WORKERS": str(args.bot_workers)})
    try:
        note(f"starting allfours serve on {HOST}:{server.port}, {args.bot_workers} bot worker(s)")
        await server.start()
        people = [
            bench_http.HttpGame(Conn(server.port), random.Random(i)) for i in range(args.games)
        ]
        for game in people:
            await game.create()
        bots = [BotGame(server.port, args.level, random.Random(i)) for i in range(args.bot_games)]
        figures: dict[str, list[tuple[float, float, float, float]]] = {"quiet": [], "busy": []}
        for number in range(args.rounds):
            for name in ("quiet", "busy") if number % 2 == 0 else ("busy", "quiet"):
                note(f"round {number + 1}: {name}")
                rate, latencies, bot_rate = await phase(
                    people, bots if name == "busy" else [], args.duration, args.rate
                )
                figures[name].append(
                    (rate, percentile(latencies, 0.5), percentile(latencies, 0.99), bot_rate)
                )
    finally:
        await asyncio.to_thread(server.stop)
    out: dict[str, Any] = {
        "bench": "bots_http",
        "level": args.level,
        "bot_games": args.bot_games,
        "rate": args.rate,
    }
    for name, rows in figures.items():
        out[f"{name}_plays_per_s"] = round(median([r[0] for r in rows]), 1)
        out[f"{name}_p50_ms"] = round(1000 * median([r[1] for r in rows]), 2)
        out[f"{name}_p99_ms"] = round(1000 * median([r[2] for r in rows]), 2)
    out["p99_ratio"] = round(out["busy_p99_ms"] / out["quiet_p99_ms"], 3)
    out["bot_commands_per_s"] = round(median([r[3] for r in figures["busy"]]), 1)
    out["games"] = args.games
    out["bot_workers"] = args.bot_workers
    emit(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games of four people")
    parser.add_argument("--bot-games", type=int, default=200, help="games of one person and bots")
    parser.add_argument("--level", default="strong", help="the bots' level")
    parser.add_argument("--bot-workers", type=int, default=1, help="the server's bot workers")
    parser.add_argument("--duration", type=float, default=8.0, help="seconds per phase")
    parser.add_argument("--rounds", type=int, default=4, help="rounds of quiet and busy")
    parser.add_argument(
        "--rate",
        type=float,
        help="the people's commands per second in all (default: as fast as answered)",
    )
    exit_on_sigterm()
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
