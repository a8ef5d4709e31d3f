"""Buttons and menus of a game (the board and the private hand), and what every control and
command shares: answering first, private refusals, apologies, the hand message, and the one
path of a move (``make_move``). The controls of invitations live in ``invitations``. Each
carries only ids in its ``custom_id`` (a ``DynamicItem``), so a button posted before a restart
still works after it: the bot rebuilds the item from the id alone.

Callbacks stay thin: they parse the id, call a game service and answer. Discord gives up on
an interaction not answered within 3 s, so an answer not ready within ``QUICK_ANSWER`` (0.1 s)
is preceded by a deferred response and follows it; one ready sooner (most moves, hands and card
choices) is the response itself, one request instead of two (``answer_soon``). A
``UserError`` becomes a private reply, anything else a private apology and one ERROR log line:
discord.py 2.7 runs a ``DynamicItem``'s callback outside ``View.on_error`` (it only logs), so
every item here guards its own callback (``Guarded``). Templates (each ``custom_id`` is at
most 100 characters; ``v1`` is the id's version, absent from the ids posted before ids had one,
which still work: see ``custom_ids``):

- ``sm:ch:v1:<challenge>:<accept|decline|cancel>`` on a challenge (of two, three or four);
- ``sm:tbl:v1:<table>:<join|leave|computer|start>`` on an open table, and
  ``sm:tlv:v1:<table>`` the host's private menu of the computer's levels (these three, and
  Rematch, in ``invitations``);
- ``sm:hand:v1:<game>`` "Show my hand" on a board;
- ``sm:src:v1:<game>:<moves>`` the card menu in a private hand;
- ``sm:mv:v1:<game>:<moves>:<move>`` a target button or Pass in a private hand;
- ``sm:back:v1:<game>`` back to the hand; ``sm:rs:v1:<game>`` confirm resignation;
  ``sm:claim:v1:<game>`` claim a game whose opponent let the clock run out;
  ``sm:rematch:v1:<game>`` Rematch on a result.

``moves`` is the hand's version, the number of moves saved when the hand was shown: a click on
an older hand is refused (and the hand refreshed), so a double click never makes a move twice by
accident. A click on an id that none of these templates reads gets a private answer saying the
button no longer works (``answer_unclaimed``).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import aiohttp
import discord

from bot.games.live_game import (
    GameFacts,
    LiveGame,
    MoveOutcome,
    moves_by_source,
    saved_here,
)
from bot.pictures.board_info import BoardInfo
from bot.pictures.drawing import pictures
from bot.pictures.text import (
    DB_DOWN,
    MAX_MESSAGE,
    NO_PICTURE_NOW,
    RESTARTING,
    SAVED_NOT_SHOWN,
    SORRY,
    clip,
    hand_text,
    newer_control,
    outdated_control,
    source_label,
    target_label,
)
from bot.storage import DatabaseUnavailable
from bot.user_errors import UserError
from engine import Move, View

from . import custom_ids as ids
from .host import Host, Interaction, hosted
from .retry import describe

__all__ = [
    "BackButton",
    "ClaimButton",
    "Controls",
    "Guarded",
    "DYNAMIC_ITEMS",
    "MoveButton",
    "ResignButton",
    "ShowHandButton",
    "SourceSelect",
    "answer",
    "answer_soon",
    "answer_unclaimed",
    "board_controls",
    "failure_reply",
    "hand_payload",
    "make_move",
    "reply_error",
    "think",
]

log = logging.getLogger(__name__)


# Set in ``Interaction.extras`` while a public "thinking…" placeholder waits for its answer: an
# error must not replace it (the first follow-up takes the placeholder's public flag).
_PUBLIC_PENDING = "spite_public_pending"


async def think(interaction: Interaction, *, private: bool) -> None:
    """Answer first: show "thinking…" (to the user alone if ``private``) before any slow work."""
    if not private:
        interaction.extras[_PUBLIC_PENDING] = True
    await interaction.response.defer(ephemeral=private, thinking=True)


async def answer(interaction: Interaction, *, private: bool, **payload: Any) -> discord.Message:
    """The answer after ``think``: it replaces the "thinking…" placeholder."""
    interaction.extras.pop(_PUBLIC_PENDING, None)
    message: discord.Message = await interaction.followup.send(
        ephemeral=private, wait=True, **_as_new(payload))
    return message


QUICK_ANSWER = 0.1
"""Seconds an answer may take and still be the interaction's one response (``answer_soon``).
Most moves, hands and card choices are ready well within it (the median reply at 1,000 games
is some 15 ms); one that is not gets a deferred response then, long before Discord's 3 s."""


