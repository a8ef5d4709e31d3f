"""Challenges: open until accepted, declined, cancelled or expired — exactly once."""

from __future__ import annotations

import json
from typing import Any

from ..shards import ShardSet
from .base import Records
from .game_records import insert_game, owned
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
        """One challenge, or ``None``."""
        async with self._db.connection() as conn:
            row = await conn.fetchone("SELECT * FROM challenges WHERE id = ?", (challenge_id,))
        return None if row is None else challenge_row(row)

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
        players: tuple[int, int],
        names: tuple[str, str],
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
                "RETURNING guild_id, channel_id, stake_cents, per_card_cents, currency",
                (challenge_id,))
            if row is None:
                return None
            game_id = await insert_game(
                conn, self.clock(), row["guild_id"], row["channel_id"], players, names, rules,
                state, vs_computer,
                (row["stake_cents"], row["per_card_cents"], row["currency"]),
            )
            await conn.execute("UPDATE challenges SET game_id = ? WHERE id = ?",
                               (game_id, challenge_id))
            return game_id

    async def open_challenges(self, shards: ShardSet | None = None) -> list[ChallengeRow]:
        """Every open challenge (expired or not), oldest first (of the ``shards``' servers)."""
        async with self._db.connection() as conn:
            rows = await conn.fetchall(
                f"SELECT * FROM challenges WHERE status = 'open' AND {owned(shards)} ORDER BY id")
        return [challenge_row(r) for r in rows]

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
                "((player0_id = ? AND player1_id = ?) OR (player0_id = ? AND player1_id = ?))",
                (channel_id, a, b, b, a),
            ):
                return "game"
        return None
