"""Standings: what the ledger's summaries say of the players (the leaderboard, a player's
statistics, results and money over time) and their ratings."""

from __future__ import annotations

from typing import Any

from .base import Records
from .rows import LedgerRow, ledger_row

__all__ = ["StandingRecords"]


class StandingRecords(Records):
    """``player_stats``, ``money_points``, ``ratings`` and ``rating_progress`` read for
    standings (the ledger's lines read for ratings)."""

    async def leaderboard(
        self, guild_id: int, order: str, rules: str | None, min_games: int,
    ) -> list[tuple[int, int, int, int, int, int]]:
        """(user, games, wins, losses, ties, net cents) by ``order`` (net, wins or win_rate)."""
        rule_filter = "" if rules is None else "AND rules = ?"
        args: list[Any] = [guild_id] + ([rules] if rules else [])
        decided = "(CASE WHEN SUM(wins) + SUM(losses) > 1 THEN SUM(wins) + SUM(losses) ELSE 1 END)"
        key = {"net": "SUM(net_cents) DESC, SUM(wins) DESC",
               "wins": "SUM(wins) DESC, SUM(net_cents) DESC",
               "win_rate": f"SUM(wins) * 1.0 / {decided} DESC, SUM(wins) DESC"}[order]
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                f"SELECT user_id, SUM(games) AS games, SUM(wins) AS wins, "
                f"SUM(losses) AS losses, SUM(ties) AS ties, SUM(net_cents) AS net "
                f"FROM player_stats WHERE guild_id = ? {rule_filter} GROUP BY user_id "
                f"HAVING SUM(games) >= ? AND SUM(games) > 0 ORDER BY {key}, user_id",
                (*args, min_games))
        return [(int(r["user_id"]), int(r["games"]), int(r["wins"]), int(r["losses"]),
                 int(r["ties"]), int(r["net"])) for r in rows]

    async def player_stats(self, guild_id: int, user_id: int) -> dict[str, dict[str, int]]:
        """Per rule set: games, wins, losses, ties, net_cents, margin_sum, best_margin."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                "SELECT * FROM player_stats WHERE guild_id = ? AND user_id = ?",
                (guild_id, user_id))
        return {r["rules"]: {k: int(r[k]) for k in ("games", "wins", "losses", "ties",
                                                    "net_cents", "margin_sum", "best_margin")}
                for r in rows}

    async def recent_results(self, guild_id: int, user_id: int, limit: int = 200
                             ) -> list[int | None]:
        """Winners of the user's latest games (newest first), voided games left out; a game
        with several lines naming him (he won at a table of three or four) counts once."""
        # One index range per side (loser, winner), each read newest first and cut: what is
        # read is bounded by ``limit`` (times the lines a game can have), not by his history.
        side = ("SELECT id, winner_id, game_id FROM ledger l WHERE guild_id = ? AND {who} = ? "
                "AND kind = 'game' AND NOT EXISTS (SELECT 1 FROM ledger v "
                "WHERE v.voids_id = l.id) ORDER BY id DESC LIMIT ?")
        lines = 3 * limit
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                f"SELECT winner_id, game_id, id FROM (SELECT * FROM "
                f"({side.format(who='debtor_id')}) AS d UNION ALL SELECT * FROM "
                f"({side.format(who='creditor_id')}) AS c) AS t ORDER BY id DESC LIMIT ?",
                (guild_id, user_id, lines, guild_id, user_id, lines, lines))
        seen: set[int] = set()
        out: list[int | None] = []
        for r in rows:
            game = int(r["game_id"]) if r["game_id"] is not None else -int(r["id"])
            if game in seen:
                continue
            seen.add(game)
            out.append(r["winner_id"])
        return out[:limit]

    async def latest_game_id(self, guild_id: int, user_id: int) -> int | None:
        """The game of the user's latest game line in the server (voided or not), or ``None``."""
        side = ("SELECT id, game_id FROM ledger WHERE guild_id = ? AND {who} = ? AND "
                "kind = 'game' ORDER BY id DESC LIMIT 1")
        async with self._db.connection() as conn:
            game_id = await conn.fetchval(
                f"SELECT game_id FROM (SELECT * FROM ({side.format(who='debtor_id')}) AS d "
                f"UNION ALL SELECT * FROM ({side.format(who='creditor_id')}) AS c) AS t "
                "ORDER BY id DESC LIMIT 1",
                (guild_id, user_id, guild_id, user_id))
        return None if game_id is None else int(game_id)

    async def money_series(self, guild_id: int, user_id: int, points: int = 200
                           ) -> list[tuple[float, int]]:
        """The user's net money (cents) over time, as ``(time, running balance)`` after his
        game and void lines, oldest first, downsampled for a chart.

        Of his ``n`` lines, ``points`` are kept evenly spaced by entry, always the first and
        the last (whose balance is his true net), plus the lines where the balance is lowest
        and highest, so the chart's range is the true one: at most ``points + 2``. With
        ``n <= points`` every line is kept. Read from ``money_points`` by number: the work is
        bounded by ``points``, not by ``n``.
        """
        points = max(2, points)
        key = "guild_id = ? AND user_id = ?"
        async with self._db.connection() as conn:
            head = await conn.fetchone(
                f"SELECT (SELECT MAX(seq) FROM money_points WHERE {key}), "
                f"(SELECT seq FROM money_points WHERE {key} ORDER BY balance, seq LIMIT 1), "
                f"(SELECT seq FROM money_points WHERE {key} ORDER BY balance DESC, seq LIMIT 1)",
                (guild_id, user_id) * 3)
            if head is None or head[0] is None:
                return []
            n, lowest, highest = int(head[0]), int(head[1]), int(head[2])
            wanted = {1 + k * (n - 1) // (points - 1) for k in range(points)} if n > points \
                else set(range(1, n + 1))
            wanted |= {lowest, highest}
            rows = await conn.fetchall(
                f"SELECT created_at, balance FROM money_points WHERE {key} AND seq IN "
                f"({', '.join('?' * len(wanted))}) ORDER BY seq",
                (guild_id, user_id, *sorted(wanted)))
        return [(float(r["created_at"]), int(r["balance"])) for r in rows]

    async def unrated_games(self, guild_id: int) -> list[LedgerRow]:
        """Game and void lines not yet applied to the ratings, oldest first."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                "SELECT l.* FROM ledger l WHERE l.guild_id = ? AND l.kind IN ('game', 'void') "
                "AND l.id > COALESCE((SELECT last_ledger_id FROM rating_progress "
                "WHERE guild_id = ?), 0) ORDER BY l.id",
                (guild_id, guild_id))
        return [ledger_row(r) for r in rows]

    async def rated_history(self, guild_id: int) -> list[LedgerRow]:
        """Every game line that has not been voided, oldest first (to recompute ratings)."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                "SELECT * FROM ledger l WHERE guild_id = ? AND kind = 'game' AND NOT EXISTS "
                "(SELECT 1 FROM ledger v WHERE v.voids_id = l.id) ORDER BY id",
                (guild_id,))
        return [ledger_row(r) for r in rows]

    async def ratings(self, guild_id: int, rules: str | None = None, user_id: int | None = None
                      ) -> dict[tuple[int, str], tuple[float, float, int]]:
        """(user, rules) → (mu, sigma, games); of one user only with ``user_id``."""
        sql = "SELECT * FROM ratings WHERE guild_id = ?"
        args: list[Any] = [guild_id]
        if user_id is not None:
            sql += " AND user_id = ?"
            args.append(user_id)
        if rules:
            sql += " AND rules = ?"
            args.append(rules)
        async with self._db.connection() as conn:
            rows = await conn.fetchall(sql, args)
        return {(int(r["user_id"]), r["rules"]): (float(r["mu"]), float(r["sigma"]),
                                                  int(r["games"])) for r in rows}

    async def store_ratings(
        self, guild_id: int, values: dict[tuple[int, str], tuple[float, float, int]],
        last_ledger_id: int, *, replace: bool = False,
    ) -> None:
        """Save ratings and how far through the ledger they go (``replace``: all of them)."""
        async with self._db.transaction() as conn:
            if replace:
                await conn.execute("DELETE FROM ratings WHERE guild_id = ?", (guild_id,))
            await conn.executemany(
                "INSERT INTO ratings (guild_id, user_id, rules, mu, sigma, games) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, user_id, rules) DO UPDATE SET "
                "mu = excluded.mu, sigma = excluded.sigma, games = excluded.games",
                [(guild_id, user, rules, float(mu), float(sigma), games)
                 for (user, rules), (mu, sigma, games) in values.items()],
            )
            await conn.execute(
                "INSERT INTO rating_progress (guild_id, last_ledger_id) VALUES (?, ?) "
                "ON CONFLICT (guild_id) DO UPDATE SET last_ledger_id = excluded.last_ledger_id",
                (guild_id, last_ledger_id))

    # ------------------------------------------------------------------ settlements
