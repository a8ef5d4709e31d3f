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
