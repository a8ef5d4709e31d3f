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
import datetime as dt
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import NamedTuple

from openskill.models import PlackettLuce

from bot.storage import GuildSettings, LedgerRow, OwedExceeded, SettlementRow, Storage
from bot.user_errors import UserError
from engine import RuleSet

from .amounts import AmountError, format_amount, parse_amount
from .stakes import game_entry

__all__ = ["MIN_RANKED_GAMES", "LedgerService", "Settled", "Standing", "Stats", "display_rating",
           "game_entry"]

MIN_RANKED_GAMES = 5
"""Games a player needs before his win rate or rating counts; with fewer he is shown in those
rankings as provisional, after the others."""
SETTLEMENT_TTL = 24 * 3600
PROVISIONAL_SIGMA = 5.0
"""A rating whose uncertainty is above this is shown as provisional."""
NEW_MU, NEW_SIGMA = 25.0, 25.0 / 3
"""OpenSkill's rating of a new player (its ordinal, mu - 3 sigma, is 0)."""


def display_rating(mu: float, sigma: float) -> int:
    """The rating players see: ``max(0, round(1000 + 40 * (mu - 3 * sigma)))``.

    ``mu - 3 * sigma`` is OpenSkill's ordinal, a conservative estimate of skill that starts at
    0 and rises as a player wins and as his rating grows certain. On this scale a new player
    shows 1000, each point of ordinal is 40, and nobody shows a negative number.
    """
    return max(0, round(1000 + 40 * (mu - 3 * sigma)))


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
    rating: int | None
    """The displayed rating (see ``display_rating``), when ranked by rating."""
    provisional: bool

    @property
    def win_rate(self) -> float:
        """Wins among decided games."""
        decided = self.wins + self.losses
        return self.wins / decided if decided else 0.0


class Settled(NamedTuple):
    """What ``/settle`` did: ``kind`` is payment, forgive or pending (waits for the payee)."""

    kind: str
    row: LedgerRow | SettlementRow
    owed_before: int
    """What was owed in the settlement's direction before it (cents, positive)."""


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
    """The largest winning margin (0 when there are no wins)."""
    streak: str
    ratings: dict[str, tuple[int, bool]]
    """Per rule set: the displayed rating (see ``display_rating``) and whether provisional."""
    series: list[tuple[float, int]]
    """Net money over time, ``(time, running balance in cents)``, downsampled for the chart
    (see ``Storage.standings.money_series``); the last point's balance is ``net_cents``."""