async def answer_soon(interaction: Interaction, work: Awaitable[dict[str, Any]], *,
                      private: bool = True, update: bool = False) -> None:
    """Answer with the payload ``work`` makes: a new message (``update``: an edit of the
    message whose control was used). Ready within ``QUICK_ANSWER``, it is the interaction's
    response itself, one request to Discord; else a deferred response (a "thinking…", or for
    an update nothing on screen) goes out at ``QUICK_ANSWER`` and the answer follows it.

    ``work`` runs in the caller's task (its context: ``saved_here`` stays visible to the
    apology)."""
    loop = asyncio.get_running_loop()
    deferring: list[asyncio.Task[Any]] = []

    def defer() -> None:
        deferring.append(loop.create_task(
            interaction.response.defer(ephemeral=private, thinking=not update)))

    timer = loop.call_later(QUICK_ANSWER, defer)
    try:
        payload = await work
    except asyncio.CancelledError:
        # The bot is stopping: no waiting for the deferral, whose outcome no one reads.
        timer.cancel()
        for task in deferring:
            task.add_done_callback(_outcome_read)
        raise
    except Exception:
        # A refusal or a failure: answered after the deferral, if that began, so that the
        # answer (``reply_error``) finds the interaction answered or not, as it is.
        timer.cancel()
        if deferring:
            await asyncio.wait(deferring)
            _outcome_read(deferring[0])
        raise
    timer.cancel()
    if deferring:
        await asyncio.wait(deferring)
        deferring[0].result()  # a deferral that failed: the answer can't follow it
    if update:
        edit = _as_edit(payload)
        if interaction.response.is_done():
            await interaction.edit_original_response(**edit)
        else:
            await interaction.response.edit_message(**edit)
    elif interaction.response.is_done():
        await answer(interaction, private=private, **payload)
    else:
        payload = _as_new(payload)
        await interaction.response.send_message(ephemeral=private, **payload)


def _outcome_read(task: asyncio.Task[Any]) -> None:
    # Marks a task's failure as seen (asyncio logs one never read): the failure that matters
    # is the one being raised.
    if not task.cancelled():
        task.exception()


def _clipped(payload: dict[str, Any]) -> dict[str, Any]:
    out = dict(payload)
    if "content" in out:
        out["content"] = clip(out["content"])
    return out


def _as_new(payload: dict[str, Any]) -> dict[str, Any]:
    out = _clipped(payload)
    if "file" in out and out["file"] is None:
        del out["file"]  # a hand whose picture was given up: nothing to send
    return out


async def reply_error(interaction: Interaction, message: str) -> None:
    """Tell the user privately why nothing happened, before or after a deferred response."""
    message = clip(message)
    if not interaction.response.is_done():
        await interaction.response.send_message(message, ephemeral=True)
        return
    if interaction.extras.pop(_PUBLIC_PENDING, False):
        # The public placeholder goes; the follow-up after it is then a private message.
        with contextlib.suppress(discord.HTTPException):
            await interaction.delete_original_response()
    await interaction.followup.send(message, ephemeral=True)


