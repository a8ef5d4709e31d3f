"""Moves: the one notation shared by the bot, the logs and the tests."""

from __future__ import annotations

import pickle

import pytest

from engine import PASS, Card, InvalidMoveError, Move, Source, Target
from engine.moves import ALL_MOVES


@pytest.mark.parametrize(
    ("text", "source", "target", "target_index"),
    [("7H>C2", Source.HAND, Target.CENTRE, 1), ("P>C1", Source.PAYOFF, Target.CENTRE, 0),
     ("S3>C4", Source.SIDE, Target.CENTRE, 3), ("9D>S1", Source.HAND, Target.SIDE, 0),
     ("JK>C3", Source.HAND, Target.CENTRE, 2)],
)
def test_parse_and_print(text: str, source: Source, target: Target, target_index: int) -> None:
    move = Move.parse(text)
    assert move.source is source
    assert move.target is target
    assert move.target_index == target_index
    assert str(move) == text


def test_side_source_index_and_hand_card() -> None:
    assert Move.parse("S3>C2").source_index == 2
    assert Move.parse("10S>S4").card is Card.parse("10S")
    assert Move.parse("10S>S4").is_discard
    assert Move.parse("10S>C4").is_play


@pytest.mark.parametrize(("loose", "canonical"),
                         [("7h c2", "7H>C2"), ("7H to C2", "7H>C2"), ("7h-c2", "7H>C2"),
                          ("p > c1", "P>C1"), ("ts>s2", "10S>S2"), (" PASS ", "pass"),
                          ("s1 -> c3", "S1>C3")])
def test_lenient_parsing_prints_canonical(loose: str, canonical: str) -> None:
    assert str(Move.parse(loose)) == canonical


@pytest.mark.parametrize("garbage", ["", "7H", "7H>", ">C2", "7H>C5", "7H>X1", "ZZ>C1",
                                     "S5>C1", "7H>C0", "hello world", "7H>C2>C3", "passs"])
def test_garbage_raises_invalid_move_error(garbage: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(garbage)
    assert len(str(info.value)) > 10


def test_moves_are_interned_values() -> None:
    assert Move.parse("7H>C2") is Move.hand(Card.parse("7H"), Target.CENTRE, 1)
    assert Move.parse("P>C1") is Move.payoff(Target.CENTRE, 0)
    assert Move.parse("S2>C1") is Move.side(1, Target.CENTRE, 0)
    assert Move.parse("pass") is PASS
    assert pickle.loads(pickle.dumps(Move.parse("7H>C2"))) is Move.parse("7H>C2")
    assert PASS.is_pass and not PASS.is_play and not PASS.is_discard
    assert PASS.source_token == ""


def test_every_move_round_trips() -> None:
    assert len({m.text for m in ALL_MOVES}) == len(ALL_MOVES)
    for move in ALL_MOVES:
        assert Move.parse(str(move)) is move
        if not move.is_pass:
            assert f"{move.source_token}>{move.target_token}" == move.text
