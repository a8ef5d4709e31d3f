"""The board of a table of two: a panel per player below the centre row, the parts that do not
change drawn once per layout."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from engine import View

from .board_centre_row import _draw_centre_row
from .board_info import BoardInfo, result_line
from .board_layout import (
    _BACK_H,
    _BACK_STEP,
    _BACK_W,
    _FAN_TOP,
    _HAND_TEXT_Y,
    _HAND_Y,
    _HEADER_H,
    _HEADLINE,
    _LABEL_Y,
    _MARGIN,
    _NAME,
    _PANEL_HEAD,
    _PANEL_PAD,
    _PANEL_TOP,
    _PANEL_W,
    _PAYOFF_COUNT_Y,
    _SUBHEADER_H,
    _TWO_PLAYER_MAX_H,
    _W,
    LEAST_TEXT,
    _centre_x,
    _moves_box,
    _panel_x,
    _two_player_height,
)
from .cards_and_fans import (
    _CENTRE_H,
    _CENTRE_W,
    _SIDE_W,
    _draw_backs,
    _draw_fan,
    _draw_side_label,
    _empty_slot,
    _paste_card,
)
from .fonts import _fit, _length, _printable, _text
from .picture_palette import (
    _FELT,
    _FELT_DARK,
    _FELT_LINE,
    _GOLD,
    _GOLD_INK,
    _MUTED,
    _NEEDS,
    _SLOT,
    _TEXT,
    _ink,
    _mapped,
)


def _draw_two_player_board(pub: View, info: BoardInfo) -> Image.Image:
    result = pub.result
    lit = tuple(result.winner == seat if result is not None else pub.turn == seat
                for seat in (0, 1))
    height = _two_player_height(pub)
    board = _board_base(len(pub.centre), lit[0], lit[1], result is not None, height)
    _draw_header(board, pub, info)
    _draw_centre_row(board, pub, info, LEAST_TEXT)
    fan_bottom = height - _MARGIN - _PANEL_PAD
    for seat in (0, 1):
        _draw_panel(board, pub, info, seat, fan_bottom)
    return board


def _board_base(centres: int, lit0: bool, lit1: bool, over: bool, height: int) -> Image.Image:
    """A new picture ``height`` px tall of everything on the board that depends only on the
    layout and on whose panel is lit, drawn in the palette (``picture_palette``).

    Made of cached parts: the rows above the panels per layout, the unlit panels and a lit
    panel per seat, drawn as tall as a board may be, and the foot of each panel. Cached whole
    per combination and height they would be many (a whole board is 1.8 MB in the palette).
    """
    board = _unlit_panels().crop((0, -_PANEL_TOP, _W, height - _PANEL_TOP))
    board.paste(_unlit_top(centres, over), (0, 0))
    bottom = height - _MARGIN
    for seat, lit in enumerate((lit0, lit1)):
        x = _panel_x(seat)
        if lit:
            board.paste(_lit_panel(seat), (x, _PANEL_TOP))
        foot = _panel_foot(lit)
        board.paste(foot, (x, bottom - _FOOT_ROWS))
    return board


@lru_cache(maxsize=4)
def _unlit_top(centres: int, over: bool) -> Image.Image:
    # The rows above the panels, the only ones that depend on the layout: four, the boards
    # being played and the finished ones, of both layouts (0.45 MB each; drawing one again
    # takes some 3 ms).
    return _mapped(_draw_base(centres, False, False, over).crop((0, 0, _W, _PANEL_TOP)))


@lru_cache(maxsize=1)
def _unlit_panels() -> Image.Image:
    # The panels, unlit, as tall as a board may be: the same under every layout (1.3 MB).
    return _mapped(_draw_base(3, False, False, False).crop(
        (0, _PANEL_TOP, _W, _TWO_PLAYER_MAX_H)))


@lru_cache(maxsize=2)
def _lit_panel(seat: int) -> Image.Image:
    # Nothing but the panel is drawn inside its box, whatever the layout.
    x = _panel_x(seat)
    return _mapped(_draw_base(3, seat == 0, seat == 1, False).crop(
        (x, _PANEL_TOP, x + _PANEL_W + 1, _TWO_PLAYER_MAX_H - _MARGIN - _FOOT_ROWS)))


_FOOT_ROWS = 20
"""The rows at the bottom of a panel drawn apart (its rounded corners and bottom edge), so that
a panel of any height is the cached tall panel cut short and a foot."""


@lru_cache(maxsize=2)
def _panel_foot(lit: bool) -> Image.Image:
    foot = Image.new("RGB", (_PANEL_W + 1, _FOOT_ROWS + _MARGIN), _FELT)
    ImageDraw.Draw(foot).rounded_rectangle(
        (0, -4 * _FOOT_ROWS, _PANEL_W, _FOOT_ROWS), 14, fill=_FELT_DARK,
        outline=_GOLD if lit else _FELT_LINE, width=6 if lit else 2)
    return _mapped(foot)


def _draw_base(centres: int, lit0: bool, lit1: bool, over: bool) -> Image.Image:
    board = Image.new("RGB", (_W, _TWO_PLAYER_MAX_H), _FELT)
    draw = ImageDraw.Draw(board)
    draw.rectangle((0, 0, _W, _HEADER_H), fill=_GOLD if over else _FELT_DARK)
    draw.rectangle((0, _HEADER_H, _W, _HEADER_H + _SUBHEADER_H), fill=_FELT_DARK)
    draw.line((0, _HEADER_H, _W, _HEADER_H), fill=_FELT_LINE, width=1)
    stock_x = _centre_x(centres) + 8
    _text(board, (stock_x + _CENTRE_W // 2, _LABEL_Y), "Stock", LEAST_TEXT, _MUTED, anchor="mt")
    x0, y0, x1, y1 = _moves_box(centres)
    draw.rounded_rectangle((x0, y0, x1, y1), 12, fill=_FELT_DARK)
    _text(board, (x0 + 14, y0 + 8), "Last moves", LEAST_TEXT, _MUTED, anchor="lt")
    for seat, lit in enumerate((lit0, lit1)):
        x, top = _panel_x(seat), _PANEL_TOP
        draw.rounded_rectangle((x, top, x + _PANEL_W, _TWO_PLAYER_MAX_H - _MARGIN), 14,
                               fill=_FELT_DARK, outline=_GOLD if lit else _FELT_LINE,
                               width=6 if lit else 2)
        if lit:
            draw.rounded_rectangle((x, top, x + _PANEL_W, top + _PANEL_HEAD), 14, fill=_GOLD)
            draw.rectangle((x, top + _PANEL_HEAD - 14, x + _PANEL_W, top + _PANEL_HEAD),
                           fill=_GOLD)
        cx = x + 14 + _CENTRE_W // 2
        _text(board, (cx, top + _PANEL_HEAD + 10), "Pay-off", LEAST_TEXT, _MUTED, anchor="mt",
              bold=False)
    return board


def _draw_header(board: Image.Image, pub: View, info: BoardInfo) -> None:
    # Two lines: what is happening now (whose turn, or the result) big, the match below. The
    # names in the result are cut so that a result with the longest names still says why.
    if pub.result is not None:
        names = (_fit(_printable(info.names[0], True), _HEADLINE, 190),
                 _fit(_printable(info.names[1], True), _HEADLINE, 190))
        text = f"Game over: {result_line(pub.result, names)}"
        ink = _GOLD_INK
    else:
        text = f"{info.names[pub.turn]} to play · turn {pub.turn_number + 1}"
        ink = _TEXT
    _text(board, (_MARGIN + 4, _HEADER_H // 2), text, _HEADLINE, ink, anchor="lm",
          width=_W - 2 * _MARGIN - 8)
    a, b = (_fit(_printable(n, True), LEAST_TEXT, 250) for n in info.names)
    match = (f"{pub.rules.name.title()} · game {info.game_number} · {a} "
             f"{info.match_scores[0]} – {info.match_scores[1]} {b}")
    if info.match_target is not None:
        match += f" (to {info.match_target})"
    _text(board, (_MARGIN + 4, _HEADER_H + _SUBHEADER_H // 2), match, LEAST_TEXT, _MUTED,
          anchor="lm", width=_W - 2 * _MARGIN - 8)


def _draw_panel(board: Image.Image, pub: View, info: BoardInfo, seat: int,
                fan_bottom: int) -> None:
    x, w, y0 = _panel_x(seat), _PANEL_W, _PANEL_TOP
    result = pub.result
    on_turn = result is None and pub.turn == seat
    winner = result is not None and result.winner == seat
    ink = _GOLD_INK if (on_turn or winner) else _TEXT
    if on_turn:
        tag = "TO PLAY"
    elif winner:
        tag = "WINNER"
    elif result is not None and result.winner is None:
        tag = "TIE"
    else:
        tag = ""
    tag_w = round(_length(tag, LEAST_TEXT)) if tag else 0
    if tag:
        _text(board, (x + w - 16, y0 + _PANEL_HEAD // 2), tag, LEAST_TEXT, ink, anchor="rm")
    name = ("▶ " if on_turn else "") + info.names[seat]
    _text(board, (x + 16, y0 + _PANEL_HEAD // 2), name, _NAME, ink, anchor="lm",
          width=w - 48 - tag_w)

    # The pay-off pile and its count, the hand (the pay-off label is in the base picture).
    cx = x + 14
    mid = cx + _CENTRE_W // 2
    payoff = pub.payoff_tops[seat]
    if payoff is None:
        _empty_slot(board, cx, _FAN_TOP, _CENTRE_W, _CENTRE_H, ("empty",), LEAST_TEXT,
                    bold=False)
    else:
        _paste_card(board, payoff, cx, _FAN_TOP, _CENTRE_W, _CENTRE_H)
    _text(board, (mid, _PAYOFF_COUNT_Y), f"{pub.payoff_counts[seat]} left", 34, _NEEDS,
          anchor="mt", width=_CENTRE_W + 16)
    n = pub.hand_sizes[seat]
    span = _BACK_W + _BACK_STEP * (n - 1) if n else _BACK_W
    bx = cx + (_CENTRE_W - span) // 2
    _draw_backs(board, bx, _HAND_Y, n, _BACK_W, _BACK_H, _BACK_STEP)
    if not n:
        ImageDraw.Draw(board).rounded_rectangle((bx, _HAND_Y, bx + _BACK_W, _HAND_Y + _BACK_H),
                                                5, outline=_ink(board, _SLOT), width=2)
    _text(board, (mid, _HAND_TEXT_Y), f"hand {n}", LEAST_TEXT, _TEXT, anchor="mt")

    # The side stacks, fanned down so that every card shows its corner.
    sx = cx + _CENTRE_W + 18
    gap = (x + w - 14 - sx - 4 * _SIDE_W) // 3
    label_y = y0 + _PANEL_HEAD + 10
    for s, pile in enumerate(pub.sides[seat]):
        colx = sx + s * (_SIDE_W + gap)
        _draw_side_label(board, colx, label_y, s, len(pile), LEAST_TEXT)
        _draw_fan(board, pile, colx, _FAN_TOP, fan_bottom, pub.joker_ranks(seat, s),
                  LEAST_TEXT)