class Guarded:
    """Every click gets an answer: a refusal privately, a failure with an apology.

    Subclasses define ``act``, the click's work. The log names the item and its game, never the
    ``custom_id`` (a move button's id names a card of a private hand).
    """

    act: Callable[[Interaction], Awaitable[None]]

    async def callback(self, any_interaction: discord.Interaction[discord.Client]) -> None:
        interaction = hosted(any_interaction)
        if interaction.client.stopping:
            with contextlib.suppress(discord.HTTPException):
                await reply_error(interaction, RESTARTING)
            return
        await interaction.client.boards_repaired()
        try:
            await self.act(interaction)
        except UserError as exc:
            with contextlib.suppress(discord.HTTPException):
                await reply_error(interaction, str(exc))
        except Exception as exc:
            where = (f"{type(self).__name__} (game or challenge "
                     f"{getattr(self, 'game_id', getattr(self, 'challenge_id', '?'))})")
            with contextlib.suppress(discord.HTTPException):
                await reply_error(interaction, failure_reply(interaction.client, exc, where))


def failure_reply(client: Host, exc: BaseException, where: str,
                  logger: logging.Logger = log) -> str:
    """Log a failure of an interaction (Discord's, once a minute; the bot's own, with its
    traceback, on ``logger``) and the apology to send: one that says so when the move was
    saved."""
    if isinstance(exc, DatabaseUnavailable):
        client.failures.failed("database", "%s: %s", where, exc)
        return SAVED_NOT_SHOWN if saved_here.get() else DB_DOWN
    if isinstance(exc, (discord.HTTPException, TimeoutError, aiohttp.ClientError)):
        client.failures.failed("reply", "%s: answering failed (%s)", where, describe(exc))
    else:
        logger.error("%s failed", where, exc_info=exc)
    return SAVED_NOT_SHOWN if saved_here.get() else SORRY


class Controls(discord.ui.View):
    """The buttons and menus under one of our messages: ``DynamicItem``s only, never kept.

    discord.py finds the item of a click by its ``custom_id`` template (the ``DynamicItem``
    classes are registered once, in ``setup_hook``), never through the view it was sent with.
    Yet it keeps every view it was given, and the one of a private follow-up (a hand, on every
    move) for 15 minutes, with a task sleeping on that timeout: with 1,000 games played that
    was 3,700 views after one minute, each with its menu and options. Saying the view has
    nothing to dispatch keeps discord.py from storing it, and from timing it out; an
    interaction's message response (``answer_soon``) stores a view unless it is finished, so it
    says that too (nothing else reads it).
    """

    def __init__(self) -> None:
        super().__init__(timeout=None)

    def is_dispatchable(self) -> bool:
        return False

    def is_finished(self) -> bool:
        return True


class Picture(discord.File):
    """A PNG to send once: its bytes are let go as soon as discord.py is done with the file.

    discord.py closes a file once its request is over (retries included) but leaves a buffer
    it was given open; the request leaves reference cycles behind that hold it, which only
    the garbage collector's rare full passes free: hundreds of boards and hands (17 MB) were
    waiting for one at a time. Closing the buffer frees the bytes at once.
    """

    __slots__ = ()

    def __init__(self, png: bytes, filename: str) -> None:
        super().__init__(io.BytesIO(png), filename=filename)

    def close(self) -> None:
        super().close()  # gives the buffer its own close() back
        with contextlib.suppress(BufferError):  # a view of it still held: the collector frees it
            self.fp.close()


# ---------------------------------------------------------------------- the board


class _GameButton(Guarded):
    """Shared by the buttons whose ``custom_id`` is ``sm:<prefix>:<game id>``."""

    PREFIX = ""
    LABEL = ""
    STYLE = discord.ButtonStyle.secondary
    game_id: int

    def __init__(self, game_id: int) -> None:
        super().__init__(discord.ui.Button(  # type: ignore[call-arg]
            label=self.LABEL, style=self.STYLE, custom_id=ids.make(self.PREFIX, game_id),
        ))
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[discord.Client], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> Any:
        return cls(int(match["game"]))


