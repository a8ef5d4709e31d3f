"""Pictures for standings: a leaderboard table and a small chart of net money over time.

Pure functions from plain data to PNG bytes, drawn with the fonts bundled for the board.
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Sequence

from PIL import Image, ImageDraw

from .render import _DRAWING, _font, _printable

__all__ = ["render_leaderboard", "render_money_chart"]

BG = (18, 70, 45)
HEAD = (255, 204, 51)
TEXT = (240, 240, 232)
MUTED = (170, 200, 180)
STRIPE = (24, 84, 55)
MINE = (60, 110, 80)
UP = (120, 220, 140)
DOWN = (250, 120, 110)


def _save(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG", optimize=False, compress_level=6)
    return out.getvalue()


def render_leaderboard(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]],
                       highlight: int | None = None, note: str = "") -> bytes:
    """A clean table: a title, a header row, up to a dozen rows; ``highlight`` marks a row."""
    widths = [90, 330] + [150] * (len(headers) - 2)
    width = sum(widths) + 40
    row_h = 46
    height = 110 + row_h * (len(rows) + 1) + (40 if note else 0)
    with _DRAWING:
        image = Image.new("RGB", (width, height), BG)
        draw = ImageDraw.Draw(image)
        draw.text((20, 18), _printable(title, True), font=_font(34), fill=HEAD)
        y = 80
        x = 20
        for header, w in zip(headers, widths, strict=False):
            draw.text((x + 8, y + 10), header, font=_font(22), fill=MUTED)
            x += w
        y += row_h
        for i, row in enumerate(rows):
            fill = MINE if highlight == i else (STRIPE if i % 2 == 0 else BG)
            draw.rectangle((16, y, width - 16, y + row_h - 4), fill=fill)
            x = 20
            for j, (cell, w) in enumerate(zip(row, widths, strict=False)):
                font = _font(24, bold=j < 2)
                text = _printable(cell, j < 2)
                while draw.textlength(text, font=font) > w - 12 and len(text) > 1:
                    text = text[:-2] + "…"
                draw.text((x + 8, y + 8), text, font=font, fill=TEXT)
                x += w
            y += row_h
        if note:
            draw.text((20, y + 8), _printable(note, False), font=_font(20, bold=False), fill=MUTED)
    return _save(image)


def render_money_chart(points: Sequence[tuple[float, int]], label: str) -> bytes:
    """Net money (cents, running total) over time as a line; ``label`` titles it."""
    width, height = 900, 360
    left, right, top, bottom = 70, 20, 60, 40
    with _DRAWING:
        image = Image.new("RGB", (width, height), BG)
        draw = ImageDraw.Draw(image)
        draw.text((20, 16), _printable(label, True), font=_font(26), fill=HEAD)
        if len(points) < 2:
            draw.text((left, height // 2), "Not enough games yet for a chart.",
                      font=_font(22, bold=False), fill=MUTED)
            return _save(image)
        running = []
        total = 0
        for when, delta in points:
            total += delta
            running.append((when, total))
        lo = min(0, min(v for _, v in running))
        hi = max(0, max(v for _, v in running))
        span = max(1, hi - lo)
        t0, t1 = running[0][0], running[-1][0]
        tspan = max(1e-9, t1 - t0)

        def xy(i: int, when: float, value: int) -> tuple[float, float]:
            frac = (when - t0) / tspan if t1 > t0 else i / max(1, len(running) - 1)
            x = left + frac * (width - left - right)
            y = top + (hi - value) / span * (height - top - bottom)
            return x, y

        zero_y = xy(0, t0, 0)[1]
        draw.line((left, zero_y, width - right, zero_y), fill=MUTED, width=1)
        coords = [xy(i, w, v) for i, (w, v) in enumerate(running)]
        colour = UP if running[-1][1] >= 0 else DOWN
        draw.line(coords, fill=colour, width=4)
        draw.text((8, top - 10), f"{hi / 100:,.0f}", font=_font(16, bold=False), fill=MUTED)
        draw.text((8, height - bottom - 10), f"{lo / 100:,.0f}", font=_font(16, bold=False),
                  fill=MUTED)
        for when, anchor_x, anchor in ((t0, left, "la"), (t1, width - right, "ra")):
            day = dt.datetime.fromtimestamp(when, dt.UTC).strftime("%Y-%m-%d")
            draw.text((anchor_x, height - bottom + 12), day, font=_font(16, bold=False),
                      fill=MUTED, anchor=anchor)
    return _save(image)
