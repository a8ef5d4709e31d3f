"""The bot's schema, declared once: every table, its columns, keys and indexes, as the latest
migration leaves them.

Everything that lists the tables reads this declaration: each backend's DDL for a new database
(``sqlite_ddl``, ``postgres_ddl``), the copy of ``python -m bot migrate`` (``TABLES`` is in an
order that keeps every reference valid, each table with its key) and the backup's check of a
file (``Table.since``).

The numbered migrations (``migrations_sqlite``, ``migrations_postgres``) stay what they are:
the history an existing database is upgraded along, never edited once released. A new
database is made from this declaration at once, at the latest version. A change of schema is
therefore two edits: the declaration, and a new migration on each backend; the tests check
that a database upgraded along the whole history equals one made from the declaration, on both
backends (``tests/bot/test_schema_parity.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TABLES", "Column", "Index", "Table", "postgres_ddl", "sqlite_ddl", "table"]


@dataclass(frozen=True, slots=True)
class Column:
    """A column. ``kind``: ``int`` (SQLite INTEGER, PostgreSQL BIGINT: Discord ids need 64
    bits), ``real`` (Unix seconds and ratings: REAL, DOUBLE PRECISION) or ``text``; flags are
    ``int`` 0/1 on both, so rows read the same from both."""

    name: str
    kind: str
    not_null: bool = False
    default: str | None = None
    """An SQL literal."""
    check: str | None = None
    references: str | None = None
    """``"table (column)"``."""
    identity: bool = False
    """The table's id, handed out by the database (SQLite's rowid, PostgreSQL's identity)."""


@dataclass(frozen=True, slots=True)
class Index:
    """An index: ``where`` makes it partial."""

    name: str
    columns: tuple[str, ...]
    unique: bool = False
    where: str | None = None


@dataclass(frozen=True, slots=True)
class Table:
    """A table: its columns in the order the migrations leave them, its key, its indexes."""

    name: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...]
    indexes: tuple[Index, ...] = ()
    since: int = 1
    """The SQLite schema version that brought it: a database at version N has every table of
    a version up to N (a backup is checked by it)."""
    clustered: bool = False
    """Stored in key order (SQLite's ``WITHOUT ROWID``): appending a row writes one page."""
    append_only: bool = False
    """Rows are never changed or deleted (triggers refuse it)."""
    summary: bool = False
    """A running summary derived from the ledger's lines, rebuilt from them at will."""

    @property
    def key(self) -> str:
        """The primary key, as an SQL column list (the copy pages through it)."""
        return ", ".join(self.primary_key)

    @property
    def has_identity(self) -> bool:
        """Whether the database hands out its ids (a copy moves the counter past them)."""
        return any(c.identity for c in self.columns)


def _int(name: str, not_null: bool = True, default: str | None = None,
         references: str | None = None, check: str | None = None) -> Column:
    return Column(name, "int", not_null, default, check, references)


def _real(name: str, not_null: bool = True) -> Column:
    return Column(name, "real", not_null)


def _text(name: str, not_null: bool = True, default: str | None = None,
          check: str | None = None) -> Column:
    return Column(name, "text", not_null, default, check)


_ID = Column("id", "int", True, identity=True)
_NAMES = "'[\"Player 1\", \"Player 2\"]'"

