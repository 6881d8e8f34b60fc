"""Bot strength benchmark: each level against others on paired deals, with its CPU per decision.

Every deal (a game seed: the same decks hand after hand) is played twice, the partnerships
swapped, so the luck of the cards cancels out. A figure is the measured level's partnership
win rate with a Wilson 95% interval, and the CPU time (``time.thread_time``) of each decision
the measured level took, p50 and p99. One JSON object per line:

    nice uv run python tests/bench/bots.py                   # every figure, 400 games each
    uv run python tests/bench/bots.py --games 40 --only strong:heuristic

Figures (``level:opponent``): ``strong`` and ``master`` against ``heuristic`` and ``random``,
``master`` against ``strong``, and each in a mixed partnership (``level+heuristic:heuristic``:
one search seat with a heuristic partner against two heuristic seats). The bots' rng is
seeded apart from the deck seed. Run it on one core (a single process) with ``nice``.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import time
from collections.abc import Sequence

from _common import emit, note, percentile

from domain import State, execute
from domain.autoplay import DEFAULT_RULES, due_system_command, opening_commands
from domain.bots import BOTS, Bot
from domain.commands import Command
from domain.sight import bot_view

FIGURES = (
    "strong:heuristic",
    "strong:random",
    "strong+heuristic:heuristic",
    "master:heuristic",
    "master:strong",
    "master:random",
    "master+heuristic:heuristic",
)


class Timed:
    """A bot whose decisions' CPU times are kept."""

    def __init__(self, bot: Bot, samples: list[float]) -> None:
        self.bot = bot
        self.samples = samples

    def __call__(self, sight, rng):  # type: ignore[no-untyped-def]
        started = time.thread_time()
        command = self.bot(sight, rng)
        self.samples.append(time.thread_time() - started)
        return command


def play(seed: str, seats: Sequence[Bot], names: Sequence[str], rng: random.Random) -> int:
    """Play one game; the winning team."""
    state = State()
    for command in opening_commands(seed, DEFAULT_RULES, [f"s{i}" for i in range(4)], names):
        state, _ = execute(state, command)
    while state.phase != "ended":
        seat = state.to_act
        next_command: Command | None = (
            due_system_command(state, seed)
            if seat is None
            else seats[seat](bot_view(state, seat), rng)
        )
        assert next_command is not None
        state, _ = execute(state, next_command)
    assert state.winner is not None
    return state.winner


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def figure(name: str, games: int) -> dict[str, object]:
    side, opponent = name.split(":")
    level, _, partner = side.partition("+")
    partner = partner or level
    samples: list[float] = []
    measured = Timed(BOTS[level], samples)
    wins = 0
    played = 0
    for deal in range(games // 2):
        seed = hashlib.sha256(f"bots-bench:{deal}".encode()).hexdigest()
        for team in (0, 1):
            names = [opponent] * 4
            seats: list[Bot] = [BOTS[opponent]] * 4
            names[team], names[team + 2] = level, partner
            seats[team], seats[team + 2] = measured, BOTS[partner]
            rng = random.Random(f"bots-bench-rng:{name}:{deal}:{team}")
            wins += play(seed, seats, names, rng) == team
            played += 1
        if (deal + 1) % 25 == 0:
            note(f"{name}: {played} games, {wins / played:.3f}")
    low, high = wilson(wins, played)
    return {
        "level": side,
        "opponent": opponent,
        "games": played,
        "win_rate": round(wins / played, 4),
        "ci95_low": round(low, 4),
        "ci95_high": round(high, 4),
        "cpu_ms_p50": round(percentile(samples, 0.5) * 1000, 3),
        "cpu_ms_p99": round(percentile(samples, 0.99) * 1000, 3),
        "decisions": len(samples),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=400, help="games per figure (even)")
    parser.add_argument("--only", action="append", choices=FIGURES, help="figures to run")
    args = parser.parse_args()
    for name in args.only or FIGURES:
        emit(figure(name, args.games))


if __name__ == "__main__":
    main()
