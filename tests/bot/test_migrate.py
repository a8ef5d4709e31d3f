"""``python -m bot migrate``: a SQLite database in use for a while moves to PostgreSQL whole,
is checked, and the bot goes on on the copy."""

from __future__ import annotations

from pathlib import Path

import pytest

import bot.ops.migrate
import bot.ops.replay_check
from bot.games.game_service import GameService, LiveGame
from bot.money.ledger_service import LedgerService
from bot.ops.dblock import hold_database
from bot.ops.migrate import MigrationError, migrate
from bot.storage import Storage
from bot.storage.schema import TABLES
from tests.dbtools import run_sql
from tests.support import Clock

ANN, BOB, CAROL, BOT = 101, 202, 303, 999
G = 1


async def _game(games: GameService, a: int, b: int, rules: str = "classic",
                stake: int = 100, target: int | None = None) -> LiveGame:
    row = await games.inviting.challenge(guild_id=G, channel_id=10, challenger_id=a, opponent_id=b,
                                         opponent_is_bot=False, rules_name=rules, names=("A", "B"),
                                         stakes=(stake, 5), target=target)
    assert not isinstance(row, LiveGame)
    _, live = await games.inviting.accept(row.id, b)
    return live


async def _play(games: GameService, live: LiveGame, moves: int) -> None:
    for _ in range(moves):
        if live.finished:
            return
        user = live.on_turn
        await games.playing.play(live.id, user, games.live.view(live, user).legal_moves[0].text)


async def _a_years_worth(path: Path) -> tuple[int, int]:
    """A database with a game in progress (past a snapshot), a match in progress, finished
    staked games, a confirmed settlement, a payment and a void; the two games in progress."""
    clock = Clock(1_700_000_000.0)
    storage = await Storage.open(path, clock)
    try:
        games = GameService(storage, computer_id=BOT, clock=clock)
        ledger = LedgerService(storage)
        for loser, winner in ((ANN, BOB), (BOB, ANN), (ANN, BOB), (CAROL, ANN)):
            live = await _game(games, loser, winner)
            await _play(games, live, 7)
            await games.playing.resign(live.id, loser)
        await ledger.update_ratings(G)
        _, pending, _ = await ledger.settle(guild_id=G, channel_id=10, caller=ANN, other=BOB,
                                            amount_text="1")
        await ledger.answer_settlement(pending.id, BOB, True)
        await ledger.settle(guild_id=G, channel_id=10, caller=ANN, other=CAROL,
                            amount_text="0.50")
        voided = (await storage.ledger.game_entry(G, 3))
        assert voided is not None
        await ledger.void(G, 3, CAROL, "played by mistake")
        going = await _game(games, ANN, CAROL, rules="kings")
        await _play(games, going, 80)  # past a snapshot (every 50 moves)
        match = await _game(games, BOB, CAROL, rules="kings", target=50)
        await _play(games, match, 5)
        assert not going.finished and not match.finished
        return going.id, match.id
    finally:
        await storage.close()


async def test_a_database_moves_to_postgresql_and_plays_on(tmp_path: Path,
                                                           postgres_url: str) -> None:
    path = tmp_path / "old.sqlite3"
    going, match = await _a_years_worth(path)
    said: list[str] = []
    await migrate(str(path), postgres_url, said.append)
    text = "\n".join(said)
    assert f"Row counts match in all {len(TABLES)} tables" in text
    assert "All 6 games are the replay of their moves" in text
    assert "balances between two players match" in text and said[-1].startswith("Done")
    old, new = await Storage.open(path), await Storage.open(postgres_url)
    try:
        assert await old.table_counts() == await new.table_counts()
        for user in (ANN, BOB, CAROL):
            assert await old.ledger.balances(G, user) == await new.ledger.balances(G, user)
            assert await old.standings.player_stats(G, user) == await new.standings.player_stats(
                G, user)
            assert await old.standings.money_series(G, user) == await new.standings.money_series(
                G, user)
        assert await old.standings.ratings(G) == await new.standings.ratings(G)
        # The bot on the copy: the game in progress goes on to its end and pays its stake;
        # new rows get new ids.
        clock = Clock(1_800_000_000.0)
        games = GameService(new, computer_id=BOT, clock=clock)
        live = await games.live.game(going)
        assert live.version > 50
        await _play(games, live, 10)
        await games.playing.resign(going, live.on_turn)
        assert live.finished
        entry = await new.ledger.game_entry(G, going)
        assert entry is not None and entry.id > max(r[0] for r in await run_sql(
            str(path), "SELECT id FROM ledger"))
        fresh = await _game(games, BOB, ANN)
        assert fresh.id == 7
        assert (await games.live.game(match)).version == 5
    finally:
        await old.close()
        await new.close()


