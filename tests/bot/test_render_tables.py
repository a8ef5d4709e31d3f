"""Standings pictures: valid PNGs, the highlighted row, an empty chart."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.money.amounts import format_amount
from bot.pictures.render_tables import (
    date_ticks,
    money_ticks,
    render_leaderboard,
    render_money_chart,
)


def _image(data: bytes) -> Image.Image:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return Image.open(io.BytesIO(data))


def test_leaderboard_table_is_a_png_and_the_highlight_shows() -> None:
    rows = [[str(i + 1), f"Player {i}", "10", "5-4-1", "55%", "$3"] for i in range(11)]
    plain = render_leaderboard("Leaderboard", ["#", "Player", "Games", "W-L-T", "Win %", "Net"],
                               rows)
    marked = render_leaderboard("Leaderboard", ["#", "Player", "Games", "W-L-T", "Win %", "Net"],
                                rows, highlight=3, note="note")
    assert _image(plain).size[1] < _image(marked).size[1]  # the note adds a line
    assert plain != marked
    long_name = render_leaderboard("L", ["#", "Player", "Games"], [["1", "x" * 200, "1"]])
    assert _image(long_name).size[0] < 2000  # long names are cut, not widening the table


def test_money_chart_with_and_without_history() -> None:
    empty = _image(render_money_chart([], "nothing"))
    assert empty.size == (900, 360)
    series = [(1_700_000_000 + i * 3600.0, (-1) ** i * 100 * i) for i in range(50)]
    assert _image(render_money_chart(series, "zigzag")).size == (900, 360)


@pytest.mark.parametrize(("lo", "hi"), [(0, 50), (-25, 50), (0, 1), (0, 0), (-12_345, 98_765),
                                        (5, 460), (-300, -20), (0, 10_000_000)])
def test_money_ticks_are_distinct_round_amounts_covering_the_range(lo: int, hi: int) -> None:
    ticks = money_ticks(lo, hi)
    labels = [format_amount(t) for t in ticks]
    assert len(ticks) >= 2 and len(set(labels)) == len(labels)  # never "0" twice
    assert ticks[0] <= min(lo, 0) and ticks[-1] >= max(hi, 0) and 0 in ticks
    steps = {b - a for a, b in zip(ticks, ticks[1:], strict=False)}
    assert len(steps) == 1 and len(ticks) <= 7
    step = steps.pop()
    assert str(step).rstrip("0") in ("1", "2", "25", "5")


def test_small_amounts_get_amount_labels_not_two_zeros() -> None:
    # The chart of a player up 50 cents used to label its axis "0" and "0".
    assert [format_amount(t) for t in money_ticks(0, 50)] == ["$0.00", "$0.20", "$0.40",
                                                              "$0.60"]


@pytest.mark.parametrize("span", [0, 10, 3600, 86_400 * 1.5, 86_400 * 2.5, 86_400 * 400])
def test_date_ticks_are_spread_and_never_repeat(span: float) -> None:
    t0 = 1_800_000_000.0
    ticks = date_ticks(t0, t0 + span)
    labels = [label for _, label in ticks]
    assert len(set(labels)) == len(labels)
    assert ticks[0][0] == t0 and all(a < b for (a, _), (b, _) in zip(ticks, ticks[1:],
                                                                    strict=False))
    if span >= 86_400 * 2:
        assert len(ticks) >= 3 and ticks[-1][0] == t0 + span
    assert "2027-01-15" in labels[0]


def test_money_chart_of_a_single_day_draws_markers() -> None:
    series = [(1_800_000_000.0 + i * 60, 50) for i in range(3)]
    image = _image(render_money_chart(series, "three wins", "€")).convert("RGB")
    # A marker is a filled disc wider than the line: find one at the first point.
    colours = {image.getpixel((107, y)) for y in range(60, 320)}  # left of where the line starts
    assert (120, 220, 140) in colours
