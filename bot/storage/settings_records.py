"""A server's settings (one row per server that ever changed one)."""

from __future__ import annotations

from typing import Any

from .base import Records
from .interface import Conn
from .rows import SETTING_COLUMNS, GuildSettings

__all__ = ["SettingsRecords"]


class SettingsRecords(Records):
    """``guild_settings``."""

    async def get_settings(self, guild_id: int) -> GuildSettings:
        """The server's settings (defaults if it never changed any)."""
        async with self._db.connection() as conn:
            return await _settings(conn, guild_id)

    async def update_settings(self, guild_id: int, **changes: Any) -> GuildSettings:
        """Change some of a server's settings and return them all."""
        unknown = set(changes) - set(SETTING_COLUMNS)
        if unknown:
            raise ValueError(f"Unknown settings: {sorted(unknown)}")
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO guild_settings (guild_id) VALUES (?) ON CONFLICT DO NOTHING",
                (guild_id,))
            if changes:
                # Column names come from SETTING_COLUMNS (checked above), never from a user.
                assignments = ", ".join(f"{column} = ?" for column in changes)
                values = [int(v) if isinstance(v, bool) else v for v in changes.values()]
                await conn.execute(f"UPDATE guild_settings SET {assignments} WHERE guild_id = ?",
                                   (*values, guild_id))
            return await _settings(conn, guild_id)


async def _settings(conn: Conn, guild_id: int) -> GuildSettings:
    row = await conn.fetchone("SELECT * FROM guild_settings WHERE guild_id = ?", (guild_id,))
    if row is None:
        return GuildSettings(guild_id)
    return GuildSettings(
        guild_id=row["guild_id"],
        default_rules=row["default_rules"],
        refill_empty_hand=bool(row["refill_empty_hand"]),
        king_starts_stack=bool(row["king_starts_stack"]),
        challenge_expiry_s=int(row["challenge_expiry_s"]),
        reminder_s=int(row["reminder_s"]),
        claim_s=int(row["claim_s"]),
        currency=str(row["currency"]),
        points_only=bool(row["points_only"]),
        stake_kings=int(row["stake_kings"]),
        per_card_kings=int(row["per_card_kings"]),
        stake_classic=int(row["stake_classic"]),
        per_card_classic=int(row["per_card_classic"]),
        use_threads=bool(row["use_threads"]),
        thread_notice_at=row["thread_notice_at"],
        season_mode=str(row["season_mode"]),
        season_channel_id=row["season_channel_id"],
        plan_expiry_s=int(row["plan_expiry_s"]),
    )
