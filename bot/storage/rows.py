"""What the storage hands out: rows as frozen dataclasses, read from either database's rows,
and the storage's two errors."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .errors import OwedExceeded, StorageError
from .interface import Row

__all__ = [
    "ChallengeRow",
    "DEFAULT_SETTINGS",
    "GameEntry",
    "GameRow",
    "GameTerms",
    "GuildSettings",
    "LedgerRow",
    "OwedExceeded",
    "SETTING_COLUMNS",
    "SeatRow",
    "SettlementRow",
    "StorageError",
]

@dataclass(frozen=True, slots=True)
class GuildSettings:
    """A server's settings; a game keeps the settings it started with."""

    guild_id: int
    default_rules: str = "kings"
    refill_empty_hand: bool = True
    king_starts_stack: bool = True
    challenge_expiry_s: int = 900
    reminder_s: int = 43_200
    claim_s: int = 259_200
    currency: str = "$"
    points_only: bool = False
    stake_kings: int = 0
    per_card_kings: int = 0
    stake_classic: int = 0
    per_card_classic: int = 0
    use_threads: bool = True
    """Play each game in a thread of its own (when the bot may create one)."""
    thread_notice_at: float | None = None
    """When the server was told which permission would move games into threads."""
    season_mode: str = "off"
    """Seasons: off, monthly, quarterly or manual (started and ended by an admin)."""
    season_channel_id: int | None = None
    """Where a season's final standings are posted (none: not posted)."""
    plan_expiry_s: int = 86_400
    """How long a plan that settles the group (``/ledger-plan``) waits to be accepted."""

    def default_stakes(self, rules: str) -> tuple[int, int]:
        """(flat stake, per card) in cents for new challenges of ``rules``."""
        if rules == "classic":
            return self.stake_classic, self.per_card_classic
        return self.stake_kings, self.per_card_kings


SETTING_COLUMNS = (
    "default_rules",
    "refill_empty_hand",
    "king_starts_stack",
    "challenge_expiry_s",
    "reminder_s",
    "claim_s",
    "currency",
    "points_only",
    "stake_kings",
    "per_card_kings",
    "stake_classic",
    "per_card_classic",
    "use_threads",
    "thread_notice_at",
    "season_mode",
    "season_channel_id",
    "plan_expiry_s",
)


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A seat taken at a challenge of three or four, or at an open table."""

    user_id: int
    name: str
    accepted: bool
    """Whether this player has said yes (the host and anyone who joined a table have)."""


@dataclass(frozen=True, slots=True)
class ChallengeRow:
    """An open or settled challenge.

    A challenge between two (``seats`` 2, ``kind`` 'challenge') is its two columns and has no
    ``seated`` rows. A challenge of three or four (``kind`` 'challenge') and an open table
    (``kind`` 'table', any size) list their seats in ``seated``, in the order taken (the
    challenger, or host, first); ``opponent_id`` is then the first one invited (0 at a
    table)."""

    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    challenger_id: int
    opponent_id: int
    names: tuple[str, ...]
    rules: dict[str, Any]
    status: str
    created_at: float
    expires_at: float
    game_id: int | None
    stake_cents: int = 0
    per_card_cents: int = 0
    currency: str = "$"
    kind: str = "challenge"
    seats: int = 2
    """How many seats the game will have."""
    computer_level: str = "normal"
    seated: tuple[SeatRow, ...] = ()

    @property
    def group(self) -> bool:
        """True for a challenge of three or four or an open table (seats in ``seated``)."""
        return self.kind == "table" or self.seats > 2

    def seat_of(self, user_id: int) -> SeatRow | None:
        """The seat ``user_id`` took (or was invited to), or ``None``."""
        return next((s for s in self.seated if s.user_id == user_id), None)


@dataclass(frozen=True, slots=True)
class GameTerms:
    """Who plays a game, where, and on what terms: fixed when it starts, never changed."""

    guild_id: int
    channel_id: int
    """The channel it was challenged in (its thread, if it has one, hangs from it)."""
    players: tuple[int, ...]
    """The players' user ids, by seat (two to four)."""
    names: tuple[str, ...]
    """Their display names when the game started, by seat."""
    vs_computer: bool
    stake_cents: int = 0
    per_card_cents: int = 0
    currency: str = "$"
    computer_level: str = "normal"
    reminder_s: int = 43_200
    """Seconds before the player on turn is reminded."""
    claim_s: int = 259_200
    """Seconds before another player may claim the game from the one on turn."""

    def seat_of(self, user_id: int) -> int | None:
        """The seat of ``user_id`` in this game, or ``None`` (a spectator)."""
        return self.players.index(user_id) if user_id in self.players else None

    def terms(self) -> GameTerms:
        """Just the terms (a row's, without its saved state)."""
        return GameTerms(self.guild_id, self.channel_id, self.players, self.names,
                         self.vs_computer, self.stake_cents, self.per_card_cents, self.currency,
                         self.computer_level, self.reminder_s, self.claim_s)