class ShowHandButton(
    _GameButton, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=ids.template("hand", ids.number("game")),
):
    """On the public board: opens the presser's own hand, privately."""

    PREFIX, LABEL, STYLE = "hand", "Show my hand", discord.ButtonStyle.primary

    async def act(self, interaction: Interaction) -> None:
        await answer_soon(interaction, self._hand(interaction))

    async def _hand(self, interaction: Interaction) -> dict[str, Any]:
        bot = interaction.client
        live = await bot.service.live.game(self.game_id)
        bot.service.live.seat(live, interaction.user.id)
        return await hand_payload(bot, live, interaction.user.id)


class ClaimButton(
    _GameButton, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=ids.template("claim", ids.number("game")),
):
    """Posted when a player has let the claim time pass: his opponent may take the game."""

    PREFIX, LABEL, STYLE = "claim", "Claim the game", discord.ButtonStyle.danger

    async def act(self, interaction: Interaction) -> None:
        await think(interaction, private=True)
        outcome = await interaction.client.service.playing.claim(self.game_id, interaction.user.id)
        if outcome.match_over or len(outcome.game.players) == 2:
            text = "You claimed the game."
        else:
            text = (f"You claimed: {outcome.game.names[outcome.seat]} has left the game, "
                    "which goes on among the rest of you.")
        await answer(interaction, private=True, content=text)


def board_controls(game_id: int, finished: bool) -> Controls | None:
    """The buttons under a board: Show my hand while the game goes on."""
    if finished:
        return None
    view = Controls()
    view.add_item(ShowHandButton(game_id))
    return view


# ---------------------------------------------------------------------- the private hand
#
# These edit the private hand message they sit on, once the move is saved and the hand drawn:
# in their response if that is quick, else after a deferred update (nothing changes on screen
# meanwhile).


class SourceSelect(
    Guarded, discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=ids.template("src", ids.number("game"), ids.number("ver")),
):
    """The menu of cards the player may move now."""

    def __init__(self, game_id: int, version: int, select: discord.ui.Select[Any]) -> None:
        super().__init__(select)
        self.game_id = game_id
        self.version = version

    @classmethod
    def build(cls, game_id: int, version: int, options: list[discord.SelectOption]) -> SourceSelect:
        """A fresh menu with ``options``."""
        return cls(game_id, version, discord.ui.Select(
            custom_id=ids.make("src", game_id, version), placeholder="Choose a card to move…",
            options=options, min_values=1, max_values=1,
        ))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[discord.Client], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> SourceSelect:
        if not isinstance(item, discord.ui.Select):
            # A forged click: a button under a menu's id. An empty menu refuses it politely.
            item = discord.ui.Select(custom_id=match.string)
        return cls(int(match["game"]), int(match["ver"]), item)

    async def act(self, interaction: Interaction) -> None:
        await answer_soon(interaction, self._chosen(interaction), update=True)

    async def _chosen(self, interaction: Interaction) -> dict[str, Any]:
        bot = interaction.client
        values = self.item.values
        live = await bot.service.live.game(self.game_id)
        bot.service.live.seat(live, interaction.user.id)
        if not values:
            raise UserError("Choose a card from the menu.")
        stale = self.version != live.version
        # Not stale, the message already shows this hand's picture: it is kept, not sent again.
        return await hand_payload(
            bot, live, interaction.user.id, selected=None if stale else values[0],
            note="The game has moved on; here is your hand as it is now." if stale else None,
            picture=stale,
        )


class MoveButton(
    Guarded, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=ids.template("mv", ids.number("game"), ids.number("ver"), "(?P<move>[^:]{1,12})"),
):
    """A target for the chosen card, or Pass: makes the move."""

    def __init__(self, game_id: int, version: int, move: str, label: str = "Move",
                 style: discord.ButtonStyle = discord.ButtonStyle.success) -> None:
        super().__init__(discord.ui.Button(
            label=label[:80], style=style, custom_id=ids.make("mv", game_id, version, move),
        ))
        self.game_id = game_id
        self.version = version
        self.move = move

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[discord.Client], item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> MoveButton:
        return cls(int(match["game"]), int(match["ver"]), match["move"])

    async def act(self, interaction: Interaction) -> None:
        await answer_soon(interaction, self._moved(interaction), update=True)

    async def _moved(self, interaction: Interaction) -> dict[str, Any]:
        bot = interaction.client
        user = interaction.user.id
        try:
            return await make_move(bot, self.game_id, user, self.move,
                                   expected_version=self.version)
        except UserError as exc:
            # Refresh the hand so the player sees the position that made the move illegal.
            try:
                live = await bot.service.live.game(self.game_id)
            except UserError:
                raise exc from None
            if live.terms.seat_of(user) is None:
                raise
            return await hand_payload(bot, live, user, note=f"⚠️ {exc}")


