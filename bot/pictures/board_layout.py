"""Where things go on a board: the header, the centre row, and the panels of a table of two,
three or four."""

from __future__ import annotations

from .cards_and_fans import _CENTRE_H, _CENTRE_W, _CORNER_MAX

BOARD_SIZE = (1200, 1200)
"""Width and height of a two-player board picture in pixels, the same for every position (see
``board_size`` for a table of three or four)."""


# Board geometry. The picture is a header, a row with the centre stacks, the stock and the last
# moves, and a panel per player: the pay-off pile and the hand size in a column on the left, the
# four side stacks fanned down beside it.
_W, _H = BOARD_SIZE
_MARGIN = 12
_HEADER_H = 58
_SUBHEADER_H = 34
_CENTRE_GAP = 22
_PANEL_HEAD = 54
_PANEL_W = (_W - 2 * _MARGIN - _MARGIN // 2) // 2
_LABEL_Y = _HEADER_H + _SUBHEADER_H + 8
_CARD_Y = _LABEL_Y + 30
_PANEL_TOP = _CARD_Y + _CENTRE_H + 46


def _centre_x(i: int) -> int:
    return _MARGIN + 4 + i * (_CENTRE_W + _CENTRE_GAP)


def _panel_box(seat: int) -> tuple[int, int, int, int]:
    x = _MARGIN + seat * (_PANEL_W + _MARGIN // 2)
    return x, _PANEL_TOP, x + _PANEL_W + 1, _H - _MARGIN + 1


def _moves_box(centres: int) -> tuple[int, int, int, int]:
    return _centre_x(centres) + 8 + _CENTRE_W + 24, _LABEL_Y - 2, _W - _MARGIN, _PANEL_TOP - 12


def _payoff_y() -> int:
    return _PANEL_TOP + _PANEL_HEAD + 42


def _hand_y() -> int:
    return _payoff_y() + _CENTRE_H + 110


_FAN_TOP = _payoff_y()
_FAN_BOTTOM = _H - _MARGIN - 14
_FAN_HEIGHT = _FAN_BOTTOM - _FAN_TOP
"""The height a side-stack fan must fit in: every corner shows in full up to 40 cards."""


# ----------------------------------------------------------------------------- tables of 3 or 4

# A board of three or four seats keeps the top of the two-player board (the header, the centre
# stacks, the stock and the last moves) and puts the seats in a grid of two columns below it,
# each panel as wide as a two-player panel and so with cards of the same size: at the 400 px a
# phone shows it, the board reads as a two-player board does. The grid has two rows; with three
# seats the fourth cell holds the last moves (more of them: a round is three turns), and the
# order of play (once the game is over, the places) takes their box beside the stock.
#
# No text on it is smaller than the corner rank of a side-stack card (_CORNER_MAX): labels, last
# moves and counts are drawn at _GROUP_TEXT at least. The corners of a long side stack squeezed
# into its panel get smaller, as on the two-player board (see _fan_step): a panel's fan keeps
# full-size corners up to _GROUP_FULL_FAN cards.
_GROUP_TEXT = _CORNER_MAX
_GROUP_PANEL_H = 540
_GROUP_GAP = _MARGIN // 2
_GROUP_HEAD = _PANEL_HEAD
_GROUP_H = _PANEL_TOP + 2 * _GROUP_PANEL_H + _GROUP_GAP + _MARGIN
_GROUP_CARD_TOP = _GROUP_HEAD + 44
"""Where the pay-off card and the side-stack fans start, below the top of a panel."""
_GROUP_FAN_HEIGHT = _GROUP_PANEL_H - _GROUP_CARD_TOP - 14
_GROUP_FULL_FAN = 11
"""The longest side stack whose every corner shows at full size in a panel (tests check it)."""


def board_size(players: int) -> tuple[int, int]:
    """Width and height of the board picture of a table of ``players`` seats."""
    return BOARD_SIZE if players == 2 else (_W, _GROUP_H)


def _group_cell(cell: int) -> tuple[int, int, int, int]:
    """The box (x0, y0, x1, y1) of cell ``cell`` of the seat grid: 0 and 1 the top row."""
    x = _MARGIN + (cell % 2) * (_PANEL_W + _GROUP_GAP)
    y = _PANEL_TOP + (cell // 2) * (_GROUP_PANEL_H + _GROUP_GAP)
    return x, y, x + _PANEL_W, y + _GROUP_PANEL_H
