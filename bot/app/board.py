"""The public board: one message per turn, edited as the turn goes on, a new one when it passes.

Updates are coalesced: the first request after a quiet spell is drawn at once (the move shows
without waiting), and a request within ``delay`` seconds of the last drawing waits until then and
draws the game as it is by then, so a burst of plays makes one edit a ``delay`` and Discord's
rate limits are never approached.
The picture is drawn in a worker process (``bot.pictures.drawing``), from the public view only.

A board shows a saved version of its game, and the database remembers which one: a board that
fell behind (a crash between a move and its drawing) is found and drawn again after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import discord

from bot.games.game_service import GameFacts, UserError
from bot.pictures.board_info import BoardInfo
from bot.pictures.drawing import pictures
from bot.pictures.text import board_fields, result_text, turn_summary
from engine import View

from .host import Host
from .retry import UNBOUNDED, describe, discord_call, with_retries
from .ui import Picture, board_controls, board_info

__all__ = ["BoardPublisher"]

log = logging.getLogger(__name__)


class _UpToDate(Exception):
    """The board message already shows the version a drawing would show: nothing to draw."""


class BoardPublisher:
    """Posts and edits board messages for the bot."""

    def __init__(self, bot: Host, delay: float) -> None:
        self.bot = bot
        self.delay = delay
        # One task per game with a board update due; it stays here until its drawing is
        # finished (not merely started), so ``flush`` really waits for every update.
        self._pending: dict[int, asyncio.Task[None]] = {}
        self._due: set[int] = set()
        self._notes: dict[int, list[str]] = {}
        self._shown: dict[int, list[str]] = {}  # notes on the current board message
        self._locks: dict[int, asyncio.Lock] = {}
        self._embeds: dict[int, discord.Embed] = {}  # the live board's embed, by message id
        self._last_drawing: dict[int, float] = {}  # when each game's last drawing round began
        self._opening: dict[int, tuple[int, asyncio.Event]] = {}  # boards held (see ``held``)
        self.drawn_count = 0
        """Boards drawn (posted or edited in) by ``publish``."""
        self.up_to_date_count = 0
        """Updates not drawn: once a drawing process was free, the board message already
        showed the game's version (its moves drawn by the round before, which read the game
        after they were saved), and no note was waiting."""

    @property
    def busy(self) -> bool:
        """True while some board update is waiting to be drawn."""
        return bool(self._pending)

    def is_due(self, game_id: int) -> bool:
        """True while an update of this game's board is waiting or being drawn."""
        return game_id in self._pending

    async def drawn(self, game_id: int) -> None:
        """Wait until the game's pending board update (if any) is drawn."""
        task = self._pending.get(game_id)
        if task is not None:
            await asyncio.wait({task})  # a waiter cancelled doesn't cancel the drawing

    def request(self, game_id: int, note: str | None = None, *, at_once: bool = False) -> None:
        """Ask for the board of ``game_id`` to be brought up to date soon (``at_once``: without
        waiting for more moves to draw in the same go, e.g. a board a restart left behind)."""
        if note:
            self._notes.setdefault(game_id, []).append(note)
        self._due.add(game_id)
        if game_id not in self._pending:
            loop = asyncio.get_running_loop()
            since = loop.time() - self._last_drawing.get(game_id, -self.delay)
            wait = 0.0 if at_once else max(0.0, self.delay - since)
            self._pending[game_id] = loop.create_task(
                self._later(game_id, wait), name=f"board-{game_id}")

    async def _later(self, game_id: int, wait: float) -> None:
        try:
            # A request made while the board is being drawn is served by another round.
            while game_id in self._due:
                await asyncio.sleep(wait)
                wait = self.delay
                self._due.discard(game_id)
                self._last_drawing[game_id] = asyncio.get_running_loop().time()
                try:
                    # Until Discord has it (the moves made meanwhile are drawn in the same go).
                    # Each Discord call is bounded, not the whole try: the wait for a drawing
                    # process is as long as the drawings before it (cut short, the board went
                    # to the back of the queue again and, under load, never came).
                    await with_retries(lambda: self.publish(game_id), kind="board",
                                       what=f"game {game_id}: updating the board",
                                       failures=self.bot.failures, base=self.bot.retry_base,
                                       timeout=UNBOUNDED)
                except Exception as exc:
                    # Not mended by trying again soon (a permission taken away, a channel
                    # deleted, a bug): the housekeeping's next round finds the board behind.
                    self.bot.failures.failed(
                        "board", "game %s: updating the board failed (%s); tried again at the "
                        "next housekeeping round", game_id, describe(exc), level=logging.ERROR,
                        exc=None if isinstance(exc, discord.HTTPException) else exc)
        finally:
            self._pending.pop(game_id, None)

    @contextlib.asynccontextmanager
    async def held(self, game_id: int) -> AsyncIterator[None]:
        """No drawing of this game's board meanwhile (it may be nested): a game's first board
        waits while its thread is opened (a housekeeping round's repair would otherwise post
        it in the channel, and the game's next edit, made in the thread, would find no
        message)."""
        count, opened = self._opening.get(game_id, (0, asyncio.Event()))
        self._opening[game_id] = (count + 1, opened)
        try:
            yield
        finally:
            count, opened = self._opening[game_id]
            if count == 1:
                del self._opening[game_id]
                opened.set()
            else:
                self._opening[game_id] = (count - 1, opened)

    @property
    def pending(self) -> int:
        """Board updates requested and not yet drawn."""
        return len(self._pending)

    async def flush(self) -> None:
        """Wait until every requested board update is drawn (used on shutdown and in tests)."""
        while self._pending:
            await asyncio.gather(*list(self._pending.values()), return_exceptions=True)

    async def publish(self, game_id: int, *, new_message: bool = False) -> discord.Message | None:
        """Draw the board now: edit this turn's message, or post a new one (``None``: the game is
        gone, or the message already shows its version and no note waits)."""
        while (opening := self._opening.get(game_id)) is not None:
            await opening[1].wait()
        async with self._locks.setdefault(game_id, asyncio.Lock()):
            try:
                live = await self.bot.service.live.game(game_id)
            except UserError:
                return None
            # No fetch: a partial channel posts and edits by id alone.
            channel = self.bot.get_partial_messageable(live.board_channel_id)
            read: list[GameFacts] = []

            def public() -> tuple[View, BoardInfo]:
                # Read when a drawing process is free: the moves made meanwhile are in it.
                facts = self.bot.service.live.facts(live)  # the public view, at one version
                if (not new_message and not self._notes.get(game_id) and live.board_message_id
                        and live.board_turn == facts.board_key
                        and live.board_version == facts.version):
                    raise _UpToDate
                read.append(facts)
                return facts.view, board_info(facts)

            try:
                png = await pictures.board(public)
            except _UpToDate:
                self.up_to_date_count += 1
                return None
            self.drawn_count += 1
            facts = read[-1]
            key, version = facts.board_key, facts.version
            pending = self._notes.pop(game_id, [])
            if not new_message and live.board_message_id and live.board_turn == key:
                # Notes stay on the turn's message through later edits.
                shown = self._shown.setdefault(game_id, [])
                shown.extend(pending)
                payload = self._payload(facts, png, shown)
                if not shown:
                    del payload["content"]  # keep whatever the message said before a restart
                try:
                    on_board = channel.get_partial_message(live.board_message_id)
                    file = payload.pop("file")
                    edited = await discord_call(on_board.edit(attachments=[file], **payload))
                    self._embeds[edited.id] = payload["embed"]
                    if facts.finished:
                        self._forget(game_id, edited.id)
                    await self.bot.service.playing.set_board_version(live, version)
                    log.debug("game %s: board edited at version %s", game_id, version)
                    return edited
                except discord.NotFound:
                    pending = shown
            self._shown[game_id] = list(pending)
            payload = self._payload(facts, png, pending)
            mention = facts.on_turn if not facts.finished \
                and facts.on_turn != self.bot.computer_id else None
            if mention:
                payload["content"] = f"<@{mention}>, your turn! " + payload["content"]
            # The nonce makes a post tried again after a lost answer give back the message
            # the first try made (Discord's enforce_nonce), never a second board: one per
            # turn, and one per board posted again in the same turn.
            nonce = hashlib.blake2b(f"{game_id}:{key}:{live.board_message_id}".encode(),
                                    digest_size=12).hexdigest()
            message = await discord_call(channel.send(
                allowed_mentions=discord.AllowedMentions(users=True, everyone=False, roles=False),
                nonce=nonce, **payload,
            ))
            previous, previous_key = live.board_message_id, live.board_turn
            self._embeds[message.id] = payload["embed"]
            await self.bot.service.playing.set_board(live, message.id, key, version)
            log.debug("game %s: board posted at version %s", game_id, version)
            if previous is not None and previous != message.id:
                await self._close(channel, previous, previous_key, facts)
            if facts.finished:
                self._forget(game_id, message.id)
            return message

    def _forget(self, game_id: int, message_id: int) -> None:
        # A finished game's board is never edited again (its lock, held by the caller, goes
        # with it: a later publish, after a restart say, makes a new one).
        self._embeds.pop(message_id, None)
        self._shown.pop(game_id, None)
        self._notes.pop(game_id, None)
        self._locks.pop(game_id, None)
        self._last_drawing.pop(game_id, None)

    async def _close(self, channel: discord.PartialMessageable, message_id: int,
                     key: int | None, facts: GameFacts) -> None:
        """One live board per game: the one before the new one loses its controls and says
        what its turn did. (A click on a button it kept before a restart still works.)"""
        if key == facts.board_key:
            line = "↓ This board was posted again below."
        elif key is not None and key // 1_000_000 != facts.game_number:
            line = f"✔ Game {key // 1_000_000} is over."
            if facts.last_result is not None:
                line += " " + result_text(facts.last_result, facts.names)
        else:
            line = turn_summary(facts.view, facts.names)
        try:
            embed = self._embeds.pop(message_id, None)
            if embed is None:  # drawn before a restart: read it back
                old = await discord_call(channel.fetch_message(message_id))
                embed = old.embeds[0] if old.embeds else None
            if embed is not None:
                # The picture stays, as the position that turn left; the status goes.
                embed = embed.copy()
                embed.description = line
                embed.remove_footer()
            await discord_call(channel.get_partial_message(message_id).edit(
                content=None, embed=embed, view=None,
                allowed_mentions=discord.AllowedMentions.none()))
        except (discord.HTTPException, TimeoutError) as exc:
            log.warning("game %s: couldn't close an old board (%s)", facts.id, describe(exc))

    def _payload(self, facts: GameFacts, png: bytes, notes: list[str]) -> dict[str, Any]:
        view = facts.view
        names = facts.names
        title = f"Spite & Malice · {facts.rules.name}"
        if facts.target is not None and len(names) == 2:
            title += f" · game {facts.game_number} · {names[0]} {facts.scores[0]} – " \
                     f"{facts.scores[1]} {names[1]} (to {facts.target})"
        elif facts.target is not None:
            scores = ", ".join(f"{n} {v}" for n, v in zip(names, facts.scores, strict=True))
            title += f" · game {facts.game_number} · {scores} (to {facts.target})"
        if facts.finished:
            winner = facts.winner
            status = ("🏆 " + (f"{names[winner]} wins the match!" if winner is not None
                              else "The match ended level."))
            if view.result is not None:
                status += " " + result_text(view.result, names)
        else:
            status = f"▶ {names[view.turn]} to play · turn {view.turn_number + 1}"
        embed = discord.Embed(title=title, description=status, colour=0x1E7B45)
        for name, value in board_fields(view, names):
            embed.add_field(name=name, value=value[:1024] or "–", inline=False)
        if facts.last_moves:
            embed.add_field(name="Last moves", value="\n".join(facts.last_moves[-5:])[:1024],
                            inline=False)
        embed.set_image(url="attachment://board.png")
        if not facts.finished:  # a finished board has no Show my hand button, nor a hand
            embed.set_footer(text="Your cards: press Show my hand, or use /hand.")
        content = " ".join(notes)[:1800]
        file = Picture(png, "board.png")
        controls = board_controls(facts.id, facts.finished)
        payload: dict[str, Any] = {"content": content, "embed": embed, "file": file}
        payload["view"] = controls
        return payload