TABLES: tuple[Table, ...] = (
    Table("guild_settings", (
        _int("guild_id"),
        _text("default_rules", default="'kings'"),
        _int("refill_empty_hand", default="1"),
        _int("king_starts_stack", default="1"),
        _int("challenge_expiry_s", default="900"),
        _int("reminder_s", default="43200"),
        _int("claim_s", default="259200"),
        _text("currency", default="'$'"),
        _int("points_only", default="0"),
        _int("stake_kings", default="0"),
        _int("per_card_kings", default="0"),
        _int("stake_classic", default="0"),
        _int("per_card_classic", default="0"),
        _int("use_threads", default="1"),
        _real("thread_notice_at", not_null=False),
        _text("season_mode", default="'off'"),
        _int("season_channel_id", not_null=False),
        _int("plan_expiry_s", default="86400"),
    ), ("guild_id",)),
    Table("challenges", (
        _ID,
        _int("guild_id"),
        _int("channel_id"),
        _int("message_id", not_null=False),
        _int("challenger_id"),
        _int("opponent_id"),
        _text("names", default=_NAMES),
        _text("rules"),
        _text("status", default="'open'",
              check="status IN ('open', 'accepted', 'declined', 'cancelled', 'expired')"),
        _real("created_at"),
        _real("expires_at"),
        _int("game_id", not_null=False),
        _int("stake_cents", default="0"),
        _int("per_card_cents", default="0"),
        _text("currency", default="'$'"),
        _text("kind", default="'challenge'"),
        _int("seats", default="2"),
        _int("taken", default="0"),
        _text("computer_level", default="'normal'"),
    ), ("id",), (Index("challenges_open", ("status", "expires_at")),)),
    Table("challenge_seats", (
        _int("challenge_id", references="challenges (id)"),
        _int("position"),
        _int("user_id"),
        _text("name"),
        _int("accepted", default="0"),
    ), ("challenge_id", "position"),
        (Index("challenge_seats_user", ("challenge_id", "user_id"), unique=True),), since=7),
    Table("games", (
        _ID,
        _int("guild_id"),
        _int("channel_id"),
        _int("player0_id"),
        _int("player1_id"),
        _text("names", default=_NAMES),
        _int("vs_computer", default="0"),
        _text("rules"),
        _text("state"),
        _int("version", default="0"),
        _text("status", default="'active'", check="status IN ('active', 'finished')"),
        _int("board_message_id", not_null=False),
        _int("board_turn", not_null=False),
        _real("created_at"),
        _real("updated_at"),
        _real("turn_started_at"),
        _real("reminded_at", not_null=False),
        _text("result", not_null=False),
        _int("stake_cents", default="0"),
        _int("per_card_cents", default="0"),
        _text("currency", default="'$'"),
        _text("computer_level", default="'normal'"),
        _int("reminder_s", default="43200"),
        _int("claim_s", default="259200"),
        _int("board_version", not_null=False),
        _real("claim_offered_at", not_null=False),
        _int("thread_id", not_null=False),
        _int("result_message_id", not_null=False),
        _int("state_version", default="0"),
        _int("player2_id", not_null=False),
        _int("player3_id", not_null=False),
    ), ("id",), (
        Index("games_active", ("status", "channel_id")),
        Index("games_thread", ("thread_id",), where="thread_id IS NOT NULL"),
    )),
    Table("moves", (
        _int("game_id", references="games (id)"),
        _int("seq"),
        _int("seat"),
        _int("user_id", not_null=False),
        _text("move"),
        _real("created_at"),
    ), ("game_id", "seq"), clustered=True),
    Table("ledger", (
        _ID,
        _int("guild_id"),
        _text("kind",
              check="kind IN ('game', 'payment', 'forgive', 'void', 'netting', 'pot')"),
        _int("debtor_id"),
        _int("creditor_id"),
        _int("amount_cents", check="amount_cents >= 0"),
        _int("game_id", not_null=False, references="games (id)"),
        _text("rules", not_null=False),
        _int("winner_id", not_null=False),
        _int("margin", not_null=False),
        _int("voids_id", not_null=False, references="ledger (id)"),
        _text("note", not_null=False),
        _int("created_by", not_null=False),
        _real("created_at"),
    ), ("id",), (
        Index("ledger_one_void", ("voids_id",), unique=True, where="voids_id IS NOT NULL"),
        Index("ledger_debtor", ("guild_id", "debtor_id", "creditor_id", "id")),
        Index("ledger_creditor", ("guild_id", "creditor_id", "debtor_id", "id")),
        Index("ledger_games", ("guild_id", "kind", "id")),
        Index("ledger_debtor_kind", ("guild_id", "debtor_id", "kind", "id", "winner_id")),
        Index("ledger_creditor_kind", ("guild_id", "creditor_id", "kind", "id", "winner_id")),
        Index("ledger_one_per_loser", ("game_id", "debtor_id"), unique=True,
              where="kind = 'game'"),
        Index("ledger_game_times", ("guild_id", "kind", "created_at")),
    ), since=2, append_only=True),
    Table("settlements", (
        _ID,
        _int("guild_id"),
        _int("channel_id"),
        _int("payer_id"),
        _int("payee_id"),
        _int("amount_cents", check="amount_cents > 0"),
        _text("status", default="'open'",
              check="status IN ('open', 'confirmed', 'refused', 'expired')"),
        _real("created_at"),
        _real("expires_at"),
        _int("ledger_id", not_null=False, references="ledger (id)"),
    ), ("id",), since=2),
    Table("pair_balances", (
        _int("guild_id"),
        _int("low_id"),
        _int("high_id"),
        _int("owed_cents", default="0"),
        _int("games", default="0"),
    ), ("guild_id", "low_id", "high_id"),
        (Index("pair_balances_high", ("guild_id", "high_id")),), since=2, summary=True),
    Table("player_stats", (
        _int("guild_id"),
        _int("user_id"),
        _text("rules"),
        _int("games", default="0"),
        _int("wins", default="0"),
        _int("losses", default="0"),
        _int("ties", default="0"),
        _int("net_cents", default="0"),
        _int("margin_sum", default="0"),
        _int("best_margin", default="0"),
    ), ("guild_id", "user_id", "rules"), since=2, summary=True),
    Table("ratings", (
        _int("guild_id"),
        _int("user_id"),
        _text("rules"),
        _real("mu"),
        _real("sigma"),
        _int("games", default="0"),
    ), ("guild_id", "user_id", "rules"), since=2),
    Table("rating_progress", (
        _int("guild_id"),
        _int("last_ledger_id", default="0"),
    ), ("guild_id",), since=2),
    Table("money_points", (
        _int("guild_id"),
        _int("user_id"),
        _int("seq"),
        _int("ledger_id"),
        _real("created_at"),
        _int("balance"),
    ), ("guild_id", "user_id", "seq"),
        (Index("money_points_balance", ("guild_id", "user_id", "balance", "seq")),),
        since=5, clustered=True, summary=True),
    Table("pair_points", (
        _int("guild_id"),
        _int("low_id"),
        _int("high_id"),
        _int("seq"),
        _int("ledger_id"),
        _int("owed_cents"),
    ), ("guild_id", "low_id", "high_id", "seq"), since=5, clustered=True, summary=True),
    Table("seasons", (
        _ID,
        _int("guild_id"),
        _text("name"),
        _text("kind", check="kind IN ('monthly', 'quarterly', 'manual')"),
        _real("starts_at"),
        _real("ends_at", not_null=False),
        _text("state", default="'open'",
              check="state IN ('open', 'claimed', 'posted', 'quiet')"),
        _real("claimed_at", not_null=False),
        _int("channel_id", not_null=False),
        _int("message_id", not_null=False),
    ), ("id",), (
        Index("seasons_one_open", ("guild_id",), unique=True, where="state = 'open'"),
        Index("seasons_due", ("state", "ends_at")),
        Index("seasons_guild", ("guild_id", "starts_at")),
    ), since=8),
    Table("season_places", (
        _int("season_id", references="seasons (id)"),
        _int("user_id"),
        _int("place", not_null=False),
        _int("points"),
        _int("games"),
        _int("wins"),
        _int("losses"),
        _int("ties"),
        _int("net_cents"),
        _int("best_streak"),
    ), ("season_id", "user_id"), (Index("season_places_user", ("user_id", "season_id")),),
        since=8),
    Table("settle_plans", (
        _ID,
        _int("guild_id"),
        _int("channel_id"),
        _int("message_id", not_null=False),
        _int("proposer_id"),
        _text("status", default="'open'",
              check="status IN ('open', 'done', 'refused', 'withdrawn', 'expired', 'void')"),
        _real("created_at"),
        _real("expires_at"),
        _real("closed_at", not_null=False),
        _int("closed_by", not_null=False),
        _text("members"),
        _text("balances"),
        _text("payments"),
        _int("exact", default="1"),
    ), ("id",), (Index("settle_plans_open", ("status", "expires_at")),), since=9),
    Table("settle_plan_people", (
        _int("plan_id", references="settle_plans (id)"),
        _int("user_id"),
        _real("accepted_at", not_null=False),
    ), ("plan_id", "user_id"), since=9),
    Table("tournaments", (
        _ID,
        _int("guild_id"),
        _int("channel_id"),
        _int("message_id", not_null=False),
        _int("board_message_id", not_null=False),
        _int("result_message_id", not_null=False),
        _int("organiser_id"),
        _text("name"),
        _text("rules"),
        _text("format"),
        _int("seats", default="2"),
        _int("stake_cents", default="0"),
        _int("buy_in_cents", default="0"),
        _text("currency", default="'$'"),
        _int("allow_computer", default="0"),
        _int("deadline_s"),
        _real("start_at", not_null=False),
        _text("status", default="'open'",
              check="status IN ('open', 'running', 'finished', 'cancelled')"),
        _real("created_at"),
        _int("board_events", default="-1"),
    ), ("id",), (Index("tournaments_status", ("status", "guild_id")),), since=10),
    Table("tournament_entrants", (
        _int("tournament_id", references="tournaments (id)"),
        _int("position"),
        _int("user_id"),
        _text("name"),
        _real("rating"),
    ), ("tournament_id", "position"),
        (Index("tournament_entrants_user", ("tournament_id", "user_id"), unique=True),),
        since=10),
    Table("tournament_games", (
        _int("tournament_id", references="tournaments (id)"),
        _int("round"),
        _int("table_no"),
        _int("attempt"),
        _int("game_id", references="games (id)"),
        _real("created_at"),
        _int("posted", default="0"),
    ), ("tournament_id", "round", "table_no", "attempt"),
        (Index("tournament_games_game", ("game_id",), unique=True),), since=10),
    Table("tournament_events", (
        _int("tournament_id", references="tournaments (id)"),
        _int("seq"),
        _text("kind", check="kind IN ('played', 'withdrawal')"),
        _int("round", not_null=False),
        _int("table_no", not_null=False),
        _text("places", not_null=False),
        _int("player_id", not_null=False),
        _int("game_id", not_null=False),
        _real("created_at"),
    ), ("tournament_id", "seq"),
        (Index("tournament_events_game", ("game_id",), unique=True,
               where="game_id IS NOT NULL"),), since=10, append_only=True),
)
"""Every table of the bot, in an order that keeps references valid (a game before its moves,
a ledger line before the void and the settlement that name it): the order a copy loads them."""


