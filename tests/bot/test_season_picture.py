"""The picture of a season's final standings, and the one in the README (``docs/``)."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

from PIL import Image

from bot.app.season_posts import final_picture_args, final_text
from bot.money.season_table import season_table
from bot.money.seasons import final_standings
from bot.pictures.season_picture import render_season_final
from bot.storage import LedgerRow, SeasonRow

DOC = Path(__file__).resolve().parents[2] / "docs" / "season-final-standings.png"
"""The picture in the README."""

NAMES = {1: "Alice", 2: "Bob", 3: "Carol", 4: "Dmitri", 5: "Erin", 6: "Frank"}


def _november() -> tuple[SeasonRow, list[LedgerRow]]:
    start = dt.datetime(2026, 11, 1, tzinfo=dt.UTC).timestamp()
    end = dt.datetime(2026, 12, 1, tzinfo=dt.UTC).timestamp()
    season = SeasonRow(7, 1, "November 2026", "monthly", start, end, "claimed", end, 9, None)
    # (loser, winner, cents): a month of two-player games, then one table of four.
    games = [(2, 1, 150), (3, 1, 90), (1, 2, 60), (4, 1, 120), (5, 3, 75), (2, 3, 50),
             (6, 2, 40), (3, 4, 110), (5, 1, 80), (1, 3, 70), (4, 2, 65), (6, 5, 30),
             (2, 1, 100), (4, 3, 55), (5, 2, 45), (3, 1, 85), (6, 4, 20), (2, 5, 35)]
    lines = [LedgerRow(n + 1, 1, "game", loser, winner, cents, n + 1, "kings", winner, cents // 10,
                       None, None, None, start + 3600 * (n + 1))
             for n, (loser, winner, cents) in enumerate(games)]
    table_of_four = [(2, 4, 3), (3, 4, 8), (6, 4, 8)]
    lines += [LedgerRow(100 + i, 1, "game", loser, winner, 50 + 5 * margin, 99, "kings", winner,
                        margin, None, None, None, start + 86400 * 20)
              for i, (loser, winner, margin) in enumerate(table_of_four)]
    return season, lines


def doc_picture() -> bytes:
    """The README's picture: November 2026 among six players."""
    season, lines = _november()
    final = final_standings(season, season_table(lines))
    return render_season_final(*final_picture_args(final, NAMES, "$"))  # type: ignore[arg-type]


def _pixels(png: bytes) -> tuple[tuple[int, int], bytes]:
    with Image.open(io.BytesIO(png)) as image:
        return image.size, image.convert("RGB").tobytes()


def test_the_final_standings_name_the_champion_the_top_the_most_games_and_the_streak() -> None:
    season, lines = _november()
    final = final_standings(season, season_table(lines))
    assert final.champion is not None and final.champion.user_id == 1
    assert [p.place for p in final.top] == [1, 2, 3, 4, 5]
    assert final.most_games is not None and final.best_streak is not None
    text = final_text(final, "$")
    assert len(text) <= 2000 and "(season #7)" in text and "1 Nov 2026 – 30 Nov 2026" in text
    assert "Champion: <@1>" in text and "Most games" in text and "Best streak" in text
    size, _ = _pixels(doc_picture())
    assert size[0] == 900


def test_nobody_ranked_draws_no_champion() -> None:
    season, lines = _november()
    final = final_standings(season, season_table(lines[:1]))
    assert final.champion is None
    png = render_season_final(*final_picture_args(final, NAMES, "$"))  # type: ignore[arg-type]
    assert _pixels(png)[0][0] == 900
    assert "No champion" in final_text(final, "$")


def test_the_readme_shows_the_final_standings_as_drawn_today() -> None:
    # python -m tests.bot.test_season_picture draws it again.
    assert _pixels(DOC.read_bytes()) == _pixels(doc_picture())


if __name__ == "__main__":
    DOC.write_bytes(doc_picture())
