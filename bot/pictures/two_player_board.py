"""The board of a table of two: a panel per player below the centre row, the parts that do not
change drawn once per layout."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from engine import View

from .board_centre_row import _draw_centre_row
from .board_info import BoardInfo, _plural, result_line
from .board_layout import (
    _FAN_BOTTOM,
    _FAN_TOP,
    _H,
    _HEADER_H,
    _LABEL_Y,
    _MARGIN,
    _PANEL_HEAD,
    _PANEL_TOP,
    _PANEL_W,
    _SUBHEADER_H,
    _W,
    BOARD_SIZE,
    _centre_x,
    _hand_y,
    _moves_box,
    _panel_box,
    _payoff_y,
)
from .cards_and_fans import (
    _CENTRE_H,
    _CENTRE_W,
    _SIDE_W,
    _back_tile,
    _draw_fan,
    _empty_slot,
    _paste_card,
)
from .fonts import _fit, _font, _printable, _text
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
)


def _draw_two_player_board(pub: View, info: BoardInfo) -> Image.Image:
    result = pub.result
    lit = tuple(result.winner == seat if result is not None else pub.turn == seat
                for seat in (0, 1))
    board = _board_base(len(pub.centre), lit[0], lit[1], result is not None)
    _draw_header(board, pub, info)
    _draw_centre_row(board, pub, info)
    for seat in (0, 1):
        _draw_panel(board, pub, info, seat, _MARGIN + seat * (_PANEL_W + _MARGIN // 2))
    return board


def _board_base(centres: int, lit0: bool, lit1: bool, over: bool) -> Image.Image:
    """A new picture of everything on the board that depends only on the layout and on whose
    panel is lit.

    Made of cached parts, a base per layout and a lit panel per seat, rather than cached whole
    per combination: a whole board is 4.3 MB, and the combinations are ten.
    """
    board = _unlit_base(centres, over).copy()
    for seat, lit in enumerate((lit0, lit1)):
        if lit:
            board.paste(_lit_panel(seat), _panel_box(seat)[:2])
    return board


@lru_cache(maxsize=2)
def _unlit_base(centres: int, over: bool) -> Image.Image:
    # Two: the boards being played, of both layouts (drawing one again takes about 1 ms).
    return _draw_base(centres, False, False, over)


@lru_cache(maxsize=2)
def _lit_panel(seat: int) -> Image.Image:
    # Nothing but the panel is drawn inside its box, whatever the layout.
    return _draw_base(3, seat == 0, seat == 1, False).crop(_panel_box(seat))


def _draw_base(centres: int, lit0: bool, lit1: bool, over: bool) -> Image.Image:
    board = Image.new("RGB", BOARD_SIZE, _FELT)
    draw = ImageDraw.Draw(board)
    draw.rectangle((0, 0, _W, _HEADER_H), fill=_GOLD if over else _FELT_DARK)
    draw.rectangle((0, _HEADER_H, _W, _HEADER_H + _SUBHEADER_H), fill=_FELT_DARK)
    draw.line((0, _HEADER_H, _W, _HEADER_H), fill=_FELT_LINE, width=1)
    stock_x = _centre_x(centres) + 8
    _text(board, (stock_x + _CENTRE_W // 2, _LABEL_Y), "Stock", 24, _MUTED, anchor="mt")
    x0, y0, x1, y1 = _moves_box(centres)
    draw.rounded_rectangle((x0, y0, x1, y1), 12, fill=_FELT_DARK)
    _text(board, (x0 + 14, y0 + 10), "Last moves", 22, _MUTED, anchor="lt")
    for seat, lit in enumerate((lit0, lit1)):
        x, top = _MARGIN + seat * (_PANEL_W + _MARGIN // 2), _PANEL_TOP
        draw.rounded_rectangle((x, top, x + _PANEL_W, _H - _MARGIN), 14, fill=_FELT_DARK,
                               outline=_GOLD if lit else _FELT_LINE, width=6 if lit else 2)
        if lit:
            draw.rounded_rectangle((x, top, x + _PANEL_W, top + _PANEL_HEAD), 14, fill=_GOLD)
            draw.rectangle((x, top + _PANEL_HEAD - 14, x + _PANEL_W, top + _PANEL_HEAD),
                           fill=_GOLD)
        cx = x + 14 + _CENTRE_W // 2
        _text(board, (cx, top + _PANEL_HEAD + 12), "Pay-off", 22, _MUTED, anchor="mt")
        _text(board, (cx, _payoff_y() + _CENTRE_H + 54), "left", 22, _MUTED, anchor="mt")
        _text(board, (cx, _hand_y()), "Hand", 22, _MUTED, anchor="mt")
    return board


def _draw_header(board: Image.Image, pub: View, info: BoardInfo) -> None:
    # Two lines: what is happening now (whose turn, or the result) big, the match small.
    if pub.result is not None:
        names = (_fit(_printable(info.names[0], True), 30, 360),
                 _fit(_printable(info.names[1], True), 30, 360))
        text = f"Game over: {result_line(pub.result, names)}"
        ink = _GOLD_INK
    else:
        text = f"{info.names[pub.turn]} to play · turn {pub.turn_number + 1}"
        ink = _TEXT
    _text(board, (_MARGIN + 4, _HEADER_H // 2), text, 30, ink, anchor="lm",
          width=_W - 2 * _MARGIN - 8)
    a, b = (_fit(_printable(n, True), 22, 260) for n in info.names)
    match = (f"{pub.rules.name.title()} · game {info.game_number} · match: {a} "
             f"{info.match_scores[0]} – {info.match_scores[1]} {b}")
    if info.match_target is not None:
        match += f" · first to {info.match_target}"
    _text(board, (_MARGIN + 4, _HEADER_H + _SUBHEADER_H // 2), match, 22, _MUTED, anchor="lm",
          width=_W - 2 * _MARGIN - 8)


def _draw_panel(board: Image.Image, pub: View, info: BoardInfo, seat: int, x: int) -> None:
    w, y0 = _PANEL_W, _PANEL_TOP
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
    tag_w = round(_font(24).getlength(tag)) if tag else 0
    if tag:
        _text(board, (x + w - 16, y0 + _PANEL_HEAD // 2), tag, 24, ink, anchor="rm")
    name = ("▶ " if on_turn else "") + info.names[seat]
    _text(board, (x + 16, y0 + _PANEL_HEAD // 2), name, 30, ink, anchor="lm",
          width=w - 48 - tag_w)

    # The pay-off pile and the hand size (their labels are in the base picture).
    cx = x + 14
    mid = cx + _CENTRE_W // 2
    card_y = _payoff_y()
    payoff = pub.payoff_tops[seat]
    if payoff is None:
        _empty_slot(board, cx, card_y, _CENTRE_W, _CENTRE_H, ("empty",), 24)
    else:
        _paste_card(board, payoff, cx, card_y, _CENTRE_W, _CENTRE_H)
    _text(board, (mid, card_y + _CENTRE_H + 8), str(pub.payoff_counts[seat]), 40, _NEEDS,
          anchor="mt")
    n = pub.hand_sizes[seat]
    hand_y = _hand_y() + 30
    bw, bh, step = 42, 58, 17
    span = bw + step * (n - 1) if n else bw
    bx = cx + (_CENTRE_W - span) // 2
    for k in range(n):
        _back_tile(bw, bh).paste(board, bx + k * step, hand_y)
    if not n:
        ImageDraw.Draw(board).rounded_rectangle((bx, hand_y, bx + bw, hand_y + bh), 5,
                                                outline=_SLOT, width=2)
    _text(board, (mid, hand_y + bh + 10), _plural(n, "card"), 24, _TEXT, anchor="mt")

    # The side stacks, fanned down so that every card shows its corner.
    sx = cx + _CENTRE_W + 18
    gap = (x + w - 14 - sx - 4 * _SIDE_W) // 3
    label_y = y0 + _PANEL_HEAD + 12
    for s, pile in enumerate(pub.sides[seat]):
        colx = sx + s * (_SIDE_W + gap)
        label = f"S{s + 1}" + (f" · {len(pile)}" if len(pile) > 1 else "")
        _text(board, (colx + _SIDE_W // 2, label_y), label, 22, _MUTED, anchor="mt")
        _draw_fan(board, pile, colx, _FAN_TOP, _FAN_BOTTOM, pub.joker_ranks(seat, s))
