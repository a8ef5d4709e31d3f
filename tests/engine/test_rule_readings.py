"""Games keep the rules they were played under: rule 25's stalemate round as it read before its
clarification (any leave began a new round) for classic games of three or four saved without
the marker, as clarified (``"stalemate_round": 2`` in the saved rules) for every new one.

``data/old_stalemate_round.json`` is a classic table of three played and saved by main's code of
7b283e6, before the clarification (made by ``tests/bot/fixtures/make_table_stalemate_v7.py``):
Cat left on turn after Ann and Bob had each passed; that code began a new round, and two passes
later scored the stalemate. Read as clarified, the leave itself completes the round.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import (
    CLASSIC,
    KINGS,
    PASS,
    EndReason,
    Game,
    IllegalMoveError,
    Match,
    RuleSet,
    RuleSetError,
    SetupError,
)
from tests.engine.test_rules_tables import FULL, table

OLD_GAME = json.loads((Path(__file__).parent / "data" / "old_stalemate_round.json").read_text())
BEFORE = RuleSet.from_dict({"name": "classic", "refill_empty_hand": True,
                            "king_starts_stack": True, "match_target": None})
"""Classic as a game saved before the clarification reads: without the marker."""


def _replay(rules: RuleSet, log: list[list[Any]]) -> Match:
    match, _ = Match.new(rules, OLD_GAME["seed"], OLD_GAME["players"])
    for seat, text in log:
        if text in ("resign", "claim"):
            match.resign(seat)
        else:
            match.play(text, seat)
    return match


def test_a_game_saved_before_the_clarification_replays_as_it_was_played() -> None:
    saved = OLD_GAME["match"]
    rules = RuleSet.from_dict(saved["rules"])
    match = _replay(rules, OLD_GAME["log"])
    assert match.is_over and match.to_dict() == saved  # saved again without a marker
    assert "stalemate_round" not in saved["rules"] and rules.stalemate_round == 1
    assert Match.from_dict(json.loads(json.dumps(saved))).to_dict() == saved
    result = match.game.result
    assert result is not None and result.reason is EndReason.STALEMATE and result.left == (2,)


def test_read_as_clarified_the_same_moves_end_at_the_leave() -> None:
    log = OLD_GAME["log"]
    leave = next(i for i, (_, text) in enumerate(log) if text == "resign")
    assert [text for _, text in log[leave - 2:]] == ["pass", "pass", "resign", "pass", "pass"]
    match = _replay(CLASSIC, log[:leave + 1])
    result = match.game.result
    assert result is not None and result.reason is EndReason.STALEMATE
    with pytest.raises(IllegalMoveError):
        match.play(PASS, log[leave + 1][0])


@pytest.mark.parametrize("players", [3, 4])
def test_a_new_classic_table_is_saved_with_the_marker_and_keeps_it(players: int) -> None:
    game, _ = Game.new(CLASSIC, 7, players)
    assert game.to_dict()["rules"]["stalemate_round"] == 2
    assert Game.from_dict(json.loads(json.dumps(game.to_dict()))).rules.stalemate_round == 2
    match, _ = Match.new(CLASSIC, 7, players)
    saved = match.to_dict()
    assert saved["rules"]["stalemate_round"] == saved["game"]["rules"]["stalemate_round"] == 2
    assert Match.from_dict(json.loads(json.dumps(saved))).to_dict() == saved
    assert RuleSet.from_dict(CLASSIC.to_dict()) == CLASSIC


@pytest.mark.parametrize(("rules", "players"), [(CLASSIC, 2), (KINGS, 2), (KINGS, 3),
                                                (KINGS, 4)])
def test_where_the_readings_cant_differ_the_rules_are_saved_as_always(rules, players) -> None:
    keys = {"name", "refill_empty_hand", "king_starts_stack", "match_target"}
    game, _ = Game.new(rules, 7, players)
    assert set(game.to_dict()["rules"]) == keys and game.rules.stalemate_round == 1
    match, _ = Match.new(rules, 7, players)
    assert set(match.to_dict()["rules"]) == set(match.to_dict()["game"]["rules"]) == keys
    assert match.rules == match.game.rules
    assert Match.from_dict(json.loads(json.dumps(match.to_dict()))) == match


def test_rule_25_before_the_clarification_a_leave_began_a_new_round() -> None:
    game = table(rules=BEFORE, payoffs=["9C 9C 9C", "9D", "9H 9H"], hands=FULL[:3], turn=0)
    game.play(PASS)
    game.play(PASS)  # seats 0 and 1 idle; seat 2 on turn leaves without a play
    game.resign(2)
    assert game.result is None and game.idle_streak == 0 and game.turn == 0
    game.play(PASS)
    assert game.result is None
    game.play(PASS)
    result = game.result
    assert result is not None and result.reason is EndReason.STALEMATE and result.winner == 1
    # The same position read as clarified ends at the leave.
    game = table(payoffs=["9C 9C 9C", "9D", "9H 9H"], hands=FULL[:3], turn=0)
    game.play(PASS)
    game.play(PASS)
    game.resign(2)
    assert game.result is not None and game.result.reason is EndReason.STALEMATE


def test_rule_25_before_the_clarification_a_leave_before_ones_turn_began_a_new_round_too(
) -> None:
    four = ["9C 9C 9C", "9D", "9H 9H", "8S 8S 8S 8S"]
    game = table(rules=BEFORE, payoffs=four, hands=FULL, turn=0)
    game.play(PASS)
    game.play(PASS)
    game.resign(3)
    game.play(PASS)  # seat 2: a round of the three still seated is not complete yet
    assert game.result is None and game.idle_streak == 1
    game.play(PASS)
    game.play(PASS)
    assert game.result is not None and game.result.reason is EndReason.STALEMATE


@pytest.mark.parametrize("marker", [0, 3, True, "2", None])
def test_an_unknown_reading_is_refused(marker) -> None:
    with pytest.raises(RuleSetError):
        RuleSet.from_dict({"name": "classic", "stalemate_round": marker})
    game, _ = Game.new(CLASSIC, 1, 3)
    data = game.to_dict()
    data["rules"]["stalemate_round"] = marker
    with pytest.raises(SetupError):
        Game.from_dict(data)


def test_kings_has_no_stalemate_round_to_mark() -> None:
    with pytest.raises(RuleSetError):
        RuleSet.from_dict({"name": "kings", "stalemate_round": 2})
    assert KINGS.stalemate_round == 1 and "stalemate_round" not in KINGS.to_dict()
