"""The target: the game ends the moment a team reaches it, wherever that happens; the seed."""

from __future__ import annotations

from decks import (
    SEED,
    Game,
    add_kick_points,
    build_deck,
    event_types,
    last_scored,
    sweep_deck,
    sweep_hand,
)

from domain import (
    Beg,
    CreateGame,
    Deal,
    GameEnded,
    GiveOne,
    Join,
    Play,
    RevealSeed,
    Rules,
    RunPack,
    SeedRevealed,
    Stand,
    commit,
    verify,
    view,
)


def test_the_target_option_ends_the_game_at_seven():
    game = Game(rules=Rules(target=7), first_dealer=0)
    add_kick_points(game, ("JH", "AH", "6H"))
    assert game.scores == (6, 0)
    events = game.deal(build_deck(0, kick="AC"))
    assert event_types(events) == ["Dealt", "Revealed", "GameEnded"]
    assert (events[-1].winner, events[-1].scores) == (0, (7, 0))
    assert game.state.phase == "ended"
    assert game.state.winner == 0


def test_by_default_seven_points_do_not_end_the_game():
    game = Game(first_dealer=0)
    add_kick_points(game, ("JH", "AH", "6H"))
    events = game.deal(build_deck(0, kick="AC"))
    assert event_types(events) == ["Dealt", "Revealed"]
    assert game.scores == (7, 0)
    assert game.state.phase == "begging"


def test_reaching_the_target_with_low_ends_the_game_and_jack_and_game_are_not_awarded():
    game = Game(rules=Rules(target=2), first_dealer=1)
    game.deal(sweep_deck(1, team=0, suit="D"))
    game.stand()
    events = game.play_out()
    scored = last_scored(events)
    assert [(a.kind, a.team) for a in scored.awards] == [("high", 0), ("low", 0)]
    assert scored.scores == (2, 0)
    assert event_types(events)[-2:] == ["HandScored", "GameEnded"]
    assert game.state.phase == "ended"


def test_reaching_the_target_with_the_jack_stops_before_game():
    game = Game(rules=Rules(target=7), first_dealer=1)
    sweep_hand(game, team=0, suit="D")  # 4 points: High, Low, Jack, Game
    game.deal(sweep_deck(2, team=0, suit="C"))
    game.stand()
    scored = last_scored(game.play_out())
    assert [a.kind for a in scored.awards] == ["high", "low", "jack"]
    assert game.scores == (7, 0)
    assert game.state.winner == 0


def test_a_kick_reaching_the_target_while_running_the_pack_ends_the_game_at_once():
    game = Game(rules=Rules(target=7), first_dealer=0)
    add_kick_points(game, ("JH", "AH", "6H"))
    game.deal(build_deck(0, kick="3H", runs=[({}, "AD")]))
    events = game.beg_and_run()
    assert event_types(events) == ["Begged", "PackRun", "Revealed", "GameEnded"]
    assert game.state.phase == "ended"
    assert game.state.trump is None
    assert game.scores == (7, 0)


def test_a_set_aside_kick_reaching_the_target_ends_the_game_before_the_pack_runs_on():
    game = Game(rules=Rules(target=4), first_dealer=3)
    game.deal(build_deck(3, kick="JH", runs=[({}, "AH"), ({}, "3D")]))
    events = game.beg_and_run()
    assert event_types(events) == ["Begged", "PackRun", "Revealed", "GameEnded"]
    assert game.scores == (0, 4)


def ended_game() -> Game:
    game = Game(rules=Rules(target=1), first_dealer=2)
    game.deal(build_deck(2, kick="AS"))
    assert game.state.phase == "ended"
    return game


def test_the_seed_is_revealed_only_after_the_end():
    game = Game(first_dealer=0)
    game.refuse(RevealSeed(seed=SEED), "wrong_phase")
    game.deal(build_deck(0, kick="3C"))
    game.refuse(RevealSeed(seed=SEED), "wrong_phase")
    assert view(game.state, None).seed is None
    game = ended_game()
    assert all(view(game.state, v).seed is None for v in (0, 1, 2, 3, None))
    events = game.do(RevealSeed(seed=SEED))
    assert events == [SeedRevealed(seed=SEED)]
    assert game.state.seed == SEED
    assert view(game.state, 1).seed == SEED


def test_a_wrong_seed_is_refused_with_seed_mismatch():
    game = ended_game()
    game.refuse(RevealSeed(seed="00" * 32), "seed_mismatch")
    game.refuse(RevealSeed(seed="not hex"), "seed_mismatch")
    game.refuse(RevealSeed(seed=commit(SEED)), "seed_mismatch")


def test_nothing_is_accepted_after_the_game_ended():
    game = ended_game()
    assert isinstance(game.log[-1], GameEnded)
    commands = [
        Join(seat=0, name="late"),
        Deal(deck=build_deck(3)),
        *(cmd(seat=s) for s in range(4) for cmd in (Stand, Beg, GiveOne, RunPack)),
        *(Play(seat=s, card=c) for s in range(4) for c in sorted(game.hand_of(s))),
    ]
    for command in commands:
        game.refuse(command, "game_over")
    game.refuse(
        CreateGame(rules=Rules(), seed_commitment=commit(SEED), first_dealer=0), "game_exists"
    )
    game.do(RevealSeed(seed=SEED))
    for command in commands:
        game.refuse(command, "game_over")
    # a second reveal: refused (game_over or wrong_phase are both fair names for it)
    error = game.refuse_any(RevealSeed(seed=SEED))
    assert error.code in ("game_over", "wrong_phase")


def test_a_hand_built_game_log_verifies_only_against_its_own_decks():
    """``verify`` re-derives decks from the seed: a chosen deck is (rightly) reported unfair."""
    game = ended_game()
    game.do(RevealSeed(seed=SEED))
    result = verify(game.log)
    assert not result.ok
    assert any("not fair" in p for p in result.problems)
