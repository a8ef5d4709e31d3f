"""The board of a table of three or four: the seat panels in a grid of two columns, the order
of play (or the places) beside the stock."""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw

from engine import View

from .board_centre_row import _draw_centre_row
from .board_info import BoardInfo, _names, _plural, _points, result_line
from .board_layout import (
    _GROUP_CARD_TOP,
    _GROUP_FAN_HEIGHT,
    _GROUP_H,
    _GROUP_HEAD,
    _GROUP_TEXT,
    _HEADER_H,
    _HEADLINE,
    _LABEL_Y,
    _MARGIN,
    _NAME,
    _SUBHEADER_H,
    _W,
    _centre_x,
    _group_cell,
    _moves_box,
)
from .cards_and_fans import (
    _CENTRE_H,
    _CENTRE_W,
    _SIDE_W,
    _draw_backs,
    _draw_fan,
    _draw_side_label,
    _empty_slot,
    _fill_rounded,
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
    RGB,
    _ink,
    _mapped,
)


def _seat_lit(pub: View, seat: int) -> bool:
    result = pub.result
    return result.winner == seat if result is not None else pub.turn == seat


@lru_cache(maxsize=1)
def _group_base() -> Image.Image:
    """What a board of four seats shows whatever the position: the seat panels unlit and their
    labels. A board of three is drawn on it with the fourth cell cleared to the felt: one base
    (1.4 MB) for both; the header and the boxes of the top row are drawn on each board, cheaply."""
    board = Image.new("RGB", (_W, _GROUP_H), _FELT)
    for seat in range(4):
        _draw_group_panel_base(board, _group_cell(seat), lit=False)
    return _mapped(board)


@lru_cache(maxsize=4)
def _lit_group_panel(seat: int) -> Image.Image:
    """The panel of ``seat`` lit (gold head and frame), on the base: drawn once, pasted (the
    same at a table of three and of four)."""
    x, top, x1, bottom = _group_cell(seat)
    board = _group_base().crop((x, top, x1 + 1, bottom + 1))
    _draw_group_panel_base(board, (0, 0, x1 - x, bottom - top), lit=True)
    return board


def _draw_group_panel_base(board: Image.Image, box: tuple[int, int, int, int], *,
                           lit: bool) -> None:
    x, top, x1, bottom = box
    draw = ImageDraw.Draw(board)
    gold = _ink(board, _GOLD)
    draw.rounded_rectangle((x, top, x1, bottom), 14, fill=_ink(board, _FELT_DARK),
                           outline=gold if lit else _ink(board, _FELT_LINE),
                           width=6 if lit else 2)
    if lit:
        draw.rounded_rectangle((x, top, x1, top + _GROUP_HEAD), 14, fill=gold)
        draw.rectangle((x, top + _GROUP_HEAD - 14, x1, top + _GROUP_HEAD), fill=gold)
    cx = x + 14 + _CENTRE_W // 2
    _text(board, (cx, top + _GROUP_HEAD + 10), "Pay-off", _GROUP_TEXT, _MUTED, anchor="mt",
          bold=False)


