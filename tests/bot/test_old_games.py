"""Games saved by the bot before tables of three or four (schema 6, main's code) open, load,
replay and play on unchanged after the migration.

``fixtures/two_player_v6.sqlite`` was made by ``fixtures/make_two_player_v6.py`` with main's
code of commit e99b37b, and ``two_player_v6.json`` holds what that code read from it
(``fixtures/fingerprint.py``): each game's state and replay, the ledger, the statistics, the
ratings. The same fingerprints must come out of this code.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

from bot.games.game_service import GameService, restore_match
from bot.games.history import HistoryService
from bot.money.ledger_service import LedgerService
from bot.ops.migrate import migrate
from bot.storage import SQLITE_SCHEMA_VERSION, Storage
from tests.support import Clock

FIXTURES = Path(__file__).parent / "fixtures"
ANN, BOB, BOT = 101, 202, 999


def _copy(tmp_path: Path) -> Path:
    path = tmp_path / "old.sqlite"
    shutil.copy(FIXTURES / "two_player_v6.sqlite", path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 6
    return path


async def test_old_games_load_and_replay_as_main_read_them(tmp_path: Path) -> None:
    expected = json.loads((FIXTURES / "two_player_v6.json").read_text())
    storage = await Storage.open(_copy(tmp_path))
    try:
        assert await storage.schema_version() == SQLITE_SCHEMA_VERSION
        history = HistoryService(storage)
        ids = await storage.games.game_ids()
        assert [str(i) for i in ids] == sorted(k for k in expected if k.isdigit())
        for game_id in ids:
            want = expected[str(game_id)]
            row = await storage.games.get_game(game_id)
            assert row is not None
            assert list(row.players) == want["players"] and list(row.names) == want["names"]
            assert row.version == want["version"]
            state = json.dumps(restore_match(row).to_dict(), sort_keys=True).encode()
            assert hashlib.sha256(state).hexdigest() == want["state"]
            if row.status == "finished":
                game = await history.replay(game_id, row.guild_id)
                text = history.move_list(game).encode()
                assert hashlib.sha256(text).hexdigest() == want["move_list"]
                assert len(game.replay.positions) == want["positions"]
        lines = [[r.kind, r.debtor_id, r.creditor_id, r.amount_cents, r.margin, r.winner_id]
                 for r in await storage.standings.rated_history(1)]
        assert lines == expected["ledger"]
        for user in (ANN, BOB):
            assert await storage.standings.player_stats(1, user) == expected["stats"][str(user)]
        # The statistics rebuilt from the ledger (counted once per game now) are the same.
        await storage.ledger.rebuild_summaries(1)
        for user in (ANN, BOB):
            assert await storage.standings.player_stats(1, user) == expected["stats"][str(user)]
        # So are the ratings recomputed from the history with the table rankings.
        ledger = LedgerService(storage)
        rated = ledger._rate(await storage.standings.rated_history(1), {})
        assert {f"{u}:{r}": list(v) for (u, r), v in rated.items()} == expected["ratings"]
        assert {f"{u}:{r}": list(v) for (u, r), v in (await storage.standings.ratings(1)).items()} \
            == expected["ratings"]
    finally:
        await storage.close()


async def test_old_games_play_on(tmp_path: Path) -> None:
    storage = await Storage.open(_copy(tmp_path))
    service = GameService(storage, computer_id=BOT, clock=Clock(1_700_000_100.0))
    try:
        live = await service.live.game(3)  # a game of people, 120 moves in
        assert live.players == (ANN, BOB) and not live.finished
        for _ in range(30):
            user = live.on_turn
            move = live.match.game.legal_moves()[0]
            await service.playing.play(live.id, user, move.text)
        computer = await service.live.game(4)
        while computer.on_turn == BOT and not computer.finished:
            await service.playing.computer_step(computer.id)
        move = computer.match.game.legal_moves()[0]
        await service.playing.play(computer.id, ANN, move.text)
        # What was saved loads again as it is in memory.
        for game in (live, computer):
            row = await storage.games.get_game(game.id)
            assert row is not None
            assert restore_match(row).to_dict() == game.match.to_dict()
        # The open challenge from before is still open and can be accepted.
        challenges = await storage.challenges.open_challenges()
        assert len(challenges) == 1 and challenges[0].seats == 2 and not challenges[0].group
        _, started = await service.inviting.accept(challenges[0].id, ANN)
        assert started.players == (BOB, ANN)
    finally:
        await storage.close()


# ------------------------------------------------- tables saved before rule 25's clarification
#
# ``fixtures/table_stalemate_v7.sqlite`` was made by ``fixtures/make_table_stalemate_v7.py`` with
# main's code of 7b283e6, before the stalemate round was clarified (rule 25): classic tables of
# three where Cat left on turn after Ann and Bob had each passed. That code began a new round at
# the leave; read as clarified, the leave completes the round and the next logged move is
# refused. Such games keep the reading they were played under (no ``stalemate_round`` marker in
# their saved rules). Game 1 is finished; game 2 is going on, its last snapshot from before the
# leave. ``table_stalemate_v7.json`` holds what that code read from the file.

CAT = 303


def _copy_tables(tmp_path: Path) -> Path:
    path = tmp_path / "tables.sqlite"
    shutil.copy(FIXTURES / "table_stalemate_v7.sqlite", path)
    return path


async def test_tables_saved_before_the_clarified_stalemate_round_load_and_replay(
        tmp_path: Path) -> None:
    expected = json.loads((FIXTURES / "table_stalemate_v7.json").read_text())
    storage = await Storage.open(_copy_tables(tmp_path))
    try:
        history = HistoryService(storage)
        assert [str(i) for i in await storage.games.game_ids()] == sorted(expected)
        for game_id in await storage.games.game_ids():
            want = expected[str(game_id)]
            row = await storage.games.get_game(game_id)
            assert row is not None
            assert (list(row.players), list(row.names), row.version, row.state_version,
                    row.status) == (want["players"], want["names"], want["version"],
                                    want["state_version"], want["status"])
            assert "stalemate_round" not in row.state["rules"]
            state = json.dumps(restore_match(row).to_dict(), sort_keys=True).encode()
            assert hashlib.sha256(state).hexdigest() == want["state"]
            if row.status == "finished":
                game = await history.replay(game_id, row.guild_id)
                text = history.move_list(game)
                assert hashlib.sha256(text.encode()).hexdigest() == want["move_list"]
                assert len(game.replay.positions) == want["positions"]
                last = game.replay.positions[-1].public.result
                assert last is not None and last.reason.value == "stalemate"
                assert last.left == (2,)
    finally:
        await storage.close()


async def test_a_table_going_on_from_before_plays_on_under_its_reading(tmp_path: Path) -> None:
    storage = await Storage.open(_copy_tables(tmp_path))
    service = GameService(storage, computer_id=BOT, clock=Clock(1_700_100_000.0))
    try:
        live = await service.live.game(2)  # its snapshot is from before Cat left (a claim)
        assert live.players == (ANN, BOB, CAT) and not live.finished
        assert live.match.game.left == (2,) and live.match.rules.stalemate_round == 1
        # Ann passed after the leave; Bob's pass completes the new round the leave began.
        assert live.on_turn == BOB and live.match.game.idle_streak == 1
        await service.playing.play(live.id, BOB, "pass")
        result = live.match.game.result
        assert live.finished and result is not None and result.reason.value == "stalemate"
        row = await storage.games.get_game(live.id)
        assert row is not None and "stalemate_round" not in row.state["rules"]
        assert restore_match(row).to_dict() == live.match.to_dict()
    finally:
        await storage.close()


async def test_migrate_replays_tables_from_before(tmp_path: Path, postgres_url: str) -> None:
    said: list[str] = []
    await migrate(str(_copy_tables(tmp_path)), postgres_url, said.append)
    assert "All 2 games are the replay of their moves." in said


async def test_a_new_table_is_saved_with_the_marker_and_follows_the_clarified_round(
        tmp_path: Path) -> None:
    storage = await Storage.open(tmp_path / "new.sqlite")
    service = GameService(storage, computer_id=BOT, clock=Clock(1_700_100_000.0))
    try:
        row = await service.inviting.invite(
            guild_id=1, channel_id=10, host=(ANN, "Ann"),
            invited=[(BOB, "Bob", False), (CAT, "Cat", False)], rules_name="classic")
        await service.inviting.accept_seat(row.id, BOB)
        _, live = await service.inviting.accept_seat(row.id, CAT)
        assert live is not None
        saved = await storage.games.get_game(live.id)
        assert saved is not None and saved.state["rules"]["stalemate_round"] == 2
        assert saved.rules["stalemate_round"] == 2
        while not live.finished:
            game = live.match.game
            if game.idle_streak == 2 and not game.plays_this_turn:
                # The two others passed: leaving on turn without a play completes the round.
                await service.playing.resign(live.id, live.on_turn)
                break
            moves = game.legal_moves()
            move = "pass" if any(m.is_pass for m in moves) else moves[0].text
            await service.playing.play(live.id, live.on_turn, move)
        result = live.match.game.result
        assert live.finished and result is not None and result.reason.value == "stalemate"
        assert len(result.left) == 1
        game = await HistoryService(storage).replay(live.id, 1)
        assert '"stalemate_round": 2' in HistoryService(storage).move_list(game)
        # A two-player classic game is saved as it always was.
        two = await service.inviting.challenge(
            guild_id=1, channel_id=11, challenger_id=ANN, opponent_id=BOB,
            opponent_is_bot=False, rules_name="classic", names=("Ann", "Bob"))
        _, started = await service.inviting.accept(two.id, BOB)
        stored = await storage.games.get_game(started.id)
        assert stored is not None and "stalemate_round" not in stored.state["rules"]
        assert stored.rules == stored.state["rules"]
    finally:
        await storage.close()
