"""The history of the SQLite schema, as numbered migrations (``PRAGMA user_version`` is the
last applied).

An existing database is upgraded along them; a new one is made from the declaration
(``schema.sqlite_ddl``) at the latest version at once. A migration is never edited once
released: a change of schema is a new migration here and the declaration changed to match
(the tests check that the two agree).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from .interface import Conn
from .rows import StorageError
from .schema import sqlite_ddl

__all__ = ["MIGRATIONS", "SQLITE_SCHEMA_VERSION", "migrate"]

MIGRATIONS: tuple[str, ...] = (
    # 1: settings, challenges, games and their move log.
    """
    CREATE TABLE guild_settings (
        guild_id            INTEGER PRIMARY KEY,
        default_rules       TEXT    NOT NULL DEFAULT 'kings',
        refill_empty_hand   INTEGER NOT NULL DEFAULT 1,
        king_starts_stack   INTEGER NOT NULL DEFAULT 1,
        challenge_expiry_s  INTEGER NOT NULL DEFAULT 900,
        reminder_s          INTEGER NOT NULL DEFAULT 43200,
        claim_s             INTEGER NOT NULL DEFAULT 259200
    );
    CREATE TABLE challenges (
        id             INTEGER PRIMARY KEY,
        guild_id       INTEGER NOT NULL,
        channel_id     INTEGER NOT NULL,
        message_id     INTEGER,
        challenger_id  INTEGER NOT NULL,
        opponent_id    INTEGER NOT NULL,
        names          TEXT    NOT NULL DEFAULT '["Player 1", "Player 2"]',
        rules          TEXT    NOT NULL,
        status         TEXT    NOT NULL DEFAULT 'open'
                       CHECK (status IN ('open', 'accepted', 'declined', 'cancelled', 'expired')),
        created_at     REAL    NOT NULL,
        expires_at     REAL    NOT NULL,
        game_id        INTEGER
    );
    CREATE INDEX challenges_open ON challenges (status, expires_at);
    CREATE TABLE games (
        id               INTEGER PRIMARY KEY,
        guild_id         INTEGER NOT NULL,
        channel_id       INTEGER NOT NULL,
        player0_id       INTEGER NOT NULL,
        player1_id       INTEGER NOT NULL,
        names            TEXT    NOT NULL DEFAULT '["Player 1", "Player 2"]',
        vs_computer      INTEGER NOT NULL DEFAULT 0,
        rules            TEXT    NOT NULL,
        state            TEXT    NOT NULL,
        version          INTEGER NOT NULL DEFAULT 0,
        status           TEXT    NOT NULL DEFAULT 'active'
                         CHECK (status IN ('active', 'finished')),
        board_message_id INTEGER,
        board_turn       INTEGER,
        created_at       REAL    NOT NULL,
        updated_at       REAL    NOT NULL,
        turn_started_at  REAL    NOT NULL,
        reminded_at      REAL,
        result           TEXT
    );
    CREATE INDEX games_active ON games (status, channel_id);
    CREATE TABLE moves (
        game_id     INTEGER NOT NULL REFERENCES games (id),
        seq         INTEGER NOT NULL,
        seat        INTEGER NOT NULL,
        user_id     INTEGER,
        move        TEXT    NOT NULL,
        created_at  REAL    NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    """,
    # 2: stakes, the append-only ledger, its running summaries, ratings, settlements.
    """
    ALTER TABLE guild_settings ADD COLUMN currency TEXT NOT NULL DEFAULT '$';
    ALTER TABLE guild_settings ADD COLUMN points_only INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE guild_settings ADD COLUMN stake_kings INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE guild_settings ADD COLUMN per_card_kings INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE guild_settings ADD COLUMN stake_classic INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE guild_settings ADD COLUMN per_card_classic INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE challenges ADD COLUMN stake_cents INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE challenges ADD COLUMN per_card_cents INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE challenges ADD COLUMN currency TEXT NOT NULL DEFAULT '$';
    ALTER TABLE games ADD COLUMN stake_cents INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN per_card_cents INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN currency TEXT NOT NULL DEFAULT '$';
    ALTER TABLE games ADD COLUMN computer_level TEXT NOT NULL DEFAULT 'normal';
    CREATE TABLE ledger (
        id            INTEGER PRIMARY KEY,
        guild_id      INTEGER NOT NULL,
        kind          TEXT    NOT NULL CHECK (kind IN ('game', 'payment', 'forgive', 'void')),
        debtor_id     INTEGER NOT NULL,
        creditor_id   INTEGER NOT NULL,
        amount_cents  INTEGER NOT NULL CHECK (amount_cents >= 0),
        game_id       INTEGER REFERENCES games (id),
        rules         TEXT,
        winner_id     INTEGER,
        margin        INTEGER,
        voids_id      INTEGER REFERENCES ledger (id),
        note          TEXT,
        created_by    INTEGER,
        created_at    REAL    NOT NULL
    );
    CREATE UNIQUE INDEX ledger_one_per_game ON ledger (game_id) WHERE kind = 'game';
    CREATE UNIQUE INDEX ledger_one_void ON ledger (voids_id) WHERE voids_id IS NOT NULL;
    CREATE INDEX ledger_debtor ON ledger (guild_id, debtor_id, creditor_id, id);
    CREATE INDEX ledger_creditor ON ledger (guild_id, creditor_id, debtor_id, id);
    CREATE INDEX ledger_games ON ledger (guild_id, kind, id);
    CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger
    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
    CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger
    BEGIN SELECT RAISE(ABORT, 'the ledger is append-only'); END;
    CREATE TABLE pair_balances (
        guild_id     INTEGER NOT NULL,
        low_id       INTEGER NOT NULL,
        high_id      INTEGER NOT NULL,
        owed_cents   INTEGER NOT NULL DEFAULT 0,
        games        INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, low_id, high_id)
    );
    CREATE INDEX pair_balances_high ON pair_balances (guild_id, high_id);
    CREATE TABLE player_stats (
        guild_id     INTEGER NOT NULL,
        user_id      INTEGER NOT NULL,
        rules        TEXT    NOT NULL,
        games        INTEGER NOT NULL DEFAULT 0,
        wins         INTEGER NOT NULL DEFAULT 0,
        losses       INTEGER NOT NULL DEFAULT 0,
        ties         INTEGER NOT NULL DEFAULT 0,
        net_cents    INTEGER NOT NULL DEFAULT 0,
        margin_sum   INTEGER NOT NULL DEFAULT 0,
        best_margin  INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, user_id, rules)
    );
    CREATE TABLE ratings (
        guild_id     INTEGER NOT NULL,
        user_id      INTEGER NOT NULL,
        rules        TEXT    NOT NULL,
        mu           REAL    NOT NULL,
        sigma        REAL    NOT NULL,
        games        INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (guild_id, user_id, rules)
    );
    CREATE TABLE rating_progress (
        guild_id       INTEGER PRIMARY KEY,
        last_ledger_id INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE settlements (
        id            INTEGER PRIMARY KEY,
        guild_id      INTEGER NOT NULL,
        channel_id    INTEGER NOT NULL,
        payer_id      INTEGER NOT NULL,
        payee_id      INTEGER NOT NULL,
        amount_cents  INTEGER NOT NULL CHECK (amount_cents > 0),
        status        TEXT    NOT NULL DEFAULT 'open'
                      CHECK (status IN ('open', 'confirmed', 'refused', 'expired')),
        created_at    REAL    NOT NULL,
        expires_at    REAL    NOT NULL,
        ledger_id     INTEGER REFERENCES ledger (id)
    );
    """,
    # 3: a game keeps the reminder and claim times it started with; which version its board
    # shows (so a restart can repair a board that fell behind); when a claim was offered.
    """
    ALTER TABLE games ADD COLUMN reminder_s INTEGER NOT NULL DEFAULT 43200;
    ALTER TABLE games ADD COLUMN claim_s INTEGER NOT NULL DEFAULT 259200;
    ALTER TABLE games ADD COLUMN board_version INTEGER;
    ALTER TABLE games ADD COLUMN claim_offered_at REAL;
    UPDATE games SET
        reminder_s = COALESCE((SELECT s.reminder_s FROM guild_settings s
                               WHERE s.guild_id = games.guild_id), 43200),
        claim_s = COALESCE((SELECT s.claim_s FROM guild_settings s
                            WHERE s.guild_id = games.guild_id), 259200);
    UPDATE games SET board_version = version WHERE status = 'finished';
    """,
    # 4: a game lives in a thread of its own; its result is announced in the channel once.
    """
    ALTER TABLE games ADD COLUMN thread_id INTEGER;
    ALTER TABLE games ADD COLUMN result_message_id INTEGER;
    ALTER TABLE guild_settings ADD COLUMN use_threads INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE guild_settings ADD COLUMN thread_notice_at REAL;
    UPDATE games SET result_message_id = 0 WHERE status = 'finished';
    CREATE INDEX games_thread ON games (thread_id) WHERE thread_id IS NOT NULL;
    """,
    # 5 (ledger at scale): /stats reads through indexes only, whatever the history's length.
    # A player's latest lines of one kind, from either side, newest first, with the winner
    # (his streak, read from the index alone);
    # ``money_points``: his running net money after each of his game and void lines, numbered
    # 1, 2, 3… per player (derived from the ledger like the summaries, rebuilt with them), so
    # a chart's evenly spaced points are a few lookups by number, not a sum over his history.
    # ``pair_points``: the same for two players, every line between them, with what the lower
    # id owes the higher after it: a page of /ledger user is a range of numbers.
    """
    CREATE INDEX ledger_debtor_kind ON ledger (guild_id, debtor_id, kind, id, winner_id);
    CREATE INDEX ledger_creditor_kind ON ledger (guild_id, creditor_id, kind, id, winner_id);
    CREATE TABLE money_points (
        guild_id    INTEGER NOT NULL,
        user_id     INTEGER NOT NULL,
        seq         INTEGER NOT NULL,
        ledger_id   INTEGER NOT NULL,
        created_at  REAL    NOT NULL,
        balance     INTEGER NOT NULL,
        PRIMARY KEY (guild_id, user_id, seq)
    ) WITHOUT ROWID;
    CREATE INDEX money_points_balance ON money_points (guild_id, user_id, balance, seq);
    CREATE TABLE pair_points (
        guild_id    INTEGER NOT NULL,
        low_id      INTEGER NOT NULL,
        high_id     INTEGER NOT NULL,
        seq         INTEGER NOT NULL,
        ledger_id   INTEGER NOT NULL,
        owed_cents  INTEGER NOT NULL,
        PRIMARY KEY (guild_id, low_id, high_id, seq)
    ) WITHOUT ROWID;
    INSERT INTO pair_points (guild_id, low_id, high_id, seq, ledger_id, owed_cents)
    SELECT guild_id, MIN(debtor_id, creditor_id), MAX(debtor_id, creditor_id),
           ROW_NUMBER() OVER win, id,
           SUM(CASE WHEN debtor_id < creditor_id THEN amount_cents ELSE -amount_cents END)
               OVER win
    FROM ledger
    WINDOW win AS (PARTITION BY guild_id, MIN(debtor_id, creditor_id),
                   MAX(debtor_id, creditor_id) ORDER BY id ROWS UNBOUNDED PRECEDING);
    INSERT INTO money_points (guild_id, user_id, seq, ledger_id, created_at, balance)
    SELECT guild_id, user_id, ROW_NUMBER() OVER win, id, created_at, SUM(delta) OVER win
    FROM (SELECT guild_id, creditor_id AS user_id, id, created_at, amount_cents AS delta
          FROM ledger WHERE kind IN ('game', 'void') UNION ALL
          SELECT guild_id, debtor_id, id, created_at, -amount_cents
          FROM ledger WHERE kind IN ('game', 'void'))
    WINDOW win AS (PARTITION BY guild_id, user_id ORDER BY id ROWS UNBOUNDED PRECEDING);
    """,
    # 6: a move is an appended row, the state a snapshot now and then: ``state`` is the match at
    # ``state_version`` (every game saved before this was saved whole at each move). The move
    # log is clustered by game (WITHOUT ROWID), so appending a move writes one page of it, not
    # a table page and an index page.
    """
    ALTER TABLE games ADD COLUMN state_version INTEGER NOT NULL DEFAULT 0;
    UPDATE games SET state_version = version;
    CREATE TABLE moves_by_game (
        game_id     INTEGER NOT NULL REFERENCES games (id),
        seq         INTEGER NOT NULL,
        seat        INTEGER NOT NULL,
        user_id     INTEGER,
        move        TEXT    NOT NULL,
        created_at  REAL    NOT NULL,
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;
    INSERT INTO moves_by_game (game_id, seq, seat, user_id, move, created_at)
        SELECT game_id, seq, seat, user_id, move, created_at FROM moves;
    DROP TABLE moves;
    ALTER TABLE moves_by_game RENAME TO moves;
    """,
    # 7: tables of three or four (issue 18). Two nullable seat columns rather than a table of
    # seats: every game saved before keeps its row as it is, a game is still one row read by
    # id, and "the games of a player" stays one condition on one table. A challenge may name
    # up to three people or be an open table anyone may join: its seats, in the order taken,
    # are rows of ``challenge_seats`` (a two-player challenge keeps its two columns and has
    # none); ``taken`` counts them, so a join is one compare-and-set on the challenge's row.
    # A game's ledger lines: one per loser (debtor) now, no longer one per game.
    """
    ALTER TABLE games ADD COLUMN player2_id INTEGER;
    ALTER TABLE games ADD COLUMN player3_id INTEGER;
    ALTER TABLE challenges ADD COLUMN kind TEXT NOT NULL DEFAULT 'challenge';
    ALTER TABLE challenges ADD COLUMN seats INTEGER NOT NULL DEFAULT 2;
    ALTER TABLE challenges ADD COLUMN taken INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE challenges ADD COLUMN computer_level TEXT NOT NULL DEFAULT 'normal';
    CREATE TABLE challenge_seats (
        challenge_id  INTEGER NOT NULL REFERENCES challenges (id),
        position      INTEGER NOT NULL,
        user_id       INTEGER NOT NULL,
        name          TEXT    NOT NULL,
        accepted      INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (challenge_id, position)
    );
    CREATE UNIQUE INDEX challenge_seats_user ON challenge_seats (challenge_id, user_id);
    DROP INDEX ledger_one_per_game;
    CREATE UNIQUE INDEX ledger_one_per_loser ON ledger (game_id, debtor_id) WHERE kind = 'game';
    """,
    # 8: seasons (issue 33). A server's seasons (off, monthly, quarterly or by command) and the
    # channel their final standings go to are two settings. A season is a time range of one
    # server: a game belongs to the season its ledger lines were written in (read through the
    # new index on the game lines' times). ``state`` goes open -> claimed (ended, its final
    # table saved in ``season_places`` in the same transaction) -> posted (or quiet: nothing to
    # post); the move out of ``open`` is a compare-and-set, so one process posts it, once.
    """
    ALTER TABLE guild_settings ADD COLUMN season_mode TEXT NOT NULL DEFAULT 'off';
    ALTER TABLE guild_settings ADD COLUMN season_channel_id INTEGER;
    CREATE INDEX ledger_game_times ON ledger (guild_id, kind, created_at);
    CREATE TABLE seasons (
        id            INTEGER PRIMARY KEY,
        guild_id      INTEGER NOT NULL,
        name          TEXT NOT NULL,
        kind          TEXT NOT NULL CHECK (kind IN ('monthly', 'quarterly', 'manual')),
        starts_at     REAL NOT NULL,
        ends_at       REAL,
        state         TEXT NOT NULL DEFAULT 'open'
                      CHECK (state IN ('open', 'claimed', 'posted', 'quiet')),
        claimed_at    REAL,
        channel_id    INTEGER,
        message_id    INTEGER
    );
    CREATE UNIQUE INDEX seasons_one_open ON seasons (guild_id) WHERE state = 'open';
    CREATE INDEX seasons_due ON seasons (state, ends_at);
    CREATE INDEX seasons_guild ON seasons (guild_id, starts_at);
    CREATE TABLE season_places (
        season_id     INTEGER NOT NULL REFERENCES seasons (id),
        user_id       INTEGER NOT NULL,
        place         INTEGER,
        points        INTEGER NOT NULL,
        games         INTEGER NOT NULL,
        wins          INTEGER NOT NULL,
        losses        INTEGER NOT NULL,
        ties          INTEGER NOT NULL,
        net_cents     INTEGER NOT NULL,
        best_streak   INTEGER NOT NULL,
        PRIMARY KEY (season_id, user_id)
    );
    CREATE INDEX season_places_user ON season_places (user_id, season_id);
    """,
    # 9: plans that settle a group in the fewest payments (issue 34): a plan and who must
    # accept it; once all have, its netting lines are ledger lines of a new kind. SQLite can't
    # alter a CHECK: its text in the schema is edited in place (the documented way for a
    # change that leaves every stored row valid: one kind more is allowed), and the schema is
    # read again at once (RESET), so this connection knows it too.
    """
    PRAGMA writable_schema = ON;
    UPDATE sqlite_master SET sql = replace(sql, '''forgive'', ''void'')',
                                           '''forgive'', ''void'', ''netting'')')
     WHERE type = 'table' AND name = 'ledger';
    PRAGMA writable_schema = RESET;
    ALTER TABLE guild_settings ADD COLUMN plan_expiry_s INTEGER NOT NULL DEFAULT 86400;
    CREATE TABLE settle_plans (
        id           INTEGER PRIMARY KEY,
        guild_id     INTEGER NOT NULL,
        channel_id   INTEGER NOT NULL,
        message_id   INTEGER,
        proposer_id  INTEGER NOT NULL,
        status       TEXT    NOT NULL DEFAULT 'open'
                     CHECK (status IN ('open', 'done', 'refused', 'withdrawn', 'expired',
                                       'void')),
        created_at   REAL    NOT NULL,
        expires_at   REAL    NOT NULL,
        closed_at    REAL,
        closed_by    INTEGER,
        members      TEXT    NOT NULL,
        balances     TEXT    NOT NULL,
        payments     TEXT    NOT NULL,
        exact        INTEGER NOT NULL DEFAULT 1
    );
    CREATE INDEX settle_plans_open ON settle_plans (status, expires_at);
    CREATE TABLE settle_plan_people (
        plan_id      INTEGER NOT NULL REFERENCES settle_plans (id),
        user_id      INTEGER NOT NULL,
        accepted_at  REAL,
        PRIMARY KEY (plan_id, user_id)
    );
    """,
    # 10: tournaments (issue 33): a tournament, its entrants, the games of its tables (one per
    # round, table and attempt: a round is started once) and its events in the order they
    # happened (append-only; one result per game), from which the pure core rebuilds it. A
    # buy-in's pot is paid out as ledger lines of a new kind, ``pot``: SQLite keeps a CHECK in
    # the table's text only, so the text is changed in place (the documented way for a CHECK,
    # https://sqlite.org/lang_altertable.html#otheralter), the schema's version bumped.
    """
    PRAGMA writable_schema = ON;
    UPDATE sqlite_master SET sql = replace(sql, '''void'', ''netting'')',
        '''void'', ''netting'', ''pot'')') WHERE type = 'table' AND name = 'ledger';
    PRAGMA schema_version = schema_version + 1;
    PRAGMA writable_schema = OFF;
    CREATE TABLE tournaments (
        id                 INTEGER PRIMARY KEY,
        guild_id           INTEGER NOT NULL,
        channel_id         INTEGER NOT NULL,
        message_id         INTEGER,
        board_message_id   INTEGER,
        result_message_id  INTEGER,
        organiser_id       INTEGER NOT NULL,
        name               TEXT    NOT NULL,
        rules              TEXT    NOT NULL,
        format             TEXT    NOT NULL,
        seats              INTEGER NOT NULL DEFAULT 2,
        stake_cents        INTEGER NOT NULL DEFAULT 0,
        buy_in_cents       INTEGER NOT NULL DEFAULT 0,
        currency           TEXT    NOT NULL DEFAULT '$',
        allow_computer     INTEGER NOT NULL DEFAULT 0,
        deadline_s         INTEGER NOT NULL,
        start_at           REAL,
        status             TEXT    NOT NULL DEFAULT 'open'
                           CHECK (status IN ('open', 'running', 'finished', 'cancelled')),
        created_at         REAL    NOT NULL,
        board_events       INTEGER NOT NULL DEFAULT -1
    );
    CREATE INDEX tournaments_status ON tournaments (status, guild_id);
    CREATE TABLE tournament_entrants (
        tournament_id  INTEGER NOT NULL REFERENCES tournaments (id),
        position       INTEGER NOT NULL,
        user_id        INTEGER NOT NULL,
        name           TEXT    NOT NULL,
        rating         REAL    NOT NULL,
        PRIMARY KEY (tournament_id, position)
    );
    CREATE UNIQUE INDEX tournament_entrants_user ON tournament_entrants (tournament_id, user_id);
    CREATE TABLE tournament_games (
        tournament_id  INTEGER NOT NULL REFERENCES tournaments (id),
        round          INTEGER NOT NULL,
        table_no       INTEGER NOT NULL,
        attempt        INTEGER NOT NULL,
        game_id        INTEGER NOT NULL REFERENCES games (id),
        created_at     REAL    NOT NULL,
        posted         INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tournament_id, round, table_no, attempt)
    );
    CREATE UNIQUE INDEX tournament_games_game ON tournament_games (game_id);
    CREATE TABLE tournament_events (
        tournament_id  INTEGER NOT NULL REFERENCES tournaments (id),
        seq            INTEGER NOT NULL,
        kind           TEXT    NOT NULL CHECK (kind IN ('played', 'withdrawal')),
        round          INTEGER,
        table_no       INTEGER,
        places         TEXT,
        player_id      INTEGER,
        game_id        INTEGER,
        created_at     REAL    NOT NULL,
        PRIMARY KEY (tournament_id, seq)
    );
    CREATE UNIQUE INDEX tournament_events_game ON tournament_events (game_id)
        WHERE game_id IS NOT NULL;
    CREATE TRIGGER tournament_events_no_update BEFORE UPDATE ON tournament_events
    BEGIN SELECT RAISE(ABORT, 'the tournament_events is append-only'); END;
    CREATE TRIGGER tournament_events_no_delete BEFORE DELETE ON tournament_events
    BEGIN SELECT RAISE(ABORT, 'the tournament_events is append-only'); END;
    """,
)


_BUMP = "PRAGMA schema_version = schema_version + 1;"
"""A migration's statement after ``sqlite_master`` was changed by hand: the schema's version
goes up by one, so that every connection reads the schema again."""

SQLITE_SCHEMA_VERSION = len(MIGRATIONS)
"""The schema version (``PRAGMA user_version``) of a SQLite database this bot has migrated."""


async def schema_version(conn: Conn) -> int:
    """The migration number the database is at."""
    return int(await conn.fetchval("PRAGMA user_version") or 0)


async def migrate(conn: Conn, *, history: bool = False) -> None:
    """Apply the migrations the database lacks, each in a transaction of its own; a new
    database (version 0) is made from the declaration in one (``history``: along every
    migration instead, as the tests do to compare the two)."""
    current = await schema_version(conn)
    if current == 0 and not history:
        await _run([sqlite_ddl()], len(MIGRATIONS), conn)
        return
    if current > len(MIGRATIONS):
        raise StorageError(
            f"The database is at schema version {current}, newer than this bot knows "
            f"({len(MIGRATIONS)}). Update the bot."
        )
    for number in range(current + 1, len(MIGRATIONS) + 1):
        await _run([list(_statements(MIGRATIONS[number - 1]))], number, conn)


async def _run(scripts: list[list[str]], version: int, conn: Conn) -> None:
    await conn.execute("BEGIN IMMEDIATE")
    try:
        for statements in scripts:
            for statement in statements:
                if statement.strip() == _BUMP:  # one more than it is: read it first
                    bumped = int(await conn.fetchval("PRAGMA schema_version")) + 1
                    statement = f"PRAGMA schema_version = {bumped}"
                await conn.execute(statement)
        await conn.execute(f"PRAGMA user_version = {version}")
        await conn.execute("COMMIT")
    except BaseException:
        await conn.execute("ROLLBACK")
        raise


def _statements(script: str) -> Iterable[str]:
    # Split on complete statements (a trigger's body holds semicolons of its own).
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                yield buffer
            buffer = ""
    if buffer.strip():
        yield buffer