class LedgerService:
    """Money and standings; every method may raise ``UserError``."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.model = PlackettLuce()
        self._rating_locks: dict[int, asyncio.Lock] = {}
        self._notebook_locks: dict[int, asyncio.Lock] = {}

    # ------------------------------------------------------------------ stakes

    async def settings(self, guild_id: int) -> GuildSettings:
        """The server's settings."""
        return await self.storage.settings.get_settings(guild_id)

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
        return await self.storage.ledger.balances(guild_id, user_id)

    async def head_to_head(self, guild_id: int, a: int, b: int, page: int, size: int = 10
                           ) -> tuple[list[tuple[LedgerRow, int]], int, int]:
        """A page of lines between ``a`` and ``b`` (newest first) with running balances
        (cents ``a`` owes ``b``); the total and the current balance."""
        rows, total = await self.storage.ledger.pair_entries(guild_id, a, b, offset=page * size,
                                                             limit=size)
        balance = await self.storage.ledger.pair_balance(guild_id, a, b)
        return rows, total, balance

    async def player_names(self, guild_id: int, user_ids: Iterable[int]) -> dict[int, str]:
        """Players' names as saved with one of their latest games in the server.

        What the bot already knows, without asking Discord: every game keeps its players'
        names. Players with no game in the server are left out.
        """
        names: dict[int, str] = {}
        for user in user_ids:
            if user in names:
                continue
            # His latest game line, read through an index: two lookups per player, however
            # long the history (it used to try each of his partners' lines in turn).
            game_id = await self.storage.standings.latest_game_id(guild_id, user)
            game = await self.storage.games.get_game(game_id) if game_id is not None else None
            if game is not None:
                names.update(zip(game.players, game.names, strict=True))
        return names

    async def csv_export(self, guild_id: int, a: int, b: int, currency: str,
                         names: Mapping[int, str] | None = None) -> bytes:
        """The whole history between ``a`` and ``b`` as CSV, oldest first; each player's id
        has his name beside it (``names``, else the name saved with their latest game)."""
        rows, _ = await self.storage.ledger.pair_entries(guild_id, a, b)
        known = {**await self._names_in(rows), **(names or {})}

        def name(user: int) -> str:
            return _cell(known.get(user, ""))

        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["entry", "date_utc", "kind", "game", "rules", "result", "margin",
                         "amount", "debtor", "debtor_name", "creditor", "creditor_name",
                         "balance", "note"])
        for row, running in reversed(rows):
            when = dt.datetime.fromtimestamp(row.created_at, dt.UTC).strftime("%Y-%m-%d %H:%M")
            result = ""
            if row.kind in ("game", "void"):
                result = ("tie" if row.winner_id is None
                          else f"won by {name(row.winner_id) or row.winner_id}")
            writer.writerow([row.id, when, row.kind, row.game_id or "", row.rules or "", result,
                             row.margin if row.margin is not None else "",
                             format_amount(row.amount_cents, currency), row.debtor_id,
                             name(row.debtor_id), row.creditor_id, name(row.creditor_id),
                             format_amount(running, currency), _cell(row.note or "")])
        return out.getvalue().encode("utf-8")

    async def _names_in(self, rows: list[tuple[LedgerRow, int]]) -> dict[int, str]:
        # ``rows`` come newest first: the names of the latest game between the two.
        game_id = next((row.game_id for row, _ in rows if row.game_id is not None), None)
        game = await self.storage.games.get_game(game_id) if game_id is not None else None
        return dict(zip(game.players, game.names, strict=True)) if game is not None else {}

    # ------------------------------------------------------------------ settling up

    async def settle(
        self, *, guild_id: int, channel_id: int, caller: int, other: int, amount_text: str,
        forgive: bool = False,
    ) -> Settled:
        """Record a payment between ``caller`` and ``other``.

        If ``other`` owes the caller, the caller records receiving it (or forgives it): no
        confirmation. If the caller owes ``other``, it is the caller's payment and reduces what
        ``other`` is owed: ``other`` must confirm (a ``SettlementRow``).

        A settlement only ever lowers a debt: an amount larger than what is owed in that
        direction is refused (saying what is owed), and so is one where nothing is owed that
        way. A debt is never flipped into one the other way round.
        """
        if caller == other:
            raise UserError("You can't settle with yourself.")
        settings = await self.storage.settings.get_settings(guild_id)
        if settings.points_only:
            raise UserError("This server plays for points only: there is nothing to settle.")
        try:
            amount = parse_amount(amount_text, allow_zero=False)
        except AmountError as exc:
            raise UserError(str(exc)) from None
        cur = settings.currency
        async with self._notebook_lock(guild_id):
            owed_by_caller = await self.storage.ledger.pair_balance(guild_id, caller, other)
            if owed_by_caller < 0:
                # ``other`` owes the caller: the caller received money or forgives some of it.
                owed = -owed_by_caller
                if amount > owed:
                    raise UserError(f"<@{other}> owes you {format_amount(owed, cur)}: you can "
                                    "record at most that.")
                kind = "forgive" if forgive else "payment"
                note = "forgiven" if forgive else "payment received"
                try:
                    row = await self.storage.ledger.add_entry(
                        guild_id=guild_id, kind=kind, debtor_id=caller, creditor_id=other,
                        amount_cents=amount, note=note, created_by=caller, within_owed=True)
                except OwedExceeded as exc:  # the notebook moved since the check above
                    raise UserError(f"<@{other}> owes you {format_amount(exc.owed_cents, cur)}:"
                                    " you can record at most that.") from None
                assert row is not None
                return Settled(kind, row, owed)
            if owed_by_caller == 0:
                raise UserError(f"You and <@{other}> are square: there is nothing to "
                                f"{'forgive' if forgive else 'settle'}.")
            if forgive:
                raise UserError("Only the person who is owed can forgive a debt: you owe "
                                f"<@{other}> {format_amount(owed_by_caller, cur)}.")
            if amount > owed_by_caller:
                raise UserError(f"You owe <@{other}> {format_amount(owed_by_caller, cur)}: you "
                                "can record at most that.")
            pending = await self.storage.settlements.create_settlement(
                guild_id=guild_id, channel_id=channel_id, payer_id=caller, payee_id=other,
                amount_cents=amount, expires_at=self.storage.clock() + SETTLEMENT_TTL)
            return Settled("pending", pending, owed_by_caller)

    async def answer_settlement(self, settlement_id: int, user_id: int, accept: bool
                                ) -> tuple[SettlementRow, LedgerRow | None]:
        """The payee confirms (the payment is written) or refuses a pending payment.

        What is owed is checked again on confirmation: if it fell below the payment since it
        was recorded (another payment, a void), the confirmation is refused and nothing changes.
        """
        row = await self.storage.settlements.get_settlement(settlement_id)
        if row is None:
            raise UserError("That payment no longer exists.")
        if user_id != row.payee_id:
            raise UserError("Only the person who was paid can confirm or refuse this payment.")
        if row.status != "open":
            raise UserError(f"This payment was already {row.status}.")
        if row.expires_at <= self.storage.clock():
            await self.storage.settlements.close_settlement(row.id, "expired")
            raise UserError("This payment's confirmation expired (after 24 hours). Record it "
                            "again with /settle.")
        if not accept:
            if not await self.storage.settlements.close_settlement(row.id, "refused"):
                raise UserError("This payment was already answered.")
            refreshed = await self.storage.settlements.get_settlement(row.id)
            assert refreshed is not None
            return refreshed, None
        async with self._notebook_lock(row.guild_id):
            owed = await self.storage.ledger.pair_balance(row.guild_id, row.payer_id, row.payee_id)
            if row.amount_cents > owed:
                cur = (await self.storage.settings.get_settings(row.guild_id)).currency
                now = (f"<@{row.payer_id}> owes you {format_amount(owed, cur)} now"
                       if owed > 0 else f"<@{row.payer_id}> owes you nothing now")
                raise UserError(
                    f"{now}, less than this payment of {format_amount(row.amount_cents, cur)}: "
                    "the notebook changed since it was recorded. Nothing was changed; "
                    "refuse it, and record what is left with /settle.")
            try:
                entry = await self.storage.ledger.add_entry(
                    guild_id=row.guild_id, kind="payment", debtor_id=row.payee_id,
                    creditor_id=row.payer_id, amount_cents=row.amount_cents,
                    note="payment confirmed", created_by=row.payer_id, settlement_id=row.id,
                    within_owed=True)
            except OwedExceeded as exc:
                cur = (await self.storage.settings.get_settings(row.guild_id)).currency
                raise UserError(
                    f"<@{row.payer_id}> owes you {format_amount(exc.owed_cents, cur)} now, less "
                    f"than this payment of {format_amount(row.amount_cents, cur)}. Nothing was "
                    "changed; refuse it, and record what is left with /settle.") from None
        if entry is None:
            raise UserError("This payment was already answered.")
        refreshed = await self.storage.settlements.get_settlement(row.id)
        assert refreshed is not None
        return refreshed, entry

    async def void(self, guild_id: int, game_id: int, admin: int, reason: str) -> LedgerRow:
        """Reverse a game's ledger lines (one per loser) with a new line each (Manage Server
        only; checked by the caller); returns the first. Ratings are recomputed without the
        game."""
        reason = reason.strip()
        if not reason:
            raise UserError("Give a reason for voiding the game.")
        entry = await self.storage.ledger.game_entry(guild_id, game_id)
        if entry is None:
            raise UserError(f"Game #{game_id} has no ledger entry in this server.")
        async with self._notebook_lock(guild_id):
            rows = await self.storage.ledger.void_game(guild_id=guild_id, game_id=game_id,
                                                       note=reason[:300], created_by=admin)
        if not rows:
            raise UserError(f"Game #{game_id} was already voided.")
        await self.update_ratings(guild_id)
        return rows[0]

    # ------------------------------------------------------------------ ratings

    def _lock(self, guild_id: int) -> asyncio.Lock:
        return self._rating_locks.setdefault(guild_id, asyncio.Lock())

    def _notebook_lock(self, guild_id: int) -> asyncio.Lock:
        # Settling checks what is owed and then writes: two storage calls. The lock keeps
        # another settlement, confirmation or void of the server from landing between them.
        # (A game's own line is written by GameService and does not take it.)
        return self._notebook_locks.setdefault(guild_id, asyncio.Lock())

    async def update_ratings(self, guild_id: int) -> None:
        """Apply new game lines to the ratings (a void recomputes them from the history)."""
        async with self._lock(guild_id):
            pending = await self.storage.standings.unrated_games(guild_id)
            if not pending:
                return
            # Rating is pure CPU work on plain rows (seconds for a void of a long history):
            # it runs in a thread so the bot keeps answering; the database stays on the loop.
            if any(row.kind == "void" for row in pending):
                history = await self.storage.standings.rated_history(guild_id)
                values = await asyncio.to_thread(self._rate, history, {})
                await self.storage.standings.store_ratings(
                    guild_id, values, pending[-1].id, replace=True)
                return
            current = await self.storage.standings.ratings(guild_id)
            values = await asyncio.to_thread(self._rate, pending, current)
            await self.storage.standings.store_ratings(guild_id, values, pending[-1].id)

    def _rate(self, rows: list[LedgerRow], current: dict[tuple[int, str], tuple[float, float, int]]
              ) -> dict[tuple[int, str], tuple[float, float, int]]:
        values = dict(current)
        touched: dict[tuple[int, str], tuple[float, float, int]] = {}
        for rules, table in table_rankings(rows):
            keys = [(user, rules) for user, _ in table]
            players = []
            for key in keys:
                mu, sigma, _ = values.get(key, (None, None, 0))
                players.append(self.model.rating(mu=mu, sigma=sigma))
            rated = self.model.rate([[p] for p in players],
                                    ranks=[float(rank) for _, rank in table])
            for key, (new,) in zip(keys, rated, strict=True):
                games = values.get(key, (0.0, 0.0, 0))[2] + 1
                values[key] = touched[key] = (float(new.mu), float(new.sigma), games)
        return touched

    # ------------------------------------------------------------------ standings

    async def leaderboard(self, guild_id: int, by: str, rules: str | None
                          ) -> tuple[list[Standing], str]:
        """The ranked rows and a note on how to read them.

        Ranked by win rate or rating, players with fewer than ``MIN_RANKED_GAMES`` games (or,
        by rating, a still uncertain rating) are provisional: shown, marked, after the others.
        """
        note = ""
        if by == "rating":
            rating_rules = rules or (await self.storage.settings.get_settings(
                guild_id)).default_rules
            if rules is None:
                note = f"Ratings are per rule set: showing {rating_rules}."
            ratings = await self.storage.standings.ratings(guild_id, rating_rules)
            rows = await self.storage.standings.leaderboard(guild_id, "net", rating_rules, 1)
            scored = []
            for user, games, wins, losses, ties, net in rows:
                # Games not rated yet (a rating update still running) rate as a new player.
                mu, sigma, _ = ratings.get((user, rating_rules), (NEW_MU, NEW_SIGMA, 0))
                provisional = games < MIN_RANKED_GAMES or sigma > PROVISIONAL_SIGMA
                scored.append((mu - 3 * sigma, Standing(0, user, games, wins, losses, ties, net,
                                                        display_rating(mu, sigma), provisional)))
            scored.sort(key=lambda entry: (entry[1].provisional, -entry[0], entry[1].user_id))
            standings = [standing for _, standing in scored]
        else:
            rows = await self.storage.standings.leaderboard(guild_id, by, rules, 1)
            standings = [Standing(0, user, games, wins, losses, ties, net, None,
                                  by == "win_rate" and games < MIN_RANKED_GAMES)
                         for user, games, wins, losses, ties, net in rows]
            # Stable: the provisional rows keep their order, after the others.
            standings.sort(key=lambda standing: standing.provisional)
        if any(s.provisional for s in standings):
            note = (f"{note} ? = provisional: fewer than {MIN_RANKED_GAMES} games"
                    + (" or a still uncertain rating" if by == "rating" else "")
                    + ", listed after the others.").strip()
        return [replace(s, place=i + 1) for i, s in enumerate(standings)], note

    async def stats(self, guild_id: int, user_id: int) -> Stats:
        """A player's record across rule sets."""
        per_rules = await self.storage.standings.player_stats(guild_id, user_id)
        total = {k: sum(v[k] for v in per_rules.values())
                 for k in ("games", "wins", "losses", "ties", "net_cents", "margin_sum")}
        best = max((v["best_margin"] for v in per_rules.values()), default=0)
        results = await self.storage.standings.recent_results(guild_id, user_id)
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
        for (_, rules), (mu, sigma, games) in (
                await self.storage.standings.ratings(guild_id, user_id=user_id)).items():
            ratings[rules] = (display_rating(mu, sigma),
                              games < MIN_RANKED_GAMES or sigma > PROVISIONAL_SIGMA)
        series = await self.storage.standings.money_series(guild_id, user_id)
        wins = total["wins"]
        return Stats(total["games"], wins, total["losses"], total["ties"], total["net_cents"],
                     total["margin_sum"] / wins if wins else 0.0, best, streak, ratings, series)


