"""Replays that settle the questions an implementer of the verification recipe would otherwise
have to guess (``docs/REPLAY_VERIFICATION.md``): each is a real game of the engine, stopped
where the question arises, with the verdict a verifier must reach. They go out with the test
vectors (``GET /v1/replay-verification``, ``cases``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence

import msgspec

from domain import (
    Beg,
    Command,
    Event,
    Resign,
    Rules,
    RunPack,
    SeedRevealed,
    State,
    commit,
    derive_deck,
    execute,
)
from domain.autoplay import due_system_command, opening_commands
from domain.cards import SUITS
from server.replay.format import Replay, replay_of_log

__all__ = ["ReplayCase", "replay_cases"]


class ReplayCase(msgspec.Struct, frozen=True):
    """A replay and what a verifier must conclude from it."""

    name: str
    """A short name for the case."""
    settles: str
    """The question of the recipe this case answers, and the answer."""
    fair: bool
    """The verdict: true when the replay verifies."""
    replay: Replay
    """The whole replay, as ``GET /v1/games/{game_id}/replay`` serves one."""


_RULES = Rules(turn_seconds=None)

Move = Callable[[State], Command]
"""A decision of the case's script, made from the state it is due in."""


def _played(seed: str, script: Sequence[Move]) -> list[Event]:
    """A game of four named bots (none of them decides: the script does) played from ``seed``
    with the script's moves, each when its seat is to act, then the seed revealed."""
    state = State()
    log: list[Event] = []
    for command in opening_commands(seed, _RULES, [f"p{i}" for i in range(4)], [None] * 4):
        state, events = execute(state, command)
        log.extend(events)
    moves = iter(script)
    while state.seed is None:
        due = due_system_command(state, seed)
        command = due if due is not None else next(moves)(state)
        state, events = execute(state, command)
        log.extend(events)
    return log


def _replay(seed: str, log: Sequence[Event], name: str) -> Replay:
    return replay_of_log(f"case-{name}", seed, commit(seed), enumerate(log, start=1))


def _seeds(prefix: str) -> Iterator[str]:
    n = 0
    while True:
        yield hashlib.sha256(f"{prefix}{n}".encode()).hexdigest()
        n += 1


def _suit(card: str) -> int:
    return SUITS.index(card[1])


def _redealt_at_51() -> str:
    """The first seed whose hand 1 turns up three kicks of one suit (cards 24, 37 and 50): the
    pack is run twice and the hand is redealt."""
    for seed in _seeds("allfours replay case redeal "):
        deck = derive_deck(seed, 1, 1)
        if _suit(deck[24]) == _suit(deck[37]) == _suit(deck[50]) and deck[24][0] not in "A6J":
            return seed
    raise AssertionError("unreachable: one seed in about twenty does")


def _zero_point_kick() -> str:
    for seed in _seeds("allfours replay case kick "):
        if derive_deck(seed, 1, 1)[24][0] in "345789TQK":
            return seed
    raise AssertionError("unreachable")


def _to_act(make: Callable[[int], Command]) -> Move:
    def move(state: State) -> Command:
        assert state.to_act is not None
        return make(state.to_act)

    return move


def replay_cases() -> tuple[ReplayCase, ...]:
    beg, run = _to_act(lambda seat: Beg(seat)), _to_act(lambda seat: RunPack(seat))
    resign = _to_act(lambda seat: Resign(seat))

    upper = _SAMPLE_SEED.upper()
    sample = _played(_SAMPLE_SEED, [beg, resign])
    upper_log = [*sample[:-1], SeedRevealed(at=sample[-1].at, seed=upper)]

    redeal = _redealt_at_51()
    zero = _zero_point_kick()
    twice = [*sample, sample[-1]]
    return (
        ReplayCase(
            "upper_case_seed",
            "The seed's 64 hex digits may come in either case: its 32 bytes are what count "
            "(the commitment is their SHA-256 in lower-case hex, compared as text). The server "
            "writes lower case; this replay reveals the same seed in upper case. Fair.",
            True,
            replay_of_log("case-upper_case_seed", upper, commit(upper), enumerate(upper_log, 1)),
        ),
        ReplayCase(
            "redealt_at_p_51",
            "p counts the cards dealt and turned up so far, the kick just turned included: "
            "the first run's kick is card 37 (p = 38 after it: 38 + 13 <= 52, so a kick of "
            "the first kick's suit is followed by a second run at once); the second run's kick "
            "is card 50 (p = 51: 51 + 13 > 52, so a kick of that suit again is followed by "
            "Redealt at once). Nothing comes between a PackRun, its Revealed and what follows "
            "it. Fair.",
            True,
            _replay(redeal, _played(redeal, [beg, run, resign]), "redealt_at_p_51"),
        ),
        ReplayCase(
            "resigned_between_beg_and_choice",
            "Between Begged and the dealer's GaveOne or PackRun other events may come "
            "(timeouts, a seat away or back, a person leaving or replaced, a resignation): "
            "here a resignation ends the game (GameEnded, then SeedRevealed) before the dealer "
            "chose. Only the events of one command follow each other at once: Dealt and its "
            "Revealed; Stood and TrumpSet; GaveOne and TrumpSet (unless the point ended the "
            "game); PackRun, its Revealed and the TrumpSet, PackRun or Redealt after it. Fair.",
            True,
            _replay(_SAMPLE_SEED, _played(_SAMPLE_SEED, [beg, resign]), "resigned_between_beg"),
        ),
        ReplayCase(
            "zero_point_kick",
            "Every Revealed names the dealer's team (dealer mod 2) in team, a kick worth no "
            "point (points 0) included. Fair.",
            True,
            _replay(zero, _played(zero, [resign]), "zero_point_kick"),
        ),
        ReplayCase(
            "seed_revealed_twice",
            "SeedRevealed comes exactly once, as the last event (only RematchCreated may "
            "follow it); a log that reveals a seed twice is refused. Not fair.",
            False,
            _replay(_SAMPLE_SEED, twice, "seed_revealed_twice"),
        ),
    )


_SAMPLE_SEED = hashlib.sha256(b"allfours replay case 1").hexdigest()
