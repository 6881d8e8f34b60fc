"""State, Player and BotView are records (``domain.records``): one list of fields that their
constructor, ``replace``, equality and repr all follow, read-only in the compiled build."""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import os
from pathlib import Path

import pytest

from domain import Player, State, fold
from domain.autoplay import play_game
from domain.compiled import PURE_ENV
from domain.sight import BotView, bot_view

GENERATOR = Path(__file__).resolve().parents[2] / "scripts" / "generate_records.py"


def _states() -> list[State]:
    _, log = play_game("ab" * 32, bots=("heuristic", "random", "heuristic", "random"))
    return [fold(log[:n]) for n in range(0, len(log), 7)]


def test_a_state_is_rebuilt_from_its_fields_in_their_order():
    for state in _states():
        assert State(*state.values()) == state
        assert dict(zip(State.FIELDS, state.values(), strict=True)) == {
            name: getattr(state, name) for name in State.FIELDS
        }


def test_replace_sets_exactly_the_fields_it_is_given():
    states = _states()
    for before, after in itertools.pairwise(states):
        assert before.replace() == before
        assert before.replace(**dict(zip(State.FIELDS, after.values(), strict=True))) == after
        for name in State.FIELDS:
            changed = before.replace(**{name: getattr(after, name)})
            for other in State.FIELDS:
                source = after if other == name else before
                assert getattr(changed, other) == getattr(source, other), (name, other)


def test_players_compare_and_hash_by_their_fields():
    player = Player("ann", None, away=True, timeouts=1)
    assert player == Player("ann", None, True, False, 1)
    assert hash(player) == hash(Player("ann", None, True, False, 1))
    assert player != player.replace(away=False)
    assert player.replace(timeouts=0) == Player("ann", away=True)
    assert repr(player) == (
        "Player(name='ann', bot=None, away=True, left=False, timeouts=1, away_since=None, "
        "player=None)"
    )
    assert player != Player("ann", None, True, False, 1, player="p1")
    assert player != player.replace(away_since=5)
    assert (player == "ann") is False  # another type: not equal, and no error


def test_a_bot_view_holds_its_seats_facts_as_fields():
    state = _states()[10]
    seat = state.to_act if state.to_act is not None else 0
    sight = bot_view(state, seat)
    assert dict(zip(BotView.FIELDS, sight.values(), strict=True))["hand_cards"] == state.hands[seat]
    assert sight == bot_view(state, seat)


def _compiled() -> bool:
    return not (importlib.import_module("domain.state").__file__ or "").endswith(".py")


def test_the_engine_refuses_to_change_a_record():
    """Compiled, every record refuses an assignment; interpreted, the state, the players and
    the bots' views do (they are frozen Structs there, ``domain.interpreted``), and the type
    checker guards the rest."""
    state = _states()[5]
    player = Player("ann")
    sight = bot_view(state, 0)
    cases = [
        (state, "version", 99),
        (state, "hands", (0, 0, 0, 0)),
        (player, "away", True),
        (sight, "legal_actions", ()),
    ]
    if not _compiled() and os.environ.get(PURE_ENV, "") in ("", "0"):
        pytest.skip("no build of these sources: `make env` compiles them")
    for record, name, value in cases:
        with pytest.raises(AttributeError):
            setattr(record, name, value)
        with pytest.raises(AttributeError):
            delattr(record, name)


def test_interpreted_the_state_is_a_struct_of_the_same_fields():
    """Where the engine runs interpreted its state, players and bots' views are msgspec
    Structs made from the record classes (built and replaced in C); compiled, the records."""
    import msgspec

    interpreted = not _compiled()
    for cls in (State, Player, BotView):
        assert issubclass(cls, msgspec.Struct) is interpreted, cls
    if interpreted:
        for cls in (State, Player, BotView):
            assert cls.__struct_fields__ == cls.FIELDS, cls
        assert State().values() == tuple(
            State.__struct_defaults__[i] for i in range(len(State.FIELDS))
        )


def test_the_states_generated_code_is_what_its_fields_say() -> None:
    """FIELDS, __init__ and replace are written from the fields declared once in the class body
    (``scripts/generate_records.py``): edit a field there, then run the script."""
    spec = importlib.util.spec_from_file_location("generate_records", GENERATOR)
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    source = generator.STATE.read_text()
    assert generator.rewritten(source) == source, "run: uv run python scripts/generate_records.py"
    assert [name for name, _, _ in generator.fields(source)] == list(State.FIELDS)
