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

``--peek play|bid|bid-hands`` measures what information is worth to a search level, for
whoever works on its inference (no table can seat it): the measured partnership plays out
the true deal instead of sampled ones in card play, or at its bids (with the order the pack
would come off in, or the hands only).
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
from domain.commands import Command, PlayerCommand
from domain.search import LEVELS, ranked, values_in
from domain.sight import BotView, bot_view
from domain.worlds import Knowledge, world_state

FIGURES = (
    "strong:heuristic",
    "strong:random",
    "strong+heuristic:heuristic",
    "master:heuristic",
    "master:strong",
    "master:random",
    "master+heuristic:heuristic",
)


PEEKS = ("play", "bid", "bid-hands")
"""What ``--peek`` lets the measured level see (a measurement of what information is worth to
the search, never a bot): the true deal in card play; at its bids, the hands and the order
the pack would come off in; at its bids, the hands only (the pack's order drawn anew)."""


class Peeking:
    """The measured level, but where ``peek`` says its search plays out the true deal (read
    from the game's state, which ``play`` hands it before each decision) instead of deals
    sampled from its seat's information."""

    def __init__(self, level: str, peek: str) -> None:
        self.searching = BOTS[level]
        self.budget = LEVELS[level]
        self.peek = peek
        self.state = State()

    def __call__(self, sight: BotView, rng: random.Random) -> PlayerCommand:
        bidding = sight.phase != "playing"
        if len(sight.legal_actions) == 1 or bidding == (self.peek == "play"):
            return self.searching(sight, rng)
        state = self.state
        hands = [*state.hands, 0]
        knowledge = Knowledge(sight)
        pack = list(state.deck[state.next_card :])
        if self.peek == "bid-hands":
            worlds = [
                (world_state(sight, knowledge, hands, rng.sample(pack, len(pack))), 1)
                for _ in range(self.budget.worlds)
            ]
        else:
            worlds = [(world_state(sight, knowledge, hands, pack), 1)]
        return ranked(sight, values_in(sight, worlds))[0][0]


class Timed:
    """A bot whose decisions' CPU times are kept."""

    def __init__(self, bot: Bot | Peeking, samples: list[float]) -> None:
        self.bot = bot
        self.samples = samples

    def __call__(self, sight, rng):  # type: ignore[no-untyped-def]
        started = time.thread_time()
        command = self.bot(sight, rng)
        self.samples.append(time.thread_time() - started)
        return command


def play(
    seed: str, seats: Sequence[Bot | Peeking | Timed], names: Sequence[str], rng: random.Random
) -> int:
    """Play one game; the winning team."""
    state = State()
    for command in opening_commands(seed, DEFAULT_RULES, [f"s{i}" for i in range(4)], names):
        state, _ = execute(state, command)
    while state.phase != "ended":
        seat = state.to_act
        if seat is not None:
            deciding = seats[seat]
            peeking = deciding.bot if isinstance(deciding, Timed) else deciding
            if isinstance(peeking, Peeking):
                peeking.state = state
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


def figure(name: str, games: int, peek: str | None = None) -> dict[str, object]:
    side, opponent = name.split(":")
    level, _, partner = side.partition("+")
    partner = partner or level
    samples: list[float] = []
    measured = Timed(BOTS[level] if peek is None else Peeking(level, peek), samples)
    # A peeking level's partner of the same level peeks too: the partnership sees the deal.
    partnering = Peeking(partner, peek) if peek and partner == level else BOTS[partner]
    wins = 0
    played = 0
    for deal in range(games // 2):
        seed = hashlib.sha256(f"bots-bench:{deal}".encode()).hexdigest()
        for team in (0, 1):
            names = [opponent] * 4
            seats: list[Bot | Peeking | Timed] = [BOTS[opponent]] * 4
            names[team], names[team + 2] = level, partner
            seats[team], seats[team + 2] = measured, partnering
            rng = random.Random(f"bots-bench-rng:{name}:{deal}:{team}")
            wins += play(seed, seats, names, rng) == team
            played += 1
        if (deal + 1) % 25 == 0:
            note(f"{name}: {played} games, {wins / played:.3f}")
    low, high = wilson(wins, played)
    return {
        "level": side if peek is None else f"{side} peeking at {peek}",
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
    parser.add_argument(
        "--peek",
        choices=PEEKS,
        help="let the measured search level see the true deal (in play, or at its bids with "
        "or without the pack's order): what better inference could be worth, at most",
    )
    args = parser.parse_args()
    for name in args.only or FIGURES:
        if args.peek and name.split(":")[0].split("+")[0] not in LEVELS:
            parser.error(f"--peek needs a search level: {name}")
        emit(figure(name, args.games, args.peek))


if __name__ == "__main__":
    main()
