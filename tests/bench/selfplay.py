"""Self-play benchmark: complete bot-vs-bot games in-process, then folding their logs.

Prints one JSON object per line. Run with ``uv run python tests/bench/selfplay.py [--games N]``;
``ALLFOURS_PURE_PYTHON=1`` measures the pure-Python engine instead of the compiled build (see
``domain/compiled.py``), and ``PYTHONPATH=<a checkout of another commit>`` another engine.
``games_per_cpu_s`` counts this process's CPU time only, which on a busy machine is the steadier
figure; compare engines in the same run, alternately.
"""

from __future__ import annotations

import argparse
import importlib
import json
import time

from domain import fold
from domain.autoplay import play_game


def compiled_engine() -> bool:
    """Whether the engine's modules run compiled in this process."""
    return not (importlib.import_module("domain.decide").__file__ or "").endswith(".py")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--bots", default="random", choices=["random", "heuristic", "mixed"])
    args = parser.parse_args()
    bots = {
        "random": ("random",) * 4,
        "heuristic": ("heuristic",) * 4,
        "mixed": ("heuristic", "random", "heuristic", "random"),
    }[args.bots]

    logs = []
    started, cpu_started = time.perf_counter(), time.process_time()
    for i in range(args.games):
        _, log = play_game(f"{i:064x}", bots=bots)
        logs.append(log)
    play_s = time.perf_counter() - started
    # The CPU time too: on a shared machine the wall clock counts other processes' turns.
    play_cpu_s = time.process_time() - cpu_started

    events = sum(len(log) for log in logs)
    started = time.perf_counter()
    for log in logs:
        fold(log)
    fold_s = time.perf_counter() - started

    print(
        json.dumps(
            {
                "bench": "selfplay",
                "engine": "compiled" if compiled_engine() else "pure",
                "bots": args.bots,
                "games": args.games,
                "games_per_s": round(args.games / play_s, 1),
                "games_per_cpu_s": round(args.games / play_cpu_s, 1),
                "events_per_game": round(events / args.games, 1),
                "fold_events_per_s": round(events / fold_s),
            }
        )
    )


if __name__ == "__main__":
    main()