class BackButton(
    _GameButton, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=ids.template("back", ids.number("game")),
):
    """Back from the targets of a card to the whole hand."""

    PREFIX, LABEL = "back", "Back"

    async def act(self, interaction: Interaction) -> None:
        await answer_soon(interaction, self._hand(interaction), update=True)

    async def _hand(self, interaction: Interaction) -> dict[str, Any]:
        bot = interaction.client
        live = await bot.service.live.game(self.game_id)
        bot.service.live.seat(live, interaction.user.id)
        return await hand_payload(bot, live, interaction.user.id)


class ResignButton(
    _GameButton, discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=ids.template("rs", ids.number("game")),
):
    """The confirmation of ``/resign``."""

    PREFIX, LABEL, STYLE = "rs", "Yes, resign", discord.ButtonStyle.danger

    async def act(self, interaction: Interaction) -> None:
        await interaction.response.defer()
        outcome = await interaction.client.service.playing.resign(self.game_id,
                                                                  interaction.user.id)
        facts = interaction.client.service.live.facts(outcome.game)
        done = ("You resigned: the match is over (the result is in the channel)."
                if outcome.match_over and facts.target is not None
                else "You resigned: the game is over (the result is in the channel)."
                if outcome.match_over
                else "You left the table; the others play on.")
        await interaction.edit_original_response(content=done, view=None)


DYNAMIC_ITEMS = (ShowHandButton, ClaimButton, SourceSelect, MoveButton, BackButton,
                 ResignButton)


async def make_move(bot: Host, game_id: int, user_id: int, move: str, *,
                    expected_version: int | None = None, note: str | None = None
                    ) -> dict[str, Any]:
    """The one path of a move, whatever the control (``/play``, ``/pass``, a target button or
    Pass): made and saved by the playing service, then the player's hand as it is after it,
    under ``note`` (by default a ✅ and the move in words), its picture only if the turn is
    still the player's. Raises ``UserError`` if refused."""
    outcome = await bot.service.playing.play(game_id, user_id, move,
                                             expected_version=expected_version)
    # The hand's picture only while the player has moves to choose from it: once his turn is
    # over the reply says what he did and lists his cards, and the board shows the rest
    # (issue 35: a drawing spared at every turn's end; the old picture goes with it).
    on_turn = bot.service.live.view(outcome.game, user_id).my_turn
    payload = await hand_payload(bot, outcome.game, user_id, note=note or _done_note(outcome),
                                 picture=on_turn)
    if not on_turn:
        payload["file"] = None
    return payload


def _done_note(outcome: MoveOutcome) -> str:
    last = outcome.game.last_moves[-1] if outcome.game.last_moves else "Done."
    return f"✅ {last}"


def _as_edit(payload: dict[str, Any]) -> dict[str, Any]:
    # A message edit takes ``attachments``: the new file replaces the old image, ``None`` (a
    # picture given up) takes the old one away; without a file the message keeps its image.
    out = _clipped(payload)
    if "file" in out:
        file = out.pop("file")
        out["attachments"] = [file] if file is not None else []
    return out


def board_info(facts: GameFacts) -> BoardInfo:
    """What the renderer needs besides the view: names, match score, last moves."""
    return BoardInfo(names=facts.names, game_number=facts.game_number,
                     match_scores=facts.scores, match_target=facts.target,
                     last_moves=facts.last_moves[-6:])


