"""Moves: the one notation shared by the bot, the logs and the tests."""

from __future__ import annotations

import pickle

import pytest

from engine import PASS, Card, InvalidMoveError, Move, Source, Target
from engine.moves import ALL_MOVES, parse_source, parse_target


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


# ---------------------------------------------------------------- messages quote input briefly

LONG = "7" * 2500


@pytest.mark.parametrize("text", [LONG, f"7H>{LONG}", f"{LONG}>C1", f"{LONG} to C1", "Z" + LONG])
def test_a_long_input_is_quoted_as_a_short_prefix(text: str) -> None:
    # A Discord reply over 2,000 characters is refused, and option values can be longer.
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    message = str(info.value)
    assert len(message) < 300
    assert "…" in message


def test_parse_source_target_and_card_quote_a_prefix() -> None:
    for parse in (parse_source, parse_target, Card.parse):
        with pytest.raises(ValueError) as info:
            parse("x" * 3000)  # type: ignore[operator]
        assert f"'{'x' * 20}…'" in str(info.value)
        assert len(str(info.value)) < 200


def test_a_short_input_is_quoted_whole() -> None:
    with pytest.raises(InvalidMoveError, match="'banana' is not a target"):
        parse_target("banana")


@pytest.mark.parametrize("text", ["7H>C²", "S²>C1", "7H>S١"])
def test_digits_other_than_0_to_9_are_refused_as_notation(text: str) -> None:
    # str.isdigit() accepts them but int() does not: this was a bare ValueError.
    with pytest.raises(InvalidMoveError):
        Move.parse(text)


# ---------------------------------------------------------------- the rule set's centre stacks


def test_without_a_count_the_notation_names_four_centre_stacks() -> None:
    assert parse_target("C4") == (Target.CENTRE, 3)
    with pytest.raises(InvalidMoveError, match="C1 to C4"):
        parse_target("C9")


@pytest.mark.parametrize("token", ["C4", "C9", "C0", "banana"])
def test_with_three_centre_stacks_messages_name_c1_to_c3(token: str) -> None:
    with pytest.raises(InvalidMoveError) as info:
        parse_target(token, centre_stacks=3)
    assert "C1 to C3" in str(info.value)
    assert "C4" not in str(info.value).replace(f"stack {token}", "")
    with pytest.raises(InvalidMoveError, match="C1 to C3"):
        Move.parse(f"7H>{token}", centre_stacks=3)


def test_with_three_centre_stacks_c1_to_c3_and_side_stacks_parse() -> None:
    assert parse_target("c3", centre_stacks=3) == (Target.CENTRE, 2)
    assert parse_target("S4", centre_stacks=3) == (Target.SIDE, 3)
    assert Move.parse("7H>C3", centre_stacks=3) is Move.parse("7H>C3")
