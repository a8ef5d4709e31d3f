"""An empty slot copied from its cache (``cards_and_fans._empty_slot``) is the slot drawn:
the same pixels wherever it lands (its words sit at half pixels, which round to even), on
each background, and drawn as before where its box is not one colour."""

from __future__ import annotations

import pytest

from bot.pictures.cards_and_fans import _draw_empty_slot, _empty_slot, _slots
from bot.pictures.picture_palette import _FELT, _FELT_DARK, _WHITE, _new_picture

_KINDS = [
    (96, 134, ("none",), 31, False),
    (120, 168, ("Ace or", "King", "starts"), 31, False),
    (120, 168, ("Ace", "starts"), 31, False),
    (176, 246, ("no cards",), 28, True),
    (70, 98, (), 20, True),
]


@pytest.mark.parametrize("kind", _KINDS)
@pytest.mark.parametrize("background", [_FELT, _FELT_DARK])
def test_a_copied_slot_is_the_slot_drawn(kind: tuple[int, int, tuple[str, ...], int, bool],
                                         background: tuple[int, int, int]) -> None:
    w, h, lines, size, bold = kind
    _slots.clear()
    for x, y in ((10, 10), (11, 10), (10, 11), (11, 11), (10, 10), (211, 11)):
        copied = _new_picture((400, 300), background)
        _empty_slot(copied, x, y, w, h, lines, size, bold)
        drawn = _new_picture((400, 300), background)
        _draw_empty_slot(drawn, x, y, w, h, lines, size, bold)
        assert copied.tobytes() == drawn.tobytes(), (x, y)
    assert len(_slots) == 4  # one per parity of the corner


def test_a_slot_on_mixed_pixels_is_drawn() -> None:
    copied = _new_picture((300, 300), _FELT)
    copied.paste(_new_picture((20, 20), _WHITE), (30, 30))
    drawn = copied.copy()
    _empty_slot(copied, 20, 20, 96, 134, ("none",), 31, False)
    _draw_empty_slot(drawn, 20, 20, 96, 134, ("none",), 31, False)
    assert copied.tobytes() == drawn.tobytes()
