"""The money ledger: append-only lines and the running summaries derived from them.

Every line is written with its summaries (pair balances, player statistics, the money and pair
points that /stats and /ledger read by number) in one transaction. On PostgreSQL that
transaction first takes the server's ledger lock (``Conn.lock_ledger``), so lines written by
two processes at once are numbered and summed one after the other; on SQLite the write lock
already does this.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .base import Records
from .interface import Conn, Row
from .rows import GameEntry, LedgerRow, OwedExceeded, ledger_row
from .schema import TABLES

__all__ = ["LedgerRecords", "game_stats", "insert_game_entries", "insert_pot_lines"]

_LOW = "CASE WHEN debtor_id < creditor_id THEN debtor_id ELSE creditor_id END"
_HIGH = "CASE WHEN debtor_id < creditor_id THEN creditor_id ELSE debtor_id END"
"""The lower and higher id of a line's two players (``MIN(a, b)`` is SQLite's alone)."""

_SUMMARIES = tuple(t.name for t in TABLES if t.summary)
"""The running summaries (``schema.Table.summary``), emptied before they are rebuilt."""

_INT = "CAST(? AS BIGINT)"
"""A parameter in an ``INSERT … SELECT`` list (PostgreSQL can't infer its type there)."""


async def insert_game_entries(conn: Conn, entries: Sequence[GameEntry], now: float) -> list[int]:
    """Write a finished game's lines (one per loser, rule 28) and their summaries, in the
    caller's transaction, which has taken the server's ledger lock; their ids.

    The pair summaries and money points move line by line; a player's statistics count the
    game once, however many lines name him (the winner of a table of four is in three)."""
    ids = []
    for entry in entries:
        entry_id = int(await conn.fetchval(
            "INSERT INTO ledger (guild_id, kind, debtor_id, creditor_id, amount_cents, game_id, "
            "rules, winner_id, margin, created_at) VALUES (?, 'game', ?, ?, ?, ?, ?, ?, ?, ?) "
            "RETURNING id",
            (entry.guild_id, entry.debtor_id, entry.creditor_id, entry.amount_cents,
             entry.game_id, entry.rules, entry.winner_id, entry.margin, now),
        ))
        ids.append(entry_id)
        await _apply_to_pair(conn, entry.guild_id, entry.debtor_id, entry.creditor_id,
                             entry.amount_cents, game=True, sign=1)
        await _add_money_points(conn, entry.guild_id, entry_id, entry.debtor_id,
                                entry.creditor_id, entry.amount_cents, now)
        await _add_pair_point(conn, entry.guild_id, entry_id, entry.debtor_id,
                              entry.creditor_id, entry.amount_cents)
    if entries:
        await _apply_game_stats(conn, entries[0].guild_id, [
            (e.debtor_id, e.creditor_id, e.amount_cents, e.rules, e.winner_id, e.margin)
            for e in entries], sign=1)
    return ids


async def _add_pair_point(conn: Conn, guild_id: int, entry_id: int, debtor: int, creditor: int,
                          amount: int) -> None:
    """The pair's next point after any ledger line (in the line's transaction)."""
    low, high = min(debtor, creditor), max(debtor, creditor)
    key = "guild_id = ? AND low_id = ? AND high_id = ?"
    await conn.execute(
        "INSERT INTO pair_points (guild_id, low_id, high_id, seq, ledger_id, owed_cents) "
        f"SELECT {_INT}, {_INT}, {_INT}, COALESCE(MAX(seq), 0) + 1, {_INT}, "
        f"{_INT} + COALESCE((SELECT owed_cents FROM pair_points WHERE {key} "
        f"ORDER BY seq DESC LIMIT 1), 0) FROM pair_points WHERE {key}",
        (guild_id, low, high, entry_id, amount if debtor == low else -amount,
         guild_id, low, high, guild_id, low, high))


async def _add_money_points(conn: Conn, guild_id: int, entry_id: int, debtor: int,
                            creditor: int, amount: int, when: float) -> None:
    """Each player's next money point after a game or void line (in its transaction)."""
    for user, delta in ((creditor, amount), (debtor, -amount)):
        await conn.execute(
            "INSERT INTO money_points (guild_id, user_id, seq, ledger_id, created_at, balance) "
            f"SELECT {_INT}, {_INT}, COALESCE(MAX(seq), 0) + 1, {_INT}, "
            f"CAST(? AS DOUBLE PRECISION), {_INT} + COALESCE(("
            "SELECT balance FROM money_points WHERE guild_id = ? AND user_id = ? "
            "ORDER BY seq DESC LIMIT 1), 0) FROM money_points "
            "WHERE guild_id = ? AND user_id = ?",
            (guild_id, user, entry_id, when, delta, guild_id, user, guild_id, user))


async def _apply_to_pair(conn: Conn, guild_id: int, debtor: int, creditor: int, amount: int,
                         game: bool, sign: int) -> None:
    """Keep a pair's running balance (and its count of games) equal to the sum of its lines
    (``sign`` -1 reverses)."""
    low, high = min(debtor, creditor), max(debtor, creditor)
    owed = amount if debtor == low else -amount
    await conn.execute(
        "INSERT INTO pair_balances (guild_id, low_id, high_id, owed_cents, games) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id, low_id, high_id) DO UPDATE SET "
        "owed_cents = pair_balances.owed_cents + excluded.owed_cents, "
        "games = pair_balances.games + excluded.games",
        (guild_id, low, high, owed * sign, sign if game else 0),
    )


GameLine = tuple[int, int, int, str | None, int | None, int | None]
"""(debtor, creditor, amount, rules, winner, margin) of one game line."""


def game_stats(lines: Sequence[GameLine]) -> dict[int, tuple[int, int, int, int, int]]:
    """Per player of one game's lines: (wins, losses, ties, net cents, margin won). The
    winner's margin won is the sum of the lines' margins (his score from the people at the
    table); a drawn game is a tie for everyone in it."""
    out: dict[int, list[int]] = {}
    for debtor, creditor, amount, _, winner, margin in lines:
        for user, delta in ((debtor, -amount), (creditor, amount)):
            row = out.setdefault(user, [0, 0, 0, 0, 0])
            row[3] += delta
            if winner is None:
                row[2] = 1
            elif user == winner:
                row[0] = 1
                row[4] += margin or 0
            else:
                row[1] = 1
    return {user: (w, lo, t, net, m) for user, (w, lo, t, net, m) in out.items()}


async def _apply_game_stats(conn: Conn, guild_id: int, lines: Sequence[GameLine], sign: int
                            ) -> None:
    """Count one game (all its lines) once in each of its players' statistics (``sign`` -1
    takes it back)."""
    rules = lines[0][3] or ""
    for user, (wins, losses, ties, net, margin_add) in game_stats(lines).items():
        await conn.execute(
            "INSERT INTO player_stats (guild_id, user_id, rules, games, wins, losses, ties, "
            "net_cents, margin_sum, best_margin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (guild_id, user_id, rules) DO UPDATE SET "
            "games = player_stats.games + excluded.games, "
            "wins = player_stats.wins + excluded.wins, "
            "losses = player_stats.losses + excluded.losses, "
            "ties = player_stats.ties + excluded.ties, "
            "net_cents = player_stats.net_cents + excluded.net_cents, "
            "margin_sum = player_stats.margin_sum + excluded.margin_sum, "
            "best_margin = CASE WHEN player_stats.best_margin > excluded.best_margin "
            "THEN player_stats.best_margin ELSE excluded.best_margin END",
            (guild_id, user, rules, sign, sign * wins, sign * losses, sign * ties,
             sign * net, sign * margin_add, margin_add if sign > 0 else 0),
        )
        if sign < 0 and wins:
            # A best win can't be taken back by arithmetic: look it up again (a game's win
            # is the sum of its live lines' margins).
            await conn.execute(
                "UPDATE player_stats SET best_margin = COALESCE((SELECT MAX(won) FROM ("
                "SELECT SUM(l.margin) AS won FROM ledger l WHERE l.guild_id = ? AND "
                "l.kind = 'game' AND l.winner_id = ? AND l.creditor_id = ? AND l.rules = ? "
                "AND NOT EXISTS (SELECT 1 FROM ledger v WHERE v.voids_id = l.id) "
                f"GROUP BY {_GAME_KEY}) AS w), 0) "
                "WHERE guild_id = ? AND user_id = ? AND rules = ?",
                (guild_id, user, user, rules, guild_id, user, rules),
            )


_GAME_KEY = "COALESCE(l.game_id, -l.id)"
"""What groups a game's lines (an imported line without a game stands alone)."""


async def _owed(conn: Conn, guild_id: int, a: int, b: int) -> int:
    low, high = min(a, b), max(a, b)
    owed = await conn.fetchval(
        "SELECT owed_cents FROM pair_balances WHERE guild_id = ? AND low_id = ? AND high_id = ?",
        (guild_id, low, high))
    owed = int(owed or 0)
    return owed if a == low else -owed


async def insert_pot_lines(conn: Conn, guild_id: int, lines: Sequence[tuple[int, int, int]],
                           note: str, now: float) -> None:
    """Write a tournament's pot paid out, ``(debtor, creditor, cents)`` each a line of kind
    ``pot``, with its pair summaries (like a payment: no game, no statistics), in the caller's
    transaction."""
    if lines:
        await conn.lock_ledger(guild_id)
    for debtor, creditor, cents in lines:
        entry_id = int(await conn.fetchval(
            "INSERT INTO ledger (guild_id, kind, debtor_id, creditor_id, amount_cents, note, "
            "created_at) VALUES (?, 'pot', ?, ?, ?, ?, ?) RETURNING id",
            (guild_id, debtor, creditor, cents, note, now)))
        await _apply_to_pair(conn, guild_id, debtor, creditor, cents, game=False, sign=1)
        await _add_pair_point(conn, guild_id, entry_id, debtor, creditor, cents)


class _NothingDone(Exception):
    """Rolls back a ledger write that turned out to be done already."""


class LedgerRecords(Records):
    """``ledger`` and what is derived from it; ``ratings``; ``settlements``."""

    async def add_entry(
        self, *, guild_id: int, kind: str, debtor_id: int, creditor_id: int, amount_cents: int,
        note: str | None, created_by: int | None, voids_id: int | None = None,
        settlement_id: int | None = None, within_owed: bool = False,
    ) -> LedgerRow | None:
        """Append a payment, forgiveness or void; returns it (``None`` if it was already done:
        a void of a voided entry, or a settlement no longer open).

        ``within_owed``: the line may only lower what ``creditor_id`` owes ``debtor_id`` (a
        payment or forgiveness); checked in the same transaction as the write, so nothing
        written meanwhile (another settlement, a game's result, from any process) can make it
        flip the debt: ``OwedExceeded`` is raised and nothing is written.
        """
        if kind not in ("payment", "forgive", "void"):
            raise ValueError(kind)
        now = self.clock()
        try:
            async with self._db.transaction() as conn:
                await conn.lock_ledger(guild_id)
                return await self._add_entry(
                    conn, now, guild_id=guild_id, kind=kind, debtor_id=debtor_id,
                    creditor_id=creditor_id, amount_cents=amount_cents, note=note,
                    created_by=created_by, voids_id=voids_id, settlement_id=settlement_id,
                    within_owed=within_owed)
        except _NothingDone:
            return None

    async def _add_entry(
        self, conn: Conn, now: float, *, guild_id: int, kind: str, debtor_id: int,
        creditor_id: int, amount_cents: int, note: str | None, created_by: int | None,
        voids_id: int | None, settlement_id: int | None, within_owed: bool,
    ) -> LedgerRow:
        original: Row | None = None
        if within_owed:
            owed = await _owed(conn, guild_id, creditor_id, debtor_id)
            if amount_cents > owed:
                raise OwedExceeded(max(0, owed))  # the transaction is rolled back
        if settlement_id is not None and await conn.execute(
            "UPDATE settlements SET status = 'confirmed' WHERE id = ? AND status = 'open'",
            (settlement_id,),
        ) != 1:
            raise _NothingDone
        if voids_id is not None:
            original = await conn.fetchone(
                "SELECT * FROM ledger WHERE id = ? AND guild_id = ? AND kind = 'game' AND "
                "NOT EXISTS (SELECT 1 FROM ledger v WHERE v.voids_id = ledger.id)",
                (voids_id, guild_id))
            if original is None:
                raise _NothingDone
        copied: tuple[Any, ...] = (None, None, None, None)
        if original is not None:
            copied = (original["game_id"], original["rules"], original["winner_id"],
                      original["margin"])
        row = await conn.fetchone(
            "INSERT INTO ledger (guild_id, kind, debtor_id, creditor_id, amount_cents, "
            "voids_id, note, created_by, created_at, game_id, rules, winner_id, margin) "
            # A void copies its game's id if the game is in this database (an imported
            # notebook's line names a game that isn't).
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT id FROM games WHERE id = ?), ?, ?, ?) "
            "RETURNING *",
            (guild_id, kind, debtor_id, creditor_id, amount_cents, voids_id, note,
             created_by, now, *copied),
        )
        assert row is not None
        entry_id = int(row["id"])
        if settlement_id is not None:
            await conn.execute("UPDATE settlements SET ledger_id = ? WHERE id = ?",
                               (entry_id, settlement_id))
        await _add_pair_point(conn, guild_id, entry_id, debtor_id, creditor_id, amount_cents)
        if original is not None:
            # Undo the voided line: the debtor of the void is the original winner.
            await _apply_to_pair(conn, guild_id, creditor_id, debtor_id, amount_cents,
                                 game=True, sign=-1)
            await _add_money_points(conn, guild_id, entry_id, debtor_id, creditor_id,
                                    amount_cents, now)
            await _apply_game_stats(conn, guild_id, [
                (int(original["debtor_id"]), int(original["creditor_id"]),
                 int(original["amount_cents"]), original["rules"], original["winner_id"],
                 original["margin"])], sign=-1)
        else:
            await _apply_to_pair(conn, guild_id, debtor_id, creditor_id, amount_cents,
                                 game=False, sign=1)
        return ledger_row(row)

    async def void_game(self, *, guild_id: int, game_id: int, note: str, created_by: int
                        ) -> list[LedgerRow]:
        """Reverse every line of a game (one per loser) with a void line each, in one
        transaction; the game leaves each player's statistics once. Returns the voids (empty
        if the game had no line left to void)."""
        now = self.clock()
        out = []
        async with self._db.transaction() as conn:
            await conn.lock_ledger(guild_id)
            originals = await conn.fetchall(
                "SELECT * FROM ledger WHERE guild_id = ? AND game_id = ? AND kind = 'game' AND "
                "NOT EXISTS (SELECT 1 FROM ledger v WHERE v.voids_id = ledger.id) ORDER BY id",
                (guild_id, game_id))
            for original in originals:
                row = await conn.fetchone(
                    "INSERT INTO ledger (guild_id, kind, debtor_id, creditor_id, amount_cents, "
                    "voids_id, note, created_by, created_at, game_id, rules, winner_id, margin) "
                    # The game's id if the game is in this database (as in ``_add_entry``).
                    "VALUES (?, 'void', ?, ?, ?, ?, ?, ?, ?, (SELECT id FROM games WHERE id = ?), "
                    "?, ?, ?) RETURNING *",
                    (guild_id, original["creditor_id"], original["debtor_id"],
                     original["amount_cents"], original["id"], note, created_by, now,
                     original["game_id"], original["rules"], original["winner_id"],
                     original["margin"]))
                assert row is not None
                line = ledger_row(row)
                out.append(line)
                await _add_pair_point(conn, guild_id, line.id, line.debtor_id,
                                      line.creditor_id, line.amount_cents)
                await _apply_to_pair(conn, guild_id, line.creditor_id, line.debtor_id,
                                     line.amount_cents, game=True, sign=-1)
                await _add_money_points(conn, guild_id, line.id, line.debtor_id,
                                        line.creditor_id, line.amount_cents, now)
            if originals:
                await _apply_game_stats(conn, guild_id, [
                    (int(o["debtor_id"]), int(o["creditor_id"]), int(o["amount_cents"]),
                     o["rules"], o["winner_id"], o["margin"]) for o in originals], sign=-1)
        return out

    async def ledger_entry(self, entry_id: int) -> LedgerRow | None:
        """One ledger line."""
        async with self._db.connection() as conn:
            row = await conn.fetchone("SELECT * FROM ledger WHERE id = ?", (entry_id,))
        return None if row is None else ledger_row(row)

    async def game_entry(self, guild_id: int, game_id: int) -> LedgerRow | None:
        """The (first) ledger line of a game, or ``None``."""
        lines = await self.game_entries(guild_id, game_id)
        return lines[0] if lines else None

    async def game_entries(self, guild_id: int, game_id: int) -> list[LedgerRow]:
        """The ledger lines of a game (one per loser), in order."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                "SELECT * FROM ledger WHERE guild_id = ? AND game_id = ? AND kind = 'game' "
                "ORDER BY id", (guild_id, game_id))
        return [ledger_row(r) for r in rows]

    async def balances(self, guild_id: int, user_id: int) -> list[tuple[int, int, int]]:
        """(other user, cents ``user_id`` owes them (negative: they owe), games), largest first."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                "SELECT * FROM (SELECT high_id AS other, owed_cents AS owed, games "
                "FROM pair_balances WHERE guild_id = ? AND low_id = ? UNION ALL "
                "SELECT low_id AS other, -owed_cents AS owed, games FROM pair_balances "
                "WHERE guild_id = ? AND high_id = ?) AS b "
                "ORDER BY ABS(owed) DESC, games DESC, other",
                (guild_id, user_id, guild_id, user_id))
        return [(int(r["other"]), int(r["owed"]), int(r["games"])) for r in rows]

    async def pair_balance(self, guild_id: int, a: int, b: int) -> int:
        """Cents ``a`` owes ``b`` (negative: ``b`` owes ``a``)."""
        async with self._db.connection() as conn:
            return await _owed(conn, guild_id, a, b)

    async def pair_entries(
        self, guild_id: int, a: int, b: int, *, offset: int = 0, limit: int | None = None,
    ) -> tuple[list[tuple[LedgerRow, int]], int]:
        """Lines between ``a`` and ``b``, newest first, each with the running balance (cents
        ``a`` owes ``b`` after it); and how many lines there are in all.

        Read from ``pair_points`` by number: a page costs its own lines, wherever it lies in
        the pair's history."""
        low, high = min(a, b), max(a, b)
        key = "guild_id = ? AND low_id = ? AND high_id = ?"
        async with self._db.connection() as conn:
            total = int(await conn.fetchval(f"SELECT MAX(seq) FROM pair_points WHERE {key}",
                                            (guild_id, low, high)) or 0)
            newest = total - offset
            oldest = 1 if limit is None else max(1, newest - limit + 1)
            if newest < oldest:
                return [], total
            rows = await conn.fetchall(
                "SELECT l.*, p.owed_cents AS running FROM pair_points p JOIN ledger l "
                "ON l.id = p.ledger_id WHERE p.guild_id = ? AND p.low_id = ? AND p.high_id = ? "
                "AND p.seq BETWEEN ? AND ? ORDER BY p.seq DESC",
                (guild_id, low, high, oldest, newest))
        sign = 1 if a == low else -1
        return [(ledger_row(r), sign * int(r["running"])) for r in rows], total

    async def import_ledger_lines(self, lines: Iterable[LedgerRow]) -> int:
        """For benchmarks and imports of an old notebook only: append many ledger lines in
        one transaction, then rebuild the running summaries of every server they touch.

        The lines are written as given, in order; their ``id`` is ignored (new ids follow
        the ledger's last). On SQLite their ``game_id`` and ``voids_id`` are not checked
        against the games and the ledger (an imported notebook's games are not in this
        database), so the caller vouches for them; PostgreSQL checks them. Ratings are not
        touched: ``LedgerService.update_ratings`` applies the imported games. Returns how many
        lines were written.
        """
        guilds: set[int] = set()
        count = 0

        def values() -> Iterable[tuple[Any, ...]]:
            nonlocal count
            for line in lines:
                guilds.add(line.guild_id)
                count += 1
                yield (line.guild_id, line.kind, line.debtor_id, line.creditor_id,
                       line.amount_cents, line.game_id, line.rules, line.winner_id, line.margin,
                       line.voids_id, line.note, line.created_by, line.created_at)

        insert = ("INSERT INTO ledger (guild_id, kind, debtor_id, creditor_id, amount_cents, "
                  "game_id, rules, winner_id, margin, voids_id, note, created_by, created_at) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        await self._db.bulk_insert("ledger", insert, values())
        for guild_id in sorted(guilds):
            await self.rebuild_summaries(guild_id)
        return count

    async def rebuild_summaries(self, guild_id: int) -> None:
        """Recompute the running summaries of a server from its ledger (they are derived)."""
        live_games = ("FROM ledger l WHERE l.guild_id = ? AND l.kind = 'game' AND NOT EXISTS "
                      "(SELECT 1 FROM ledger v WHERE v.voids_id = l.id)")
        async with self._db.transaction() as conn:
            await conn.lock_ledger(guild_id)
            for table in _SUMMARIES:
                await conn.execute(f"DELETE FROM {table} WHERE guild_id = ?", (guild_id,))
            await conn.execute(
                "INSERT INTO pair_points (guild_id, low_id, high_id, seq, ledger_id, owed_cents) "
                f"SELECT guild_id, {_LOW}, {_HIGH}, ROW_NUMBER() OVER win, id, "
                "SUM(CASE WHEN debtor_id < creditor_id THEN amount_cents ELSE -amount_cents END) "
                f"OVER win FROM ledger WHERE guild_id = ? WINDOW win AS (PARTITION BY {_LOW}, "
                f"{_HIGH} ORDER BY id ROWS UNBOUNDED PRECEDING)",
                (guild_id,))
            await conn.execute(
                "INSERT INTO money_points (guild_id, user_id, seq, ledger_id, created_at, "
                f"balance) SELECT {_INT}, user_id, ROW_NUMBER() OVER win, id, created_at, "
                "SUM(delta) OVER win FROM (SELECT creditor_id AS user_id, id, created_at, "
                "amount_cents AS delta FROM ledger WHERE guild_id = ? AND kind IN "
                "('game', 'void') UNION ALL SELECT debtor_id, id, created_at, -amount_cents "
                "FROM ledger WHERE guild_id = ? AND kind IN ('game', 'void')) AS d "
                "WINDOW win AS (PARTITION BY user_id ORDER BY id ROWS UNBOUNDED PRECEDING)",
                (guild_id, guild_id, guild_id))
            await conn.execute(
                "INSERT INTO pair_balances (guild_id, low_id, high_id, owed_cents, games) "
                f"SELECT guild_id, {_LOW}, {_HIGH}, "
                "SUM(CASE WHEN debtor_id < creditor_id THEN amount_cents ELSE -amount_cents END), "
                "SUM(CASE WHEN kind = 'game' THEN 1 WHEN kind = 'void' THEN -1 ELSE 0 END) "
                "FROM ledger WHERE guild_id = ? GROUP BY 1, 2, 3", (guild_id,))
            won = "CASE WHEN l.winner_id IS NULL THEN 0 ELSE 1 END"
            tied = "CASE WHEN l.winner_id IS NULL THEN 1 ELSE 0 END"
            # Each player's lines of one game are one game to him (the winner of a table of
            # four has three): grouped by game first, then summed per player.
            await conn.execute(
                "INSERT INTO player_stats (guild_id, user_id, rules, games, wins, losses, ties, "
                "net_cents, margin_sum, best_margin) "
                f"SELECT {_INT}, user_id, rules, COUNT(*), SUM(won), SUM(lost), SUM(tied), "
                "SUM(net), SUM(CASE WHEN won = 1 THEN margin ELSE 0 END), "
                "MAX(CASE WHEN won = 1 THEN margin ELSE 0 END) FROM ("
                "SELECT user_id, rules, game, MAX(won) AS won, MAX(lost) AS lost, "
                "MAX(tied) AS tied, SUM(net) AS net, SUM(margin) AS margin FROM ("
                f"SELECT l.creditor_id AS user_id, l.rules, {_GAME_KEY} AS game, {won} AS won, "
                f"0 AS lost, {tied} AS tied, l.amount_cents AS net, "
                f"CASE WHEN l.winner_id IS NULL THEN 0 ELSE l.margin END AS margin {live_games} "
                "UNION ALL "
                f"SELECT l.debtor_id, l.rules, {_GAME_KEY}, 0, {won}, {tied}, -l.amount_cents, 0 "
                f"{live_games}) AS s GROUP BY user_id, rules, game) AS g GROUP BY user_id, rules",
                (guild_id, guild_id, guild_id))

    # ------------------------------------------------------------------ ratings

    async def all_entries(self, guild_id: int) -> int:
        """How many ledger lines the server has."""
        async with self._db.connection() as conn:
            return int(await conn.fetchval("SELECT COUNT(*) FROM ledger WHERE guild_id = ?",
                                           (guild_id,)) or 0)

    async def open_balances(self, guild_id: int, members: Sequence[int] | None = None
                            ) -> list[tuple[int, int, int]]:
        """Every pair of the server that owes something (between ``members`` only, if given):
        ``(lower id, higher id, cents the lower owes the higher)`` (negative: the higher owes
        the lower), read from the running summary (one row a pair, however long the
        history). With 200 players that is up to 19,900 rows: read as plain tuples (no row
        object per row, no conversion: both databases give integer columns as ``int``)."""
        async with self._db.connection() as conn:
            return await _open_pairs(conn, guild_id, members)

    async def people_with_balances(self, guild_id: int) -> list[int]:
        """Everyone with an open balance in the server, in order (one row a person, not one
        a pair)."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                "SELECT low_id AS id FROM pair_balances WHERE guild_id = ? AND owed_cents <> 0 "
                "UNION SELECT high_id FROM pair_balances WHERE guild_id = ? AND owed_cents <> 0 "
                "ORDER BY id", (guild_id, guild_id))
        return [r[0] for r in rows]


async def _open_pairs(conn: Conn, guild_id: int, members: Sequence[int] | None
                      ) -> list[tuple[int, int, int]]:
    if members is None:
        return await conn.fetchtuples(
            "SELECT low_id, high_id, owed_cents FROM pair_balances WHERE guild_id = ? AND "
            "owed_cents <> 0 ORDER BY low_id, high_id", (guild_id,))
    if not members:
        return []
    marks = ", ".join("?" for _ in members)
    return await conn.fetchtuples(
        "SELECT low_id, high_id, owed_cents FROM pair_balances WHERE guild_id = ? AND "
        f"low_id IN ({marks}) AND high_id IN ({marks}) AND owed_cents <> 0 "
        "ORDER BY low_id, high_id", (guild_id, *members, *members))


async def balances_among(conn: Conn, guild_id: int, members: Sequence[int]
                         ) -> dict[tuple[int, int], int]:
    """The open balances between ``members``: ``(lower, higher)`` → cents the lower owes the
    higher (pairs that are square are left out)."""
    return {(low, high): cents for low, high, cents in await _open_pairs(conn, guild_id,
                                                                          members)}


async def insert_netting_lines(conn: Conn, guild_id: int, lines: Sequence[tuple[int, int, int]],
                               note: str, created_by: int | None, now: float) -> list[int]:
    """Write a plan's netting lines (``(debtor, creditor, cents)``, each more than 0) and
    their pair summaries, in the caller's transaction, which has taken the server's ledger
    lock; their ids. A netting line moves money between pairs, not between people: nobody's
    net position, statistics or money points change (as a payment)."""
    ids = []
    for debtor, creditor, cents in lines:
        entry_id = int(await conn.fetchval(
            "INSERT INTO ledger (guild_id, kind, debtor_id, creditor_id, amount_cents, note, "
            "created_by, created_at) VALUES (?, 'netting', ?, ?, ?, ?, ?, ?) RETURNING id",
            (guild_id, debtor, creditor, cents, note, created_by, now)))
        ids.append(entry_id)
        await _add_pair_point(conn, guild_id, entry_id, debtor, creditor, cents)
        await _apply_to_pair(conn, guild_id, debtor, creditor, cents, game=False, sign=1)
    return ids