@dataclass(frozen=True, slots=True, kw_only=True)
class GameRow(GameTerms):
    """A saved game (in fact a match of one or more games): its terms and its saved state."""

    id: int
    rules: dict[str, Any]
    state: dict[str, Any]
    """The match (``Match.to_dict()``) at ``state_version``: a snapshot, see ``later_moves``."""
    version: int
    """Moves saved so far (each ``resign`` or ``claim`` counts as one)."""
    status: str
    board_message_id: int | None
    board_turn: int | None
    created_at: float
    updated_at: float
    turn_started_at: float
    reminded_at: float | None
    result: dict[str, Any] | None
    board_version: int | None = None
    """The version the public board was last drawn at (``None``: never drawn)."""
    claim_offered_at: float | None = None
    """When the opponent was offered a claim of this turn (``None``: not yet)."""
    thread_id: int | None = None
    """The game's own thread (``None``: it is played in ``channel_id`` itself)."""
    result_message_id: int | None = None
    """The result announced in the channel (``None``: not yet; 0: from before announcements)."""
    state_version: int = 0
    """The version ``state`` was saved at (equal to ``version`` for a finished game)."""
    later_moves: tuple[tuple[int, str], ...] = ()
    """(seat, notation) of the moves saved after ``state``, in order: ``state`` with these
    replayed (``resign`` and ``claim`` as ``Match.resign(seat)``) is the game at ``version``."""


@dataclass(frozen=True, slots=True)
class GameEntry:
    """A ledger line of a finished game: one loser (debtor) owes the winner (creditor). A
    game has one per loser (rule 28); a drawn game has lines of 0 with ``winner_id`` ``None``,
    one per player after the first (see ``stakes.game_entries``)."""

    guild_id: int
    game_id: int
    debtor_id: int
    creditor_id: int
    amount_cents: int
    rules: str
    winner_id: int | None
    margin: int


@dataclass(frozen=True, slots=True)
class LedgerRow:
    """One line of the ledger: ``debtor`` owes ``creditor`` ``amount_cents`` more after it."""

    id: int
    guild_id: int
    kind: str
    debtor_id: int
    creditor_id: int
    amount_cents: int
    game_id: int | None
    rules: str | None
    winner_id: int | None
    margin: int | None
    voids_id: int | None
    note: str | None
    created_by: int | None
    created_at: float


@dataclass(frozen=True, slots=True)
class SettlementRow:
    """A payment waiting for the payee's confirmation."""

    id: int
    guild_id: int
    channel_id: int
    payer_id: int
    payee_id: int
    amount_cents: int
    status: str
    created_at: float
    expires_at: float
    ledger_id: int | None


DEFAULT_SETTINGS = GuildSettings(0)
"""What a server that never changed a setting has."""


def loads(text: str | None, what: str) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except (TypeError, ValueError) as exc:
        raise StorageError(f"The saved {what} is damaged.") from exc


