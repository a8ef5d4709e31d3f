"""``render_board``: the public board of any table as PNG bytes, a pure function of a view.

Neither this nor ``render_hand`` (``hand_picture``) ever sees a ``Game``, only a ``View``, and the
board draws from a copy of the view's public facts alone, so a player's view and the spectators'
view give byte-identical pictures: nothing private can reach the channel through a picture.

The pictures are sized for Discord: 1200 px wide, which a phone shows some 314 px wide, so no
text on a board is smaller than 8 px there (``MIN_TEXT_AT_PHONE_WIDTH``, in ``board_layout``).
Side stacks are fanned so that every card in them shows its rank and suit (rule 8). A table of
two gets a board fitted to its content (``two_player_board``); a table of three or four a panel
per seat, two to a row, cards as large (``group_board``).

Speed (``python -m bot.bench render``): each card is drawn once per kind and size into a cached
tile (``cards_and_fans``), text is laid out from glyphs rasterised once (``fonts``), the parts of
the board that do not change are drawn once per layout. The board is drawn in one fixed palette,
a byte a pixel, and saved as an 8-bit PNG (``picture_palette``): what is antialiased (text, the
corners of cards) is blended in RGB on its own few pixels, once per background it lands on.
Rendering is CPU work, most of it holding the interpreter lock: the bot has it done in another
process (``bot.pictures.drawing``).
"""

from __future__ import annotations

from PIL import Image

from engine import View

from .board_info import BoardInfo, _public
from .fonts import _DRAWING
from .group_board import _draw_group_board
from .picture_palette import _png
from .two_player_board import _draw_two_player_board

__all__ = ["render_board"]


def render_board(view: View, info: BoardInfo) -> bytes:
    """The public board as PNG bytes: the same picture for every view of the same position.

    Draws the centre stacks, both pay-off piles, every card of the side stacks, the stock and hand
    sizes, whose turn it is, the game and match, the last moves from ``info`` and the result once
    the game is over. It reads only the public facts of ``view`` (never the hand or the legal
    moves), so a player's view and the public view give byte-identical PNGs.
    """
    with _DRAWING:
        board = _draw_board(_public(view), info)
    return _png(board)


def _draw_board(pub: View, info: BoardInfo) -> Image.Image:
    if pub.players != 2:
        return _draw_group_board(pub, info)
    return _draw_two_player_board(pub, info)
