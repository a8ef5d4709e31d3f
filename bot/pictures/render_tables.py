"""Pictures for standings: a leaderboard table and a small chart of net money over time.

Pure functions from plain data to PNG bytes, drawn with the fonts bundled for the board.
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Sequence

from PIL import Image, ImageDraw

from bot.money.amounts import format_amount

from .fonts import _DRAWING, _font, _printable

__all__ = ["date_ticks", "money_ticks", "render_leaderboard", "render_money_chart"]

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


def money_ticks(lo: int, hi: int, count: int = 5) -> list[int]:
    """Round amounts (cents) for the money axis, from at most ``lo`` to at least ``hi``.

    Steps are 1, 2, 2.5 or 5 times a power of ten (at least a cent), so the labels read like
    amounts people write: $0.00, $0.25, $0.50 rather than two labels both showing 0.
    """
    lo, hi = min(lo, 0), max(hi, 0)
    span = max(hi - lo, 1)
    raw = span / max(1, count - 1)
    step = 1
    magnitude = 1
    while step < raw:
        for factor in (1, 2, 2.5, 5):
            step = max(1, int(factor * magnitude))
            if step >= raw:
                break
        magnitude *= 10
    ticks = [(lo // step) * step]
    while ticks[-1] < hi or len(ticks) < 2:
        ticks.append(ticks[-1] + step)
    return ticks


def date_ticks(t0: float, t1: float, count: int = 5) -> list[tuple[float, str]]:
    """Times spread along the axis from ``t0`` to ``t1``, each labelled once.

    Days when the history spans days (``2026-03-14``), times of day within one (``14:05``);
    a label never repeats its neighbour's.
    """
    span = t1 - t0
    if span <= 0:
        return [(t0, _day(t0))]
    within_a_day = span < 2 * 86_400
    ticks: list[tuple[float, str]] = []
    for i in range(count):
        when = t0 + span * i / (count - 1)
        label = _time(when) if within_a_day else _day(when)
        if not ticks or ticks[-1][1] != label:
            ticks.append((when, label))
        elif len(ticks) > 1:  # a repeated label moves along, so the last one ends the axis
            ticks[-1] = (when, label)
    if within_a_day:  # the first time says which day
        ticks[0] = (t0, f"{_day(t0)} {ticks[0][1]}")
    return ticks


def _day(when: float) -> str:
    return dt.datetime.fromtimestamp(when, dt.UTC).strftime("%Y-%m-%d")


def _time(when: float) -> str:
    return dt.datetime.fromtimestamp(when, dt.UTC).strftime("%H:%M")


def render_money_chart(points: Sequence[tuple[float, int]], label: str,
                       currency: str = "$") -> bytes:
    """Net money over time as a line with a marker per point; ``label`` titles it.

    ``points`` are ``(time, running balance in cents)``, oldest first, as
    ``Storage.standings.money_series`` gives them (a long history already downsampled to a few
    hundred points). The money axis is labelled with amounts, the time axis with spread dates."""
    width, height = 900, 360
    left, right, top, bottom = 110, 30, 60, 44
    small = _font(16, bold=False)
    with _DRAWING:
        image = Image.new("RGB", (width, height), BG)
        draw = ImageDraw.Draw(image)
        draw.text((20, 16), _printable(label, True), font=_font(26), fill=HEAD)
        if len(points) < 2:
            draw.text((left, height // 2), "Not enough games yet for a chart.",
                      font=_font(22, bold=False), fill=MUTED)
            return _save(image)
        running = list(points)
        ticks = money_ticks(min(v for _, v in running), max(v for _, v in running))
        lo, hi = ticks[0], ticks[-1]
        span = max(1, hi - lo)
        t0, t1 = running[0][0], running[-1][0]
        by_index = t1 <= t0  # every line at the same moment: spread them evenly instead

        def x_at(i: int, when: float) -> float:
            frac = i / (len(running) - 1) if by_index else (when - t0) / (t1 - t0)
            return left + frac * (width - left - right)

        def y_at(value: int) -> float:
            return top + (hi - value) / span * (height - top - bottom)

        for value in ticks:
            y = y_at(value)
            draw.line((left, y, width - right, y), fill=MUTED if value == 0 else STRIPE,
                      width=2 if value == 0 else 1)
            draw.text((left - 10, y), format_amount(value, currency), font=small, fill=MUTED,
                      anchor="rm")
        times = [(t0, _day(t0))] if by_index else date_ticks(t0, t1)
        for i, (when, text) in enumerate(times):
            x = left if by_index else x_at(0, when)
            anchor = "la" if i == 0 else ("ra" if i == len(times) - 1 else "ma")
            draw.line((x, height - bottom, x, height - bottom + 6), fill=MUTED, width=1)
            draw.text((x, height - bottom + 10), text, font=small, fill=MUTED, anchor=anchor)
        coords = [(x_at(i, w), y_at(v)) for i, (w, v) in enumerate(running)]
        colour = UP if running[-1][1] >= 0 else DOWN
        draw.line(coords, fill=colour, width=3)
        radius = 4 if len(coords) <= 60 else 2
        for x, y in coords:
            draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=colour)
    return _save(image)
