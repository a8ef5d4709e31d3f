"""Challenges: open until accepted, declined, cancelled or expired — exactly once."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..shards import ShardSet
from .base import Records
from .game_records import PLAYS_IN, insert_game, owned
from .interface import Conn
from .rows import ChallengeRow, challenge_row

__all__ = ["ChallengeRecords"]


class ChallengeRecords(Records):
    """``challenges``."""

    async def create_challenge(
        self,
        *,
        guild_id: int,
        channel_id: int,
        challenger_id: int,
        opponent_id: int,
        names: tuple[str, str],
        rules: dict[str, Any],
        expires_at: float,
        stake_cents: int = 0,
        per_card_cents: int = 0,
        currency: str = "$",
    ) -> ChallengeRow:
        """Record a new open challenge (``names``: challenger's and opponent's)."""
        async with self._db.transaction() as conn:
            row = await conn.fetchone(
                "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, "
                "names, rules, created_at, expires_at, stake_cents, per_card_cents, currency) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
                (guild_id, channel_id, challenger_id, opponent_id, json.dumps(list(names)),
                 json.dumps(rules), self.clock(), expires_at, stake_cents, per_card_cents,
                 currency),
            )
        assert row is not None
        return challenge_row(row)

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        """Remember the public message that shows the challenge."""
        async with self._db.connection() as conn:
            await conn.execute("UPDATE challenges SET message_id = ? WHERE id = ?",
                               (message_id, challenge_id))

    async def get_challenge(self, challenge_id: int) -> ChallengeRow | None:
        """One challenge (with its seats), or ``None``."""
        async with self._db.connection() as conn:
            return await _read(conn, challenge_id)

    async def create_group(
        self,
        *,
        kind: str,
        guild_id: int,
        channel_id: int,
        seats: int,
        host: tuple[int, str],
        invited: Sequence[tuple[int, str, bool]] = (),
        rules: dict[str, Any],
        expires_at: float,
        stake_cents: int = 0,
        per_card_cents: int = 0,
        currency: str = "$",
        computer_level: str = "normal",
    ) -> ChallengeRow:
        """Record a challenge of three or four (``kind`` 'challenge', ``invited`` the others)
        or an open table (``kind`` 'table', ``seats`` 2 to 4, ``invited`` empty). The host
        sits first, having accepted; each of ``invited`` is (user, name, accepted already: the
        computer's seat)."""
        # How many seats a table may have is the engine's to say, checked once by the service;
        # here only that the row is whole: a challenge invites everyone but its host.
        if kind not in ("challenge", "table") \
                or len(invited) >= seats or (kind == "challenge" and len(invited) != seats - 1):
            raise ValueError(f"a {kind} of {seats} seats with {len(invited)} invited")
        async with self._db.transaction() as conn:
            row = await conn.fetchone(
                "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, "
                "names, rules, created_at, expires_at, stake_cents, per_card_cents, currency, "
                "kind, seats, taken, computer_level) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (guild_id, channel_id, host[0], invited[0][0] if invited else 0,
                 json.dumps([host[1], *(name for _, name, _ in invited)]
                            if invited else [host[1], "?"]),
                 json.dumps(rules), self.clock(), expires_at, stake_cents, per_card_cents,
                 currency, kind, seats, 1 + len(invited), computer_level),
            )
            assert row is not None
            challenge_id = int(row["id"])
            await conn.executemany(
                "INSERT INTO challenge_seats (challenge_id, position, user_id, name, accepted) "
                "VALUES (?, ?, ?, ?, ?)",
                [(challenge_id, i, user, name, int(ok)) for i, (user, name, ok)
                 in enumerate([(host[0], host[1], True), *invited])])
            made = await _read(conn, challenge_id)
        assert made is not None
        return made

    async def join_table(self, challenge_id: int, user_id: int, name: str,
                         level: str | None = None) -> str:
        """Take a free seat at an open table: ``'joined'``, or why not (``'seated'``: he
        already has one; ``'full'``; ``'closed'``: the table is no longer open).

        A compare-and-set: the count of seats taken goes up only while it is below the table's
        size, in the same transaction as the seat's row, so of any number of people joining
        the last seat at once exactly one sits down (on PostgreSQL the others wait for the
        row's lock and then find it full; on SQLite the write lock orders them). ``level``:
        the computer joins, at that level."""
        try:
            return await self._join(challenge_id, user_id, name, level)
        except _Undo as undo:
            return str(undo)

    async def _join(self, challenge_id: int, user_id: int, name: str, level: str | None
                    ) -> str:
        async with self._db.transaction() as conn:
            if await conn.fetchone(
                    "SELECT 1 FROM challenge_seats WHERE challenge_id = ? AND user_id = ?",
                    (challenge_id, user_id)):
                return "seated"
            row = await conn.fetchone(
                "UPDATE challenges SET taken = taken + 1, "
                "computer_level = COALESCE(?, computer_level) WHERE id = ? AND kind = 'table' "
                "AND status = 'open' AND taken < seats RETURNING taken", (level, challenge_id))
            if row is None:
                state = await conn.fetchone(
                    "SELECT status, taken, seats FROM challenges WHERE id = ?", (challenge_id,))
                if state is not None and state["status"] == "open" \
                        and int(state["taken"]) >= int(state["seats"]):
                    return "full"
                return "closed"
            # Checked again under the row's lock: the same person clicking twice at once.
            if await conn.fetchone(
                    "SELECT 1 FROM challenge_seats WHERE challenge_id = ? AND user_id = ?",
                    (challenge_id, user_id)):
                raise _Undo("seated")
            await conn.execute(
                "INSERT INTO challenge_seats (challenge_id, position, user_id, name, accepted) "
                "SELECT ?, COALESCE(MAX(position), -1) + 1, ?, ?, 1 FROM challenge_seats "
                "WHERE challenge_id = ?", (challenge_id, user_id, name, challenge_id))
        return "joined"

    async def leave_table(self, challenge_id: int, user_id: int) -> bool:
        """Give up a seat at an open table (never the host's); False if he had none or the
        table is no longer open."""
        async with self._db.transaction() as conn:
            row = await conn.fetchone(
                "UPDATE challenges SET taken = taken - 1 WHERE id = ? AND kind = 'table' AND "
                "status = 'open' AND challenger_id <> ? AND EXISTS (SELECT 1 FROM "
                "challenge_seats WHERE challenge_id = ? AND user_id = ?) RETURNING taken",
                (challenge_id, user_id, challenge_id, user_id))
            if row is None:
                return False
            await conn.execute(
                "DELETE FROM challenge_seats WHERE challenge_id = ? AND user_id = ?",
                (challenge_id, user_id))
        return True

    async def accept_seat(self, challenge_id: int, user_id: int) -> bool:
        """An invited player says yes to a challenge of three or four; False if he wasn't
        invited, had said yes already, or it is no longer open."""
        async with self._db.transaction() as conn:
            changed = await conn.execute(
                "UPDATE challenge_seats SET accepted = 1 WHERE challenge_id = ? AND "
                "user_id = ? AND accepted = 0 AND EXISTS (SELECT 1 FROM challenges WHERE "
                "id = ? AND status = 'open')", (challenge_id, user_id, challenge_id))
        return changed == 1

    async def settle_challenge(self, challenge_id: int, status: str) -> bool:
        """Move an open challenge to ``declined``, ``cancelled`` or ``expired``.

        Returns False if it was no longer open (someone else settled it first).
        """
        async with self._db.connection() as conn:
            changed = await conn.execute(
                "UPDATE challenges SET status = ? WHERE id = ? AND status = 'open'",
                (status, challenge_id))
        return changed == 1

    async def accept_challenge(
        self,
        challenge_id: int,
        *,
        players: tuple[int, ...],
        names: tuple[str, ...],
        rules: dict[str, Any],
        state: dict[str, Any],
        vs_computer: bool = False,
    ) -> int | None:
        """Atomically close an open challenge and create its game; returns the game id, or
        ``None`` if the challenge was no longer open."""
        async with self._db.transaction() as conn:
            # The status changes first: of two processes accepting at once, the second waits
            # for the first's row lock and then finds the challenge no longer open.
            row = await conn.fetchone(
                "UPDATE challenges SET status = 'accepted' WHERE id = ? AND status = 'open' "
                "RETURNING guild_id, channel_id, stake_cents, per_card_cents, currency, "
                "computer_level",
                (challenge_id,))
            if row is None:
                return None
            game_id = await insert_game(
                conn, self.clock(), row["guild_id"], row["channel_id"], players, names, rules,
                state, vs_computer,
                (row["stake_cents"], row["per_card_cents"], row["currency"]),
                str(row["computer_level"]),
            )
            await conn.execute("UPDATE challenges SET game_id = ? WHERE id = ?",
                               (game_id, challenge_id))
            return game_id

    async def open_challenges(self, shards: ShardSet | None = None) -> list[ChallengeRow]:
        """Every open challenge (expired or not), oldest first (of the ``shards``' servers)."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                f"SELECT id FROM challenges WHERE status = 'open' AND {owned(shards)} ORDER BY id")
            out = [await _read(conn, int(r["id"])) for r in rows]
        return [r for r in out if r is not None]

    async def open_between(self, channel_id: int, a: int, b: int) -> str | None:
        """``'challenge'`` or ``'game'`` if the two already have one open in the channel."""
        async with self._db.connection() as conn:
            if await conn.fetchone(
                "SELECT 1 FROM challenges WHERE status = 'open' AND channel_id = ? AND "
                "((challenger_id = ? AND opponent_id = ?) OR "
                "(challenger_id = ? AND opponent_id = ?))",
                (channel_id, a, b, b, a),
            ):
                return "challenge"
            if await conn.fetchone(
                "SELECT 1 FROM games WHERE status = 'active' AND channel_id = ? AND "
                "player2_id IS NULL AND "
                "((player0_id = ? AND player1_id = ?) OR (player0_id = ? AND player1_id = ?))",
                (channel_id, a, b, b, a),
            ):
                return "game"
        return None

    async def open_among(self, channel_id: int, players: Sequence[int]) -> str | None:
        """``'challenge'`` or ``'game'`` if exactly these players (two to four) already have a
        challenge of three or four, an open table they all sit at, or a game going in the
        channel."""
        wanted = sorted(players)
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                "SELECT s.challenge_id, s.user_id FROM challenge_seats s JOIN challenges c "
                "ON c.id = s.challenge_id WHERE c.status = 'open' AND c.channel_id = ? AND "
                "s.challenge_id IN (SELECT challenge_id FROM challenge_seats WHERE user_id = ?)",
                (channel_id, wanted[0]))
            seats: dict[int, list[int]] = {}
            for r in rows:
                seats.setdefault(int(r["challenge_id"]), []).append(int(r["user_id"]))
            if any(sorted(users) == wanted for users in seats.values()):
                return "challenge"
            games = await conn.fetchall(
                "SELECT player0_id, player1_id, player2_id, player3_id FROM games "
                f"WHERE status = 'active' AND channel_id = ? AND {PLAYS_IN}",
                (channel_id, wanted[0]))
            for g in games:
                users = sorted(int(g[f"player{n}_id"]) for n in range(4)
                               if g[f"player{n}_id"] is not None)
                if users == wanted:
                    return "game"
        return None


class _Undo(Exception):
    """Rolls a seat's transaction back, carrying the answer."""


async def _read(conn: Conn, challenge_id: int) -> ChallengeRow | None:
    row = await conn.fetchone("SELECT * FROM challenges WHERE id = ?", (challenge_id,))
    if row is None:
        return None
    seats = await conn.fetchall(
        "SELECT * FROM challenge_seats WHERE challenge_id = ? ORDER BY position",
        (challenge_id,))
    return challenge_row(row, seats)
