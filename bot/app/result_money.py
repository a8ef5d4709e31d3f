"""The money of a result, in words: what each loser owes for the game just finished and where
each such pair stands now (read from the ledger, where the result's move wrote it)."""

from __future__ import annotations

from bot.games.live_game import LiveGame
from bot.money.amounts import format_amount
from bot.storage import Storage

__all__ = ["money_words"]


async def money_words(storage: Storage, live: LiveGame, winner: int | None,
                      computer_id: int) -> str | None:
    """The result's sentence about money (``None``: a game played for nothing). ``winner`` is
    the match winner's seat."""
    terms = live.terms
    if not (terms.stake_cents or terms.per_card_cents):
        return None
    if len(live.players) > 2:
        return await _table_lines(storage, live, winner, computer_id)
    if terms.vs_computer:
        return None
    return await _money_line(storage, live)


async def _money_line(storage: Storage, live: LiveGame) -> str:
    entry = await storage.ledger.game_entry(live.terms.guild_id, live.id)
    a, b = live.players
    owed = await storage.ledger.pair_balance(live.terms.guild_id, a, b)
    names = dict(zip(live.players, live.names, strict=True))
    parts = []
    if entry is not None and entry.amount_cents > 0:
        parts.append(f"💸 {names[entry.debtor_id]} owes {names[entry.creditor_id]} "
                     f"{format_amount(entry.amount_cents, live.terms.currency)} for this game.")
    elif entry is not None:
        parts.append("💸 Nobody owes anything for this game.")
    if owed == 0:
        parts.append("Between them, they're square.")
    else:
        debtor, creditor = (a, b) if owed > 0 else (b, a)
        parts.append(f"Between them, {names[debtor]} owes {names[creditor]} "
                     f"{format_amount(abs(owed), live.terms.currency)} in all.")
    return " ".join(parts)


async def _table_lines(storage: Storage, live: LiveGame, winner: int | None,
                       computer_id: int) -> str:
    """The money of a table of three or four (the result's words name every seat and margin):
    what each loser owes the winner and the balance of each such pair."""
    guild, cur = live.terms.guild_id, live.terms.currency
    if winner is not None and live.players[winner] == computer_id:
        return "💸 The computer won: it plays for nothing, so nobody owes anything."
    entries = await storage.ledger.game_entries(guild, live.id)
    if not any(entry.amount_cents for entry in entries):
        return "💸 Nobody owes anything for this game."
    names = dict(zip(live.players, live.names, strict=True))
    lines = []
    for entry in entries:
        debtor, creditor = names[entry.debtor_id], names[entry.creditor_id]
        owed = await storage.ledger.pair_balance(guild, entry.debtor_id, entry.creditor_id)
        balance = ("they're square" if owed == 0 else
                   f"{debtor} owes {creditor} {format_amount(owed, cur)} in all" if owed > 0
                   else f"{creditor} owes {debtor} {format_amount(-owed, cur)} in all")
        lines.append(f"💸 {debtor} owes {creditor} {format_amount(entry.amount_cents, cur)} "
                     f"for this game (margin {entry.margin}); between them, {balance}.")
    return "\n".join(lines)