HAND_PICTURE_WAIT = 1.0
"""Seconds a hand's reply waits for its picture. When the drawing process has more than it can
draw (a busy moment: at 1,000 games on 2 cores, shared with the load benchmark's own fake
Discord, replies waited 3.4 s for their pictures, median), the reply goes without one: the hand
is in its text and its controls work. The drawing is given up, which leaves the process to the
pictures still awaited, so the wait shrinks again instead of growing."""

HAND_PICTURES_KEPT = 256
"""Hand pictures kept for a repeated Show my hand, card choice or Back (about 30 KB each)."""

_hand_pictures: OrderedDict[tuple[int, int, int | None], tuple[View, BoardInfo, bytes]] = \
    OrderedDict()


async def _hand_picture(facts: GameFacts, info: BoardInfo) -> bytes | None:
    # Looked up by (game, version, seat), but only used for the very same view and words: the
    # picture is a function of those alone, so a game loaded again, another bot in the same
    # process or a position that never got saved can't get another position's picture.
    view = facts.view
    key = (facts.id, facts.version, view.viewer)
    kept = _hand_pictures.get(key)
    if kept is not None and kept[0] == view and kept[1] == info:
        _hand_pictures.move_to_end(key)
        return kept[2]
    try:
        png = await asyncio.wait_for(pictures.hand(view, info), HAND_PICTURE_WAIT)
    except TimeoutError:
        log.info("game %s: a hand's picture was not drawn within %.1f s; sent without it",
                 facts.id, HAND_PICTURE_WAIT)
        return None
    _hand_pictures[key] = (view, info, png)
    _hand_pictures.move_to_end(key)
    while len(_hand_pictures) > HAND_PICTURES_KEPT:
        _hand_pictures.popitem(last=False)
    return png


async def hand_payload(
    bot: Host, live: LiveGame, user_id: int, *, selected: str | None = None,
    note: str | None = None, picture: bool = True,
) -> dict[str, Any]:
    """The private hand message: image, text and the controls to move. The picture is drawn
    once per game, version and seat (clicks that show the same hand again reuse it); with
    ``picture=False`` there is none, for an edit of a message that shows it already."""
    facts = bot.service.live.facts(live, user_id)  # the user's view, never the game itself
    view = facts.view
    lines = [note] if note else []
    lines.append(hand_text(view))
    controls = Controls()
    if view.my_turn:
        groups = moves_by_source(view)
        compulsory = {m.source_token for m in view.compulsory}
        targets: list[Move] = []
        if selected:
            targets = groups.get(selected.strip().upper(), [])
            if not targets:
                lines.append("That card can't move now; choose another.")
        if targets:
            lines.append(f"**Move {source_label(targets[0], view)} to…**")
            for move in targets:
                style = (discord.ButtonStyle.primary if move.is_play
                         else discord.ButtonStyle.secondary)
                controls.add_item(MoveButton(
                    live.id, live.version, move.text, target_label(move, view), style))
            controls.add_item(BackButton(live.id))
        else:
            options = []
            for token, outs in groups.items():
                where = ", ".join(m.target_token for m in outs)
                options.append(discord.SelectOption(
                    label=("❗ " if token in compulsory else "") + source_label(outs[0], view),
                    value=token,
                    description=(("must be played first · " if token in compulsory else "")
                                 + f"to {where}")[:100],
                ))
            if options:
                controls.add_item(SourceSelect.build(live.id, live.version, options[:25]))
            pass_move = next((m for m in view.legal_moves if m.is_pass), None)
            if pass_move is not None:
                controls.add_item(MoveButton(live.id, live.version, "pass", "Pass (end turn)",
                                             discord.ButtonStyle.secondary))
    payload: dict[str, Any] = {"view": controls}
    if picture:
        png = await _hand_picture(facts, board_info(facts))
        payload["file"] = Picture(png, "hand.png") if png is not None else None
        if png is None:
            lines.append(NO_PICTURE_NOW)
    payload["content"] = clip("\n".join(lines), MAX_MESSAGE)
    return payload