async def test_a_non_empty_target_is_refused(tmp_path: Path, postgres_url: str) -> None:
    path = tmp_path / "old.sqlite3"
    await _a_years_worth(path)
    await migrate(str(path), postgres_url, lambda _: None)
    before = await run_sql(postgres_url, "SELECT COUNT(*) FROM moves")
    with pytest.raises(MigrationError, match="isn't empty"):
        await migrate(str(path), postgres_url, lambda _: None)
    assert await run_sql(postgres_url, "SELECT COUNT(*) FROM moves") == before


async def test_refused_while_the_bot_runs_and_for_wrong_urls(tmp_path: Path,
                                                              postgres_url: str) -> None:
    path = tmp_path / "busy.sqlite3"
    held = hold_database(path)
    try:
        # The lock is per process; a second process is what a running bot is.
        import subprocess
        import sys
        code = ("import asyncio, sys; from bot.ops.migrate import migrate, MigrationError\n"
                "try: asyncio.run(migrate(sys.argv[1], sys.argv[2]))\n"
                "except MigrationError as e: print(e); sys.exit(3)")
        done = subprocess.run([sys.executable, "-c", code, str(path), postgres_url],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 3 and "Stop the bot" in done.stdout
    finally:
        assert held is not None
        held.close()
    with pytest.raises(MigrationError, match="PostgreSQL URL"):
        await migrate(str(path), str(tmp_path / "other.sqlite3"))
    with pytest.raises(MigrationError, match="already PostgreSQL"):
        await migrate(postgres_url, postgres_url)


def test_python_m_bot_migrate(tmp_path: Path, postgres_url: str) -> None:
    import asyncio
    import os
    import subprocess
    import sys

    path = tmp_path / "bot.sqlite3"
    asyncio.run(_a_years_worth(path))
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith("DISCORD_")}
    env.update(PYTHONPATH=str(root), DATABASE=str(path))  # no token needed
    command = [sys.executable, "-m", "bot", "migrate", "--to", postgres_url]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "All 6 games are the replay of their moves" in done.stdout
    again = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 1 and "isn't empty" in again.stderr
    wrong = subprocess.run([sys.executable, "-m", "bot", "migrate", "--to"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=120)
    assert wrong.returncode == 2 and "migrate --to postgresql://" in wrong.stderr


async def test_tables_of_three_and_four_move_too(tmp_path: Path, postgres_url: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # The check replays every game: a table's game is dealt for its own number of seats.
    # (It refused any database holding one: "Game 1 can't be replayed … not your turn".)
    monkeypatch.setattr(bot.ops.migrate, "PROGRESS_EVERY", 0.0)
    path = tmp_path / "tables.sqlite3"
    clock = Clock(1_700_000_000.0)
    storage = await Storage.open(path, clock)
    try:
        # Fixed deals: with random ones, the table of three sometimes ended within its 60
        # first moves (first-legal-move play), and there was no game left to resign from.
        seeds = iter(range(1, 1000))
        games = GameService(storage, computer_id=BOT, clock=clock, seed_source=lambda: next(seeds))
        lives = []
        for seated in ((ANN, BOB, CAROL), (BOB, CAROL, ANN, 404)):
            table = await games.inviting.open_table(guild_id=G, channel_id=10, host=(seated[0],
                                                                                     "H"),
                                                    seats=len(seated), rules_name="classic",
                                                    stakes=(100, 5))
            live = None
            for user in seated[1:]:
                _, live = await games.inviting.join_table(table.id, user, f"P{user}")
            assert live is not None and len(live.players) == len(seated)
            await _play(games, live, 60)
            lives.append(live)
        await games.playing.resign(lives[0].id, lives[0].on_turn)  # the others play on
        await games.playing.resign(lives[0].id, lives[0].on_turn)
        assert lives[0].finished and not lives[1].finished
    finally:
        await storage.close()
    said: list[str] = []
    await migrate(str(path), postgres_url, said.append)
    assert "All 2 games are the replay of their moves" in "\n".join(said), said
    assert "Replayed 1 of 2 games…" in said  # a long check says how far it is
    moves = int((await run_sql(str(path), "SELECT COUNT(*) FROM moves"))[0][0])
    assert f"  moves: {moves:,} rows so far…" in said  # and so does a long table's copy


_FOREIGN_KEYS = ("SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) "
                 "FROM pg_constraint WHERE contype = 'f' "
                 "AND connamespace = to_regnamespace(current_schema()) ORDER BY 1, 2")


async def test_the_copy_keeps_every_foreign_key(tmp_path: Path, postgres_url: str) -> None:
    # The copy loads with the foreign keys set aside and adds them back: the copy's schema
    # ends with the same ones as a new database.
    path = tmp_path / "old.sqlite3"
    await _a_years_worth(path)
    fresh = await Storage.open(postgres_url)
    await fresh.close()
    before = await run_sql(postgres_url, _FOREIGN_KEYS)
    assert any(table == "moves" for table, _, _ in before)
    await migrate(str(path), postgres_url, lambda _: None)
    assert await run_sql(postgres_url, _FOREIGN_KEYS) == before


async def test_a_row_pointing_nowhere_is_refused_and_nothing_is_written(
        tmp_path: Path, postgres_url: str) -> None:
    path = tmp_path / "old.sqlite3"
    await _a_years_worth(path)
    # A damaged file: a move of a game that isn't there (the bot's SQLite refuses to write
    # one; a plain connection doesn't check).
    await run_sql(str(path), "INSERT INTO moves (game_id, seq, seat, user_id, move, created_at) "
                             "VALUES (999, 1, 0, 101, 'pass', 0)")
    fresh = await Storage.open(postgres_url)
    await fresh.close()
    keys = await run_sql(postgres_url, _FOREIGN_KEYS)
    with pytest.raises(MigrationError, match="nothing was written.*moves.*999"):
        await migrate(str(path), postgres_url, lambda _: None)
    assert await run_sql(postgres_url, "SELECT COUNT(*) FROM games") == [(0,)]
    assert await run_sql(postgres_url, "SELECT COUNT(*) FROM moves") == [(0,)]
    assert await run_sql(postgres_url, _FOREIGN_KEYS) == keys


@pytest.fixture(params=[1, 2], ids=["one_by_one", "two_processes"])
def replayers(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """One game a batch: the games go to two processes (or are replayed here, one by one);
    the outcome and the words are the same either way."""
    monkeypatch.setattr(bot.ops.replay_check, "REPLAY_BATCH", 1)
    monkeypatch.setattr(bot.ops.replay_check, "REPLAY_WORKERS", request.param)
    monkeypatch.setattr(bot.ops.migrate, "PROGRESS_EVERY", 0.0)
    return int(request.param)


async def test_the_replay_check_spread_over_processes_passes(
        tmp_path: Path, postgres_url: str, replayers: int) -> None:
    path = tmp_path / "old.sqlite3"
    await _a_years_worth(path)
    said: list[str] = []
    await migrate(str(path), postgres_url, said.append)
    assert "All 6 games are the replay of their moves." in said
    assert any(line.startswith("Replayed ") and line.endswith(" of 6 games…")
               for line in said), said


async def test_the_replay_check_spread_over_processes_names_the_first_wrong_game(
        tmp_path: Path, postgres_url: str, replayers: int) -> None:
    path = tmp_path / "old.sqlite3"
    await _a_years_worth(path)
    # A move changed in the source after its game was saved: the copy is the same row, but
    # not the replay of its moves. Games 3 and 5 are wrong; game 3 is named.
    for game in (5, 3):
        await run_sql(str(path), "UPDATE moves SET move = (SELECT move FROM moves WHERE "
                                 f"game_id = {game} AND seq = 2) WHERE game_id = {game} "
                                 "AND seq = 1")
    with pytest.raises(MigrationError, match=r"^Game 3 (can't be replayed|isn't the replay)"):
        await migrate(str(path), postgres_url, lambda _: None)
