"""Slash commands for playing: thin adapters from Discord to the game services.

Each command answers first (a deferred response: Discord gives up on an interaction that is not
answered within 3 s, and saving, drawing or loading may take longer under load), then parses
what the user sent, calls the service, and follows up; the playing commands (``/hand``,
``/play``, ``/pass``) answer in their response when the answer is ready within
``ui.QUICK_ANSWER``, and defer only then (``ui.answer_soon``). A ``UserError`` raised anywhere
becomes a private reply through the tree's error handler (see ``client.SpiteTree``), which uses
``ui.reply_error`` and so works before and after the deferred response.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from bot.games.finishing import Resignation
from bot.games.live_game import LiveGame, parse_target_token
from bot.money.amounts import AmountError, format_amount, parse_amount
from bot.money.season_table import MODES as SEASON_MODES
from bot.pictures.text import (
    HELP_TEXT,
    PASS_HINT,
    plural,
    quote,
    rules_text,
    source_label,
    target_label,
)
from bot.storage import DatabaseUnavailable, GuildSettings
from bot.user_errors import UserError
from engine import MAX_PLAYERS, MIN_PLAYERS, View

from ..host import Host, Interaction
from ..invitations import post_invitation
from ..retry import UNBOUNDED, describe, with_retries
from ..season_posts import post_season
from ..ui import Controls, ResignButton, answer, answer_soon, hand_payload, make_move, think
from .season_commands import SEASON_HELP, ended_text

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
SEASON_CHOICES = [Choice(name="off (the leaderboard is all time)", value="off"),
                  Choice(name="monthly (UTC calendar months)", value="monthly"),
                  Choice(name="quarterly (UTC calendar quarters)", value="quarterly"),
                  Choice(name="by command (/season start, /season end)", value="manual")]
RULE_CHOICES = [Choice(name="kings (Kings wild, to 50 points)", value="kings"),
                Choice(name="classic (card-book rules with jokers)", value="classic")]

TABLE_HELP = (
    "\n**Tables of three or four**\n"
    "`/challenge opponent opponent2 opponent3` invite two or three (me for a computer seat); "
    "each accepts · `/table seats` an open table anyone may **Join**; the host may **Add "
    "computer** and **Start** · `/resign` at a table: you leave, the others play on"
    "\n`/tournament create` knockout, Swiss, round robin · `/tournament show`"
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


class GamesCog(commands.Cog):
    """Challenges, moves, the board and the settings."""

    def __init__(self, bot: Host) -> None:
        self.bot = bot

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
        computer = self.bot.computer_id
        # The computer plays for nothing: against it alone, no stakes unless some are asked for
        # (which it then refuses).
        stakes = (self.bot.ledger.stakes(settings, rule_name, stake, per_card)
                  if any(m.id != computer for m in others) or stake is not None
                  or per_card is not None else (0, 0))
        result = await self.service.inviting.invite(
            guild_id=interaction.guild_id, channel_id=interaction.channel_id,
            host=(me.id, me.display_name),
            invited=[(m.id, "Computer" if m.id == computer else m.display_name, m.bot)
                     for m in others],
            rules_name=rules, stakes=stakes, target=target, level=level or "normal")
        await post_invitation(interaction, result, settings.points_only)

    # ------------------------------------------------------------------ tables of 3 or 4

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
        seats: app_commands.Range[int, MIN_PLAYERS, MAX_PLAYERS] = MAX_PLAYERS,
        stake: str | None = None,
        per_card: str | None = None, target: app_commands.Range[int, 1, 1000] | None = None,
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        rules = _one_of(rules, RULE_NAMES, "rule set")
        await think(interaction, private=False)
        me = interaction.user
        settings = await self.service.inviting.settings(interaction.guild_id)
        stakes = self.bot.ledger.stakes(settings, rules or settings.default_rules, stake,
                                        per_card)
        row = await self.service.inviting.open_table(
            guild_id=interaction.guild_id, channel_id=interaction.channel_id,
            host=(me.id, me.display_name), seats=seats, rules_name=rules, stakes=stakes,
            target=target)
        await post_invitation(interaction, row, settings.points_only)

    # ------------------------------------------------------------------ playing

    async def _game(self, interaction: Interaction, game: int | None) -> LiveGame:
        assert interaction.channel_id is not None
        return await self.service.live.find_game(interaction.user.id, interaction.channel_id,
                                                 game, guild_id=interaction.guild_id)

    @app_commands.command(name="hand", description="See your hand privately, and move from it.")
    @app_commands.describe(game="Which game (if you have several here)")
    @app_commands.guild_only()
    async def hand(self, interaction: Interaction, game: int | None = None) -> None:
        async def shown() -> dict[str, Any]:
            live = await self._game(interaction, game)
            return await hand_payload(self.bot, live, interaction.user.id)

        await answer_soon(interaction, shown())

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
        async def moved() -> dict[str, Any]:
            live = await self._game(interaction, game)
            if card.strip().lower() == PASS_TOKEN:
                # The autocomplete hint (or a typed "pass"): passing has its own command.
                can_move = self.service.playing.legal_sources(live, interaction.user.id)
                raise UserError("To end your turn without discarding, use /pass." if can_move
                                else PASS_HINT)
            target = parse_target_token(to, self.service.live.facts(live).rules.centre_stacks)
            return await make_move(self.bot, live.id, interaction.user.id,
                                   f"{card.strip()}>{target}")

        await answer_soon(interaction, moved())

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
        async def passed() -> dict[str, Any]:
            live = await self._game(interaction, game)
            return await make_move(self.bot, live.id, interaction.user.id, "pass",
                                   note="✅ You passed.")

        await answer_soon(interaction, passed())

    @app_commands.command(name="resign", description="Give up your game or match, or leave "
                                                     "your seat at a table (asks first).")
    @app_commands.describe(game="Which game (if several)")
    @app_commands.guild_only()
    async def resign(self, interaction: Interaction, game: int | None = None) -> None:
        await think(interaction, private=True)
        live = await self._game(interaction, game)
        # What it would do, worked out now without doing it: the question says it all.
        said = self.service.finishing.resignation(live, interaction.user.id)
        view = Controls()
        view.add_item(ResignButton(live.id))
        await answer(interaction, private=True,
                     content=resign_question(said, live.names, live.players), view=view)

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
                base=self.bot.retry_base, tries=BOARD_TRIES, timeout=UNBOUNDED)
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
        await interaction.response.send_message(HELP_TEXT + TABLE_HELP + SEASON_HELP,
                                                ephemeral=True)

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
        seasons="Seasons: off, monthly, quarterly or by command (a change ends the running one)",
        season_channel="Where a season's final standings are posted",
        plan_expiry_hours="Hours a /ledger-plan proposal waits for everyone to accept",
    )
    @app_commands.choices(rules=RULE_CHOICES, seasons=SEASON_CHOICES)
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
        seasons: str | None = None,
        season_channel: discord.TextChannel | None = None,
        plan_expiry_hours: app_commands.Range[float, 0.5, 720.0] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        rules = _one_of(rules, RULE_NAMES, "rule set")
        seasons = _one_of(seasons, SEASON_MODES, "seasons")
        # Discord's clients keep to the declared ranges; a modified client need not.
        _within(challenge_expiry_minutes, 1, 10_080, "challenge expiry minutes")
        _within(reminder_hours, 0.1, 720, "reminder hours")
        _within(claim_hours, 0.5, 2_160, "claim hours")
        _within(plan_expiry_hours, 0.5, 720, "plan expiry hours")
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
        if plan_expiry_hours is not None:
            changes["plan_expiry_s"] = int(plan_expiry_hours * 3600)
        if changes or seasons is not None or season_channel is not None:
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
            ended = None
            if seasons is not None or season_channel is not None:
                settings, ended = await self.bot.seasons.set_mode(
                    interaction.guild_id, seasons,
                    season_channel.id if season_channel is not None else None)
            head = "Settings changed (games already going keep theirs):"
            if ended is not None:
                posted = await post_season(self.bot, ended)
                head = f"{ended_text(ended, posted)}\n{head}"
        else:
            settings = await self.service.inviting.settings(interaction.guild_id)
            head = "This server's settings:"
        await answer(interaction, private=True, content=f"{head}\n{_settings_text(settings)}")


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def resign_question(said: Resignation, names: Sequence[str], players: Sequence[int]) -> str:
    """The question before a resignation: exactly what it will do (the match or the game, the
    score, the money), so that nobody presses Yes on a guess."""
    me = said.seat
    cur = said.currency
    others = [n for s, n in enumerate(names) if s != me]
    if len(names) == 2:
        standing = f"{names[0]} {said.scores[0]} – {said.scores[1]} {names[1]}"
    else:
        standing = ", ".join(f"{n} {v}" for n, v in zip(names, said.scores, strict=True))
    what = "the match" if said.target is not None else "the game"
    goal = f" (first to {plural(said.target, 'point')})" if said.target is not None else ""
    if len(names) == 2:
        head = (f"Really resign the match against {others[0]}?" if said.target is not None
                else f"Really give up your game against {others[0]}?")
    else:
        head = f"Really leave your game with {_names(others)}?"
    lines = [head]
    if said.match_over:
        if said.winner is None:
            lines.append(f"That ends {what} now, level: {standing}{goal}.")
        else:
            lines.append(f"That ends {what} now. {names[said.winner]} wins {what}: "
                         f"{standing}{goal}.")
        paid = [e for e in said.entries if e.amount_cents > 0]
        for e in paid:
            debtor = "You pay" if e.debtor_id == players[me] else \
                f"{names[players.index(e.debtor_id)]} pays"
            lines.append(f"💸 {debtor} {names[players.index(e.creditor_id)]} "
                         f"{format_amount(e.amount_cents, cur)} for it.")
        if not paid:
            lines.append("No money changes hands.")
    else:
        playing = _names([names[s] for s in said.playing_on])
        score = f"; the score now: {standing}" if said.target is not None else ""
        lines.append(f"You leave {what}: you give up your seat, and the others play on. "
                     f"{playing} play on for {what}{goal}{score}.")
        if said.stake_cents or said.per_card_cents:
            stake = format_amount(said.stake_cents, cur)
            if said.owed_if_lost is not None:
                owed = (f"{format_amount(said.owed_if_lost, cur)} ({stake} plus "
                        f"{format_amount(said.per_card_cents, cur)} a card left in your "
                        "pay-off pile)")
            else:
                owed = (f"{stake} plus {format_amount(said.per_card_cents, cur)} a point of "
                        "the winner's lead over you (if any)")
            lines.append(f"💸 When it ends you pay the winner {owed}; nothing if it ends "
                         "level.")
    lines.append("This can't be undone.")
    return "\n".join(lines)


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
            f"• A thread for each game: **{'on' if s.use_threads else 'off'}**\n"
            f"• A settle-up plan (`/ledger-plan`) expires after **{s.plan_expiry_s / 3600:g} h**\n"
            f"• Seasons: **{MODE_WORDS.get(s.season_mode, s.season_mode)}**, final standings "
            + (f"posted in <#{s.season_channel_id}>" if s.season_channel_id is not None
               else "not posted (set `season_channel`)"))


MODE_WORDS = {c.value: c.name.split(" (")[0] for c in SEASON_CHOICES}

