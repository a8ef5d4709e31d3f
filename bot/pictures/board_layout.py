"""Where things go on a board: the header, the centre row, and the panels of a table of two,
three or four."""

from __future__ import annotations

import math

from engine import View

from .cards_and_fans import _CENTRE_H, _CENTRE_W, _SIDE_H, _full_corner_step

BOARD_WIDTH = 1200
"""Width of every board picture in pixels (its height: ``board_size``)."""

PHONE_WIDTH = 314
"""How wide Discord's phone app shows a picture, in pixels."""
LEAST_TEXT = math.ceil(8 * BOARD_WIDTH / PHONE_WIDTH)
"""The smallest font size (px) of any text on a board: 8 px when a phone shows the board
``PHONE_WIDTH`` wide (31 px). Card faces are cards, not text (their corners are sized by
``cards_and_fans``)."""

# Board geometry. The picture is a header, a row with the centre stacks, the stock and the last
# moves, and a panel per player: the pay-off pile and the hand in a column on the left, the four
# side stacks fanned down beside it. A table of two gets a board as tall as its content: the
# column, or the longest side stack at a step that shows its corners in full (up to a limit,
# past which the fan is squeezed).
_W = BOARD_WIDTH
_MARGIN = 12
_HEADER_H = 60
_HEADLINE = 34
"""The font size of the header's line: whose turn, or the result."""
_SUBHEADER_H = 46
_CENTRE_GAP = 30
_PANEL_HEAD = 56
_NAME = 33
"""The font size of a player's name at the head of a panel."""
_PANEL_W = (_W - 2 * _MARGIN - _MARGIN // 2) // 2
_LABEL_Y = _HEADER_H + _SUBHEADER_H + 8
_CARD_Y = _LABEL_Y + 40
_PANEL_TOP = _CARD_Y + _CENTRE_H + 52


def _centre_x(i: int) -> int:
    return _MARGIN + 4 + i * (_CENTRE_W + _CENTRE_GAP)


def _panel_x(seat: int) -> int:
    return _MARGIN + seat * (_PANEL_W + _MARGIN // 2)


def _moves_box(centres: int) -> tuple[int, int, int, int]:
    return _centre_x(centres) + 8 + _CENTRE_W + 24, _LABEL_Y - 2, _W - _MARGIN, _PANEL_TOP - 12


_FAN_TOP = _PANEL_TOP + _PANEL_HEAD + 48
"""Where the pay-off card and the side-stack fans of a two-player panel start."""
_PAYOFF_COUNT_Y = _FAN_TOP + _CENTRE_H + 8
_HAND_Y = _PAYOFF_COUNT_Y + 50
_BACK_W, _BACK_H, _BACK_STEP = 42, 58, 17
_HAND_TEXT_Y = _HAND_Y + _BACK_H + 8
_PANEL_PAD = 14
"""Room between the lowest card or word of a panel and its bottom edge."""
_COLUMN_FAN_HEIGHT = _HAND_TEXT_Y + LEAST_TEXT + 4 - _FAN_TOP
"""How tall a fan may be without making the board taller than the pay-off column makes it."""
_FAN_HEIGHT = 734
"""The tallest a side-stack fan may make a two-player board: every corner shows in full up to
20 cards, and at a smaller size up to 40 (see ``cards_and_fans._fan_step``)."""
_TWO_PLAYER_MAX_H = _FAN_TOP + _FAN_HEIGHT + _PANEL_PAD + _MARGIN


def _fan_height(longest: int) -> int:
    """How tall the fans of a two-player board are when its longest side stack has ``longest``
    cards: as tall as the column beside them, or as the stack at a step that shows each corner
    in full, at most ``_FAN_HEIGHT``."""
    full = _SIDE_H + max(0, longest - 1) * _full_corner_step()
    return min(_FAN_HEIGHT, max(_COLUMN_FAN_HEIGHT, full))


def _two_player_height(pub: View) -> int:
    longest = max((len(pile) for seat in pub.sides for pile in seat), default=0)
    return _FAN_TOP + _fan_height(longest) + _PANEL_PAD + _MARGIN


# ----------------------------------------------------------------------------- tables of 3 or 4

# A board of three or four seats keeps the top of the two-player board (the header, the centre
# stacks, the stock and the last moves) and puts the seats in a grid of two columns below it,
# each panel as wide as a two-player panel and so with cards of the same size: at the 400 px a
# phone shows it, the board reads as a two-player board does. The grid has two rows; with three
# seats the fourth cell holds the last moves (more of them: a round is three turns), and the
# order of play (once the game is over, the places) takes their box beside the stock.
#
# No text on it is smaller than LEAST_TEXT (8 px on a phone), larger than the corner rank of a
# side-stack card (_CORNER_MAX): labels, last moves and counts are drawn at _GROUP_TEXT. The
# corners of a long side stack squeezed into its panel get smaller, as on the two-player board
# (see _fan_step): a panel's fan keeps full-size corners up to _GROUP_FULL_FAN cards.
_GROUP_TEXT = LEAST_TEXT
_GROUP_PANEL_H = 540
_GROUP_GAP = _MARGIN // 2
_GROUP_HEAD = _PANEL_HEAD
_GROUP_H = _PANEL_TOP + 2 * _GROUP_PANEL_H + _GROUP_GAP + _MARGIN
_GROUP_CARD_TOP = _GROUP_HEAD + 44
"""Where the pay-off card and the side-stack fans start, below the top of a panel."""
_GROUP_FAN_HEIGHT = _GROUP_PANEL_H - _GROUP_CARD_TOP - 14
_GROUP_FULL_FAN = 11
"""The longest side stack whose every corner shows at full size in a panel (tests check it)."""


def board_size(pub: View) -> tuple[int, int]:
    """Width and height of the board picture of ``pub``: a table of two gets a board as tall as
    its side stacks need, one of three or four a fixed size."""
    return (_W, _two_player_height(pub) if pub.players == 2 else _GROUP_H)


def _group_cell(cell: int) -> tuple[int, int, int, int]:
    """The box (x0, y0, x1, y1) of cell ``cell`` of the seat grid: 0 and 1 the top row."""
    x = _MARGIN + (cell % 2) * (_PANEL_W + _GROUP_GAP)
    y = _PANEL_TOP + (cell // 2) * (_GROUP_PANEL_H + _GROUP_GAP)
    return x, y, x + _PANEL_W, y + _GROUP_PANEL_H