Factory = type[discord.ui.DynamicItem[Any]]
"""A ``DynamicItem`` class, as registered with ``Client.add_dynamic_items``."""

_WHAT = {discord.ComponentType.button.value: "button"}


async def answer_unclaimed(interaction: Interaction, factories: Sequence[Factory]) -> bool:
    """Answer a click that discord.py drops; True if this answered it (False: discord.py does).

    discord.py hands a click to a ``DynamicItem`` only if its ``custom_id`` fully matches one
    of the registered templates and the message still shows a component of that type with that
    id (``ViewStore.dispatch_view`` → ``schedule_dynamic_item_call``); anything else it drops
    without a word, and the player sees "This interaction failed". It decides from the
    interaction alone, before ``on_interaction`` runs; this decides from the same facts the
    same way, so exactly one of the two answers. (Every control of the bot is a
    ``DynamicItem``: ``Controls`` keeps discord.py from storing a view to dispatch to.)

    - A button or menu of ours that its message no longer shows runs as if it were still
      there: a board is closed (its buttons removed) when the turn passes, and a click made a
      moment before reaches the bot after that.
    - Any other id is from an older version of the bot (or forged): the player is told, once
      at INFO in the log, and nothing changes. The log names the id's kind, never the id (a
      move button's id names a card of a private hand).
    """
    if interaction.type is not discord.InteractionType.component:
        return False
    data: dict[str, Any] = dict(interaction.data or {})
    custom_id = data.get("custom_id")
    component_type = data.get("component_type")
    if not isinstance(custom_id, str):
        custom_id = ""
    message = interaction.message
    found = next(((factory, match) for factory in factories
                  if (match := factory.__discord_ui_compiled_template__.fullmatch(custom_id))),
                 None)
    if found is not None and message is not None:
        if (component_type, custom_id) in _shown(message.components):
            return False  # discord.py dispatches it
        if component_type in (discord.ComponentType.button.value,
                              discord.ComponentType.string_select.value):
            await _run_stale(interaction, data, *found)
            return True
    what = _WHAT.get(component_type, "menu") if isinstance(component_type, int) else "control"
    kind, version = ids.read_head(custom_id)
    known = ids.KINDS.get(kind) if kind is not None else None
    if known is not None and version is not None and version > known.newest:
        reason = f"version {version} of {kind!r}, newer than this bot's {known.newest}"
        text = newer_control(what)
    else:
        reason = (f"{kind!r} version {version} with parts that don't parse" if known is not None
                  else "not one of the bot's ids")
        text = outdated_control(what, known.instead if known is not None else "/board or /games")
    log.info("a click on a %s the bot doesn't read (%s, %d characters): answered that it "
             "no longer works", what, reason, len(custom_id))
    with contextlib.suppress(discord.HTTPException):
        await reply_error(interaction, text)
    return True


def _shown(components: Sequence[Any]) -> set[tuple[int, str | None]]:
    """(type, custom_id) of every component of a message, in rows or not."""
    shown: set[tuple[int, str | None]] = set()
    for component in components:
        children = getattr(component, "children", None)
        if children is not None:
            shown |= _shown(children)
        else:
            shown.add((component.type.value, getattr(component, "custom_id", None)))
    return shown


async def _run_stale(interaction: Interaction, data: dict[str, Any], factory: Factory,
                     match: re.Match[str]) -> None:
    # As discord.py would run it: built from the id, given the click's state (a menu's
    # choice), then called back; our items' callbacks answer every outcome (``Guarded``).
    base: discord.ui.Item[Any]
    if data.get("component_type") == discord.ComponentType.string_select.value:
        base = discord.ui.Select(custom_id=match.string)
    else:
        base = discord.ui.Button(custom_id=match.string)
    try:
        item = await factory.from_custom_id(interaction, base, match)
        item._refresh_state(interaction, data)
    except Exception:
        log.exception("%s: a click on a control its message no longer shows failed",
                      factory.__name__)
        with contextlib.suppress(discord.HTTPException):
            await reply_error(interaction, SORRY)
        return
    await item.callback(interaction)