def _draw_group_board(pub: View, info: BoardInfo) -> Image.Image:
    players = pub.players
    board = _group_base().copy()
    over = pub.result is not None
    draw = ImageDraw.Draw(board)
    dark = _ink(board, _FELT_DARK)
    if players == 3:
        draw.rectangle(_group_cell(3), fill=_ink(board, _FELT))  # no fourth seat
    draw.rectangle((0, 0, _W, _HEADER_H), fill=_ink(board, _GOLD) if over else dark)
    draw.rectangle((0, _HEADER_H, _W, _HEADER_H + _SUBHEADER_H), fill=dark)
    draw.line((0, _HEADER_H, _W, _HEADER_H), fill=_ink(board, _FELT_LINE), width=1)
    centres = len(pub.centre)
    _text(board, (_centre_x(centres) + 8 + _CENTRE_W // 2, _LABEL_Y), "Stock", _GROUP_TEXT,
          _MUTED, anchor="mt")
    top_box = _moves_box(centres)
    moves_box = _group_cell(3) if players == 3 else top_box
    for box in {top_box, moves_box}:
        _fill_rounded(board, box, 12, _FELT_DARK)
    _text(board, (moves_box[0] + 14, moves_box[1] + 8), "Last moves", _GROUP_TEXT, _MUTED,
          anchor="lt")
    _draw_group_header(board, pub, info)
    _draw_centre_row(board, pub, info, _GROUP_TEXT, moves_box=moves_box)
    for seat in range(players):
        box = _group_cell(seat)
        if _seat_lit(pub, seat):
            board.paste(_lit_group_panel(seat), box[:2])
        _draw_group_panel(board, pub, info, seat, box)
    if players == 3:
        _draw_order_of_play(board, pub, info, top_box)
    return board


def _draw_group_header(board: Image.Image, pub: View, info: BoardInfo) -> None:
    names = _names(info, pub.players)
    if pub.result is not None:
        short = tuple(_fit(_printable(n, True), _HEADLINE, 300) for n in names)
        text, ink = f"Game over: {result_line(pub.result, short)}", _GOLD_INK
    else:
        text, ink = f"{names[pub.turn]} to play · turn {pub.turn_number + 1}", _TEXT
    _text(board, (_MARGIN + 4, _HEADER_H // 2), text, _HEADLINE, ink, anchor="lm",
          width=_W - 2 * _MARGIN - 8)
    line = f"{pub.rules.name.title()} · {pub.players} players · game {info.game_number}"
    if info.match_target is not None:
        line += f" · match to {info.match_target} points"
    _text(board, (_MARGIN + 4, _HEADER_H + _SUBHEADER_H // 2), line, _GROUP_TEXT, _MUTED,
          anchor="lm", width=_W - 2 * _MARGIN - 8)


def _seat_tag(pub: View, seat: int) -> str:
    """The word at the right of a seat's name: who plays, who won, who left, each margin."""
    result = pub.result
    if result is None:
        if seat in pub.absent:
            return "AWAY"
        if seat in pub.left:
            return "LEFT"
        return "TO PLAY" if pub.turn == seat else ""
    if result.winner == seat:
        return f"WINNER +{result.score}"
    margin = result.margins[seat] if seat < len(result.margins) else None
    if seat in pub.absent:
        return "AWAY"
    if seat in result.left:
        return f"LEFT −{margin}" if margin is not None else "LEFT"
    if margin is not None:
        return f"−{margin}"
    return "TIE"


def _draw_group_panel(board: Image.Image, pub: View, info: BoardInfo, seat: int,
                      box: tuple[int, int, int, int]) -> None:
    x, y0, x1, _ = box
    w = x1 - x
    lit = _seat_lit(pub, seat)
    gone = seat in pub.left or seat in pub.absent
    ink = _GOLD_INK if lit else (_MUTED if gone else _TEXT)
    tag = _seat_tag(pub, seat)
    tag_w = round(_length(tag, _GROUP_TEXT)) if tag else 0
    if tag:
        _text(board, (x1 - 16, y0 + _GROUP_HEAD // 2), tag, _GROUP_TEXT, ink, anchor="rm")
    on_turn = pub.result is None and pub.turn == seat
    name = ("▶ " if on_turn else "") + _names(info, pub.players)[seat]
    _text(board, (x + 16, y0 + _GROUP_HEAD // 2), name, _NAME, ink, anchor="lm",
          width=w - 48 - tag_w)

    # The pay-off pile and its count, the hand, the match points: a column on the left.
    cx = x + 14
    mid = cx + _CENTRE_W // 2
    card_y = y0 + _GROUP_CARD_TOP
    payoff = pub.payoff_tops[seat]
    if payoff is None:
        _empty_slot(board, cx, card_y, _CENTRE_W, _CENTRE_H, ("empty",), _GROUP_TEXT,
                    bold=False)
    else:
        _paste_card(board, payoff, cx, card_y, _CENTRE_W, _CENTRE_H)
    y = card_y + _CENTRE_H + 8
    _text(board, (mid, y), f"{pub.payoff_counts[seat]} left", 34, _NEEDS, anchor="mt",
          width=_CENTRE_W + 30)
    y += 58
    n = pub.hand_sizes[seat]
    bw, bh, step = 42, 58, 17
    span = bw + step * (n - 1) if n else bw
    bx = cx + (_CENTRE_W - span) // 2
    _draw_backs(board, bx, y, n, bw, bh, step)
    if not n:
        ImageDraw.Draw(board).rounded_rectangle((bx, y, bx + bw, y + bh), 5,
                                                outline=_ink(board, _SLOT), width=2)
    y += bh + 8
    _text(board, (mid, y), f"hand {n}", _GROUP_TEXT, _TEXT, anchor="mt")
    y += 42
    if gone:
        for line in (("not dealt", "in") if seat in pub.absent else ("left the", "game")):
            _text(board, (mid, y), line, _GROUP_TEXT, _MUTED, anchor="mt")
            y += 36
    elif info.match_target is not None or any(info.match_scores):
        _text(board, (mid, y), _plural(_points(info, seat), "pt"), _GROUP_TEXT, _MUTED,
              anchor="mt")

    # The side stacks, fanned down so that every card shows its corner.
    sx = cx + _CENTRE_W + 18
    gap = (x1 - 14 - sx - 4 * _SIDE_W) // 3
    label_y = y0 + _GROUP_HEAD + 10
    for s, pile in enumerate(pub.sides[seat]):
        colx = sx + s * (_SIDE_W + gap)
        _draw_side_label(board, colx, label_y, s, len(pile), _GROUP_TEXT)
        _draw_fan(board, pile, colx, card_y, card_y + _GROUP_FAN_HEIGHT,
                  pub.joker_ranks(seat, s), _GROUP_TEXT)


def _draw_order_of_play(board: Image.Image, pub: View, info: BoardInfo,
                        box: tuple[int, int, int, int]) -> None:
    """The fourth cell of a table of three: who plays after whom, each pay-off count, and once
    the game is over each seat's place."""
    x0, y0, x1, _ = box
    names = _names(info, pub.players)
    width = x1 - x0 - 28
    result = pub.result
    y = y0 + 8
    rows: list[tuple[str, RGB, bool]] = []
    if result is None:
        title = "Order of play"
        seated = [s for s in range(pub.players) if s not in pub.left and s not in pub.absent]
        start = seated.index(pub.turn) if pub.turn in seated else 0
        for k, seat in enumerate(seated[start:] + seated[:start]):
            mark = "▶ " if k == 0 else f"{k + 1}. "
            rows.append((f"{mark}{names[seat]} · {pub.payoff_counts[seat]} left",
                         _TEXT if k == 0 else _MUTED, k == 0))
        for seat in pub.left:
            rows.append((f"{names[seat]} left the game", _MUTED, False))
    else:
        title = "Result"
        places = result.ranks
        order = sorted((s for s in range(pub.players) if places[s] is not None),
                       key=lambda s: (places[s] or 0, s))
        for seat in order:
            margin = result.margins[seat]
            if result.winner == seat:
                what = f"wins {_plural(result.score, 'point')}"
            elif margin is None:
                what = "tie"
            else:
                what = f"margin {margin}" + (" · left" if seat in result.left else "")
            rows.append((f"{places[seat]}. {names[seat]} · {what}",
                         _TEXT if result.winner == seat else _MUTED, result.winner == seat))
    _text(board, (x0 + 14, y), title, _GROUP_TEXT, _MUTED, anchor="lt")
    y += 42
    # Three rows of one line each fit the box (names are cut short to keep them on one line).
    for text, fill, bold in rows[:4]:
        _text(board, (x0 + 14, y), text, _GROUP_TEXT, fill, anchor="lt", bold=bold, width=width)
        y += 44