def table_rankings(rows: Iterable[LedgerRow]) -> list[tuple[str, list[tuple[int, int]]]]:
    """Each game of the game lines ``rows`` (in ledger order) as its rule set and its table
    ranked for ratings (rule 28): (user, place), 0 the best. The winner (every line's creditor)
    first, then the losers by margin, smaller better, equal margins sharing a place and the
    next one skipped (0, 1, 1, 3 for the rule's 1, 2, 2, 4); a drawn game ranks everyone
    equal, its leavers too. A game of two gives [(creditor, 0), (debtor, 1)], as its one line
    always did."""
    games: dict[int, list[LedgerRow]] = {}
    for row in rows:
        if row.kind != "game" or row.rules is None:
            continue
        games.setdefault(row.game_id if row.game_id is not None else -row.id, []).append(row)
    out = []
    for lines in games.values():
        first = lines[0]
        rules = first.rules
        assert rules is not None
        if first.winner_id is None:
            users = [first.creditor_id] + [line.debtor_id for line in lines]
            out.append((rules, [(user, 0) for user in dict.fromkeys(users)]))
            continue
        # Equal margins share a place and the next place is skipped (1, 2, 2, 4).
        margins = sorted(line.margin or 0 for line in lines)
        table = [(first.creditor_id, 0)] + [(line.debtor_id, 1 + margins.index(line.margin or 0))
                                            for line in lines]
        out.append((rules, table))
    return out


def _cell(text: str) -> str:
    # A spreadsheet runs a cell that starts with = + - @ as a formula: names and notes are
    # typed by players, so such a cell is kept as text.
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


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
    if row.kind == "netting":
        # A plan's line moves a debt between pairs (issue 34): the note names the plan.
        plan = row.note or "a plan"
        return (f"Netted by {plan}: you owe {money} more" if row.debtor_id == viewer
                else f"Netted by {plan}: {money} more owed to you")
    if row.kind == "pot":
        won = row.creditor_id == viewer
        return f"{row.note or 'Tournament pot'}: {money} " + ("won" if won else "owed")
    paid_by_viewer = row.creditor_id == viewer
    if row.kind == "forgive":
        return f"{money} forgiven" + (" to you" if paid_by_viewer else " by you")
    return f"{money} paid " + ("by you" if paid_by_viewer else "to you")
