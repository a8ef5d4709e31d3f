"""The engine's fast paths give exactly the game its checked paths give.

``push`` makes a move without checking it or building events (for computer players, the arena
and the benchmark); it must change the game exactly as ``play`` does.
"""

from __future__ import annotations

import random

import pytest

from engine import CLASSIC, KINGS, Game, RuleSet

NO_REFILL = CLASSIC.with_options(refill_empty_hand=False)


@pytest.mark.parametrize("rules", [CLASSIC, KINGS, NO_REFILL])
@pytest.mark.parametrize("seed", range(6))
def test_push_changes_the_game_exactly_as_play_does(rules: RuleSet, seed: int) -> None:
    checked, _ = Game.new(rules, seed)
    quick, _ = Game.new(rules, seed)
    rng = random.Random(seed)
    while checked.result is None:
        legal = checked.legal_moves()
        assert quick.legal_moves() == legal
        plays = [m for m in legal if m.is_play]
        move = rng.choice(plays if plays and rng.random() < 0.8 else legal)
        checked.play(move)
        quick.push(move)
        assert quick.to_dict() == checked.to_dict()
    assert quick.result == checked.result


@pytest.mark.parametrize("rules", [CLASSIC, KINGS])
@pytest.mark.parametrize("seed", range(6))
def test_plays_and_endings_are_the_legal_moves_apart_in_order(rules: RuleSet, seed: int) -> None:
    game, _ = Game.new(rules, seed)
    rng = random.Random(seed)
    while game.result is None:
        legal = game.legal_moves()
        plays, endings = game.legal_plays(), game.legal_endings()
        assert plays == tuple(m for m in legal if m.is_play)
        assert endings == tuple(m for m in legal if not m.is_play)
        due = game.compulsory_plays()
        if due:
            assert plays == due and endings == ()
        move = rng.choice(plays if plays and rng.random() < 0.7 else legal)
        game.push(move)
    assert game.legal_plays() == game.legal_endings() == game.legal_moves() == ()


@pytest.mark.parametrize("size", [0, 1, 2, 5, 26, 52, 56, 104, 108])
def test_the_engine_shuffles_exactly_as_random_shuffle(size: int) -> None:
    # Saved games replay from their seed: the engine's own shuffle must give the same order.
    from engine.game import _shuffle

    for seed in range(20):
        cards = list(range(size))
        expected = list(range(size))
        _shuffle(random.Random(f"x/{seed}"), cards)  # type: ignore[arg-type]
        random.Random(f"x/{seed}").shuffle(expected)
        assert cards == expected


def _fresh(game: Game) -> None:
    """Forget the cached move lists, so the next call generates them again."""
    game._legal = game._plays = game._endings = None


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", [CLASSIC, KINGS, NO_REFILL],
                         ids=["classic", "kings", "classic-no-refill"])
def test_the_two_move_generators_agree_on_every_position(rules: RuleSet, players: int) -> None:
    # ``_generate`` (every legal move) and ``_generate_plays`` (the plays only, for callers
    # that look at plays first) are two copies of one decision, kept apart for speed: on every
    # position of many random games the plays of the one are exactly the other's, in order,
    # and with a compulsory play due both give exactly the compulsory plays.
    positions = 0
    for seed in range(12 if players == 2 else 6):
        game, _ = Game.new(rules, 1_000 + seed, players)
        rng = random.Random(seed)
        while game.result is None:
            _fresh(game)
            plays = game._generate_plays()
            _fresh(game)
            legal = game._generate()
            _fresh(game)
            assert plays == tuple(m for m in legal if m.is_play), (seed, len(game.history))
            due = game.compulsory_plays()
            if due:
                assert plays == legal == due
            positions += 1
            pool = plays if plays and rng.random() < 0.7 else legal
            game.push(rng.choice(pool))
    assert positions > 1_000