def challenge_row(row: Row, seats: Sequence[Row] = ()) -> ChallengeRow:
    return ChallengeRow(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        message_id=row["message_id"],
        challenger_id=row["challenger_id"],
        opponent_id=row["opponent_id"],
        # A name for the challenger and the opponent (``?`` at an open table), and one for
        # each person invited to a challenge of more seats.
        names=_names(row["names"], 2, max(2, int(row["seats"]))),
        rules=loads(row["rules"], "challenge terms"),
        status=row["status"],
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        game_id=row["game_id"],
        stake_cents=int(row["stake_cents"]),
        per_card_cents=int(row["per_card_cents"]),
        currency=str(row["currency"]),
        kind=str(row["kind"]),
        seats=int(row["seats"]),
        computer_level=str(row["computer_level"]),
        seated=tuple(SeatRow(int(r["user_id"]), str(r["name"]), bool(r["accepted"]))
                     for r in seats),
    )


def _later_moves(row: Row) -> tuple[tuple[int, str], ...]:
    entries = loads(row["later_moves"], "move log")
    try:
        ordered = sorted((int(seq), int(seat), str(move)) for seq, seat, move in entries)
    except (TypeError, ValueError) as exc:
        raise StorageError("The saved move log is damaged.") from exc
    first, version = int(row["state_version"]), int(row["version"])
    if [seq for seq, _, _ in ordered] != list(range(first + 1, version + 1)):
        raise StorageError("The saved move log is damaged: moves are missing.")
    return tuple((seat, move) for _, seat, move in ordered)


def game_row(row: Row) -> GameRow:
    state = loads(row["state"], "game")
    if not isinstance(state, dict):
        raise StorageError("The saved game is damaged.")
    # Seats 2 and 3 exist from migration 7 on; a game of two has them NULL.
    players = tuple(int(row[f"player{seat}_id"]) for seat in range(4)
                    if seat < 2 or row[f"player{seat}_id"] is not None)
    names = _names(row["names"], len(players), len(players))
    return GameRow(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        players=players,
        names=names,
        vs_computer=bool(row["vs_computer"]),
        rules=loads(row["rules"], "game terms"),
        state=state,
        version=row["version"],
        status=row["status"],
        board_message_id=row["board_message_id"],
        board_turn=row["board_turn"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        turn_started_at=row["turn_started_at"],
        reminded_at=row["reminded_at"],
        result=loads(row["result"], "result"),
        stake_cents=int(row["stake_cents"]),
        per_card_cents=int(row["per_card_cents"]),
        currency=str(row["currency"]),
        computer_level=str(row["computer_level"]),
        reminder_s=int(row["reminder_s"]),
        claim_s=int(row["claim_s"]),
        board_version=row["board_version"],
        claim_offered_at=row["claim_offered_at"],
        thread_id=row["thread_id"],
        result_message_id=row["result_message_id"],
        state_version=int(row["state_version"]),
        later_moves=_later_moves(row),
    )


def ledger_row(row: Row) -> LedgerRow:
    return LedgerRow(
        id=row["id"], guild_id=row["guild_id"], kind=row["kind"], debtor_id=row["debtor_id"],
        creditor_id=row["creditor_id"], amount_cents=row["amount_cents"],
        game_id=row["game_id"], rules=row["rules"], winner_id=row["winner_id"],
        margin=row["margin"], voids_id=row["voids_id"], note=row["note"],
        created_by=row["created_by"], created_at=row["created_at"],
    )


def settlement_row(row: Row) -> SettlementRow:
    return SettlementRow(
        id=row["id"], guild_id=row["guild_id"], channel_id=row["channel_id"],
        payer_id=row["payer_id"], payee_id=row["payee_id"], amount_cents=row["amount_cents"],
        status=row["status"], created_at=row["created_at"], expires_at=row["expires_at"],
        ledger_id=row["ledger_id"],
    )


def _names(text: str, least: int, most: int) -> tuple[str, ...]:
    # Checked against the row itself (its seats), not against the engine's limits of a table:
    # those are checked once, when a game or an invitation is made.
    names = loads(text, "player names")
    if not (isinstance(names, list) and least <= len(names) <= most
            and all(isinstance(n, str) for n in names)):
        raise StorageError("The saved player names are damaged.")
    return tuple(names)