def table(name: str) -> Table:
    """The declared table ``name``."""
    for t in TABLES:
        if t.name == name:
            return t
    raise KeyError(name)


_SQLITE_TYPES = {"int": "INTEGER", "real": "REAL", "text": "TEXT"}
_POSTGRES_TYPES = {"int": "BIGINT", "real": "DOUBLE PRECISION", "text": "TEXT"}


def _column_sql(column: Column, types: dict[str, str], identity: str,
                single_key: bool) -> str:
    if column.identity:
        return f"{column.name} {identity}"
    parts = [column.name, types[column.kind]]
    if single_key:
        parts.append("PRIMARY KEY")
    elif column.not_null:
        parts.append("NOT NULL")
    if column.default is not None:
        parts.append(f"DEFAULT {column.default}")
    if column.check is not None:
        parts.append(f"CHECK ({column.check})")
    if column.references is not None:
        parts.append(f"REFERENCES {column.references}")
    return " ".join(parts)


def _create(t: Table, types: dict[str, str], identity: str, suffix: str) -> str:
    single = t.primary_key if len(t.primary_key) == 1 else ()
    lines = [_column_sql(c, types, identity, c.name in single) for c in t.columns]
    if not single:
        lines.append(f"PRIMARY KEY ({t.key})")
    body = ",\n    ".join(lines)
    return f"CREATE TABLE {t.name} (\n    {body}\n){suffix}"


