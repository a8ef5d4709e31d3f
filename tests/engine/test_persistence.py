"""Saving, loading and replaying games and matches; damaged saves are refused clearly."""

from __future__ import annotations

import json
import random

import pytest

from engine import CLASSIC, KINGS, Game, Match, SetupError


def _played(rules, seed: int, moves: int) -> Game:
    game, _ = Game.new(rules, seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if game.result is not None:
            break
        game.play(rng.choice(game.legal_moves()))
    return game


@pytest.mark.parametrize("rules", [CLASSIC, KINGS])
def test_round_trip_through_json_is_identical(rules) -> None:
    game = _played(rules, 11, 15)
    assert game.result is None
    loaded = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    assert loaded == game
    assert loaded.legal_moves() == game.legal_moves()
    move = game.legal_moves()[0]
    assert [e.to_dict() for e in loaded.play(move)] == [e.to_dict() for e in game.play(move)]
    assert loaded == game


@pytest.mark.parametrize("rules", [CLASSIC, KINGS])
def test_seed_and_moves_rebuild_the_same_game(rules) -> None:
    game = _played(rules, 12, 400)
    assert Game.replay(rules, game.seed, [m for _, m in game.history]) == game
    assert Game.replay(rules, game.seed, [m.text for _, m in game.history]) == game


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d.update(version=99),
        lambda d: d.pop("stock"),
        lambda d: d["stock"].append("7H"),  # a card too many
        lambda d: d["hands"][0].append("ZZ"),  # not a card
        lambda d: d.update(turn=2),
        lambda d: d["rules"].update(name="poker"),
        lambda d: d["side_masks"][0].pop(),
        lambda d: d.update(history=[[0, "garbage"]]),
        lambda d: d.update(centre=[["7H"], [], [], []]),  # a stack must start with an Ace
        lambda d: d.update(hands="nope"),
    ],
)
def test_damaged_save_is_refused_with_a_clear_error(damage) -> None:
    data = _played(CLASSIC, 13, 30).to_dict()
    damage(data)
    with pytest.raises(SetupError, match="damaged|Unknown|cards|version"):
        Game.from_dict(data)


def test_match_round_trip() -> None:
    match, _ = Match.new(KINGS, seed=3)
    rng = random.Random(3)
    while match.game.result is None:
        match.play(rng.choice(match.game.legal_moves()))
    loaded = Match.from_dict(json.loads(json.dumps(match.to_dict())))
    assert loaded == match
    assert loaded.scores == match.scores and loaded.game_number == 1


def test_match_resignation_gives_up_the_match() -> None:
    match, _ = Match.new(KINGS, seed=4)
    match.resign(1)
    assert match.is_over and match.winner == 0
    assert match.results[0].score == len(match.game.payoffs[1])
