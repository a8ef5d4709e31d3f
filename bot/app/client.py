"""The bot: a ``commands.Bot`` that wires storage, services, boards, buttons and commands.

``setup_hook`` opens the database, registers the dynamic buttons (so buttons posted before a
restart keep working), loads the cog and syncs the slash commands; at the first connect, the
boards a restart left behind are drawn again before any interaction is answered; a background
loop expires challenges, reminds players on turn and offers a claim on stuck games.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any, cast

import discord
import yarl
from discord import app_commands
from discord.ext import commands, tasks

from bot.failures import FailureLog
from bot.games.game_service import GameService, LiveGame, MoveOutcome, UserError
from bot.games.history import HistoryService
from bot.money.amounts import format_amount
from bot.money.ledger_service import LedgerService
from bot.money.plans import PlanService
from bot.money.seasons import SeasonService
from bot.ops.backup import DailyBackups
from bot.ops.config import Config
from bot.pictures.drawing import pictures
from bot.pictures.text import (
    EXPIRED,
    RESTARTING,
    quote,
    result_announcement,
    result_text,
)
from bot.shards import ShardSet
from bot.storage import ShardInUse, Storage, StorageError

from . import retry, tournament_flow
from .board import BoardPublisher
from .cogs.plan_commands import close_due_plans
from .host import Host, Interaction
from .invitations import DYNAMIC_ITEMS as INVITATION_ITEMS
from .invitations import challenge_controls, result_controls, table_controls
from .options import misread_nesting, misread_option
from .rate_limits import sweep_buckets_less_often
from .result_money import money_words
from .retry import describe, retryable, with_retries
from .season_posts import post_due_seasons
from .stopping_tasks import cancel_until_done, where_tasks_are
from .ui import (
    DYNAMIC_ITEMS,
    ClaimButton,
    Controls,
    answer_unclaimed,
    failure_reply,
    reply_error,
)

__all__ = ["ShardedSpiteBot", "SpiteBot", "SpiteTree", "apply_endpoints", "new_bot"]

log = logging.getLogger(__name__)

INTERACTION_TASKS = ("CommandTree-invoker", "discord-ui-", "discord.py: on_interaction")
"""Names of the tasks discord.py runs interaction handlers in (awaited when stopping): commands,
buttons and menus, and ``on_interaction`` (the answer to a click no item claimed)."""

STOP_SECONDS = 8.0
"""How long a clean stop waits, in all, for running interactions and pending boards: Docker
kills a container 10 s after its SIGTERM unless told otherwise. A board not drawn by then is
drawn at the next start, as soon as the bot connects and before its first answer
(``SpiteBot.on_connect``), so only a moment is lost."""


REPAIR_WAIT = 2.0
"""Seconds at most an interaction that arrives just after a restart waits for the boards the
restart left behind to be drawn again (it still answers within Discord's 3 s)."""

THREAD_TIMEOUT = 10.0
"""Seconds a new game waits for its thread before it is played in the channel instead."""

NO_THREAD = ("🧵 I couldn't open a thread for this game (Discord didn't answer in time), so "
             "it is played right here in the channel.")


VOICE_WARNINGS = frozenset({"PyNaCl is not installed, voice will NOT be supported",
                            "davey is not installed, voice will NOT be supported"})
"""What discord.py warns at every start when its voice libraries are missing: the bot has no
voice, so these two (and nothing else) are dropped."""


def _not_about_voice(record: logging.LogRecord) -> bool:
    return record.getMessage() not in VOICE_WARNINGS


# On the logger itself, not a handler: it holds wherever the logs go (ours, the sandbox's).
logging.getLogger("discord.client").addFilter(_not_about_voice)


def apply_endpoints(config: Config) -> None:
    """Point discord.py at a REST proxy or a local Discord stand-in, if configured."""
    if config.api_base:
        discord.http.Route.BASE = config.api_base.rstrip("/")
    if config.gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(config.gateway_url)


class Stopping(app_commands.CheckFailure):
    """A command arrived while the bot is stopping (it was already answered)."""


def unknown_command(name: str) -> str:
    """The answer to a command the bot doesn't have: one Discord still offers (its list takes
    a while to update everywhere) or one a client made up."""
    shown = "".join(c for c in name.lower() if c.isascii() and (c.isalnum() or c in "-_"))[:32]
    return (f"I have no /{shown} command (any more), so nothing was changed. "
            "Type / to see mine, or use /help.")


class SpiteTree(app_commands.CommandTree[Host]):
    """Turns every refusal into a polite private reply; logs real failures."""

    async def interaction_check(self, interaction: Interaction) -> bool:
        client = interaction.client
        if isinstance(client, SpiteBot) and client.stopping:
            if interaction.type is discord.InteractionType.autocomplete:
                return False
            with contextlib.suppress(discord.HTTPException):
                await interaction.response.send_message(RESTARTING, ephemeral=True)
            raise Stopping()
        if isinstance(client, SpiteBot) and \
                interaction.type is not discord.InteractionType.autocomplete:
            await client.boards_repaired()
        problem = self._misread(interaction)
        if problem is None:
            return True
        # Refused before anything runs (discord.py would pass the value on as it came, or fail
        # reading it without a word): a private answer, or no suggestions while typing.
        with contextlib.suppress(discord.HTTPException):
            if interaction.type is discord.InteractionType.autocomplete:
                await interaction.response.autocomplete([])
            else:
                await reply_error(interaction, problem)
        return False

    def _misread(self, interaction: Interaction) -> str | None:
        """Why a command's payload can't be run as sent (a command the bot doesn't have, an
        option value of the wrong type); ``None`` when it can. Logged at INFO: it is what a
        stale or modified client sends, not a failure of the bot."""
        data: dict[str, Any] = dict(interaction.data or {})
        name = str(data.get("name", ""))[:32]
        try:
            if data.get("type", 1) != 1:
                if self._get_context_menu(cast(Any, data)) is None:
                    raise app_commands.CommandNotFound(name, [])
                return None  # a context menu has no options
            nesting = misread_nesting(data.get("options"))
            if nesting is not None:
                return nesting
            command, options = self._get_app_command_options(cast(Any, data))
        except app_commands.CommandNotFound:
            log.info("refused a command the bot doesn't have (%r)", name)
            return unknown_command(name)
        except app_commands.AppCommandError:
            # A group given options but no subcommand: discord.py would fail on it later.
            log.info("refused /%s: no subcommand", name)
            return "I couldn't read the command's options. Nothing was changed."
        problem = misread_option(
            command, options, data.get("resolved"),
            typing=interaction.type is discord.InteractionType.autocomplete)
        if problem is not None:
            log.info("refused /%s: %s", command.qualified_name, problem)
        return problem

    async def on_error(
        self, interaction: Interaction, error: app_commands.AppCommandError
    ) -> None:
        original = getattr(error, "original", error)
        if isinstance(error, Stopping):
            return
        if isinstance(original, UserError):
            message = str(original)
        elif isinstance(error, app_commands.CommandNotFound):
            # Discord still offers a command this bot no longer has (its list of commands
            # takes a while to update everywhere), or a client sent a made-up one.
            message = unknown_command(error.name)
        elif isinstance(error, app_commands.NoPrivateMessage):
            message = "Spite & Malice is played in a server channel, not in direct messages."
        elif isinstance(error, app_commands.TransformerError):
            message = (f"I couldn't read the option value {quote(str(error.value))}. "
                       "Please check it and try again.")
        elif isinstance(error, app_commands.CheckFailure):
            message = "You can't use that command here."
        else:
            message = failure_reply(interaction.client, original,
                                    f"command {interaction.command and interaction.command.name}",
                                    log)
        with contextlib.suppress(discord.HTTPException):
            await reply_error(interaction, message)


class SpiteBot(Host):
    """The Spite & Malice bot."""

    storage: Storage
    service: GameService
    ledger: LedgerService
    plans: PlanService
    _boards: BoardPublisher
    _history: HistoryService

    def __init__(self, config: Config, *, seed_source: Callable[[], int] | None = None,
                 clock: Callable[[], float] | None = None) -> None:
        # Interactions come whatever the intents. The guilds intent keeps the guilds, channels
        # and threads known; no message events (each board's post and edit came back as one,
        # parsed into a message the bot never read: a board's message is edited by its id,
        # and a deleted one shows as NotFound on the next edit), no typing, no reactions.
        intents = discord.Intents.none()
        intents.guilds = True
        shard_options: dict[str, Any] = {}
        if config.shards is not None:
            if not isinstance(self, commands.AutoShardedBot):
                raise TypeError("a sharded bot is a ShardedSpiteBot (new_bot picks the class)")
            shard_options = {"shard_count": config.shards.count,
                             "shard_ids": sorted(config.shards.ids)}
        # No message cache: the bot edits its messages by id (partial messages) and never
        # reads one back from the cache, which held the last 1,000 messages posted anywhere
        # the bot can see (boards, with their embeds and attachments).
        super().__init__(command_prefix=commands.when_mentioned, intents=intents,
                         help_command=None, tree_cls=SpiteTree, max_messages=None,
                         **shard_options)
        sweep_buckets_less_often(self.http)
        self.config = config
        self._seed_source = seed_source
        self._clock = clock or time.time
        self._computer_tasks: dict[int, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        # Housekeeping: a round every ``tick`` seconds. A round that fails is logged and the
        # next one runs all the same; the start-up steps (the computer's turns, boards and
        # results left behind by a restart) are part of the rounds until they have succeeded.
        self.housekeeping = tasks.loop(seconds=config.tick)(self._housekeeping_round)
        self.housekeeping.before_loop(self._before_housekeeping)
        # Typed for a loop declared in a class (self, error); one made per bot gets (error).
        self.housekeeping.error(self._housekeeping_stopped)  # type: ignore[type-var]
        self._recovered = False
        self._backups: DailyBackups | None = None
        self._last_ok: float | None = None
        self._failing_since: float | None = None
        self._last_error: str | None = None
        self.failures = FailureLog(log)
        """What failed, said once per kind per minute (Discord and the database)."""
        self._stopping: asyncio.Task[None] | None = None
        self._start_repair: asyncio.Task[None] | None = None
        self._dynamic_items: tuple[type[discord.ui.DynamicItem[Any]], ...] = ()

    @property
    def computer_id(self) -> int:
        """The computer opponent is the bot's own user."""
        assert self.user is not None
        return self.user.id

    @property
    def boards(self) -> BoardPublisher:
        """The public board publisher."""
        return self._boards

    @property
    def history(self) -> HistoryService:
        """Finished games: ``/history`` and ``/replay``."""
        return self._history

    async def setup_hook(self) -> None:
        from .cogs.game_commands import GamesCog
        from .cogs.history_commands import DYNAMIC_ITEMS as HISTORY_ITEMS
        from .cogs.history_commands import HistoryCog
        from .cogs.money_commands import DYNAMIC_ITEMS as MONEY_ITEMS
        from .cogs.money_commands import MoneyCog
        from .cogs.plan_commands import DYNAMIC_ITEMS as PLAN_ITEMS
        from .cogs.plan_commands import PlanCog
        from .cogs.season_commands import SeasonCog
        from .cogs.tournament_commands import TournamentCog

        self.storage = await Storage.open(self.config.database, self._clock)
        # Two processes running one shard (or two unsharded ones) on one PostgreSQL would do
        # its housekeeping twice: the second refuses to start.
        await self.storage.claim_shards(self.config.shards or ShardSet.single())
        self.service = GameService(self.storage, computer_id=self.computer_id, clock=self._clock,
                                   seed_source=self._seed_source, shards=self.config.shards,
                                   failures=self.failures)
        self.service.live.listeners.append(self._on_game_change)
        self._boards = BoardPublisher(self, self.config.board_delay)
        self.ledger = LedgerService(self.storage)
        self.seasons = SeasonService(self.storage)
        self.plans = PlanService(self.storage)
        self._history = HistoryService(self.storage)
        self._dynamic_items = (*DYNAMIC_ITEMS, *INVITATION_ITEMS, *MONEY_ITEMS, *HISTORY_ITEMS,
                               *PLAN_ITEMS, *tournament_flow.DYNAMIC_ITEMS)
        self.add_dynamic_items(*self._dynamic_items)
        await self.add_cog(GamesCog(self))
        await self.add_cog(MoneyCog(self))
        await self.add_cog(PlanCog(self))
        await self.add_cog(HistoryCog())
        await self.add_cog(SeasonCog(self))
        await self.add_cog(TournamentCog())
        if self.config.shards is not None and 0 not in self.config.shards.ids:
            pass  # the commands are the bot's, not a shard's: shard 0's process uploads them
        elif self.config.guild_id:
            guild = discord.Object(id=self.config.guild_id)
            self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        else:
            await self.tree.sync()
        self.housekeeping.start()

    @property
    def stopping(self) -> bool:
        """True once the bot has begun to stop: new commands are turned away politely."""
        return self._stopping is not None

    async def close(self) -> None:
        """Stop in the reverse order of start (safe to call more than once, from anywhere).

        Background work stops first (housekeeping, the computer's turns); interactions already
        running finish; pending board updates are drawn; then the connection to Discord
        closes, and the database last.
        """
        if self._stopping is None:
            self._stopping = asyncio.create_task(self._stop(), name="stop")
        await asyncio.shield(self._stopping)

    async def _stop(self) -> None:
        log.info("stopping: finishing what is running")
        loop = asyncio.get_running_loop()
        step = ["stopping the background work"]
        # A stop must end within docker's 10 s; one that does not says where it is stuck.
        slow = loop.call_later(STOP_SECONDS + 1, lambda: log.warning(
            "stopping takes longer than %.0f s: still %s (tasks running: %s)",
            STOP_SECONDS + 1, step[0], where_tasks_are()))
        try:
            await self._stop_steps(step)
        finally:
            slow.cancel()
        log.info("stopped")

    async def _stop_steps(self, step: list[str]) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STOP_SECONDS

        def left(at_most: float) -> float:
            return max(0.1, min(at_most, deadline - loop.time()))

        self.housekeeping.stop()  # ends the loop after its round even if a cancel is lost
        ticker = self.housekeeping.get_task()
        owned = [t for t in (ticker, *self._computer_tasks.values(), *self._tasks) if t]
        await cancel_until_done(owned, timeout=left(STOP_SECONDS * 0.3))
        step[0] = "waiting for the running interactions"
        # A player waits for each running interaction; boards come after them.
        await self._wait_for_interactions(timeout=left(STOP_SECONDS * 0.6))
        if hasattr(self, "boards"):
            step[0] = "drawing the pending boards"
            flush = asyncio.ensure_future(self.boards.flush())
            await asyncio.wait({flush}, timeout=left(STOP_SECONDS))
            if not flush.done():
                log.warning("%d board updates were not drawn before stopping; they are drawn "
                            "at the next start", self.boards.pending)
                flush.cancel()  # and with it the drawings under way
                await asyncio.gather(flush, return_exceptions=True)
            elif flush.exception() is not None:
                log.error("some board updates could not be drawn before stopping",
                          exc_info=flush.exception())
            log.info("boards drawn since the start: %d; updates that found the board up to date "
                     "(not drawn): %d; drawings handed to the drawing processes: %s",
                     self.boards.drawn_count, self.boards.up_to_date_count,
                     dict(pictures.handed))
        step[0] = "closing the connection to Discord"
        await super().close()
        step[0] = "waiting for what slipped in before the connection closed"
        # Anything that slipped in before the gateway closed can't reach Discord any more;
        # let it finish (or fail) before the database goes.
        await self._wait_for_interactions(timeout=1)
        if self._tasks:  # e.g. a rating update scheduled by the last moves
            await asyncio.wait(list(self._tasks), timeout=1)
        step[0] = "stopping the drawing processes"
        await pictures.close()
        if hasattr(self, "storage"):
            step[0] = "closing the database"
            await self.storage.close()

    async def _wait_for_interactions(self, timeout: float) -> None:
        # discord.py runs each command and component callback in a task of its own, named by
        # these prefixes; none has another owner we could ask.
        current = asyncio.current_task()
        running = [t for t in asyncio.all_tasks() if t is not current and not t.done()
                   and t.get_name().startswith(INTERACTION_TASKS)]
        if running:
            _, late = await asyncio.wait(running, timeout=timeout)
            if late:
                log.warning("%d interactions still running after %.0f s; stopping anyway",
                            len(late), timeout)

    async def on_connect(self) -> None:
        # At the first READY, not at ``on_ready``: discord.py says ready only after no server
        # has arrived for ``guild_ready_timeout`` (2 s), and answers interactions meanwhile. The
        # task is made before any interaction's handler runs (READY comes first), so each of
        # them finds it.
        if self._start_repair is None:
            self._start_repair = asyncio.create_task(self._repair_at_start(),
                                                     name="repair boards at start")
            self._tasks.add(self._start_repair)
            self._start_repair.add_done_callback(self._tasks.discard)

    async def _repair_at_start(self) -> None:
        try:
            behind = await self._request_repairs(at_once=True)
            # Interactions wait for this only so long: a board Discord won't take yet (it
            # fails, say) is tried on by the publisher while the bot answers as usual. (A
            # wait given up leaves the drawing alone.)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(
                    *(self.boards.drawn(game_id) for game_id in behind)), REPAIR_WAIT * 2)
        except Exception as exc:
            # The housekeeping's first round looks for the boards behind again.
            self.failures.failed("housekeeping", "repairing the boards at start failed (%s); "
                                 "the first housekeeping round tries again", describe(exc),
                                 exc=None if isinstance(exc, StorageError) else exc)

    async def boards_repaired(self) -> None:
        task = self._start_repair
        if task is not None and not task.done():
            await asyncio.wait({task}, timeout=REPAIR_WAIT)

    async def on_interaction(self, interaction: Interaction) -> None:
        await answer_unclaimed(interaction, self._dynamic_items)

    # ------------------------------------------------------------------ game flow

    async def game_started(self, live: LiveGame, origin_message_id: int | None = None,
                           thread_name: str | None = None) -> int | None:
        """A new game: open its thread from ``origin_message_id`` (the challenge), post its
        board there (soon, off the interaction), and let the computer move if it starts.
        Returns the thread's id, or ``None`` when the game is played in the channel."""
        note = None
        if origin_message_id is not None:
            async with self.boards.held(live.id):  # the first board goes in the thread
                note = await self._open_thread(live, origin_message_id, thread_name)
        self.boards.request(live.id, note)
        self._maybe_computer(live)
        return live.thread_id

    async def _open_thread(self, live: LiveGame, origin_message_id: int,
                           thread_name: str | None = None) -> str | None:
        """Open the game's thread; a note for its first board if it had to stay in the
        channel because Discord failed."""
        settings = await self.service.inviting.settings(live.terms.guild_id)
        parent = self.get_channel(live.terms.channel_id)
        if not settings.use_threads or not isinstance(parent, discord.TextChannel):
            return None  # threads switched off, or challenged in a thread (or a DM) already
        allowed = parent.permissions_for(parent.guild.me)
        missing = [name for name, ok in (
            ("Create Public Threads", allowed.create_public_threads),
            ("Send Messages in Threads", allowed.send_messages_in_threads)) if not ok]
        if missing:
            if settings.thread_notice_at is None:
                await self.service.inviting.update_settings(live.terms.guild_id,
                                                            thread_notice_at=self.service.clock())
                with contextlib.suppress(discord.HTTPException):
                    await parent.send(
                        "ℹ️ Games are played right here for now. If I had the "
                        f"**{'** and **'.join(missing)}** permission"
                        f"{'s' if len(missing) > 1 else ''} in this channel, each game would "
                        "get a thread of its own and keep this channel tidy. (A server "
                        "manager can also turn threads off with `/settings threads:False`.)",
                        allowed_mentions=discord.AllowedMentions.none())
            return None
        rules = self.service.live.facts(live).rules.name
        name = thread_name or f"{' vs '.join(live.names)} · {rules}"[:100]
        try:
            try:  # bounded: discord.py tries a 5xx five times over 25 s, and the game waits
                thread: Any = await asyncio.wait_for(parent.get_partial_message(
                    origin_message_id).create_thread(name=name, auto_archive_duration=10080),
                    THREAD_TIMEOUT)
            except discord.HTTPException as exc:  # opened before a crash: it has the message's
                if exc.code != 160004:  # id (a Discord rule), and the game goes on there
                    raise
                thread = await self.fetch_channel(origin_message_id)
            await self.service.playing.set_thread(live, thread.id)
        except (discord.HTTPException, TimeoutError, StorageError) as exc:
            live.thread_id = None
            self.failures.failed("thread", "game %s: couldn't open a thread (%s); the game is "
                                 "played in the channel", live.id, describe(exc))
            return NO_THREAD
        for user_id in live.players:
            if user_id != self.computer_id:
                with contextlib.suppress(discord.HTTPException):
                    await thread.add_user(discord.Object(id=user_id))
        return None

    async def _on_game_change(self, outcome: MoveOutcome) -> None:
        # Called by the service after every saved change, under the game's lock: only schedule.
        live = outcome.game
        note = None
        if outcome.game_over:
            if outcome.finished_result is not None:
                note = "🏁 " + result_text(outcome.finished_result, live.names)
            if outcome.new_game:
                number = self.service.live.facts(live).game_number
                note = (note or "") + f" Game {number} is dealt."
            for entry in outcome.entries:
                if entry.amount_cents > 0:
                    note = (note or "") + (
                        f" <@{entry.debtor_id}> owes <@{entry.creditor_id}> "
                        f"{format_amount(entry.amount_cents, live.terms.currency)}.")
        self.boards.request(live.id, note)
        self._maybe_computer(live)
        if outcome.match_over:
            self._background(self.announce_result(live.id), f"result-{live.id}")
            self._background(tournament_flow.game_finished(self, live.id),
                             f"tournament-game-{live.id}")
            if outcome.entries:
                self._background(self.ledger.update_ratings(live.terms.guild_id),
                                 f"ratings-{live.id}")
        if any(entry.amount_cents for entry in outcome.entries):
            self._background(self.balances_moved(live.terms.guild_id), f"plans-{live.id}")

    async def announce_result(self, game_id: int) -> None:
        """Tell both players in the channel how the game ended (once, even across restarts
        and failures: tried again with backoff, then at each housekeeping round), with a
        Rematch button (not under a tournament's game); then archive the game's thread."""
        await self.boards.drawn(game_id)  # the final board goes up in the thread first
        try:
            await with_retries(lambda: self._announce_result(game_id), kind="result",
                               what=f"game {game_id}: announcing the result",
                               failures=self.failures, base=self.retry_base, tries=6)
        except Exception as exc:
            self.failures.failed("result", "game %s: the result couldn't be announced (%s); "
                                 "tried again at the next housekeeping round", game_id,
                                 describe(exc), level=logging.ERROR,
                                 exc=None if retryable(exc) else exc)

    async def _announce_result(self, game_id: int) -> None:
        live = await self.service.live.game(game_id)
        if not live.finished or live.result_message_id is not None:
            return
        facts = self.service.live.facts(live)
        money = await money_words(self.storage, live, facts.winner, self.computer_id)
        text = result_announcement(
            game_id=live.id, players=live.players, names=live.names, rules=facts.rules.name,
            result=facts.last_result,
            claimed=await self.storage.games.last_move(live.id) == "claim",
            match_winner=facts.winner,
            scores=facts.scores if facts.target is not None else None, target=facts.target,
            money=money)
        # A tournament's game has no Rematch: the tournament decides who plays whom next.
        tournament = await self.service.tournaments.tournament_of_game(live.id)
        if tournament is not None:
            text += f"\n-# A game of tournament #{tournament}: its next round follows the bracket."
        channel = self.get_partial_messageable(live.terms.channel_id)
        # The nonce: a try again after a lost answer gives back the message already posted.
        message = await channel.send(
            text, view=result_controls(live.id) if tournament is None else discord.utils.MISSING,
            nonce=f"result:{live.id}",
            allowed_mentions=discord.AllowedMentions(users=True, everyone=False, roles=False))
        await self.service.finishing.set_result_message(live, message.id)
        if live.thread_id is not None:
            with contextlib.suppress(discord.HTTPException):
                thread = self.get_channel(live.thread_id) or await self.fetch_channel(
                    live.thread_id)
                if isinstance(thread, discord.Thread):
                    await thread.edit(archived=True)

    async def announce_results(self) -> None:
        """Announce every finished game's result not announced yet (one at a time each)."""
        for game_id in await self.service.finishing.results_unannounced():
            name = f"result-{game_id}"
            if not any(t.get_name() == name and not t.done() for t in self._tasks):
                self._background(self.announce_result(game_id), name)

    def _background(self, coro: Any, name: str) -> None:
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _maybe_computer(self, live: LiveGame) -> None:
        if (not live.terms.vs_computer or live.finished or live.on_turn != self.computer_id
                or self.stopping):
            return  # when stopping, the computer's turn resumes after the restart
        task = self._computer_tasks.get(live.id)
        if task is None or task.done():
            self._computer_tasks[live.id] = asyncio.create_task(
                self._computer_turn(live.id), name=f"computer-{live.id}")

    async def _computer_turn(self, game_id: int) -> None:
        try:
            while True:
                await asyncio.sleep(self.config.computer_delay)
                outcome = await self.service.playing.computer_step(game_id)
                if outcome is None or outcome.turn_passed:
                    break
        except asyncio.CancelledError:
            raise
        except UserError as exc:  # the database not answering: the next round tries again
            self.failures.failed("database", "game %s: the computer's turn: %s", game_id, exc)
            return
        except Exception:
            log.exception("game %s: the computer's turn failed", game_id)
        finally:
            self._computer_tasks.pop(game_id, None)
        with contextlib.suppress(UserError, StorageError):  # tried again at the next round
            live = await self.service.live.game(game_id)
            self._maybe_computer(live)  # the computer may be on turn again (e.g. a new game)

    # ------------------------------------------------------------------ housekeeping

    async def _before_housekeeping(self) -> None:
        await self.wait_until_ready()

    async def _housekeeping_round(self) -> None:
        """One round: the start-up steps until they have all succeeded once, then ``tick``;
        the daily backup; the heartbeat. Nothing in it stops the loop: a failure is logged
        (once a minute while it lasts) and the next round tries again."""
        try:
            await self.storage.keep_shards()  # a database restart drops the shard locks
        except ShardInUse as exc:
            log.critical("%s", exc)
            self._background(self.close(), "stop: shard taken")
            return
        except Exception:
            pass  # the database is away: the round below says so, and this is tried again
        try:
            if not self._recovered:
                await self.recover()
                self._recovered = True
            await self.tick()
        except Exception as exc:
            now = time.time()
            if self._failing_since is None:
                self._failing_since = now
            self._last_error = f"{type(exc).__name__}: {exc}"[:300]
            self.failures.failed("housekeeping", "housekeeping failed (the next round, in "
                                 "%.0f s, tries again): %s", self.config.tick,
                                 self._last_error, level=logging.ERROR,
                                 exc=None if isinstance(exc, StorageError) else exc)
        else:
            self._last_ok = time.time()
            self._failing_since = self._last_error = None
            self.failures.recovered("housekeeping", "housekeeping works again")
        if self._backups is None:
            self._backups = DailyBackups(self.config.database, self.config.backup_keep,
                                         self._clock)
        await self._backups.run_due()  # in a thread; logs its own failures
        self._beat()

    async def recover(self) -> None:
        """What a restart may have left behind: the computer's turns, boards that fell
        behind, results not announced, ratings of games finished before a crash."""
        for live in await self.service.live.active_games():
            self._maybe_computer(live)  # a restart must not leave the computer's turn hanging
        await self.repair_boards()
        await self.announce_results()
        for guild in self.guilds:
            await self.ledger.update_ratings(guild.id)  # games finished before a crash

    async def _housekeeping_stopped(self, exc: BaseException) -> None:
        # Only a bug gets here (a round catches its own failures): say so where the health
        # check looks, at once, rather than after the heartbeat has gone stale.
        log.critical("the housekeeping loop stopped: no more reminders, claims, backups or "
                     "computer turns until the bot is restarted", exc_info=exc)
        self._beat(stopped=f"{type(exc).__name__}: {exc}"[:300])

    def _beat(self, stopped: str | None = None) -> None:
        # ``python -m bot health`` (Docker's HEALTHCHECK) reads this file: its age says the
        # loop is alive, its words how the last rounds went.
        path = self.config.heartbeat_path
        state = {"loop": "stopped" if stopped else "running", "stopped_by": stopped,
                 "last_ok": self._last_ok, "failing_since": self._failing_since,
                 "last_error": self._last_error}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(state))
        except OSError as exc:
            log.warning("can't write the heartbeat %s: %s", path, exc)

    async def repair_boards(self) -> int:
        """Draw again every board that doesn't show its game's saved version (a move saved just
        before a crash); a board whose turn has passed is posted anew, pinging the player on
        turn once. Returns how many were requested."""
        return len(await self._request_repairs())

    async def _request_repairs(self, *, at_once: bool = False) -> list[int]:
        behind = [g for g in await self.service.playing.boards_behind()
                  if not self.boards.is_due(g)]
        for game_id in behind:
            self.boards.request(game_id, at_once=at_once)
        if behind:
            log.info("drawing %d boards that fell behind", len(behind))
        return behind

    async def tick(self) -> None:
        """Expire challenges, remind players on turn, offer claims on stuck games, repair
        boards that fell behind, let go of finished games kept in memory, and close the
        settle-up plans that expired or turned void."""
        # A finished game goes once its last board is drawn, whatever other boards wait: with
        # 1,000 games some always do, and finished games stayed in memory for good.
        self.service.live.forget_finished(keep=self.boards.is_due)
        if not self.boards.busy:
            await self.repair_boards()
        for row in await self.service.inviting.expire_due():
            if row.message_id is None:
                continue
            with contextlib.suppress(discord.HTTPException):
                channel = self.get_partial_messageable(row.channel_id)
                await channel.get_partial_message(row.message_id).edit(
                    content=EXPIRED, embed=None,
                    view=(table_controls(row.id, disabled=True) if row.kind == "table"
                          else challenge_controls(row.id, disabled=True)),
                )
        now = self.service.clock()
        for live in await self.service.live.active_games():
            if live.on_turn == self.computer_id:
                self._maybe_computer(live)  # e.g. after a move that failed to save
                continue
            try:
                await self._notices(live, now)
            except Exception as exc:
                if not retryable(exc):
                    raise
                # Not noted as sent: the next round tries again (the nonce keeps Discord
                # from showing it twice if only the answer was lost).
                self.failures.failed("notice", "game %s: a reminder or claim notice couldn't "
                                     "be posted (%s); tried again at the next round",
                                     live.id, describe(exc))
        await self.announce_results()  # those that failed before
        await post_due_seasons(self)  # seasons whose end has come (also while the bot was down)
        await close_due_plans(self, [guild.id for guild in self.guilds])
        await tournament_flow.look_after(self)

    async def balances_moved(self, guild_id: int) -> None:
        """A game, payment or void changed balances: the plans it turned void say so now (a
        failure waits for the housekeeping round)."""
        with contextlib.suppress(StorageError, discord.HTTPException):
            await close_due_plans(self, [guild_id])

    async def _notices(self, live: LiveGame, now: float) -> None:
        """The reminder or the claim notice the game is due, if any: posted first, then noted
        (a notice noted but never posted would be lost; one posted twice, Discord drops by
        its nonce)."""
        # A game keeps the reminder and claim times it started with.
        waited = now - live.turn_started_at
        channel = self.get_partial_messageable(live.board_channel_id)
        turn = int(live.turn_started_at)
        # Any other player still in the game may claim (rule 26); the computer never does.
        seated = self.service.live.facts(live).seated
        claimers = [live.players[s] for s in seated
                    if s != live.turn_seat and live.players[s] != self.computer_id]
        if (waited >= live.terms.claim_s and claimers
                and live.claim_offered_at is None):
            view = Controls()
            view.add_item(ClaimButton(live.id))
            what = "the game" if len(live.players) == 2 else \
                "the game from them (they leave it; it goes on among the rest of you)"
            await asyncio.wait_for(channel.send(
                f"{' '.join(f'<@{u}>' for u in claimers)}: <@{live.on_turn}> hasn't moved for "
                f"{waited / 3600:.0f} hours. You may claim {what}.", view=view,
                nonce=f"c{live.id}:{turn}"[:25],
                allowed_mentions=discord.AllowedMentions(users=True)), retry.REST_TIMEOUT)
            await self.service.playing.set_claim_offered(live)
        elif (waited >= live.terms.reminder_s and live.reminded_at is None
              and live.claim_offered_at is None):  # past the claim, a reminder is only noise
            others = [live.names[s] for s in seated if s != live.turn_seat]
            await asyncio.wait_for(channel.send(
                f"⏰ <@{live.on_turn}>, it's your turn against "
                f"{', '.join(others)} (game #{live.id}).",
                nonce=f"m{live.id}:{turn}"[:25],
                allowed_mentions=discord.AllowedMentions(users=True)), retry.REST_TIMEOUT)
            await self.service.playing.set_reminded(live)


class ShardedSpiteBot(SpiteBot, commands.AutoShardedBot):
    """The bot as discord.py's ``AutoShardedBot``, for the shards ``config.shards`` names: one
    gateway connection per shard. Discord sends a server's events to its shard only, and the
    housekeeping looks after those servers' games only, so several processes can share the
    bot's servers (and one database server) without doing anything twice."""


def new_bot(config: Config, *, seed_source: Callable[[], int] | None = None,
            clock: Callable[[], float] | None = None) -> SpiteBot:
    """The bot for ``config``: sharded when ``SHARD_COUNT`` is set, else a plain one."""
    cls = SpiteBot if config.shards is None else ShardedSpiteBot
    return cls(config, seed_source=seed_source, clock=clock)
