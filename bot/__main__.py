"""``python -m bot``: run the bot; ``sandbox``, ``health``, ``backup``, ``restore`` and ``migrate``
beside it (``python -m bot --help``, ``python -m bot COMMAND --help``).

Exit status: 0 done; 1 refused or failed (the message says why, and nothing was changed);
2 a wrong command line or setting.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
import time

from .ops.config import Config, ConfigError

OWN_LOGGERS = ("bot", "engine")
"""The loggers ``LOG_LEVEL`` raises: the bot's own, never a library's."""


def configure_logging(level: str) -> None:
    """Log to stderr: the bot's own loggers at ``level``, libraries at INFO at most.

    Libraries log secrets at DEBUG (aiosqlite every saved game state, with both hands, the
    stock order and the seed; discord.py interaction tokens), so ``LOG_LEVEL=DEBUG`` must not
    reach them.
    """
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        numeric = logging.INFO
    logging.basicConfig(
        level=max(numeric, logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
        force=True,
    )
    for name in OWN_LOGGERS:
        logging.getLogger(name).setLevel(numeric)


def health(config: Config, now: float | None = None) -> int:
    """``python -m bot health``: 0 while the running bot's housekeeping loop keeps writing its
    heartbeat and its rounds succeed (the Docker HEALTHCHECK), 1 with the reason otherwise:
    no heartbeat, a stale one, a loop that stopped, or rounds failing for longer than that."""
    import json

    path = config.heartbeat_path
    allowed = max(3 * config.tick, 180.0)
    now = time.time() if now is None else now
    try:
        age = now - path.stat().st_mtime
        text = path.read_text()
    except FileNotFoundError:
        print(f"unhealthy: no heartbeat at {path} (the bot isn't running, or not ready yet)")
        return 1
    try:
        state = json.loads(text) if text.strip() else {}
    except ValueError:
        state = {}  # an older bot's empty heartbeat: its age says it all
    if not isinstance(state, dict):
        state = {}
    if state.get("loop") == "stopped":
        print(f"unhealthy: the housekeeping loop stopped ({state.get('stopped_by')}); "
              "reminders, claims, backups and the computer's turns wait for a restart")
        return 1
    if age > allowed:
        print(f"unhealthy: the last heartbeat is {age:.0f} s old (allowed {allowed:.0f} s)")
        return 1
    failing = state.get("failing_since")
    if isinstance(failing, (int, float)) and now - failing > allowed:
        print(f"unhealthy: housekeeping rounds have failed for {now - failing:.0f} s "
              f"(last error: {state.get('last_error')})")
        return 1
    if isinstance(failing, (int, float)):
        print(f"healthy: heartbeat {age:.0f} s ago, but the last rounds failed "
              f"({state.get('last_error')}); retrying")
        return 0
    print(f"healthy: heartbeat {age:.0f} s ago")
    return 0


def backup_command(config: Config, dest: str, overwrite: bool) -> int:
    """``python -m bot backup PATH``: a consistent copy of the database while the bot runs."""
    from .ops.backup import BackupError, backup

    try:
        info = backup(config.database, dest, overwrite=overwrite)
    except BackupError as exc:
        print(f"spite-malice-bot: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"spite-malice-bot: the backup failed: {exc}", file=sys.stderr)
        return 1
    print(f"Backed up {config.database} to {info.path} ({info.describe()}).")
    return 0


def restore_command(config: Config, src: str) -> int:
    """``python -m bot restore PATH``: check the backup, then put it in place of the database
    (the bot must be stopped; the database it replaces is kept)."""
    from .ops.backup import BackupError, restore
    from .ops.dblock import DatabaseInUse
    from .storage import SQLITE_SCHEMA_VERSION

    try:
        done = restore(src, config.database)
    except DatabaseInUse as exc:
        print(f"spite-malice-bot: nothing was restored. {exc}", file=sys.stderr)
        return 1
    except BackupError as exc:
        print(f"spite-malice-bot: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"spite-malice-bot: the restore failed: {exc}", file=sys.stderr)
        return 1
    print(f"Restored {done.database} from {src} ({done.restored.describe()}).")
    if done.kept is not None:
        print(f"The database it replaced is kept at {done.kept}.")
    if done.restored.schema_version < SQLITE_SCHEMA_VERSION:
        print(f"It is at schema version {done.restored.schema_version}; the bot brings it up "
              f"to {SQLITE_SCHEMA_VERSION} when it starts.")
    return 0


def migrate_command(config: Config, target: str) -> int:
    """``python -m bot migrate --to URL``: copy the SQLite database into PostgreSQL."""
    from .ops.migrate import MigrationError, migrate

    try:
        asyncio.run(migrate(config.database, target))
    except MigrationError as exc:
        print(f"spite-malice-bot: nothing was migrated. {exc}", file=sys.stderr)
        return 1
    return 0


def version() -> str:
    """The installed package's version (the source tree's when it isn't installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("spite-malice-bot")
    except PackageNotFoundError:
        return "unknown (not installed)"


def parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The command line: ``python -m bot`` runs the bot; sub-commands do the rest. Returns the
    parser and each command's own (which reports what is wrong with that command's words)."""
    top = argparse.ArgumentParser(
        prog="python -m bot", description="Run the Spite & Malice bot (with no command), or "
        "one of the commands below. Settings come from the environment or .env "
        "(see .env.example).",
        epilog="Exit status: 0 done; 1 refused or failed (the message says why, and nothing "
        "was changed); 2 a wrong command line or setting.")
    top.add_argument("--version", action="version", version=f"spite-malice-bot {version()}")
    commands = top.add_subparsers(dest="command", title="commands", metavar="COMMAND")
    commands.add_parser("run", help="run the bot (the same as no command)",
                        description="Run the bot until it is stopped (Ctrl-C or SIGTERM).")
    sandbox = commands.add_parser(
        "sandbox", usage="python -m bot sandbox [--port PORT] [--data DIR | --fresh]",
        help="try the bot without Discord: a Discord channel in your browser",
        description="Run the bot against a local stand-in for Discord and play it in a web "
        "page at http://127.0.0.1:PORT (this machine only). No token, no network: the page "
        "lets you be Alice, Bob, Carol or Dave; challenge the bot to play the computer. "
        "Ctrl-C stops it.")
    sandbox.add_argument("--port", type=int, default=8080,
                         help="the page's port on 127.0.0.1 (default 8080; 0: any free port)")
    keep = sandbox.add_mutually_exclusive_group()
    keep.add_argument("--data", metavar="DIR", default="sandbox-data",
                      help="where the games are kept between runs (default ./sandbox-data)")
    keep.add_argument("--fresh", action="store_true",
                      help="start empty, in a temporary folder deleted at the end")
    commands.add_parser("health", help="is the running bot's housekeeping alive?",
                        description="Exit 0 while the running bot's housekeeping loop keeps "
                        "writing its heartbeat (the Docker HEALTHCHECK), 1 otherwise.")
    backup = commands.add_parser(
        "backup", usage="python -m bot backup PATH [--overwrite]",
        help="copy the database to PATH (a file or a folder)",
        description="A consistent copy of the database while the bot runs (SQLite; for "
        "PostgreSQL it says which pg_dump command to run).")
    backup.add_argument("path", metavar="PATH", help="the backup file, or a folder for it")
    backup.add_argument("--overwrite", action="store_true", help="replace PATH if it exists")
    restore = commands.add_parser(
        "restore", usage="python -m bot restore PATH",
        help="put the backup PATH in place (bot stopped)",
        description="Check the backup, then put it in place of the database (the bot must "
        "be stopped; the database it replaces is kept beside it).")
    restore.add_argument("path", metavar="PATH", help="the backup file")
    migrate = commands.add_parser(
        "migrate", usage="python -m bot migrate --to postgresql://USER@HOST/NAME",
        help="copy the SQLite database into an empty PostgreSQL one (bot stopped)",
        description="Copy the SQLite database into an empty PostgreSQL database and check the "
        "copy game by game (the bot must be stopped).")
    migrate.add_argument("--to", required=True, metavar="URL",
                         help="the PostgreSQL database, postgresql://user@host/name")
    return top, dict(commands.choices)


def main(argv: list[str] | None = None) -> int:
    """Read the settings, then run the bot until it is stopped (or check its health, or back
    up, restore or migrate its database)."""
    top, each = parser()
    try:
        args, extra = top.parse_known_args(sys.argv[1:] if argv is None else argv)
        if extra:
            each.get(args.command, top).error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # --help, --version (0) or a wrong command line (2)
        return exc.code if isinstance(exc.code, int) else 2
    command = args.command or "run"
    if command == "sandbox":
        return sandbox_command(args.port, None if args.fresh else args.data)
    try:
        config = Config.from_env(require_token=command == "run")
    except ConfigError as exc:
        print(f"spite-malice-bot: {exc}", file=sys.stderr)
        return 2
    if command == "health":
        return health(config)
    if command == "backup":
        return backup_command(config, args.path, args.overwrite)
    if command == "restore":
        return restore_command(config, args.path)
    if command == "migrate":
        return migrate_command(config, args.to)
    return run_command(config)


def run_command(config: Config) -> int:
    """``python -m bot``: run the bot until it is stopped."""
    configure_logging(config.log_level)
    from .app.running import run
    from .ops.dblock import DatabaseInUse
    from .storage import StorageError

    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(run(config))
    except DatabaseInUse as exc:
        print(f"spite-malice-bot: {exc}", file=sys.stderr)
        return 2
    except StorageError as exc:  # the database can't be opened (a server down, a bad file)
        print(f"spite-malice-bot: {exc}", file=sys.stderr)
        return 2
    return 0


def sandbox_command(port: int, data: str | None) -> int:
    """``python -m bot sandbox``: the real bot against the local stand-in for Discord, played
    in a web page. ``data``: the folder kept between runs (``None``: a temporary one)."""
    import dataclasses
    import errno
    import tempfile
    from pathlib import Path

    from .ops.dblock import DatabaseInUse, hold_database
    from .sandbox.server import FakeDiscord
    from .sandbox.session import run_sandbox
    from .sandbox.world import WorldError
    from .storage import StorageError

    if not 0 <= port <= 65535:
        print("spite-malice-bot: --port must be between 0 and 65535.", file=sys.stderr)
        return 2
    try:
        # The sandbox's own settings; the environment may only set how much is logged.
        env = Config.from_env(require_token=False)
    except ConfigError as exc:
        print(f"spite-malice-bot: {exc}", file=sys.stderr)
        return 2
    configure_logging(env.log_level)
    with contextlib.ExitStack() as stack:
        if data is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="sandbox-")))
        else:
            folder = Path(data).resolve()
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        database = folder / "spite-malice.sqlite3"
        try:
            # Before the saved Discord is read: a second sandbox on the folder must not
            # write its copy over the first one's.
            lock = hold_database(database)
        except DatabaseInUse:
            print(f"spite-malice-bot: another sandbox is already running on {folder}; stop "
                  "it, or give this one another --data folder (or --fresh).", file=sys.stderr)
            return 2
        if lock is not None:
            stack.callback(lock.close)

        async def run_bot(fake: FakeDiscord) -> None:
            from .app.running import run

            await run(dataclasses.replace(
                env, token=fake.token, database=str(database), api_base=fake.api_base,
                gateway_url=fake.gateway_url, guild_id=None, shards=None, heartbeat_file=None,
                backup_keep=0))

        def say(line: str) -> None:
            print(line, flush=True)

        try:
            with contextlib.suppress(KeyboardInterrupt):
                asyncio.run(run_sandbox(port, folder if data is not None else None, run_bot,
                                        say))
        except WorldError as exc:
            print(f"spite-malice-bot: {exc}", file=sys.stderr)
            return 2
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                print(f"spite-malice-bot: port {port} is taken by another program; give the "
                      "sandbox another one with --port (0: any free port).", file=sys.stderr)
            else:
                print(f"spite-malice-bot: the sandbox couldn't start: {exc}", file=sys.stderr)
            return 2
        except StorageError as exc:
            print(f"spite-malice-bot: {exc}", file=sys.stderr)
            return 2
    print("Sandbox stopped." + (f" Games are kept in {folder}." if data is not None else ""),
          flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
