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
