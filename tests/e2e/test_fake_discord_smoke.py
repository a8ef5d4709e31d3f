"""Smoke tests of the fake Discord harness with a tiny, real discord.py bot.

The bots below are deliberately ordinary discord.py code (no test hooks).
``SmokeBot``: slash commands with USER / ranged-int / autocomplete options, an
ephemeral reply, a persistent view, a ``DynamicItem``, a select, a modal, a deferred
PNG upload and a guild-only command. ``KitchenBot``: an ``AutoShardedBot`` with the
members intent that exercises channel messages, edits, reactions, threads, DMs,
history and a rejected (too long) message. Every test runs them against
``FakeDiscord`` on 127.0.0.1; the whole file takes a few seconds.
"""

from __future__ import annotations

import asyncio
import io
import re

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands
from PIL import Image

from bot.sandbox import (
    CallbackType,
    ErrorLogGuard,
    FakeDiscord,
    FakeDiscordError,
    MessageFlags,
    running_bot,
    start_bot,
)
from tests import fake_discord_fixtures as _fixtures

# Fixtures used below (assigned, not imported by name, so linters see no shadowing).
fake_discord = _fixtures.fake_discord
make_fake_discord = _fixtures.make_fake_discord
no_error_logs = _fixtures.no_error_logs

RULESETS = ["classic", "kings", "speed", "spite"]


# --------------------------------------------------------------------------- the bot


class PokeView(discord.ui.View):
    """Persistent view: survives restarts because its custom_id is fixed."""

    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Poke", style=discord.ButtonStyle.primary, custom_id="smoke:poke")
    async def poke(
        self, interaction: discord.Interaction, button: discord.ui.Button[PokeView]
    ) -> None:
        await interaction.response.edit_message(content=f"poked by {interaction.user.name}")


class Counter(
    discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=r"smoke:count:(?P<n>\d+)"
):
    """State lives in the custom_id, so any bot instance can handle old buttons."""

    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"Count {n}", custom_id=f"smoke:count:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[discord.ui.View],
        match: re.Match[str],
    ) -> Counter:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(Counter(self.n + 1))
        await interaction.response.edit_message(content=f"count={self.n + 1}", view=view)


class PickView(discord.ui.View):
    @discord.ui.select(
        custom_id="smoke:pick",
        options=[discord.SelectOption(label=x.title(), value=x) for x in ("a", "b", "c")],
    )
    async def pick(
        self, interaction: discord.Interaction, select: discord.ui.Select[PickView]
    ) -> None:
        await interaction.response.edit_message(content=f"picked {select.values[0]}", view=None)


class NameModal(discord.ui.Modal, title="Your name"):
    name: discord.ui.TextInput[NameModal] = discord.ui.TextInput(
        label="Name", custom_id="smoke:name", max_length=20
    )

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"Hello {self.name.value}")


def png_bytes(width: int = 32, height: int = 48) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


