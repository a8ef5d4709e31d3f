"""Standings pictures: valid PNGs, the highlighted row, an empty chart."""

from __future__ import annotations

import io

from PIL import Image

from bot.render_tables import render_leaderboard, render_money_chart


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
