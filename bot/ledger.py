"""LedgerService: stakes, the money notebook between friends, settling up, standings, ratings.

The ledger is append-only (the database refuses updates and deletes). A finished game's line
is written by ``GameService`` in the same transaction as the game's last move, so it exists
exactly once; everything here reads it, or appends payments, forgiveness and voids.

Ratings use OpenSkill (Plackett-Luce) per rule set. They are derived data: applied in ledger
order and recomputable from the history at any time (a void recomputes them).
"""

from __future__ import annotations

import asyncio
import csv
import io
from dataclasses import dataclass

from openskill.models import PlackettLuce

from engine import RuleSet

from .money import AmountError, format_amount, parse_amount
from .service import UserError
from .stakes import game_entry
from .storage import GuildSettings, LedgerRow, SettlementRow, Storage

__all__ = ["MIN_RANKED_GAMES", "LedgerService", "Standing", "Stats", "game_entry"]

MIN_RANKED_GAMES = 5
"""Games a player needs before he appears in win-rate and rating rankings."""
SETTLEMENT_TTL = 24 * 3600
PROVISIONAL_SIGMA = 5.0
"""A rating whose uncertainty is above this is shown as provisional."""


@dataclass(frozen=True, slots=True)
class Standing:
    """One row of a leaderboard."""

    place: int
    user_id: int
    games: int
    wins: int
    losses: int
    ties: int
    net_cents: int
    rating: float | None
    provisional: bool

    @property
    def win_rate(self) -> float:
        """Wins among decided games."""
        decided = self.wins + self.losses
        return self.wins / decided if decided else 0.0


@dataclass(frozen=True, slots=True)
class Stats:
    """A player's record for ``/stats``."""

    games: int
    wins: int
    losses: int
    ties: int
    net_cents: int
    average_margin: float
    best_margin: int
    streak: str
    ratings: dict[str, tuple[float, bool]]
    series: list[tuple[float, int]]


