"""Settlements: a payment that waits for the payee's confirmation."""

from __future__ import annotations

from .base import Records
from .rows import SettlementRow, settlement_row

__all__ = ["SettlementRecords"]


class SettlementRecords(Records):
    """``settlements``."""

    async def create_settlement(self, *, guild_id: int, channel_id: int, payer_id: int,
                                payee_id: int, amount_cents: int, expires_at: float
                                ) -> SettlementRow:
        """A payment that waits for the payee's confirmation."""
        async with self._db.transaction() as conn:
            row = await conn.fetchone(
                "INSERT INTO settlements (guild_id, channel_id, payer_id, payee_id, "
                "amount_cents, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *",
                (guild_id, channel_id, payer_id, payee_id, amount_cents, self.clock(),
                 expires_at))
        assert row is not None
        return settlement_row(row)

    async def get_settlement(self, settlement_id: int) -> SettlementRow | None:
        """One settlement, or ``None``."""
        async with self._db.connection() as conn:
            row = await conn.fetchone("SELECT * FROM settlements WHERE id = ?", (settlement_id,))
        return None if row is None else settlement_row(row)

    async def close_settlement(self, settlement_id: int, status: str) -> bool:
        """Refuse or expire an open settlement; False if it was no longer open."""
        async with self._db.connection() as conn:
            changed = await conn.execute(
                "UPDATE settlements SET status = ? WHERE id = ? AND status = 'open'",
                (status, settlement_id))
        return changed == 1
