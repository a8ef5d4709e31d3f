"""A filled rounded rectangle put together from rectangles and its corners
(``cards_and_fans._fill_rounded``) is the one ``ImageDraw`` draws: the same pixels for every
size and radius the pictures use and more, wherever it lands, over whatever is under it."""

from __future__ import annotations

import pytest
from PIL import ImageDraw

from bot.pictures.cards_and_fans import _fill_rounded
from bot.pictures.picture_palette import _FELT, _GREEN, _ORANGE, _WHITE, _ink, _new_picture


@pytest.mark.parametrize("size", [(134, 182), (110, 148), (501, 301), (40, 40), (31, 60),
                                  (9, 9), (24, 200)])
@pytest.mark.parametrize("radius", [0, 3, 12, 14, 16, 19, 20])
def test_a_rounded_fill_is_the_one_drawn(size: tuple[int, int], radius: int) -> None:
    w, h = size
    for x, y, colour in ((10, 10, _GREEN), (11, 13, _ORANGE), (0, 0, _GREEN)):
        box = (x, y, x + w - 1, y + h - 1)
        filled = _new_picture((560, 360), _FELT)
        drawn = _new_picture((560, 360), _FELT)
        for picture in (filled, drawn):  # something under it, not one colour
            ImageDraw.Draw(picture).line((0, 0, 560, 360), fill=_ink(picture, _WHITE), width=5)
        _fill_rounded(filled, box, radius, colour)
        ImageDraw.Draw(drawn).rounded_rectangle(box, radius, fill=_ink(drawn, colour))
        assert filled.tobytes() == drawn.tobytes(), (size, radius, x, y)


def test_a_rounded_fill_on_rgb_is_drawn() -> None:
    filled = _new_picture((200, 200), _FELT).convert("RGB")
    drawn = filled.copy()
    _fill_rounded(filled, (5, 6, 150, 170), 12, _GREEN)
    ImageDraw.Draw(drawn).rounded_rectangle((5, 6, 150, 170), 12, fill=_GREEN)
    assert filled.tobytes() == drawn.tobytes()