def _indexes(t: Table) -> list[str]:
    return [f"CREATE {'UNIQUE ' if i.unique else ''}INDEX {i.name} ON {t.name} "
            f"({', '.join(i.columns)})" + (f" WHERE {i.where}" if i.where else "")
            for i in t.indexes]


def sqlite_ddl() -> list[str]:
    """The statements that make a new SQLite database's schema, one by one."""
    out: list[str] = []
    for t in TABLES:
        out.append(_create(t, _SQLITE_TYPES, "INTEGER PRIMARY KEY",
                           " WITHOUT ROWID" if t.clustered else ""))
        out += _indexes(t)
        if t.append_only:
            for event in ("UPDATE", "DELETE"):
                out.append(f"CREATE TRIGGER {t.name}_no_{event.lower()} BEFORE {event} ON "
                           f"{t.name}\nBEGIN SELECT RAISE(ABORT, 'the {t.name} is "
                           "append-only'); END")
    return out


def postgres_ddl() -> list[str]:
    """The statements that make a new PostgreSQL database's schema, one by one."""
    out: list[str] = []
    for t in TABLES:
        out.append(_create(t, _POSTGRES_TYPES,
                           "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", ""))
        out += _indexes(t)
        if t.append_only:
            out += [
                f"CREATE FUNCTION {t.name}_append_only() RETURNS trigger LANGUAGE plpgsql AS "
                f"$body$ BEGIN RAISE EXCEPTION 'the {t.name} is append-only'; END $body$",
                f"CREATE TRIGGER {t.name}_no_change BEFORE UPDATE OR DELETE ON {t.name} "
                f"FOR EACH ROW EXECUTE FUNCTION {t.name}_append_only()",
                f"CREATE TRIGGER {t.name}_no_truncate BEFORE TRUNCATE ON {t.name} "
                f"FOR EACH STATEMENT EXECUTE FUNCTION {t.name}_append_only()",
            ]
    return out
