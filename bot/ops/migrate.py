"""``python -m bot migrate --to postgresql://…``: move a SQLite database to PostgreSQL.

Copies everything (settings, challenges, games with their moves, the ledger and what is derived
from it, ratings, settlements) into an empty PostgreSQL database, then checks the copy before
saying it is done:

- every table holds as many rows as in the source;
- every game is the same match in both (its snapshot plus later moves), and that match is a
  replay of its whole move log from the deal's seed (replayed by one process per core,
  ``replay_check``);
- every pair's balance summed from the ledger's lines equals its running summary, and equals
  the source's.

The bot must be stopped while this runs (it is refused while a bot holds the SQLite file); the
source is left as it was, so going back is starting the bot on it again.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.storage import Storage, StorageError, is_postgres_url

from .dblock import DatabaseInUse, hold_database
from .replay_check import ReplayMismatch, check_replays

__all__ = ["PROGRESS_EVERY", "MigrationError", "migrate"]

PROGRESS_EVERY = 10.0
"""Seconds between the progress lines of a long table's copy and of the replay check (on a big
database each takes minutes)."""


class MigrationError(RuntimeError):
    """The migration was refused or its check failed; the message says why."""


async def migrate(source: str, target: str, say: Callable[[str], None] = print) -> None:
    """Copy the SQLite database ``source`` into the empty PostgreSQL database ``target`` and
    check the copy; raises ``MigrationError`` with the reason if anything is wrong."""
    if is_postgres_url(source):
        raise MigrationError("The source is already PostgreSQL: migrate copies a SQLite "
                             "database (DATABASE) into PostgreSQL.")
    if not is_postgres_url(target):
        raise MigrationError("--to must be a PostgreSQL URL (postgresql://user@host/db).")
    try:
        held = hold_database(source)
    except DatabaseInUse as exc:
        raise MigrationError(f"{exc} Stop the bot before migrating.") from None
    try:
        await _migrate(source, target, say)
    finally:
        if held is not None:
            held.close()


async def _migrate(source: str, target: str, say: Callable[[str], None]) -> None:
    try:
        old = await Storage.open(source)
    except StorageError as exc:
        raise MigrationError(f"Can't open the SQLite database {source}: {exc}") from None
    try:
        try:
            new = await Storage.open(target)
        except StorageError as exc:
            raise MigrationError(str(exc)) from None
        try:
            filled = {t: n for t, n in (await new.table_counts()).items() if n}
            if filled:
                raise MigrationError(
                    "The PostgreSQL database isn't empty (" + ", ".join(
                        f"{t}: {n} rows" for t, n in filled.items()) + "); migrate copies into "
                    "an empty database only, so nothing was written.")
            counts = await old.table_counts()
            say(f"Copying {sum(counts.values()):,} rows from {source}…")
            try:
                copied = await old.copy_into(new, lambda line: say(f"  {line}"),
                                             PROGRESS_EVERY)
            except StorageError as exc:
                raise MigrationError(f"The copy was refused, so nothing was written: {exc}"
                                     ) from None
            await _check(old, new, counts, copied, say)
        finally:
            await new.close()
    finally:
        await old.close()


async def _check(old: Storage, new: Storage, counts: dict[str, int], copied: dict[str, int],
                 say: Callable[[str], None]) -> None:
    after = await new.table_counts()
    wrong = [t for t in counts if not counts[t] == copied[t] == after[t]]
    if wrong:
        raise MigrationError("Row counts differ after the copy: " + ", ".join(
            f"{t} (source {counts[t]}, copied {copied[t]}, now {after[t]})" for t in wrong))
    say(f"Row counts match in all {len(counts)} tables.")
    try:
        # Every game compared and replayed from its seed, over the machine's cores.
        games = await check_replays(old, new, say, PROGRESS_EVERY)
    except ReplayMismatch as exc:
        raise MigrationError(str(exc)) from None
    say(f"All {games} games are the replay of their moves.")
    pairs_old, pairs_new = await old.ledger_pairs(), await new.ledger_pairs()
    bad = [key for key, (summed, kept) in pairs_new.items() if summed != kept]
    if pairs_old != pairs_new or bad:
        raise MigrationError("Ledger balances differ after the copy"
                             + (f" (server {bad[0][0]}, users {bad[0][1]} and {bad[0][2]})"
                                if bad else "") + ".")
    say(f"All {len(pairs_new)} balances between two players match their ledger lines.")
    say("Done. Set DATABASE to the PostgreSQL URL and start the bot.")