class LedgerService:
    """Money and standings; every method may raise ``UserError``."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.model = PlackettLuce()
        self._rating_locks: dict[int, asyncio.Lock] = {}

    # ------------------------------------------------------------------ stakes

    async def settings(self, guild_id: int) -> GuildSettings:
        """The server's settings."""
        return await self.storage.get_settings(guild_id)

    def stakes(self, settings: GuildSettings, rules: str, stake: str | None,
               per_card: str | None) -> tuple[int, int]:
        """Read the typed stakes (or the server's defaults) as cents."""
        default_stake, default_per_card = settings.default_stakes(rules)
        if settings.points_only:
            if stake or per_card:
                raise UserError("This server plays for points only: no stakes.")
            return 0, 0
        try:
            flat = parse_amount(stake) if stake is not None else default_stake
            card = parse_amount(per_card, maximum=1_000_000) if per_card is not None \
                else default_per_card
        except AmountError as exc:
            raise UserError(str(exc)) from None
        return flat, card

    @staticmethod
    def target_rules(rules: RuleSet, target: int | None) -> RuleSet:
        """The rule set with a match target (kings: 50 by default; classic: one game)."""
        if target is None:
            return rules
        if not 1 <= target <= 1000:
            raise UserError("A match target must be between 1 and 1000 points.")
        return rules.with_options(match_target=target)

    @staticmethod
    def terms(stake: int, per_card: int, currency: str, points_only: bool = False) -> str:
        """The stakes in words: ``$0.50 a game + $0.05 a card``."""
        if points_only or (stake == 0 and per_card == 0):
            return "for points only"
        parts = []
        if stake:
            parts.append(f"{format_amount(stake, currency)} to the winner")
        if per_card:
            parts.append(f"{format_amount(per_card, currency)} a card of the margin")
        return " + ".join(parts)

    # ------------------------------------------------------------------ the notebook

    async def balances(self, guild_id: int, user_id: int) -> list[tuple[int, int, int]]:
        """(other, cents the user owes them (negative: they owe him), games), largest first."""
        return await self.storage.balances(guild_id, user_id)

    async def head_to_head(self, guild_id: int, a: int, b: int, page: int, size: int = 10
                           ) -> tuple[list[tuple[LedgerRow, int]], int, int]:
        """A page of lines between ``a`` and ``b`` (newest first) with running balances
        (cents ``a`` owes ``b``); the total and the current balance."""
        rows, total = await self.storage.pair_entries(guild_id, a, b, offset=page * size,
                                                      limit=size)
        balance = await self.storage.pair_balance(guild_id, a, b)
        return rows, total, balance

    async def csv_export(self, guild_id: int, a: int, b: int, currency: str) -> bytes:
        """The whole history between ``a`` and ``b`` as CSV, oldest first."""
        rows, _ = await self.storage.pair_entries(guild_id, a, b)
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["entry", "date_utc", "kind", "game", "rules", "result", "margin",
                         "amount", "debtor", "creditor", "balance", "note"])
        import datetime as _dt

        for row, running in reversed(rows):
            when = _dt.datetime.fromtimestamp(row.created_at, _dt.UTC).strftime("%Y-%m-%d %H:%M")
            result = ""
            if row.kind in ("game", "void"):
                result = "tie" if row.winner_id is None else f"won by {row.winner_id}"
            writer.writerow([row.id, when, row.kind, row.game_id or "", row.rules or "", result,
                             row.margin if row.margin is not None else "",
                             format_amount(row.amount_cents, currency), row.debtor_id,
                             row.creditor_id, format_amount(running, currency), row.note or ""])
        return out.getvalue().encode("utf-8")

    # ------------------------------------------------------------------ settling up

    async def settle(
        self, *, guild_id: int, channel_id: int, caller: int, other: int, amount_text: str,
        forgive: bool = False,
    ) -> tuple[str, LedgerRow | SettlementRow]:
        """Record a payment between ``caller`` and ``other``.

        If ``other`` owes the caller, the caller records receiving it (or forgives it): no
        confirmation. If the caller owes ``other`` (or nobody owes), it is the caller's payment
        and reduces what ``other`` is owed: ``other`` must confirm (a ``SettlementRow``).
        """
        if caller == other:
            raise UserError("You can't settle with yourself.")
        settings = await self.storage.get_settings(guild_id)
        if settings.points_only:
            raise UserError("This server plays for points only: there is nothing to settle.")
        try:
            amount = parse_amount(amount_text, allow_zero=False)
        except AmountError as exc:
            raise UserError(str(exc)) from None
        owed_by_caller = await self.storage.pair_balance(guild_id, caller, other)
        if owed_by_caller < 0:
            # ``other`` owes the caller: the caller received money or forgives some of it.
            kind = "forgive" if forgive else "payment"
            note = "forgiven" if forgive else "payment received"
            row = await self.storage.add_entry(
                guild_id=guild_id, kind=kind, debtor_id=caller, creditor_id=other,
                amount_cents=amount, note=note, created_by=caller)
            assert row is not None
            return kind, row
        if forgive:
            raise UserError("Only the person who is owed can forgive a debt.")
        pending = await self.storage.create_settlement(
            guild_id=guild_id, channel_id=channel_id, payer_id=caller, payee_id=other,
            amount_cents=amount, expires_at=self.storage.clock() + SETTLEMENT_TTL)
        return "pending", pending

    async def answer_settlement(self, settlement_id: int, user_id: int, accept: bool
                                ) -> tuple[SettlementRow, LedgerRow | None]:
        """The payee confirms (the payment is written) or refuses a pending payment."""
        row = await self.storage.get_settlement(settlement_id)
        if row is None:
            raise UserError("That payment no longer exists.")
        if user_id != row.payee_id:
            raise UserError("Only the person who was paid can confirm or refuse this payment.")
        if row.status != "open":
            raise UserError(f"This payment was already {row.status}.")
        if row.expires_at <= self.storage.clock():
            await self.storage.close_settlement(row.id, "expired")
            raise UserError("This payment's confirmation expired (after 24 hours). Record it "
                            "again with /settle.")
        if not accept:
            if not await self.storage.close_settlement(row.id, "refused"):
                raise UserError("This payment was already answered.")
            refreshed = await self.storage.get_settlement(row.id)
            assert refreshed is not None
            return refreshed, None
        entry = await self.storage.add_entry(
            guild_id=row.guild_id, kind="payment", debtor_id=row.payee_id,
            creditor_id=row.payer_id, amount_cents=row.amount_cents,
            note="payment confirmed", created_by=row.payer_id, settlement_id=row.id)
        if entry is None:
            raise UserError("This payment was already answered.")
        refreshed = await self.storage.get_settlement(row.id)
        assert refreshed is not None
        return refreshed, entry

    async def void(self, guild_id: int, game_id: int, admin: int, reason: str) -> LedgerRow:
        """Reverse a game's ledger line with a new line (Manage Server only; checked by the
        caller). Ratings are recomputed without the game."""
        reason = reason.strip()
        if not reason:
            raise UserError("Give a reason for voiding the game.")
        entry = await self.storage.game_entry(guild_id, game_id)
        if entry is None:
            raise UserError(f"Game #{game_id} has no ledger entry in this server.")
        row = await self.storage.add_entry(
            guild_id=guild_id, kind="void", debtor_id=entry.creditor_id,
            creditor_id=entry.debtor_id, amount_cents=entry.amount_cents,
            note=reason[:300], created_by=admin, voids_id=entry.id)
        if row is None:
            raise UserError(f"Game #{game_id} was already voided.")
        await self.update_ratings(guild_id)
        return row

    # ------------------------------------------------------------------ ratings

    def _lock(self, guild_id: int) -> asyncio.Lock:
        return self._rating_locks.setdefault(guild_id, asyncio.Lock())

    async def update_ratings(self, guild_id: int) -> None:
        """Apply new game lines to the ratings (a void recomputes them from the history)."""
        async with self._lock(guild_id):
            pending = await self.storage.unrated_games(guild_id)
            if not pending:
                return
            if any(row.kind == "void" for row in pending):
                history = await self.storage.rated_history(guild_id)
                values = self._rate(history, {})
                await self.storage.store_ratings(guild_id, values, pending[-1].id, replace=True)
                return
            current = await self.storage.ratings(guild_id)
            values = self._rate(pending, current)
            await self.storage.store_ratings(guild_id, values, pending[-1].id)

    def _rate(self, rows: list[LedgerRow], current: dict[tuple[int, str], tuple[float, float, int]]
              ) -> dict[tuple[int, str], tuple[float, float, int]]:
        values = dict(current)
        touched: dict[tuple[int, str], tuple[float, float, int]] = {}
        for row in rows:
            if row.kind != "game" or row.rules is None:
                continue
            keys = [(row.creditor_id, row.rules), (row.debtor_id, row.rules)]
            players = []
            for key in keys:
                mu, sigma, _ = values.get(key, (None, None, 0))
                players.append(self.model.rating(mu=mu, sigma=sigma))
            ranks: list[float] = [0.0, 0.0] if row.winner_id is None else (
                [0.0, 1.0] if row.winner_id == row.creditor_id else [1.0, 0.0])
            rated = self.model.rate([[players[0]], [players[1]]], ranks=ranks)
            for key, (new,) in zip(keys, rated, strict=True):
                games = values.get(key, (0.0, 0.0, 0))[2] + 1
                values[key] = touched[key] = (float(new.mu), float(new.sigma), games)
        return touched

    def ordinal(self, mu: float, sigma: float) -> float:
        """The displayed rating: a conservative estimate (mu - 3 sigma)."""
        return float(self.model.rating(mu=mu, sigma=sigma).ordinal())

    # ------------------------------------------------------------------ standings

    async def leaderboard(self, guild_id: int, by: str, rules: str | None
                          ) -> tuple[list[Standing], str]:
        """The ranked rows and a note about who is left out."""
        min_games = MIN_RANKED_GAMES if by in ("win_rate", "rating") else 1
        note = (f"Players with fewer than {MIN_RANKED_GAMES} games are left out."
                if min_games > 1 else "")
        if by == "rating":
            rating_rules = rules or (await self.storage.get_settings(guild_id)).default_rules
            if rules is None:
                note += f" Ratings are per rule set: showing {rating_rules}."
            ratings = await self.storage.ratings(guild_id, rating_rules)
            rows = await self.storage.leaderboard(guild_id, "net", rating_rules, min_games)
            scored = []
            for user, games, wins, losses, ties, net in rows:
                value = ratings.get((user, rating_rules))
                if value is None:
                    continue
                mu, sigma, _ = value
                scored.append((self.ordinal(mu, sigma), sigma, user, games, wins, losses, ties,
                               net))
            scored.sort(key=lambda r: (-r[0], r[2]))
            return [Standing(i + 1, user, games, wins, losses, ties, net, rating,
                             sigma > PROVISIONAL_SIGMA)
                    for i, (rating, sigma, user, games, wins, losses, ties, net)
                    in enumerate(scored)], note.strip()
        rows = await self.storage.leaderboard(guild_id, by, rules, min_games)
        return [Standing(i + 1, user, games, wins, losses, ties, net, None, False)
                for i, (user, games, wins, losses, ties, net) in enumerate(rows)], note

    async def stats(self, guild_id: int, user_id: int) -> Stats:
        """A player's record across rule sets."""
        per_rules = await self.storage.player_stats(guild_id, user_id)
        total = {k: sum(v[k] for v in per_rules.values())
                 for k in ("games", "wins", "losses", "ties", "net_cents", "margin_sum")}
        best = max((v["best_margin"] for v in per_rules.values()), default=0)
        results = await self.storage.recent_results(guild_id, user_id)
        streak = ""
        if results:
            first = results[0]
            kind = "W" if first == user_id else ("T" if first is None else "L")
            count = 0
            for winner in results:
                this = "W" if winner == user_id else ("T" if winner is None else "L")
                if this != kind:
                    break
                count += 1
            streak = f"{count}{kind}"
        ratings = {}
        for (user, rules), (mu, sigma, _) in (await self.storage.ratings(guild_id)).items():
            if user == user_id:
                ratings[rules] = (self.ordinal(mu, sigma), sigma > PROVISIONAL_SIGMA)
        series = await self.storage.money_series(guild_id, user_id)
        wins = total["wins"]
        return Stats(total["games"], wins, total["losses"], total["ties"], total["net_cents"],
                     total["margin_sum"] / wins if wins else 0.0, best, streak, ratings, series)


def describe_line(row: LedgerRow, viewer: int, currency: str) -> str:
    """A notebook line as ``viewer`` reads it."""
    money = format_amount(row.amount_cents, currency)
    if row.kind == "game":
        if row.winner_id is None:
            return f"Game #{row.game_id} ({row.rules}): tied, nothing owed"
        who = "you won" if row.winner_id == viewer else "you lost"
        return f"Game #{row.game_id} ({row.rules}): {who} by {row.margin}, {money}"
    if row.kind == "void":
        return f"Game #{row.game_id} voided: {row.note or ''} ({money} reversed)"
    paid_by_viewer = row.creditor_id == viewer
    if row.kind == "forgive":
        return f"{money} forgiven" + (" to you" if paid_by_viewer else " by you")
    return f"{money} paid " + ("by you" if paid_by_viewer else "to you")
