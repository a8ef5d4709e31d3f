"""Boards read on a phone: Discord shows a picture about 314 px wide there (issue 31).

Every text on a board of two, three or four must be at least 8 px tall at that width. "Tall" is
the font size (the em: what CSS's ``font-size`` and Discord's own text sizes measure, and what
the issue measured: "Last moves" drawn at 22 px on a 1200 px board is 22 × 314 / 1200 = 5.8 px).
The sizes are the ones the renderer really drew with (``fonts.drawn_text`` records every text
drawn and its size), for positions of both rule sets from the deal to the result, with the
longest names Discord allows and a match score shown. Card faces (ranks and suits on the cards)
are drawn as cards, not text, and are not counted: at that width they read well already.
"""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Iterator

import pytest
from PIL import Image

from bot.bench.render_bench import positions
from bot.pictures import fonts, group_board, picture_palette, two_player_board
from bot.pictures.board_info import BoardInfo
from bot.pictures.board_picture import render_board
from engine import CLASSIC, KINGS, EndReason, Game, Result, RuleSet, View

PHONE_WIDTH = 314
"""How wide Discord's phone app shows a picture, in px."""
LEAST_AT_PHONE_WIDTH = 8.0
"""The smallest text a board may show there, in px (font size)."""

LONG_NAMES = ("W" * 32, "Bartholomew-Maximilian Jones 3rd", "M" * 32, "Anastasia Wolkonskaja-Petr")
"""Discord display names are at most 32 characters; W and M are the widest letters."""
LONG_MOVES = ("Anastasia Wolkonskaja-Petr: 🃏 as Q from hand → centre 4",
              "Bartholomew-Maximilian Jones 3rd: pay-off card 10♦ → centre 2 (pay-off: 17 left)",
              "Bob passed", "Carol: 9♣ from side 3 → centre 1")


def _clear_board_caches() -> None:
    # The unchanging parts of a board are drawn once per process: draw them again, so that
    # their labels are among the texts recorded.
    for module in (two_player_board, group_board):
        for value in vars(module).values():
            clear = getattr(value, "cache_clear", None)
            if clear is not None:
                clear()


def _boards(players: int, rules: RuleSet) -> Iterator[tuple[View, BoardInfo]]:
    """Positions of one rule set from the deal to the end, with long names, long last moves and
    a match score; also the results of every kind."""
    names = LONG_NAMES[:players]
    scores = tuple(10 * k + 3 for k in range(players))
    for pub, _, info in positions(16, seed=9, players=players):
        if pub.rules is not rules:
            continue
        yield pub, dataclasses.replace(info, names=names, match_scores=scores, match_target=50,
                                       last_moves=LONG_MOVES)
    game, _ = Game.new(rules, 3, players=players)
    info = BoardInfo(names, game_number=2, match_scores=scores, match_target=50)
    yield game.public_view(), info  # the deal: every centre stack empty, no moves yet
    margins = tuple(range(players))
    for result in (Result(0, 7, EndReason.PAYOFF_EMPTIED, margins),
                   Result(None, 0, EndReason.STOCK_OUT, margins),
                   Result(1, 2, EndReason.RESIGNED, margins)):
        yield dataclasses.replace(game.public_view(), result=result), info


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("rules", [CLASSIC, KINGS], ids=lambda r: r.name)
def test_every_text_on_a_board_is_8_px_or_more_on_a_phone(players: int, rules: RuleSet) -> None:
    _clear_board_caches()
    smallest: list[tuple[float, str]] = []
    for pub, info in _boards(players, rules):
        with fonts.drawn_text() as drawn:
            png = render_board(pub, info)
        width = Image.open(io.BytesIO(png)).size[0]
        assert drawn.texts
        smallest += [(size * PHONE_WIDTH / width, text) for text, size in drawn.texts]
    too_small = sorted({(round(px, 1), text) for px, text in smallest
                        if px < LEAST_AT_PHONE_WIDTH})
    assert not too_small, too_small[:12]


# ---------------------------------------------------------------------- fitted to its content

_BACKGROUND = {picture_palette._mapped(Image.new("RGB", (1, 1), colour)).convert("RGB")
               .getpixel((0, 0))
               for colour in (picture_palette._FELT, picture_palette._FELT_DARK,
                              picture_palette._FELT_LINE, picture_palette._GOLD)}
"""The felt, the panels and their frames (as the PNG's palette has them): what is there
whatever the position."""


def _empty_band(png: bytes) -> tuple[int, int]:
    """The rows at the bottom of a board with nothing but felt and frames, and its height."""
    board = Image.open(io.BytesIO(png)).convert("RGB")
    w, h = board.size
    pixels = board.load()
    assert pixels is not None
    for y in range(h - 1, -1, -1):
        # Inside the panels, clear of their frames (6 px at most) and rounded corners.
        if any(pixels[x, y] not in _BACKGROUND for x in range(30, w - 30)
               if not 580 <= x <= 620):
            return h - 1 - y, h
    return h, h


def test_a_two_player_board_has_no_empty_band_at_the_bottom() -> None:
    # From the deal (every side stack empty) to long side stacks: the lowest card or word is
    # near the bottom edge (the panel's padding and frame, the picture's margin).
    from tests.bot.test_render import INFO, long_stacks

    cases = [(pub, info) for pub, _, info in positions(24, seed=3)]
    for rules in (CLASSIC, KINGS):
        cases.append((Game.new(rules, 5)[0].public_view(), INFO))
    cases.append((long_stacks().public_view(), INFO))
    for pub, info in cases:
        band, height = _empty_band(render_board(pub, info))
        assert band <= 40, (band, height, [len(s) for seat in pub.sides for s in seat])


@pytest.mark.parametrize("result", [Result(1, 26, EndReason.PAYOFF_EMPTIED, (7, 0)),
                                    Result(0, 12, EndReason.RESIGNED, (3, 9)),
                                    Result(None, 0, EndReason.STALEMATE, (5, 5))])
def test_a_finished_board_says_why_whatever_the_names(result: Result) -> None:
    # The header's text is large: the names in it are cut short, never the result's reason.
    view = dataclasses.replace(Game.new(CLASSIC, 4)[0].public_view(), result=result)
    info = BoardInfo(LONG_NAMES[:2], game_number=2, match_scores=(12, 30), match_target=50)
    with fonts.drawn_text() as drawn:
        render_board(view, info)
    [header] = [text for text, _ in drawn.texts if text.startswith("Game over: ")]
    assert header not in drawn.cut and header.endswith(
        ("pay-off pile emptied", "resigned", "equal pay-off piles")), header
