"""The words of the game: counts read as English."""

from __future__ import annotations

from bot.pictures.text import board_fields, clip, plural, quote
from engine import CLASSIC, Game


def test_one_of_a_thing_is_singular() -> None:
    game = Game.from_layout(CLASSIC, payoffs=["9H", "6S"], hands=["KS", "KH QH"],
                            centre=["AS"], turn=0)
    text = "\n".join(body for _, body in board_fields(game.public_view(), ("Ann", "Bob")))
    assert "C1: A (1 card), needs 2" in text
    assert "Hand: 1 card\n" in text and "Hand: 2 cards\n" in text
    assert plural(1, "point") == "1 point" and plural(0, "point") == "0 points"


def test_user_input_is_quoted_short_and_messages_fit() -> None:
    assert quote("godlike") == "`godlike`"
    assert quote("x" * 3000) == "`" + "x" * 24 + "…`"
    assert quote("a`b") == "`aˋb`", "a backtick can't end the code span early"
    assert len(clip("y" * 5000)) == 2000 and clip("short") == "short"


def test_the_board_text_says_what_a_side_stack_joker_stands_for() -> None:
    from bot.pictures.text import board_fields
    from engine import CLASSIC, Game
    from engine.players import make_player

    game, _ = Game.new(CLASSIC, 0)
    players = [make_player("easy", 1), make_player("easy", 2)]
    while game.result is None:
        game.play(players[game.turn].choose(game.view(game.turn)))
        view = game.public_view()
        jokers = [(seat, side) for seat in (0, 1) for side in range(4)
                  if any(view.joker_ranks(seat, side))]
        if jokers:
            break
    assert jokers, "this seeded game puts a joker on a side stack"
    seat, side = jokers[0]
    text = dict(board_fields(view, ("A", "B")))["AB"[seat]]
    line = next(t for t in text.splitlines() if t.startswith(f"S{side + 1}:"))
    assert "🃏(as " in line
