"""Slash commands for playing: thin adapters from Discord to the ``GameService``.

Each command answers first (a deferred response: Discord gives up on an interaction that is not
answered within 3 s, and saving, drawing or loading may take longer under load), then parses
what the user sent, calls the service, and follows up. A ``UserError`` raised anywhere becomes a
private reply through the tree's error handler (see ``client.SpiteTree``), which uses
``ui.reply_error`` and so works before and after the deferred response.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from bot.games.live_game import ChallengeExpired, LiveGame, parse_target_token
from bot.money.amounts import AmountError, format_amount, parse_amount
from bot.pictures.text import (
    EXPIRED,
    HELP_TEXT,
    PASS_HINT,
    plural,
    quote,
    rules_text,
    source_label,
    target_label,
)
from bot.storage import ChallengeRow, DatabaseUnavailable, GuildSettings
from bot.user_errors import UserError
from engine import RuleSet, View

from ..host import Host, Interaction
from ..retry import describe, with_retries
from ..ui import (
    Controls,
    ResignButton,
    TableLevelSelect,
    answer,
    challenge_controls,
    hand_payload,
    table_controls,
    think,
)

if TYPE_CHECKING:
    from bot.games.game_service import GameService


__all__ = ["GamesCog"]

log = logging.getLogger(__name__)



LEVELS = ("easy", "normal", "hard")
# What each level is like, in a player's words; the strengths are measured with
# ``python -m engine.arena`` (a score counts a win 1 and a tie ½; see BENCHMARKS.md).
LEVEL_CHOICES = [
    Choice(name="easy: plays one sensible card at a time, no plan; gentle, answers at once",
           value="easy"),
    Choice(name="normal: plans each whole turn; beats easy about 8 games in 10, answers at once",
           value="normal"),
    Choice(name="hard: plans and guesses your hidden cards; beats normal about 6 games in 10, "
                "answers at once", value="hard"),
]

RULE_NAMES = ("kings", "classic")
RULE_CHOICES = [Choice(name="kings (Kings wild, to 50 points)", value="kings"),
                Choice(name="classic (card-book rules with jokers)", value="classic")]

TABLE_HELP = (
    "\n**Tables of three or four**\n"
    "`/challenge opponent opponent2 opponent3` invite two or three people (me among them for a "
    "computer seat); each accepts · `/table seats` an open table anyone may **Join**; the host "
    "may **Add computer** and **Start** · `/resign` at a table: you leave, the others play on"
)
"""/help's lines on tables (the words of HELP_TEXT stay the pictures-and-words module's)."""

BOARD_TRIES = 4
"""Tries of ``/board``'s post while Discord fails (a few seconds in all, then the player is
told to try again)."""

PASS_TOKEN = "pass"
"""The value of the autocomplete hint offered when only passing is possible."""

AUTOCOMPLETE_WAIT = 2.0
"""Seconds an autocomplete waits for its game: Discord takes suggestions for 3 s only (they
can't be deferred), so a busy database gets none rather than a late answer."""

# Longer than any card or stack token (``10H``, ``payoff``): refused before anything else, so a
# pasted essay is never quoted back whole.
_MAX_TOKEN = 16


def _one_of(value: str | None, allowed: tuple[str, ...], what: str) -> str | None:
    """A choice option checked here: Discord's clients offer only the choices, but a modified
    client can send anything, and discord.py's own refusal ("Failed to convert…") reads badly."""
    if value is None or value in allowed:
        return value
    names = ", ".join(allowed[:-1]) + " or " + allowed[-1]
    raise UserError(f"Unknown {what} {quote(value)}: choose {names}.")


def _within(value: float | None, low: float, high: float, what: str) -> None:
    """A number option checked here, for the same reason as ``_one_of``."""
    if value is not None and not low <= value <= high:
        raise UserError(f"The {what} must be between {low:g} and {high:g}.")


def _terms(rules: RuleSet) -> str:
    parts = [rules.name]
    if rules.name == "classic" and not rules.refill_empty_hand:
        parts.append("no refill of an emptied hand")
    if rules.name == "kings" and not rules.king_starts_stack:
        parts.append("Kings can't start a centre stack")
    target = rules.match_target
    parts.append(f"first to {plural(target, 'point')}" if target else "one game")
    return " · ".join(parts)


def _settled_embed(message: discord.Message | None, status: str) -> discord.Embed | None:
    """The challenge's embed once answered: the terms stay, the expiry line goes."""
    if message is None or not message.embeds:
        return None
    embed = message.embeds[0].copy()
    lines = (embed.description or "").splitlines()
    embed.description = "\n".join([line for line in lines if not line.startswith("Expires")]
                                  + [status])
    return embed


class GamesCog(commands.Cog):
    """Challenges, moves, the board and the settings."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot
        # Per challenge or table of three or four: its message's lock, and how many clicks
        # hold or wait for it.
        self._message_edits: dict[int, tuple[asyncio.Lock, int]] = {}

    @property
    def service(self) -> GameService:
        return self.bot.service

    # ------------------------------------------------------------------ challenges

    @app_commands.command(name="challenge", description="Challenge someone to Spite & Malice.")
    @app_commands.describe(opponent="Who to play (challenge me to practise against the "
                                    "computer)", rules="Rule set (default: this server's)",
                           stake="Paid by the loser to the winner, e.g. 0.50",
                           per_card="Paid per card of the winning margin, e.g. 0.05",
                           target="Play a match to this many points (kings: 50; classic: "
                                  "one game)",
                           level="Against me (the computer): easy, normal or hard (default normal)",
                           opponent2="A third player, for a table of three (me for a computer "
                                     "seat)",
                           opponent3="A fourth player, for a table of four")
    @app_commands.choices(rules=RULE_CHOICES, level=LEVEL_CHOICES)
    @app_commands.guild_only()
    async def challenge(
        self, interaction: Interaction, opponent: discord.Member,
        rules: str | None = None, stake: str | None = None,
        per_card: str | None = None, target: app_commands.Range[int, 1, 1000] | None = None,
        level: str | None = None, opponent2: discord.Member | None = None,
        opponent3: discord.Member | None = None,
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        rules = _one_of(rules, RULE_NAMES, "rule set")
        level = _one_of(level, LEVELS, "level")
        await think(interaction, private=False)
        me = interaction.user
        settings = await self.service.inviting.settings(interaction.guild_id)
        rule_name = rules or settings.default_rules
        others = [m for m in (opponent, opponent2, opponent3) if m is not None]
        if len(others) > 1:
            people = [m for m in others if m.id != self.bot.computer_id]
            stakes = self.bot.ledger.stakes(settings, rule_name, stake, per_card) \
                if people else (0, 0)
            group = await self.service.inviting.invite(
                guild_id=interaction.guild_id, channel_id=interaction.channel_id,
                host=(me.id, me.display_name),
                invited=[(m.id, m.display_name, m.bot) for m in others], rules_name=rules,
                stakes=stakes, target=target, level=level or "normal")
            await self._post_challenge(interaction, group, settings.points_only)
            return
        if opponent.id == self.bot.computer_id and stake is None and per_card is None:
            stakes = (0, 0)
        else:
            stakes = self.bot.ledger.stakes(settings, rule_name, stake, per_card)
        result = await self.service.inviting.challenge(
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            challenger_id=me.id,
            opponent_id=opponent.id,
            opponent_is_bot=opponent.bot,
            rules_name=rules,
            names=(me.display_name, "Computer" if opponent.id == self.bot.computer_id
                   else opponent.display_name),
            stakes=stakes,
            target=target,
            level=level or "normal",
        )
        await self._post_challenge(interaction, result, settings.points_only)

    async def _post_challenge(self, interaction: Interaction, result: ChallengeRow | LiveGame,
                              points_only: bool) -> None:
        """Answer a (re)challenge: the challenge with its buttons, or a computer game begun."""
        me = interaction.user
        if isinstance(result, LiveGame):
            facts = self.service.live.facts(result)
            message = await answer(
                interaction, private=False,
                content=f"{me.mention} is playing against the computer "
                        f"({result.terms.computer_level}; {_terms(facts.rules)}). Good luck!",
                allowed_mentions=discord.AllowedMentions.none(),
            )
            await self.bot.game_started(result, origin_message_id=message.id)
            return
        row = result
        terms = _terms(RuleSet.from_dict(row.rules)) + " · " + self.bot.ledger.terms(
            row.stake_cents, row.per_card_cents, row.currency, points_only)
        if row.group:
            waiting = [s.user_id for s in row.seated if not s.accepted]
            mentions = {"content": " ".join(f"<@{u}>" for u in waiting)} if waiting else {}
            message = await answer(
                interaction, private=False, **mentions,
                embed=self._group_embed(row, terms),
                view=(table_controls(row.id) if row.kind == "table"
                      else challenge_controls(row.id)),
                allowed_mentions=discord.AllowedMentions(
                    users=[discord.Object(u) for u in waiting]))
            await self.service.inviting.set_challenge_message(row.id, message.id)
            return
        embed = discord.Embed(
            title="A challenge!",
            description=(f"{me.mention} challenges <@{row.opponent_id}> to Spite & Malice.\n"
                         f"**Terms:** {terms}\n"
                         f"Expires <t:{int(row.expires_at)}:R>."),
            colour=0xF5C542,
        )
        message = await answer(
            interaction, private=False,
            content=f"<@{row.opponent_id}>", embed=embed, view=challenge_controls(row.id),
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(row.opponent_id)]),
        )
        await self.service.inviting.set_challenge_message(row.id, message.id)

    async def on_rematch(self, interaction: Interaction, game_id: int) -> None:
        """Rematch on a result: the same terms to the same opponent, as a new challenge."""
        await think(interaction, private=False)
        live = await self.service.live.game(game_id)
        seat = self.service.live.seat(live, interaction.user.id)
        names = (live.names[seat], live.names[1 - seat]) if len(live.names) == 2 else \
            (live.names[seat], "")
        result = await self.service.finishing.rematch(game_id, interaction.user.id, names)
        settings = await self.service.inviting.settings(live.terms.guild_id)
        await self._post_challenge(interaction, result, settings.points_only)

    async def on_challenge_button(
        self, interaction: Interaction, challenge_id: int, action: str
    ) -> None:
        """Accept, decline or cancel (called by the challenge buttons)."""
        await interaction.response.defer()
        user = interaction.user.id
        live: LiveGame | None = None
        try:
            if (await self.service.inviting.get_challenge(challenge_id)).group:
                await self._group_button(interaction, challenge_id, action)
                return
            if action == "accept":
                row, live = await self.service.inviting.accept(challenge_id, user)
                text = f"✅ <@{row.opponent_id}> accepted: game on! The board is below."
                status = "**Accepted.**"
            elif action == "decline":
                row = await self.service.inviting.decline(challenge_id, user)
                text = f"<@{row.opponent_id}> declined the challenge."
                status = "**Declined.**"
            else:
                row = await self.service.inviting.cancel(challenge_id, user)
                text = f"<@{row.challenger_id}> withdrew the challenge."
                status = "**Withdrawn.**"
        except ChallengeExpired:
            await interaction.edit_original_response(
                content=EXPIRED, embed=None, view=challenge_controls(challenge_id, disabled=True))
            raise
        if live is not None:
            # The game's thread opens from this message; the message then says where to play.
            assert interaction.message is not None
            thread = await self.bot.game_started(live, origin_message_id=interaction.message.id)
            if thread is not None:
                text = f"✅ <@{row.opponent_id}> accepted: game on in <#{thread}>!"
        await interaction.edit_original_response(
            content=text, embed=_settled_embed(interaction.message, status),
            view=challenge_controls(challenge_id, disabled=True),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    # ------------------------------------------------------------------ tables of 3 or 4

    def _group_embed(self, row: ChallengeRow, terms: str | None = None,
                     status: str | None = None) -> discord.Embed:
        """A challenge of three or four, or an open table: its terms and its seats."""
        if terms is None:
            terms = _terms(RuleSet.from_dict(row.rules)) + " · " + self.bot.ledger.terms(
                row.stake_cents, row.per_card_cents, row.currency)
        lines = []
        for n in range(row.seats):
            if n < len(row.seated):
                seat = row.seated[n]
                who = (f"the computer ({row.computer_level})"
                       if seat.user_id == self.bot.computer_id else f"<@{seat.user_id}>")
                mark = "✅" if seat.accepted else "⏳ invited"
                host = " (host)" if n == 0 else ""
                lines.append(f"{n + 1}. {who}{host} {mark}")
            else:
                lines.append(f"{n + 1}. — free —")
        if row.kind == "table":
            title = f"An open table for {row.seats}!"
            head = (f"<@{row.challenger_id}> is looking for players. Press **Join** to sit "
                    "down; it starts when the table is full, or when the host presses "
                    "**Start**.")
        else:
            title = f"A challenge for {row.seats}!"
            head = (f"<@{row.challenger_id}> challenges "
                    + ", ".join(f"<@{s.user_id}>" for s in row.seated[1:]
                                if s.user_id != self.bot.computer_id)
                    + " to Spite & Malice. Everyone must accept.")
        tail = status or f"Expires <t:{int(row.expires_at)}:R>."
        return discord.Embed(
            title=title, colour=0xF5C542,
            description=f"{head}\n**Terms:** {terms}\n**Seats:**\n" + "\n".join(lines)
                        + f"\n{tail}")

    @contextlib.asynccontextmanager
    async def _editing(self, challenge_id: int) -> AsyncIterator[None]:
        """One click at a time edits a group challenge's or a table's message, so that the edit
        made for an earlier click (slow to reach Discord, say) can't land after the one that
        started the game and show it open again."""
        lock, users = self._message_edits.get(challenge_id, (asyncio.Lock(), 0))
        self._message_edits[challenge_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._message_edits[challenge_id]
            if users == 1:
                del self._message_edits[challenge_id]
            else:
                self._message_edits[challenge_id] = (lock, users - 1)

    async def _latest(self, row: ChallengeRow, live: LiveGame | None) -> ChallengeRow | None:
        """The row to show for a click that didn't start the game (called while editing): as
        the database has it now, or None once the game has begun (the click that began it
        shows that)."""
        if live is not None:
            return row
        latest = await self.service.inviting.get_challenge(row.id)
        return None if latest.status == "accepted" else latest

    async def _group_button(self, interaction: Interaction, challenge_id: int, action: str
                            ) -> None:
        """A click on a challenge of three or four (the message is deferred already)."""
        user = interaction.user.id
        live: LiveGame | None = None
        controls = challenge_controls(challenge_id)
        try:
            if action == "accept":
                row, live = await self.service.inviting.accept_seat(challenge_id, user)
                text = f"<@{user}> accepted." if live is None else None
            elif action == "decline":
                row = await self.service.inviting.decline(challenge_id, user)
                text = f"<@{user}> declined: the challenge is off."
            else:
                row = await self.service.inviting.cancel(challenge_id, user)
                text = f"<@{row.challenger_id}> withdrew the challenge."
        except ChallengeExpired:
            await interaction.edit_original_response(
                content=EXPIRED, embed=None, view=challenge_controls(challenge_id, disabled=True))
            raise
        async with self._editing(challenge_id):
            latest = await self._latest(row, live)
            if latest is None:
                return
            row = latest
            status = None
            if live is not None or row.status != "open":
                controls = challenge_controls(challenge_id, disabled=True)
                status = {"accepted": "**Accepted by everyone.**", "declined": "**Declined.**",
                          "cancelled": "**Withdrawn.**"}.get(row.status, "")
            if live is not None:
                assert interaction.message is not None
                text = await self._started_text(live, interaction.message.id)
            await interaction.edit_original_response(
                content=text, embed=self._group_embed(row, status=status), view=controls,
                allowed_mentions=discord.AllowedMentions.none())

    async def _started_text(self, live: LiveGame, origin_message_id: int) -> str:
        thread = await self.bot.game_started(live, origin_message_id=origin_message_id)
        people = " ".join(f"<@{u}>" for u in live.players if u != self.bot.computer_id)
        where = f"in <#{thread}>" if thread is not None else "below"
        return f"✅ {people}: game on {where}!"

    @app_commands.command(name="table", description="Post an open table anyone may join "
                                                    "(two to four seats).")
    @app_commands.describe(rules="Rule set (default: this server's)",
                           seats="How many players (2 to 4; default 4)",
                           stake="Paid by each loser to the winner, e.g. 0.50",
                           per_card="Paid per card of each loser's margin, e.g. 0.05",
                           target="Play a match to this many points (kings: 50; classic: "
                                  "one game)")
    @app_commands.choices(rules=RULE_CHOICES)
    @app_commands.guild_only()
    async def table(
        self, interaction: Interaction, rules: str | None = None,
        seats: app_commands.Range[int, 2, 4] = 4, stake: str | None = None,
        per_card: str | None = None, target: app_commands.Range[int, 1, 1000] | None = None,
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        rules = _one_of(rules, RULE_NAMES, "rule set")
        _within(seats, 2, 4, "number of seats")
        await think(interaction, private=False)
        me = interaction.user
        settings = await self.service.inviting.settings(interaction.guild_id)
        stakes = self.bot.ledger.stakes(settings, rules or settings.default_rules, stake,
                                        per_card)
        row = await self.service.inviting.open_table(
            guild_id=interaction.guild_id, channel_id=interaction.channel_id,
            host=(me.id, me.display_name), seats=seats, rules_name=rules, stakes=stakes,
            target=target)
        await self._post_challenge(interaction, row, settings.points_only)

    async def on_table_button(self, interaction: Interaction, table_id: int, action: str
                              ) -> None:
        """Join, Leave, Add computer or Start (called by the table's buttons)."""
        user = interaction.user
        if action == "computer":
            await think(interaction, private=True)  # answer first: the table is read next
            row = await self.service.inviting.get_challenge(table_id)
            if user.id != row.challenger_id:
                raise UserError("Only the host of the table can add the computer.")
            if row.status != "open":
                raise UserError("This table is no longer open.")
            view = Controls()
            view.add_item(TableLevelSelect.build(table_id))
            await answer(interaction, private=True,
                         content="Which level should the computer play at?", view=view)
            return
        await interaction.response.defer()
        live: LiveGame | None = None
        try:
            if action == "join":
                row, live = await self.service.inviting.join_table(table_id, user.id,
                                                                   user.display_name)
            elif action == "leave":
                row = await self.service.inviting.leave_table(table_id, user.id)
            else:
                row, live = await self.service.inviting.start_table(table_id, user.id)
        except ChallengeExpired:
            await interaction.edit_original_response(
                content=EXPIRED, embed=None, view=table_controls(table_id, disabled=True))
            raise
        assert interaction.message is not None
        await self._show_table(row, live, interaction.message.id,
                               interaction.edit_original_response)

    async def on_table_level(self, interaction: Interaction, table_id: int, level: str) -> None:
        """The host chose the computer's level (on his private menu): it sits down."""
        await interaction.response.defer()
        level = _one_of(level, LEVELS, "level") or "normal"
        row, live = await self.service.inviting.add_computer(table_id, interaction.user.id, level)
        await interaction.edit_original_response(
            content=f"The computer ({level}) has taken a seat.", view=None)
        if row.message_id is None:
            return
        message = self.bot.get_partial_messageable(row.channel_id).get_partial_message(
            row.message_id)
        await self._show_table(row, live, row.message_id, message.edit)

    async def _show_table(self, row: ChallengeRow, live: LiveGame | None, message_id: int,
                          edit: Any) -> None:
        """Bring the table's message up to date (``edit`` edits it); a game begun opens its
        thread from it."""
        async with self._editing(row.id):
            latest = await self._latest(row, live)
            if latest is None:
                return
            row = latest
            text = None
            controls = table_controls(row.id)
            status = None
            if live is not None:
                text = await self._started_text(live, message_id)
                controls = table_controls(row.id, disabled=True)
                status = "**Started.**"
            elif row.status != "open":
                text = f"<@{row.challenger_id}> closed the table."
                controls = table_controls(row.id, disabled=True)
                status = "**Closed.**"
            await edit(content=text, embed=self._group_embed(row, status=status),
                       view=controls, allowed_mentions=discord.AllowedMentions.none())

    # ------------------------------------------------------------------ playing

    async def _game(self, interaction: Interaction, game: int | None) -> LiveGame:
        assert interaction.channel_id is not None
        return await self.service.live.find_game(interaction.user.id, interaction.channel_id, game,
                                            guild_id=interaction.guild_id)

    @app_commands.command(name="hand", description="See your hand privately, and move from it.")
    @app_commands.describe(game="Which game (if you have several here)")
    @app_commands.guild_only()
    async def hand(self, interaction: Interaction, game: int | None = None) -> None:
        await think(interaction, private=True)
        live = await self._game(interaction, game)
        await answer(interaction, private=True,
                     **await hand_payload(self.bot, live, interaction.user.id))

    @app_commands.command(name="play", description="Make a move: a card (7H, P, S1…) to a stack "
                                                   "(C1…C4, S1…S4).")
    @app_commands.describe(card="A hand card like 7H, P for your pay-off card, or S1–S4 for a "
                                "side-stack top", to="C1–C4 for a centre stack, S1–S4 for your "
                                "side stack (ends your turn)", game="Which game (if several)")
    @app_commands.guild_only()
    async def play(
        self, interaction: Interaction, card: str, to: str, game: int | None = None
    ) -> None:
        if len(card.strip()) > _MAX_TOKEN:
            raise UserError(f"{quote(card)} is not a card: type one like 7H, P or S1.")
        if len(to.strip()) > _MAX_TOKEN:
            raise UserError(f"{quote(to)} is not a stack: type one like C1 or S1.")
        await think(interaction, private=True)
        live = await self._game(interaction, game)
        if card.strip().lower() == PASS_TOKEN:
            # The autocomplete hint (or a typed "pass"): passing has its own command.
            can_move = self.service.playing.legal_sources(live, interaction.user.id)
            raise UserError("To end your turn without discarding, use /pass." if can_move
                            else PASS_HINT)
        target = parse_target_token(to, self.service.live.facts(live).rules.centre_stacks)
        outcome = await self.service.playing.play(live.id, interaction.user.id,
                                                  f"{card.strip()}>{target}")
        note = f"✅ {outcome.game.last_moves[-1]}" if outcome.game.last_moves else "✅ Done."
        await answer(interaction, private=True,
                     **await hand_payload(self.bot, outcome.game, interaction.user.id, note=note))

    @play.autocomplete("card")
    async def _card_choices(self, interaction: Interaction, current: str) -> list[Choice[str]]:
        live = await self._autocomplete_game(interaction)
        if live is None:
            return []
        view = self.service.live.view(live, interaction.user.id)
        out = []
        for move in self.service.playing.legal_sources(live, interaction.user.id):
            token = move.source_token
            name = source_label(move, view)
            if current.strip().lower() in (token.lower() + " " + name.lower()):
                out.append(Choice(name=name[:100], value=token))
        if not out and _only_pass(view):
            return [Choice(name=PASS_HINT, value=PASS_TOKEN)]
        return out[:25]

    @play.autocomplete("to")
    async def _to_choices(self, interaction: Interaction, current: str) -> list[Choice[str]]:
        live = await self._autocomplete_game(interaction)
        if live is None:
            return []
        source = str(getattr(interaction.namespace, "card", "") or "")
        view = self.service.live.view(live, interaction.user.id)
        if source.strip().lower() == PASS_TOKEN and _only_pass(view):
            return [Choice(name=PASS_HINT, value=PASS_TOKEN)]
        out = []
        for move in self.service.playing.legal_targets(live, interaction.user.id, source):
            name = target_label(move, view)
            if current.strip().lower() in (move.target_token.lower() + " " + name.lower()):
                out.append(Choice(name=name[:100], value=move.target_token))
        return out[:25]

    async def _autocomplete_game(self, interaction: Interaction) -> LiveGame | None:
        game = getattr(interaction.namespace, "game", None)
        try:
            async with asyncio.timeout(AUTOCOMPLETE_WAIT):
                return await self._game(interaction, int(game) if game is not None else None)
        except (UserError, ValueError, TypeError, TimeoutError, DatabaseUnavailable):
            return None

    @app_commands.command(name="pass", description="End your turn without discarding (classic).")
    @app_commands.describe(game="Which game (if several)")
    @app_commands.guild_only()
    async def pass_(self, interaction: Interaction, game: int | None = None) -> None:
        await think(interaction, private=True)
        live = await self._game(interaction, game)
        outcome = await self.service.playing.play(live.id, interaction.user.id, "pass")
        await answer(interaction, private=True,
                     **await hand_payload(self.bot, outcome.game, interaction.user.id,
                                          note="✅ You passed."))

    @app_commands.command(name="resign", description="Give up your game (asks first).")
    @app_commands.describe(game="Which game (if several)")
    @app_commands.guild_only()
    async def resign(self, interaction: Interaction, game: int | None = None) -> None:
        await think(interaction, private=True)
        live = await self._game(interaction, game)
        if live.finished:
            raise UserError("This game is over.")
        view = Controls()
        view.add_item(ResignButton(live.id))
        seat = self.service.live.seat(live, interaction.user.id)
        if len(live.names) == 2:
            content = (f"Really give up your game against {live.names[1 - seat]}? This can't "
                       "be undone.")
        else:
            others = ", ".join(n for s, n in enumerate(live.names) if s != seat)
            content = (f"Really leave your game with {others}? You lose with the cards left "
                       "in your pay-off pile, and the others play on. This can't be undone.")
        await answer(interaction, private=True, content=content, view=view)

    @app_commands.command(name="board", description="Post the board of your game again.")
    @app_commands.describe(game="Which game (if several)")
    @app_commands.guild_only()
    async def board(self, interaction: Interaction, game: int | None = None) -> None:
        await think(interaction, private=True)
        live = await self._game(interaction, game)
        try:
            # Discord failing now and then (a 5xx, no answer in time) is tried again; the post
            # carries a nonce, so a try whose answer was lost still makes one board.
            posted = await with_retries(
                lambda: self.bot.boards.publish(live.id, new_message=True), kind="board",
                what=f"game {live.id}: posting the board again", failures=self.bot.failures,
                base=self.bot.retry_base, tries=BOARD_TRIES)
        except discord.Forbidden:
            log.warning("game %s: /board: no permission to post in its channel", live.id)
            raise UserError("I'm not allowed to post in that game's channel any more: a server "
                            "admin can give me back Send Messages there.") from None
        except (discord.HTTPException, TimeoutError, aiohttp.ClientError) as exc:
            log.warning("game %s: /board couldn't post the board (%s)", live.id, describe(exc))
            raise UserError("Discord didn't take the board just now (your game is safe). "
                            "Please try `/board` again in a minute.") from None
        if posted is None:
            raise UserError("That game is no longer open.")
        link = (f"https://discord.com/channels/{live.terms.guild_id}/"
                f"{live.board_channel_id}/{posted.id}")
        await answer(interaction, private=True, content=f"Here is the board: {link}")

    @app_commands.command(name="games", description="Your open games in this server.")
    @app_commands.guild_only()
    async def games(self, interaction: Interaction) -> None:
        assert interaction.guild_id is not None
        await think(interaction, private=True)
        me = interaction.user.id
        games = await self.service.live.user_games(me, interaction.guild_id)
        if not games:
            await answer(interaction, private=True,
                         content="You have no open games. Start one with `/challenge`.")
            return
        lines = []
        for live in games[:20]:
            seat = live.terms.seat_of(me)
            assert seat is not None
            turn = "your turn" if live.on_turn == me else "their turn"
            where = (f"https://discord.com/channels/{live.terms.guild_id}/{live.board_channel_id}/"
                     f"{live.board_message_id}" if live.board_message_id
                     else f"<#{live.board_channel_id}>")
            rules = self.service.live.facts(live).rules.name
            others = ", ".join(n for s, n in enumerate(live.names) if s != seat)
            lines.append(f"**#{live.id}** {rules} vs {others} · "
                         f"{turn} · {where}")
        await answer(interaction, private=True, content="\n".join(lines))

    # ------------------------------------------------------------------ information

    @app_commands.command(name="rules", description="The rules in short.")
    @app_commands.describe(rules="Which rule set (default: this server's)")
    @app_commands.choices(rules=RULE_CHOICES)
    async def rules(self, interaction: Interaction, rules: str | None = None) -> None:
        name = _one_of(rules, RULE_NAMES, "rule set")
        if name is None and interaction.guild_id:
            await think(interaction, private=True)
            name = (await self.service.inviting.settings(interaction.guild_id)).default_rules
            await answer(interaction, private=True, content=rules_text(name))
            return
        await interaction.response.send_message(rules_text(name or "kings"), ephemeral=True)

    @app_commands.command(name="help", description="The commands in one screen.")
    async def help(self, interaction: Interaction) -> None:
        await interaction.response.send_message(HELP_TEXT + TABLE_HELP, ephemeral=True)

    @app_commands.command(name="settings", description="This server's settings (Manage Server "
                                                       "may change them).")
    @app_commands.describe(
        rules="Default rule set for new challenges",
        refill_empty_hand="Classic: draw 5 when you empty your hand mid-turn",
        king_starts_stack="Kings: a King may start a centre stack",
        challenge_expiry_minutes="Minutes before an unanswered challenge expires",
        reminder_hours="Hours before the player on turn is reminded",
        claim_hours="Hours before the opponent may claim a stuck game",
        currency="Currency symbol for stakes, e.g. $ or €",
        points_only="Play for points only (no stakes)",
        stake_kings="Default flat stake for kings challenges",
        per_card_kings="Default per-card stake for kings challenges",
        stake_classic="Default flat stake for classic challenges",
        per_card_classic="Default per-card stake for classic challenges",
        threads="Play each game in a thread of its own (needs Create Public Threads)",
    )
    @app_commands.choices(rules=RULE_CHOICES)
    @app_commands.guild_only()
    async def settings(
        self,
        interaction: Interaction,
        rules: str | None = None,
        refill_empty_hand: bool | None = None,
        king_starts_stack: bool | None = None,
        challenge_expiry_minutes: app_commands.Range[int, 1, 10_080] | None = None,
        reminder_hours: app_commands.Range[float, 0.1, 720.0] | None = None,
        claim_hours: app_commands.Range[float, 0.5, 2_160.0] | None = None,
        currency: app_commands.Range[str, 1, 4] | None = None,
        points_only: bool | None = None,
        stake_kings: str | None = None,
        per_card_kings: str | None = None,
        stake_classic: str | None = None,
        per_card_classic: str | None = None,
        threads: bool | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        rules = _one_of(rules, RULE_NAMES, "rule set")
        # Discord's clients keep to the declared ranges; a modified client need not.
        _within(challenge_expiry_minutes, 1, 10_080, "challenge expiry minutes")
        _within(reminder_hours, 0.1, 720, "reminder hours")
        _within(claim_hours, 0.5, 2_160, "claim hours")
        if currency is not None and not 1 <= len(currency.strip()) <= 4:
            raise UserError(f"The currency {quote(currency)} must be 1 to 4 characters, "
                            "e.g. $ or €.")
        await think(interaction, private=True)
        changes: dict[str, Any] = {}
        if currency is not None:
            changes["currency"] = currency.strip()
        if points_only is not None:
            changes["points_only"] = int(points_only)
        for name, text in (("stake_kings", stake_kings), ("per_card_kings", per_card_kings),
                           ("stake_classic", stake_classic),
                           ("per_card_classic", per_card_classic)):
            if text is not None:
                if len(text.strip()) > _MAX_TOKEN:
                    raise UserError(f"{name.replace('_', ' ')}: {quote(text)} is not an "
                                    "amount; type one like 0.50.")
                try:
                    changes[name] = parse_amount(text)
                except AmountError as exc:
                    raise UserError(f"{name.replace('_', ' ')}: {exc}") from None
        if rules is not None:
            changes["default_rules"] = rules
        if refill_empty_hand is not None:
            changes["refill_empty_hand"] = int(refill_empty_hand)
        if king_starts_stack is not None:
            changes["king_starts_stack"] = int(king_starts_stack)
        if threads is not None:
            changes["use_threads"] = int(threads)
        if challenge_expiry_minutes is not None:
            changes["challenge_expiry_s"] = int(challenge_expiry_minutes) * 60
        if reminder_hours is not None:
            changes["reminder_s"] = int(reminder_hours * 3600)
        if claim_hours is not None:
            changes["claim_s"] = int(claim_hours * 3600)
        if changes:
            if not interaction.permissions.manage_guild:
                raise UserError("Only members with the Manage Server permission can change the "
                                "settings. Anyone may look: run `/settings` with no options.")
            current = await self.service.inviting.settings(interaction.guild_id)
            reminder = changes.get("reminder_s", current.reminder_s)
            claim = changes.get("claim_s", current.claim_s)
            if claim <= reminder:
                raise UserError("The claim time must be longer than the reminder time. "
                                "Nothing was changed.")
            settings = await self.service.inviting.update_settings(interaction.guild_id, **changes)
            head = "Settings changed (games already going keep theirs):"
        else:
            settings = await self.service.inviting.settings(interaction.guild_id)
            head = "This server's settings:"
        await answer(interaction, private=True, content=f"{head}\n{_settings_text(settings)}")


def _only_pass(view: View) -> bool:
    """The viewer is on turn and passing is all he can do (classic)."""
    return view.my_turn and bool(view.legal_moves) and all(m.is_pass for m in view.legal_moves)


def _settings_text(s: GuildSettings) -> str:
    stakes = "points only" if s.points_only else (
        f"currency {s.currency} · kings {format_amount(s.stake_kings, s.currency)} + "
        f"{format_amount(s.per_card_kings, s.currency)}/card · classic "
        f"{format_amount(s.stake_classic, s.currency)} + "
        f"{format_amount(s.per_card_classic, s.currency)}/card")
    return (f"• Default rules: **{s.default_rules}**\n"
            f"• Stakes: **{stakes}**\n"
            f"• Classic, refill an emptied hand: **{'on' if s.refill_empty_hand else 'off'}**\n"
            f"• Kings, a King may start a centre stack: "
            f"**{'on' if s.king_starts_stack else 'off'}**\n"
            f"• Challenges expire after **{s.challenge_expiry_s // 60} min**\n"
            f"• Reminder after **{s.reminder_s / 3600:g} h**, claim after "
            f"**{s.claim_s / 3600:g} h**\n"
            f"• A thread for each game: **{'on' if s.use_threads else 'off'}**")