class SmokeBot(commands.Bot):
    def __init__(self, guild_id: int) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
        self.guild_id = guild_id
        self.setup_calls = 0

        @self.tree.command(description="Health check")
        async def ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("pong", ephemeral=True)
            view = PokeView()
            view.add_item(Counter(0))
            await interaction.followup.send("Public board", view=view)

        @self.tree.command(description="Challenge someone")
        @app_commands.describe(opponent="Who to play", stake="Cents at stake")
        async def duel(
            interaction: discord.Interaction,
            opponent: discord.Member,
            stake: app_commands.Range[int, 1, 100] = 10,
        ) -> None:
            await interaction.response.send_message(
                f"{interaction.user.mention} challenges {opponent.mention} "
                f"({opponent.display_name}) for {stake}"
            )

        async def ruleset_autocomplete(
            interaction: discord.Interaction, current: str
        ) -> list[app_commands.Choice[str]]:
            return [app_commands.Choice(name=r, value=r) for r in RULESETS if r.startswith(current)]

        @self.tree.command(description="Pick a rule set")
        @app_commands.autocomplete(ruleset=ruleset_autocomplete)
        async def rules(interaction: discord.Interaction, ruleset: str) -> None:
            await interaction.response.send_message(f"rules: {ruleset}")

        @self.tree.command(description="Draw a card image")
        async def card(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            await interaction.followup.send(
                "your card", file=discord.File(io.BytesIO(png_bytes()), "card.png")
            )

        @self.tree.command(description="Pick a letter")
        async def pick(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("pick one", view=PickView())

        @self.tree.command(description="Tell me your name")
        async def name(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(NameModal())

        @self.tree.command(description="Always fails")
        async def boom(interaction: discord.Interaction) -> None:
            raise RuntimeError("kaboom")

        @self.tree.command(description="Answers too late")
        async def slow(interaction: discord.Interaction) -> None:
            await asyncio.sleep(0.3)
            await interaction.response.send_message("too late")

        @app_commands.command(description="Only in the test guild")
        async def guildonly(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(f"guild {interaction.guild_id}")

        self.tree.add_command(guildonly, guild=discord.Object(guild_id))

    async def setup_hook(self) -> None:
        self.setup_calls += 1
        self.add_view(PokeView())
        self.add_dynamic_items(Counter)
        await self.tree.sync()
        await self.tree.sync(guild=discord.Object(self.guild_id))


def make_bot(fake: FakeDiscord) -> SmokeBot:
    return SmokeBot(fake.guild.id)


class KitchenBot(commands.AutoShardedBot):
    """Sharded (reads GET /gateway/bot), members intent (chunks via op 8), and one
    command that walks through the channel/message/thread/DM REST routes."""

    def __init__(self) -> None:
        intents = discord.Intents.default()
        intents.members = True
        super().__init__(command_prefix=commands.when_mentioned, intents=intents)
        self.seen: list[tuple[str, str]] = []

        @self.tree.command(description="Exercise channel routes")
        async def kitchen(interaction: discord.Interaction) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            channel = interaction.channel
            assert isinstance(channel, discord.TextChannel)
            embed = discord.Embed(title="Scores", description="0-0")
            image = discord.File(io.BytesIO(png_bytes(4, 4)), "a.png")
            msg = await channel.send("board", embed=embed, file=image)
            await msg.edit(content="board v2")
            await msg.add_reaction("\N{THUMBS UP SIGN}")
            thread = await msg.create_thread(name="game-1")
            await thread.send("in thread")
            await interaction.user.send("psst")
            fetched = await channel.fetch_message(msg.id)
            data = await fetched.attachments[0].read()
            history = [m.content async for m in channel.history(limit=10)]
            try:
                await channel.send("x" * 2001)
                code = 0
            except discord.HTTPException as exc:
                code = exc.code
            assert interaction.guild is not None
            member = await interaction.guild.fetch_member(interaction.user.id)
            await interaction.followup.send(
                f"{fetched.content}|{len(data)}|{history}|{code}|{member.name}"
            )

    async def setup_hook(self) -> None:
        await self.tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        self.seen.append((message.author.name, message.content))


# --------------------------------------------------------------------------- tests


async def test_login_sync_and_guild_cache(
    fake_discord: FakeDiscord, no_error_logs: ErrorLogGuard
) -> None:
    fake = fake_discord
    async with running_bot(fake, make_bot(fake)) as bot:
        assert bot.user is not None and bot.user.id == fake.bot_user.id
        assert set(fake.state.commands()) == {
            "ping",
            "duel",
            "rules",
            "card",
            "pick",
            "name",
            "boom",
            "slow",
        }
        assert set(fake.state.commands(fake.guild)) == {"guildonly"}
        duel = fake.state.commands()["duel"]
        assert [o["name"] for o in duel.options] == ["opponent", "stake"]
        guild = bot.get_guild(fake.guild.id)
        assert guild is not None
        assert {c.name for c in guild.text_channels} == {"general", "games"}
        assert fake.state.connected_count() == 1
        assert (await bot.application_info()).owner.id == fake.owner.id
        paths = [(r.method, r.path) for r in fake.requests]
        assert ("GET", "/users/@me") in paths
        assert ("GET", "/oauth2/applications/@me") in paths
        assert ("PUT", f"/applications/{fake.state.application_id}/commands") in paths


async def test_ping_ephemeral_then_button_edits_message(
    fake_discord: FakeDiscord, no_error_logs: ErrorLogGuard
) -> None:
    fake = fake_discord
    general = fake.guild.channel("general")
    alice, bob = fake.guild.member("alice"), fake.guild.member("bob")
    async with running_bot(fake, make_bot(fake)):
        inter = await fake.slash(alice, general, "ping")
        reply = await inter.message()
        assert reply.content == "pong"
        assert reply.ephemeral and reply.flags & MessageFlags.EPHEMERAL
        assert reply.visible_to == alice.id
        assert inter.callback is not None and inter.callback.kind is CallbackType.CHANNEL_MESSAGE
        assert inter.latency is not None and inter.latency < 1.0

        [board] = await inter.wait_followups(1)
        assert not board.ephemeral
        assert board.custom_ids() == ["smoke:poke", "smoke:count:0"]
        assert fake.messages(general, visible_to=bob) == [board]  # bob can't see the ephemeral

        click = await fake.click(bob, board, "smoke:poke")
        edited = await click.message()
        assert edited is board
        assert board.content == "poked by bob"
        assert [rev.content for rev in board.history] == ["Public board"]

        for expected in (1, 2):
            button = f"smoke:count:{expected - 1}"
            await (await fake.click(alice, board, button)).message()
            assert board.content == f"count={expected}"
            assert board.custom_ids() == [f"smoke:count:{expected}"]

        with pytest.raises(FakeDiscordError, match="no component"):
            await fake.click(alice, board, "smoke:poke")  # the edit removed that button
        with pytest.raises(FakeDiscordError, match="ephemeral"):
            await fake.click(bob, reply, "anything")
        print("latency:", fake.state.latency_report())


async def test_user_option_and_client_side_validation(
    fake_discord: FakeDiscord, no_error_logs: ErrorLogGuard
) -> None:
    fake = fake_discord
    general = fake.guild.channel("general")
    alice, bob = fake.guild.member("alice"), fake.guild.member("bob")
    async with running_bot(fake, make_bot(fake)):
        msg = await (await fake.slash(alice, general, "duel", opponent=bob, stake=25)).message()
        assert msg.content == f"{alice.mention} challenges {bob.mention} (bob) for 25"
        assert not msg.ephemeral
        assert msg.interaction_metadata is not None
        assert msg.interaction_metadata["user"]["id"] == str(alice.id)

        default = await (await fake.slash(bob, general, "duel", opponent=alice)).message()
        assert default.content.endswith("for 10")

        with pytest.raises(FakeDiscordError, match="required option 'opponent'"):
            await fake.slash(alice, general, "duel")
        with pytest.raises(FakeDiscordError, match="outside 1..100"):
            await fake.slash(alice, general, "duel", opponent=bob, stake=500)
        with pytest.raises(FakeDiscordError, match="not registered"):
            await fake.slash(alice, general, "nope")

        guild_msg = await (await fake.slash(alice, general, "guildonly")).message()
        assert guild_msg.content == f"guild {fake.guild.id}"


async def test_autocomplete_returns_choices(
    fake_discord: FakeDiscord, no_error_logs: ErrorLogGuard
) -> None:
    fake = fake_discord
    general = fake.guild.channel("general")
    alice = fake.guild.member("alice")
    async with running_bot(fake, make_bot(fake)):
        choices = await fake.autocomplete(alice, general, "rules", "ruleset", "s")
        assert choices == [{"name": "speed", "value": "speed"}, {"name": "spite", "value": "spite"}]
        assert await fake.autocomplete(alice, general, "rules", "ruleset", "") == [
            {"name": r, "value": r} for r in RULESETS
        ]
        msg = await (await fake.slash(alice, general, "rules", ruleset="kings")).message()
        assert msg.content == "rules: kings"
        # Global commands also work in the bot's DMs (no member, a DM channel).
        dm = fake.state.dm_channel(alice)
        assert await fake.autocomplete(alice, dm, "rules", "ruleset", "cl") == [
            {"name": "classic", "value": "classic"}
        ]
        msg = await (await fake.slash(alice, dm, "rules", ruleset="speed")).message()
        assert msg.content == "rules: speed" and msg.channel_id == dm.id


async def test_deferred_png_upload_arrives_as_real_bytes(
    fake_discord: FakeDiscord, no_error_logs: ErrorLogGuard
) -> None:
    fake = fake_discord
    general = fake.guild.channel("general")
    async with running_bot(fake, make_bot(fake)):
        inter = await fake.slash(fake.guild.member("alice"), general, "card")
        assert (await inter.response()).kind is CallbackType.DEFERRED_CHANNEL_MESSAGE
        msg = await inter.message()  # waits until the "thinking" placeholder is replaced
        assert not msg.loading and msg.content == "your card"
        [attachment] = msg.attachments
        assert attachment.filename == "card.png"
        assert attachment.content_type == "image/png"
        assert attachment.data.startswith(b"\x89PNG\r\n\x1a\n")
        assert (attachment.width, attachment.height) == (32, 48)
        with Image.open(io.BytesIO(attachment.data)) as image:
            assert image.size == (32, 48)
        # The first follow-up after a thinking-defer replaces the placeholder (as on Discord).
        assert inter.followups == [msg] and len(fake.messages(general)) == 1
        async with aiohttp.ClientSession() as session, session.get(attachment.url) as resp:
            assert await resp.read() == attachment.data


async def test_select_and_modal(fake_discord: FakeDiscord, no_error_logs: ErrorLogGuard) -> None:
    fake = fake_discord
    general = fake.guild.channel("general")
    alice = fake.guild.member("alice")
    async with running_bot(fake, make_bot(fake)):
        board = await (await fake.slash(alice, general, "pick")).message()
        with pytest.raises(FakeDiscordError, match="no option"):
            await fake.select(alice, board, "smoke:pick", ["z"])
        await (await fake.select(alice, board, "smoke:pick", ["b"])).message()
        assert board.content == "picked b" and board.components == []

        opened = await fake.slash(alice, general, "name")
        modal = await opened.modal()
        assert modal["title"] == "Your name"
        with pytest.raises(FakeDiscordError, match="length"):
            await fake.submit_modal(alice, opened, {"smoke:name": "x" * 21})
        submitted = await fake.submit_modal(alice, opened, {"smoke:name": "Zed"})
        assert (await submitted.message()).content == "Hello Zed"


async def test_restart_new_instance_handles_old_buttons(
    fake_discord: FakeDiscord, no_error_logs: ErrorLogGuard
) -> None:
    fake = fake_discord
    general = fake.guild.channel("general")
    alice = fake.guild.member("alice")
    first = await start_bot(fake, make_bot(fake))
    inter = await fake.slash(alice, general, "ping")
    [board] = await inter.wait_followups(1)
    await first.stop()
    assert first.bot.is_closed()
    await fake.wait_for(lambda: fake.state.connected_count() == 0, description="old session gone")
    assert not fake.state.sessions[0].connected

    async with running_bot(fake, make_bot(fake)) as second:
        assert second is not first.bot
        assert len(fake.state.sessions) == 2 and fake.state.connected_count() == 1
        await (await fake.click(alice, board, "smoke:poke")).message()
        assert board.content == "poked by alice"
        await (await fake.click(alice, board, "smoke:count:0")).message()
        assert board.content == "count=1"


@pytest.mark.parametrize(
    ("policy", "compression"),
    [("resume", True), ("invalidate", False)],
    ids=["resume", "invalidate"],
)
async def test_gateway_reconnect(
    make_fake_discord: _fixtures.FakeDiscordFactory,
    no_error_logs: ErrorLogGuard,
    policy: str,
    compression: bool,
) -> None:
    fake = await make_fake_discord(resume_policy=policy, gateway_compression=compression)
    general = fake.guild.channel("general")
    alice = fake.guild.member("alice")
    async with running_bot(fake, make_bot(fake)) as bot:
        fake.gateway.disconnect_all()
        await fake.wait_for(lambda: fake.state.connected_count() == 1, description="reconnect")
        if policy == "resume":
            assert len(fake.state.sessions) == 1  # same session, RESUMEd
        else:
            assert len(fake.state.sessions) == 2 and fake.state.sessions[0].ended  # fresh IDENTIFY
        msg = await (await fake.slash(alice, general, "duel", opponent=alice)).message()
        assert "challenges" in msg.content
        assert bot.setup_calls == 1  # reconnects do not rerun setup_hook


async def test_handler_errors_and_late_responses_are_visible(
    make_fake_discord: _fixtures.FakeDiscordFactory, no_error_logs: ErrorLogGuard
) -> None:
    fake = await make_fake_discord(interaction_deadline=0.1)
    general = fake.guild.channel("general")
    alice = fake.guild.member("alice")
    async with running_bot(fake, make_bot(fake)):
        boom = await fake.slash(alice, general, "boom")
        await fake.wait_for(lambda: no_error_logs.unexpected, description="error log")
        assert "kaboom" in no_error_logs.format_records()
        assert not boom.responded

        slow = await fake.slash(alice, general, "slow")
        await fake.wait_for(lambda: slow.rejected_callbacks, description="late callback")
        assert "late" in slow.rejected_callbacks[0][1]
        await fake.wait_for(lambda: len(no_error_logs.unexpected) >= 2, description="2nd error")
        assert "Unknown interaction" in no_error_logs.format_records()
    no_error_logs.clear()  # both errors were provoked on purpose
    assert fake.state.latency_report().unanswered == 2
    fake.rejected.clear()


async def test_unknown_routes_are_404_and_recorded(
    fake_discord: FakeDiscord, no_error_logs: ErrorLogGuard
) -> None:
    fake = fake_discord
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{fake.api_base}/guilds/1/bans", headers={"Authorization": "Bot x"}) as resp,
    ):
        assert resp.status == 404
        assert resp.headers["Content-Type"] == "application/json"
        assert (await resp.json())["message"] == "404: Not Found"
    assert [(r.method, r.path) for r in fake.unhandled] == [("GET", "/guilds/1/bans")]
    with pytest.raises(FakeDiscordError, match="unimplemented routes"):
        fake.assert_clean()
    fake.unhandled.clear()


async def test_client_configuration_is_restored() -> None:
    from discord.gateway import DiscordWebSocket
    from discord.http import Route

    before = (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY)
    fake = FakeDiscord()
    async with fake:
        with fake.configure_client():
            assert fake.api_base == Route.BASE
            assert str(DiscordWebSocket.DEFAULT_GATEWAY) == fake.gateway_url
        assert before == (Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY)


async def test_channel_routes_threads_dms_sharding_and_intents(
    fake_discord: FakeDiscord, no_error_logs: ErrorLogGuard
) -> None:
    fake = fake_discord
    general = fake.guild.channel("general")
    alice, bob = fake.guild.member("alice"), fake.guild.member("bob")
    async with running_bot(fake, KitchenBot()) as bot:
        assert ("GET", "/gateway/bot") in [(r.method, r.path) for r in fake.requests]
        assert fake.state.sessions[0].shard == (0, 1)
        cached = bot.get_guild(fake.guild.id)
        assert cached is not None and cached.get_member(alice.id) is not None  # chunked

        inter = await fake.slash(alice, general, "kitchen")
        reply = await inter.message()
        assert reply.ephemeral  # ephemerality comes from the defer
        content, size, history, code, member = reply.content.split("|")
        board = next(m for m in fake.messages(general) if m.content == "board v2")
        assert content == "board v2" and int(size) == len(board.attachments[0].data)
        assert history == "['board v2']"  # the ephemeral reply is not in channel history
        assert code == "50035" and member == "alice"
        assert [r.content for r in board.history] == ["board"]
        assert board.embeds[0]["title"] == "Scores"
        assert board.reactions == {"\N{THUMBS UP SIGN}": {fake.bot_user.id}}
        thread = fake.guild.channel("game-1")
        assert thread.id == board.id and thread.parent_id == general.id
        assert [m.content for m in fake.messages(thread)] == ["in thread"]
        assert [m.content for m in fake.messages(fake.state.dm_channel(alice))] == ["psst"]
        assert [(r.status, (r.error or "")[:5]) for r in fake.rejected] == [(400, "50035")]
        fake.rejected.clear()

        bot.seen.clear()
        await fake.people.send_user_message(bob, general, "secret plan")
        await fake.people.send_user_message(bob, general, f"{fake.bot_user.mention} hi")
        await fake.wait_for(lambda: len(bot.seen) == 2, description="two on_message calls")
        # No MESSAGE_CONTENT intent: content is blank unless the bot is mentioned.
        assert bot.seen == [("bob", ""), ("bob", f"{fake.bot_user.mention} hi")]


async def test_startup_failures_are_reported(
    make_fake_discord: _fixtures.FakeDiscordFactory, no_error_logs: ErrorLogGuard
) -> None:
    fake = await make_fake_discord(allowed_intents_mask=0)  # no privileged intents enabled
    with pytest.raises(FakeDiscordError, match="LoginFailure"):
        await start_bot(fake, make_bot(fake), token="wrong-token")
    with pytest.raises(FakeDiscordError, match="PrivilegedIntentsRequired"):
        await start_bot(fake, KitchenBot())  # asks for the members intent
    fake.rejected.clear()  # the 401 was provoked on purpose


async def test_a_heartbeat_is_acknowledged_after_discord_py_notes_its_send(
    make_fake_discord: _fixtures.FakeDiscordFactory, no_error_logs: ErrorLogGuard
) -> None:
    """discord.py notes when it sent a heartbeat only once its send has returned; an
    acknowledgement read before that makes it measure a whole interval of lag (the sandbox
    logged "Can't keep up, … 41.3s behind" now and then). The fake acknowledges a moment
    later, as over a network, so the lag measured is the fake's own delay."""
    fake = await make_fake_discord(heartbeat_interval=0.3)
    async with running_bot(fake, make_bot(fake)) as bot:
        loop = asyncio.get_running_loop()
        end = loop.time() + 4.0  # about 13 heartbeats
        seen: list[float] = []
        while loop.time() < end:
            await asyncio.sleep(0.01)
            if 0 <= bot.latency < float("inf"):
                seen.append(bot.latency)
        assert seen and max(seen) < 0.2, sorted(seen)[-3:]
