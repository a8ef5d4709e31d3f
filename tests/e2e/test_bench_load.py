"""The load benchmark runs end to end at a tiny size, so it cannot rot (figures, not timings,
are its business: nothing here asserts how fast the bot was)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image

from bot.bench.chaos_bench import late_interactions
from bot.bench.load_bench import (
    board_lag,
    plays_per_picture,
    plot_p99,
    run_one,
    summary,
    table_sizes,
    unshown_plays,
)
from bot.bench.load_players import Load
from bot.pictures.text import NO_PICTURE_NOW
from bot.sandbox import Fault
from bot.sandbox.faults import InjectedFault

ROOT = Path(__file__).resolve().parents[2]

FIELDS = ("games", "interactions", "interactions_per_s", "moves", "p50_ms", "p95_ms", "p99_ms",
          "max_ms", "over_1s", "over_3s", "board_posts_per_s", "board_edits_per_s",
          "bot_cpu_pct", "bot_cpu_ms_per_move", "peak_rss_mb", "db_write_bytes_per_move", "errors",
          "error_detail", "by_kind")


async def test_a_small_eager_run_plays_and_reports_every_figure() -> None:
    # Three of the ten games at tables of three or four, as the command's default mix.
    row = await run_one(10, mode="eager", duration=3.0, board_delay=0.2, tables=0.3)
    assert set(FIELDS) <= set(row)
    assert (row["tables_of_3"], row["tables_of_4"]) == (2, 1)
    assert row["drawing_cpu_ms_per_move"] > 0 and row["bench_cpu_ms_per_move"] > 0
    assert row["boards_drawn"] > 0 and row["board_updates_up_to_date"] >= 0
    assert row["hand_pictures_per_move"] > 0 and row["board_pictures_per_move"] > 0
    assert row["drawings_handed"]["render_board"] > 0 and row["drawings_handed"]["render_hand"] > 0
    assert "tables of 3" in summary(row) and "plays never on a board" in summary(row)
    assert row["yardstick_ms"] > 0 and row["yardstick_after_ms"] > 0
    assert f"yardstick {row['yardstick_ms']} ms, after {row['yardstick_after_ms']} ms" in \
        summary(row)
    assert row["hand_replies_without_picture"] >= 0 and "without their picture" in summary(row)
    assert sum(k["n"] for k in row["by_kind"].values()) == row["interactions"]
    assert row["games"] == 10 and row["interactions"] > 0 and row["moves"] > 0
    assert row["errors"] == 0, row["error_detail"]
    assert 0 < row["p50_ms"] <= row["p95_ms"] <= row["p99_ms"] <= row["max_ms"]
    assert row["over_3s"] <= row["over_1s"] <= row["interactions"]
    # The replies the players saw (after a defer, the follow-up) are timed too.
    assert 0 < row["reply_p50_ms"] <= row["reply_p99_ms"] <= row["reply_max_ms"]
    assert row["board_posts_per_s"] > 0
    assert row["bot_cpu_pct"] > 0 and row["peak_rss_mb"] > 10
    assert row["db_write_bytes_per_move"] is not None and row["db_write_bytes_per_move"] >= 0
    # The drawing process is measured with the bot: its CPU and memory count.
    assert row["helpers"] >= 1 and row["helpers_cpu_pct"] > 0
    assert row["all_cpu_pct"] >= row["bot_cpu_pct"]
    assert row["all_peak_rss_mb"] > row["peak_rss_mb"] + 10
    # Sampled: a sum of RSS is at most the sum of the peaks; PSS counts shared pages once.
    assert 0 < row["sum_pss_peak_mb"] <= row["sum_rss_peak_mb"] <= row["all_peak_rss_mb"]
    # The plays showed on the boards (the bot draws the pending boards before it stops).
    assert row["plays_not_on_a_board"] < row["moves"]
    assert 0 < row["board_lag_p50_ms"] <= row["board_lag_p99_ms"] <= row["board_lag_max_ms"]


async def test_two_shard_processes_on_postgresql_are_measured_together(
        postgres_url: str) -> None:
    row = await run_one(6, mode="eager", duration=3.0, board_delay=0.2, shards=2,
                        database=postgres_url)
    assert (row["backend"], row["processes"]) == ("postgresql", 2)
    assert row["errors"] == 0, row["error_detail"]
    assert row["moves"] > 0 and row["board_posts_per_s"] > 0
    # Both processes and their drawing processes count; the database's writes are the
    # server's, not the bot's, so they are not reported as the bot's.
    assert row["helpers"] >= 2 and row["db_write_bytes_per_move"] is None
    assert row["all_peak_rss_mb"] > 2 * 40


async def test_shards_need_postgresql() -> None:
    with pytest.raises(SystemExit, match="PostgreSQL"):
        await run_one(2, shards=2)


async def test_paced_players_wait_between_moves(tmp_path: Path) -> None:
    # The bot runs with the Python it is given (compare.sh gives the old main its own): here a
    # wrapper that leaves a mark and runs this one.
    marks = tmp_path / "marks"
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\necho "$@" >> {marks}\nexec {sys.executable} "$@"\n')
    python.chmod(0o755)
    row = await run_one(10, mode="paced", interval=2.0, duration=3.0, board_delay=0.2,
                        bot_python=str(python), warm_up=1.0)
    assert row["bot_python"] == str(python) and "-m bot" in marks.read_text()
    assert row["warm_up_s"] == 1.0 and "after a warm-up of 1 s" in summary(row)
    assert row["errors"] == 0, row["error_detail"]
    assert row["moves"] > 0 and row["offered_moves_per_s"] == 5.0
    # Ten games, a move each every 2 s on average (each pause between 1 and 3 s): at most
    # four moves a game can begin in the 3 s, far fewer than eager players make (~50/s).
    assert row["moves_per_s"] < 14


def test_board_lag_counts_from_the_play_to_the_first_picture_that_lists_it() -> None:
    # (channel, ✅, line, began): each move begun 0.1 s before its ✅.
    played = [(1, 10.0, "Ann: 7♥ → C1", 9.9), (1, 11.0, "Bob: 8♥ → C1", 10.9),
              (2, 10.0, "Cy: A♠ → C2", 9.9), (2, 12.0, "Di: 2♠ → C2", 11.9)]
    pictures = {
        # Drawn before the play, then one that does not list it yet, then one that does.
        1: [(9.0, frozenset({"Ann: 7♥ → C1"})), (10.5, frozenset()),
            (13.0, frozenset({"Ann: 7♥ → C1", "Bob: 8♥ → C1"}))],
        2: [(10.2, frozenset({"Cy: A♠ → C2"}))],
    }
    lags, missing = board_lag(played, pictures)
    assert [round(v, 6) for v in lags] == [0.2, 2.0, 3.0]
    assert missing == 1  # Di's play: no picture after it
    # The run says which play, and what its game's board showed after it began.
    (said,) = unshown_plays(played, pictures, end=15.0)
    assert said.startswith("'Di: 2♠ → C2' (✅ 3.0 s before the window's end)")
    assert said.endswith("since it began: 0, the last listing: none")


def test_a_board_of_the_game_s_end_shows_every_play_before_it() -> None:
    # A discard, a round of passes and the end, drawn once: "Last moves" no longer names the
    # discard (passes are not counted as plays), yet the board shows the final position.
    played = [(1, 10.0, "Ann: 7♥ → S1", 9.9), (1, 40.0, "Ann: next game", 39.9)]
    listing = frozenset({"Game over: Ann wins", "Bob passed", "Cy passed", "Di passed",
                         "Ann passed"})
    pictures = {1: [(12.0, listing), (30.0, frozenset({"Bob: a later game"}))]}
    lags, missing = board_lag(played, pictures)
    assert [round(v, 6) for v in lags] == [2.0]
    assert missing == 1, "a play after the end is not shown by the end's board"


def test_a_board_drawn_once_for_several_plays_shows_them_all() -> None:
    # Six plays, then one picture: "Last moves" lists the last five lines only, and the
    # position is after all six. A later play not yet acked when a picture came is not on it.
    played = [(1, 10.0 + n, f"Ann: card {n}", 9.9 + n) for n in range(6)] + [
        (1, 30.0, "Bob: late", 29.9)]
    pictures = {1: [(20.0, frozenset(f"Ann: card {n}" for n in range(1, 6))),
                    (25.0, frozenset({"Bob: late"}))]}
    lags, missing = board_lag(played, pictures)
    assert [round(v, 6) for v in lags] == [5.0, 6.0, 7.0, 8.0, 9.0, 10.0]
    assert missing == 1  # Bob's play came after both pictures
    # One picture showed plays, and it showed several.
    assert plays_per_picture(played, pictures) == (1, 1)
    assert plays_per_picture(played[:1], {1: [(10.5, frozenset({"Ann: card 0"}))]}) == (1, 0)
    # A board drawn from the saved move before its ✅ came (the reply waited for the hand's
    # picture) shows it, with no lag; one from before the move began doesn't.
    early = [(1, 12.0, "Ann: card 0", 10.0)]
    assert board_lag(early, {1: [(11.0, frozenset({"Ann: card 0"}))]}) == ([0.0], 0)
    assert board_lag(early, {1: [(9.0, frozenset({"Ann: card 0"}))]}) == ([], 1)


def test_a_share_of_the_games_at_tables_of_three_and_four_spread_evenly() -> None:
    assert table_sizes(6, 0.0) == [2] * 6
    assert table_sizes(6, 1 / 3) == [2, 2, 3, 2, 2, 4]
    assert table_sizes(4, 1.0) == [3, 4, 3, 4]


def test_the_chaos_bench_lists_the_late_interactions_with_their_callback_faults() -> None:
    def record(n: int, latency: float | None) -> SimpleNamespace:
        return SimpleNamespace(id=n, token=f"t{n}", name=f"play{n}", latency=latency,
                               created_wall=100.0)

    def fault(n: int, status: int, at: float) -> InjectedFault:
        return InjectedFault("callback", Fault.error(status), "POST",
                             f"/interactions/{n}/t{n}/callback", at)

    records = [record(1, 0.2), record(2, None), record(3, 3.5), record(12, 0.1)]
    injected = [fault(1, 500, 100.0), fault(2, 502, 100.0), fault(2, 500, 101.0),
                fault(12, 503, 100.0)]
    assert late_interactions(records, injected) == [
        {"name": "play2", "latency_s": None, "callback_faults": ["502 at 0.00 s", "500 at 1.00 s"]},
        {"name": "play3", "latency_s": 3.5, "callback_faults": []},
    ]
    assert late_interactions(records, injected, limit=1)[0]["name"] == "play2"


def test_the_plot_is_a_png(tmp_path: Path) -> None:
    rows = [{"mode": "eager", "games": g, "p50_ms": 10.0 * g, "p99_ms": 40.0 * g}
            for g in (10, 50, 100)]
    out = tmp_path / "p99.png"
    plot_p99(rows, out)
    with Image.open(out) as image:
        assert image.format == "PNG" and image.width > 100


def test_the_command_line_prints_one_json_line_per_size() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DISCORD_")}
    done = subprocess.run(
        [sys.executable, "-m", "bot.bench", "load", "--games", "1,2", "--duration", "2",
         "--board-delay", "0.2"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["games"] for r in rows] == [1, 2]
    assert all(r["name"] == "load" and r["interactions"] > 0 for r in rows)


def test_it_runs_without_the_tests_package(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DISCORD_")}
    env["PYTHONPATH"] = str(ROOT)
    # As if run from elsewhere, with the bot installed but not the tests: the fake Discord it
    # plays against is shipped (``bot.sandbox``).
    code = ("import sys; sys.modules['tests'] = None; from bot.bench.commands import main; "
            "main(['load', '--games', '1', '--duration', '1', '--board-delay', '0.2'])")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.splitlines()[0])["games"] == 1


async def test_a_hand_sent_in_words_for_a_busy_moment_is_counted() -> None:
    """A reply quick only because it gave its picture up is counted apart (read the reply
    figures with it); an ordinary reply is not."""

    class Message:
        def __init__(self, content: str) -> None:
            self.content = content

    class Fake:
        def __init__(self, content: str) -> None:
            self.content = content

        async def answered(self, record: object, timeout: float) -> bool:
            return True

        async def reply(self, record: object, timeout: float) -> Message:
            return Message(self.content)

    record = SimpleNamespace(id=1, dispatched_at=None)
    in_words = Load(Fake(f"✅ Ann: 7♥ → C2\nYour hand: 3♠ 9♦\n{NO_PICTURE_NOW}"), None,
                    "eager", 1.0)
    await in_words._answer(record)
    assert in_words.hands_in_words == 1 and not in_words.problems
    pictured = Load(Fake("✅ Ann: 7♥ → C2\nYour hand: 3♠ 9♦"), None, "eager", 1.0)
    await pictured._answer(record)
    assert pictured.hands_in_words == 0
