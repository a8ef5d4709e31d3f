"""The picture of a plan that settles a group (``/ledger-plan``): who pays whom.

A pure function from plain data to PNG bytes, drawn in the drawing process. The people sit on a
circle, each with his net position (green: he is owed; red: he owes); an arrow goes from each
payer to his payee with the amount beside it. Beyond ``CIRCLE_MOST`` people a circle is
unreadable: the payments are listed instead, one a row.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

from PIL import Image, ImageDraw

from bot.money.amounts import format_amount

from .fonts import _DRAWING, _font, _printable

__all__ = ["CIRCLE_MOST", "LIST_MOST", "render_plan"]

BG = (18, 70, 45)
HEAD = (255, 204, 51)
TEXT = (240, 240, 232)
MUTED = (170, 200, 180)
OWED = (120, 220, 140)
OWES = (250, 120, 110)
ARROW = (255, 204, 51)
DOT = (24, 84, 55)

CIRCLE_MOST = 16
"""The most people drawn on a circle."""
LIST_MOST = 40
"""The most payments listed; the rest are counted."""


def _save(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG", optimize=False, compress_level=6)
    return out.getvalue()


def _fit(draw: ImageDraw.ImageDraw, text: str, size: int, width: int) -> str:
    font = _font(size)
    while draw.textlength(text, font=font) > width and len(text) > 1:
        text = text[:-2] + "…"
    return text


def render_plan(title: str, people: Sequence[tuple[int, str, int]],
                payments: Sequence[tuple[int, int, int]], currency: str,
                note: str = "") -> bytes:
    """``people``: ``(id, name, net cents)`` (positive: he is owed); ``payments``: ``(payer,
    payee, cents)`` by id. The picture of the plan as PNG bytes."""
    with _DRAWING:
        if len(people) <= CIRCLE_MOST:
            image = _circle(title, people, payments, currency, note)
        else:
            image = _listed(title, people, payments, currency, note)
        return _save(image)


def _arrow(draw: ImageDraw.ImageDraw, start: tuple[float, float], end: tuple[float, float],
           gap: float) -> tuple[float, float]:
    """An arrow from ``start`` to ``end``, stopping ``gap`` short of each; its middle."""
    (x0, y0), (x1, y1) = start, end
    length = math.hypot(x1 - x0, y1 - y0) or 1.0
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    a = (x0 + ux * gap, y0 + uy * gap)
    b = (x1 - ux * gap, y1 - uy * gap)
    draw.line((a, b), fill=ARROW, width=4)
    head = 16
    left = (b[0] - ux * head - uy * head * 0.55, b[1] - uy * head + ux * head * 0.55)
    right = (b[0] - ux * head + uy * head * 0.55, b[1] - uy * head - ux * head * 0.55)
    draw.polygon((b, left, right), fill=ARROW)
    return (a[0] + b[0]) / 2, (a[1] + b[1]) / 2


def _circle(title: str, people: Sequence[tuple[int, str, int]],
            payments: Sequence[tuple[int, int, int]], currency: str, note: str) -> Image.Image:
    size = 760
    top = 70
    height = size + top + (40 if note else 0)
    image = Image.new("RGB", (size, height), BG)
    draw = ImageDraw.Draw(image)
    draw.text((20, 18), _fit(draw, _printable(title, True), 32, size - 40), font=_font(32),
              fill=HEAD)
    centre = (size / 2, top + size / 2)
    radius = size / 2 - 120
    spots: dict[int, tuple[float, float]] = {}
    count = max(1, len(people))
    for i, (user, _, _) in enumerate(people):
        angle = -math.pi / 2 + 2 * math.pi * i / count
        spots[user] = (centre[0] + radius * math.cos(angle), centre[1] + radius * math.sin(angle))
    dot = 34
    labels = []
    for payer, payee, cents in payments:
        if payer in spots and payee in spots:
            middle = _arrow(draw, spots[payer], spots[payee], dot + 4)
            labels.append((middle, format_amount(cents, currency)))
    small = _font(20)
    for (x, y), text in labels:  # over the arrows, each on a patch of the background
        width = draw.textlength(text, font=small)
        draw.rectangle((x - width / 2 - 5, y - 13, x + width / 2 + 5, y + 13), fill=BG)
        draw.text((x, y), text, font=small, fill=TEXT, anchor="mm")
    for user, name, net in people:
        x, y = spots[user]
        colour = OWED if net > 0 else OWES if net < 0 else MUTED
        draw.ellipse((x - dot, y - dot, x + dot, y + dot), fill=DOT, outline=colour, width=4)
        initial = _printable(name, True)[:1].upper() or "?"
        draw.text((x, y), initial, font=_font(28), fill=TEXT, anchor="mm")
        below = y + dot + 16 if y >= centre[1] - 1 else y - dot - 40
        draw.text((x, below), _fit(draw, _printable(name, True), 20, 200), font=small,
                  fill=TEXT, anchor="mm")
        money = ("+" if net > 0 else "−" if net < 0 else "") + format_amount(abs(net), currency)
        draw.text((x, below + 22), money, font=_font(18, bold=False), fill=colour, anchor="mm")
    if note:
        draw.text((20, size + top + 6), _fit(draw, note, 20, size - 40), font=small, fill=MUTED)
    return image


def _listed(title: str, people: Sequence[tuple[int, str, int]],
            payments: Sequence[tuple[int, int, int]], currency: str, note: str) -> Image.Image:
    names = {user: name for user, name, _ in people}
    shown = list(payments[:LIST_MOST])
    row = 34
    width = 900
    extra = len(payments) - len(shown)
    height = 90 + row * (len(shown) + (1 if extra else 0)) + (40 if note else 0) + 20
    image = Image.new("RGB", (width, height), BG)
    draw = ImageDraw.Draw(image)
    draw.text((20, 18), _fit(draw, _printable(title, True), 32, width - 40), font=_font(32),
              fill=HEAD)
    y = 80
    font = _font(22)
    for payer, payee, cents in shown:
        left = _fit(draw, _printable(names.get(payer, str(payer)), True), 22, 330)
        right = _fit(draw, _printable(names.get(payee, str(payee)), True), 22, 330)
        draw.text((20, y), left, font=font, fill=OWES)
        draw.text((370, y), "→", font=font, fill=ARROW)
        draw.text((410, y), right, font=font, fill=OWED)
        draw.text((width - 20, y), format_amount(cents, currency), font=font, fill=TEXT,
                  anchor="ra")
        y += row
    if extra:
        draw.text((20, y), f"… and {extra} more payments", font=font, fill=MUTED)
        y += row
    if note:
        draw.text((20, y + 10), _fit(draw, note, 20, width - 40), font=_font(20), fill=MUTED)
    return image
