"""``FakeDiscord``: an in-process Discord (REST + gateway) for end-to-end bot tests.

The real, unmodified discord.py client talks to it over HTTP and websockets on
127.0.0.1. Only two class attributes of discord.py are redirected (see
:meth:`FakeDiscord.configure_client`): ``discord.http.Route.BASE`` (every REST and
webhook URL is built from it) and ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``.

Typical use (see ``fixtures.py`` / ``runner.py`` for the pytest glue)::

    async with FakeDiscord() as fake, fake.configure_client():   # (fixture does this)
        guild = fake.add_guild("Test Guild")
        alice = fake.add_member(guild, "alice")
        async with running_bot(fake, make_bot()):
            inter = await fake.slash(alice, guild.channel("general"), "ping")
            assert (await inter.message()).content == "pong"

Design notes
------------
* State lives in plain dataclasses (``models.py``) that tests can inspect directly.
* Everything the bot sends is validated against Discord's limits (``validation.py``);
  violations get Discord's own 400 answers so the bot logs an error, as in production.
* Anything the fake does not implement answers ``404`` *and* is recorded in
  :attr:`FakeDiscord.unhandled`; :meth:`FakeDiscord.assert_clean` fails on it.
* All waiting goes through :meth:`FakeDiscord.wait_for`, which re-checks a predicate
  whenever the fake's state changes (plus a short poll for bot-side state) - tests
  never need ``asyncio.sleep``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import mimetypes
import re
import secrets
import socket
import statistics
import struct
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import yarl
from aiohttp import WSMsgType, web

from . import validation
from .fake_errors import ApiError, FakeDiscordError, FakeDiscordTimeout
from .faults import FaultPlan
from .gateway import (
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_MEMBERS,
    INTENT_GUILD_MESSAGES,
    INTENT_GUILD_PRESENCES,
    INTENT_GUILDS,
    INTENT_MESSAGE_CONTENT,
    OP_HEARTBEAT,
    OP_HEARTBEAT_ACK,
    OP_HELLO,
    OP_IDENTIFY,
    OP_INVALID_SESSION,
    OP_PRESENCE_UPDATE,
    OP_RECONNECT,
    OP_REQUEST_GUILD_MEMBERS,
    OP_RESUME,
    PRIVILEGED_INTENTS,
    GatewayConnection,
    GatewaySession,
)
from .interactions import (
    ALLOWED_CALLBACKS,
    CallbackRecord,
    CallbackType,
    InteractionRecord,
    InteractionType,
)
from .models import (
    ATTACHMENT_SIZE_LIMIT,
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    DISCORD_EPOCH_MS,
    JSON,
    ChannelType,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    MessageFlags,
    RegisteredCommand,
    SnowflakeFactory,
    iter_components,
)

if TYPE_CHECKING:
    from .runner import BotHandle

log = logging.getLogger("fakediscord")

T = TypeVar("T")
Actor = FakeUser | FakeMember
API_VERSION = 10
HEARTBEAT_ACK_DELAY = 0.03
"""Seconds before a heartbeat is acknowledged (a network's round trip, roughly)."""


@dataclass
class UploadedFile:
    """A ``files[n]`` part of a multipart request."""

    index: int
    filename: str
    data: bytes
    content_type: str | None


@dataclass(frozen=True)
class Upload:
    """A file a *user* attaches to an ATTACHMENT slash-command option."""

    filename: str
    data: bytes


@dataclass
class RequestRecord:
    """One REST call the bot made (kept for assertions and debugging)."""

    method: str
    path: str
    query: dict[str, str]
    json: Any
    files: list[UploadedFile]
    at: float
    status: int = 0
    error: str | None = None

    def __repr__(self) -> str:
        extra = f" -> {self.status}" + (f" ({self.error})" if self.error else "")
        return f"<{self.method} {self.path}{extra}>"


@dataclass
class LatencyReport:
    """Dispatch -> first-callback latency over all answered interactions."""

    count: int
    median: float
    p95: float
    worst: float
    worst_name: str
    unanswered: int = 0
    samples: list[float] = field(default_factory=list, repr=False)

    def __str__(self) -> str:
        if not self.count:
            return f"no answered interactions ({self.unanswered} unanswered)"
        return (
            f"{self.count} interactions: median {self.median * 1000:.1f} ms, "
            f"p95 {self.p95 * 1000:.1f} ms, worst {self.worst * 1000:.1f} ms "
            f"({self.worst_name}), unanswered {self.unanswered}"
        )


class FakeDiscord:
    """A fake Discord API + gateway bound to 127.0.0.1 on a free port.

    Args:
        token: the bot token the fake accepts (REST ``Authorization`` and IDENTIFY).
        bot_name: username of the bot account.
        gateway_compression: honour ``compress=zlib-stream`` (binary frames) if the
            client asks for it; ``False`` always sends plain JSON text frames.
        resume_policy: ``"resume"`` replays missed events on RESUME (op 6);
            ``"invalidate"`` answers INVALID_SESSION so the client re-IDENTIFYs.
        interaction_deadline: seconds the bot has for the initial interaction response
            (Discord: 3 s). Later callbacks get ``404 Unknown interaction``.
            ``None`` disables the check (e.g. when single-stepping in a debugger).
        allowed_intents_mask: privileged intents "enabled in the developer portal";
            asking for others closes the gateway with 4014 like Discord.
        heartbeat_interval: seconds announced in HELLO.
        recommended_shards: the shard count ``GET /gateway/bot`` recommends (what an
            ``AutoShardedClient`` without ``shard_count`` runs).
    """

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        bot_name: str = "FakeBot",
        gateway_compression: bool = True,
        resume_policy: Literal["resume", "invalidate"] = "resume",
        interaction_deadline: float | None = 3.0,
        allowed_intents_mask: int = PRIVILEGED_INTENTS,
        heartbeat_interval: float = 41.25,
        recommended_shards: int = 1,
    ) -> None:
        self.token = token
        self.gateway_compression = gateway_compression
        self.resume_policy: Literal["resume", "invalidate"] = resume_policy
        self.interaction_deadline = interaction_deadline
        self.allowed_privileged_intents = allowed_intents_mask
        self.heartbeat_interval = heartbeat_interval
        self.recommended_shards = recommended_shards
        self.snowflake = SnowflakeFactory()

        self.application_id = self.snowflake()
        self.bot_user = FakeUser(id=self.application_id, username=bot_name, bot=True)
        #: The application owner (``bot.is_owner``); also owns guilds made by add_guild.
        self.owner = FakeUser(id=self.snowflake(), username="owner", global_name="Owner")

        self.users: dict[int, FakeUser] = {u.id: u for u in (self.bot_user, self.owner)}
        self.guilds: dict[int, FakeGuild] = {}
        self.dm_channels: dict[int, FakeChannel] = {}  # user id -> DM channel
        self.messages_by_id: dict[int, FakeMessage] = {}
        self.attachments: dict[int, FakeAttachment] = {}
        #: (guild_id or None, name, type) -> command
        self.registered: dict[tuple[int | None, str, int], RegisteredCommand] = {}
        self.command_syncs = 0

        self.interactions: list[InteractionRecord] = []
        self._interactions_by_id: dict[int, InteractionRecord] = {}
        self._interactions_by_token: dict[str, InteractionRecord] = {}

        #: Every REST call the bot made, in order.
        self.requests: list[RequestRecord] = []
        #: REST calls to routes the fake does not implement (each answered 404).
        self.unhandled: list[RequestRecord] = []
        #: REST calls answered with a 4xx Discord error (validation, unknown ids...).
        self.rejected: list[RequestRecord] = []
        #: Exceptions raised inside the fake itself (bugs in the harness).
        self.errors: list[str] = []
        #: (channel_id, user_id, time) of typing indicators.
        self.typing: list[tuple[int, int, float]] = []

        self.sessions: list[GatewaySession] = []
        #: Bots started with ``start_bot``/``running_bot``; ``stop()`` closes leftovers.
        self.bots: list[BotHandle[Any]] = []
        self._connections: set[GatewayConnection] = set()
        self._waiters: set[asyncio.Future[None]] = set()
        #: Called (synchronously, no arguments) on every state change, like the waiters of
        #: :meth:`wait_for`: the sandbox's web page pushes its updates from here.
        self.listeners: list[Callable[[], None]] = []
        self._runner: web.AppRunner | None = None
        self._port: int | None = None

        #: Faults injected into REST calls (``faults.py``); none unless a test adds some.
        self.faults = FaultPlan()

        from .rest import RestApi  # local import: rest.py imports this module

        self._rest = RestApi(self)

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> FakeDiscord:
        """Bind 127.0.0.1 on a free port and start serving."""
        if self._runner is not None:
            raise RuntimeError("FakeDiscord already started")
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway_handler)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._cdn)
        app.router.add_route("*", "/{tail:.*}", self._rest.handle)
        # No access log: it would drown test output; requests are in ``self.requests``.
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        await web.SockSite(runner, sock).start()
        self._runner = runner
        log.debug("fake discord listening on %s", self.http_base)
        return self

    async def stop(self) -> None:
        """Close bots still running (a failed test may not have), every gateway
        connection, and shut the server down."""
        for handle in self.bots:
            if not handle.task.done():
                try:
                    await handle.stop()
                except Exception as exc:
                    self._internal_error("stopping a leftover bot", exc)
        for conn in list(self._connections):
            conn.close(1001)
        for session in self.sessions:
            session.ended = True
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        for conn in list(self._connections):
            await conn.aclose()
        self._connections.clear()
        for waiter in self._waiters:
            if not waiter.done():
                waiter.cancel()

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("FakeDiscord not started")
        return self._port

    @property
    def http_base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        """What ``discord.http.Route.BASE`` must be set to."""
        return f"{self.http_base}/api/v{API_VERSION}"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    @contextlib.contextmanager
    def configure_client(self) -> Iterator[FakeDiscord]:
        """Point discord.py at this fake for the duration of the ``with`` block.

        Both are class attributes, so this affects every client in the process;
        the previous values are restored on exit (nesting is safe).
        """
        from discord.gateway import DiscordWebSocket
        from discord.http import Route

        old_base, old_gateway = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
        Route.BASE = self.api_base
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        try:
            yield self
        finally:
            Route.BASE = old_base
            DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    # ------------------------------------------------------------------ waiting

    def notify(self) -> None:
        """Wake every :meth:`wait_for` so it re-checks its predicate."""
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        for listener in self.listeners:
            listener()

    async def wait_for(
        self,
        predicate: Callable[[], T | None],
        *,
        timeout: float = 5.0,
        description: str = "condition",
        poll: float = 0.02,
    ) -> T:
        """Wait until ``predicate()`` is truthy and return its value.

        Re-evaluated immediately on every state change of the fake, and at least every
        ``poll`` seconds so predicates may also look at bot-side state (caches, log
        records...). Raises :class:`FakeDiscordTimeout` naming ``description``.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise FakeDiscordTimeout(f"timed out after {timeout}s waiting for {description}")
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.add(waiter)
            try:
                await asyncio.wait_for(waiter, min(remaining, poll))
            except TimeoutError:
                pass
            finally:
                self._waiters.discard(waiter)

    async def wait_connected(
        self, count: int = 1, *, timeout: float = 10.0
    ) -> list[GatewaySession]:
        """Wait until ``count`` gateway sessions are connected (identified or resumed)."""
        return await self.wait_for(
            lambda: (
                [s for s in self.sessions if s.connected] if self.connected_count() >= count else []
            ),
            timeout=timeout,
            description=f"{count} connected gateway session(s)",
        )

    def connected_count(self) -> int:
        return sum(1 for s in self.sessions if s.connected)

    async def wait_for_message(
        self,
        channel: FakeChannel,
        predicate: Callable[[FakeMessage], bool] | None = None,
        *,
        after: FakeMessage | int | None = None,
        timeout: float = 5.0,
    ) -> FakeMessage:
        """The oldest live message in ``channel`` (newer than ``after``) matching ``predicate``."""
        after_id = after.id if isinstance(after, FakeMessage) else (after or 0)

        def find() -> FakeMessage | None:
            for msg in self.messages(channel):
                if msg.id > after_id and (predicate is None or predicate(msg)):
                    return msg
            return None

        return await self.wait_for(find, timeout=timeout, description=f"a message in {channel!r}")

    # ------------------------------------------------------------------ world building

    def add_user(self, name: str, *, bot: bool = False, global_name: str | None = None) -> FakeUser:
        user = FakeUser(id=self.snowflake(), username=name, global_name=global_name, bot=bot)
        self.users[user.id] = user
        return user

    def add_guild(
        self,
        name: str = "Test Guild",
        *,
        channels: Sequence[str] = ("general",),
        owner: FakeUser | None = None,
        shard: tuple[int, int] | None = None,
    ) -> FakeGuild:
        """Create a guild with @everyone, the bot's managed role, the bot, the owner and
        text ``channels``. If a bot is connected it receives GUILD_CREATE (a "join").
        ``shard=(shard_id, shard_count)`` picks an id that Discord routes to that shard."""
        owner = owner or self.owner
        gid = self.snowflake() if shard is None else self.snowflake.on_shard(*shard)
        guild = FakeGuild(id=gid, name=name, owner_id=owner.id)
        guild.roles[gid] = FakeRole(
            id=gid, name="@everyone", permissions=DEFAULT_EVERYONE_PERMISSIONS
        )
        bot_role = FakeRole(
            id=self.snowflake(),
            name=self.bot_user.username,
            permissions=DEFAULT_BOT_PERMISSIONS,
            position=1,
            managed=True,
        )
        guild.roles[bot_role.id] = bot_role
        guild.members[owner.id] = FakeMember(user=owner, guild_id=gid)
        guild.members[self.bot_user.id] = FakeMember(
            user=self.bot_user, guild_id=gid, role_ids=[bot_role.id]
        )
        self.guilds[gid] = guild
        for position, channel_name in enumerate(channels):
            self._new_channel(guild, channel_name, ChannelType.GUILD_TEXT, position=position)
        for session in self._sessions_for(gid):
            session.dispatch("GUILD_CREATE", self._guild_create_payload(guild, session))
        self.notify()
        return guild

    @property
    def guild(self) -> FakeGuild:
        """The first guild (convenience for single-guild tests)."""
        if not self.guilds:
            raise FakeDiscordError("no guild: call fake.add_guild() first")
        return next(iter(self.guilds.values()))

    def add_channel(
        self,
        guild: FakeGuild,
        name: str,
        *,
        type: int = ChannelType.GUILD_TEXT,
        topic: str | None = None,
        parent: FakeChannel | None = None,
    ) -> FakeChannel:
        """Create a guild channel (dispatches CHANNEL_CREATE to a connected bot)."""
        channel = self._new_channel(
            guild, name, type, position=len(guild.channels), topic=topic, parent=parent
        )
        for session in self._sessions_for(guild.id, INTENT_GUILDS):
            session.dispatch("CHANNEL_CREATE", self._with_guild_id(channel.payload(), guild.id))
        self.notify()
        return channel

    def _new_channel(
        self,
        guild: FakeGuild,
        name: str,
        type: int,
        *,
        position: int,
        topic: str | None = None,
        parent: FakeChannel | None = None,
    ) -> FakeChannel:
        channel = FakeChannel(
            id=self.snowflake(),
            type=type,
            name=name,
            guild_id=guild.id,
            position=position,
            topic=topic,
            parent_id=parent.id if parent else None,
        )
        guild.channels[channel.id] = channel
        return channel

    def add_member(
        self,
        guild: FakeGuild,
        name: str,
        *,
        bot: bool = False,
        nick: str | None = None,
        roles: Sequence[FakeRole] = (),
        user: FakeUser | None = None,
    ) -> FakeMember:
        """Add a member (new user ``name``, or an existing ``user``) to ``guild``."""
        user = user or self.add_user(name, bot=bot)
        member = FakeMember(user=user, guild_id=guild.id, nick=nick, role_ids=[r.id for r in roles])
        guild.members[user.id] = member
        for session in self._sessions_for(guild.id, INTENT_GUILD_MEMBERS):
            session.dispatch("GUILD_MEMBER_ADD", self._with_guild_id(member.payload(), guild.id))
        self.notify()
        return member

    def add_role(
        self,
        guild: FakeGuild,
        name: str,
        *,
        permissions: int = 0,
        members: Sequence[FakeMember] = (),
    ) -> FakeRole:
        role = FakeRole(
            id=self.snowflake(), name=name, permissions=permissions, position=len(guild.roles)
        )
        guild.roles[role.id] = role
        for member in members:
            member.role_ids.append(role.id)
        for session in self._sessions_for(guild.id, INTENT_GUILDS):
            session.dispatch(
                "GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role.payload()}
            )
        self.notify()
        return role

    def dm_channel(self, user: Actor) -> FakeChannel:
        """The DM channel between the bot and ``user`` (created on first use)."""
        user = _user_of(user)
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = FakeChannel(id=self.snowflake(), type=ChannelType.DM, recipients=[user])
            self.dm_channels[user.id] = channel
        return channel

    # ------------------------------------------------------------------ lookups

    def channel(self, channel_id: int) -> FakeChannel | None:
        for guild in self.guilds.values():
            if channel_id in guild.channels:
                return guild.channels[channel_id]
        for dm in self.dm_channels.values():
            if dm.id == channel_id:
                return dm
        return None

    def guild_of(self, channel: FakeChannel) -> FakeGuild | None:
        return self.guilds.get(channel.guild_id) if channel.guild_id is not None else None

    def messages(
        self,
        channel: FakeChannel,
        *,
        include_deleted: bool = False,
        include_ephemeral: bool = True,
        visible_to: Actor | None = None,
    ) -> list[FakeMessage]:
        """Messages of ``channel`` in creation order (ephemeral ones included by default).

        ``visible_to`` keeps only what that user can see (public + their ephemerals).
        """
        viewer = _user_of(visible_to).id if visible_to is not None else None
        result = []
        for msg in self.messages_by_id.values():
            if msg.channel_id != channel.id:
                continue
            if msg.deleted and not include_deleted:
                continue
            if msg.ephemeral and not include_ephemeral:
                continue
            if viewer is not None and msg.visible_to not in (None, viewer):
                continue
            result.append(msg)
        return result

    NONCE_WINDOW = 300.0
    """Seconds a message's nonce is remembered (``enforce_nonce``), as on Discord."""

    def message_by_nonce(self, channel: FakeChannel, nonce: str) -> FakeMessage | None:
        """The bot's live message in ``channel`` with ``nonce``, created in the last
        :attr:`NONCE_WINDOW` seconds."""
        horizon = int((time.time() - self.NONCE_WINDOW) * 1000) - DISCORD_EPOCH_MS
        for msg in reversed(list(self.messages_by_id.values())):
            if (msg.id >> 22) < horizon:
                break  # by id, oldest first: the rest are older still
            if (msg.channel_id == channel.id and msg.nonce == nonce and not msg.deleted
                    and msg.author.id == self.bot_user.id):
                return msg
        return None

    def last_message(self, channel: FakeChannel, *, include_ephemeral: bool = True) -> FakeMessage:
        msgs = self.messages(channel, include_ephemeral=include_ephemeral)
        if not msgs:
            raise FakeDiscordError(f"no messages in {channel!r}")
        return msgs[-1]

    def commands(self, guild: FakeGuild | None = None) -> dict[str, RegisteredCommand]:
        """Registered commands of one scope (global if ``guild`` is None), by name."""
        gid = guild.id if guild else None
        return {c.name: c for (g, _, _), c in self.registered.items() if g == gid}

    def find_command(self, name: str, guild_id: int | None, type: int = 1) -> RegisteredCommand:
        """Resolve like the Discord client: guild command first, then global."""
        for scope in (guild_id, None) if guild_id is not None else (None,):
            cmd = self.registered.get((scope, name, type))
            if cmd is not None:
                return cmd
        known = sorted(c.name for c in self.registered.values() if c.type == type)
        raise FakeDiscordError(f"command {name!r} (type {type}) is not registered; known: {known}")

    def interaction(self, interaction_id: int) -> InteractionRecord | None:
        return self._interactions_by_id.get(interaction_id)

    def interaction_by_token(self, token: str) -> InteractionRecord | None:
        return self._interactions_by_token.get(token)

    # ------------------------------------------------------------------ reporting

    def latency_report(self) -> LatencyReport:
        answered = [i for i in self.interactions if i.latency is not None]
        unanswered = sum(1 for i in self.interactions if i.callback is None)
        samples = sorted(i.latency for i in answered if i.latency is not None)
        if not samples:
            return LatencyReport(0, 0.0, 0.0, 0.0, "", unanswered)
        worst = max(answered, key=lambda i: i.latency or 0.0)
        p95 = samples[min(len(samples) - 1, int(round(0.95 * (len(samples) - 1))))]
        return LatencyReport(
            count=len(samples),
            median=statistics.median(samples),
            p95=p95,
            worst=samples[-1],
            worst_name=worst.name,
            unanswered=unanswered,
            samples=samples,
        )

    def assert_clean(self, *, allow_rejected: bool = True) -> None:
        """Fail if the bot hit unimplemented routes or the fake itself crashed.

        With ``allow_rejected=False`` also fail on any 4xx the fake returned.
        """
        problems: list[str] = []
        if self.unhandled:
            problems.append(f"unimplemented routes hit: {self.unhandled}")
        if self.errors:
            problems.append("fake discord internal errors:\n" + "\n".join(self.errors))
        if not allow_rejected and self.rejected:
            problems.append(f"requests rejected with 4xx: {self.rejected}")
        if problems:
            raise FakeDiscordError("\n".join(problems))

    # ------------------------------------------------------------------ gateway control

    def disconnect_all(self, code: int = 4000) -> None:
        """Drop every websocket (sessions stay resumable). discord.py reconnects and RESUMEs."""
        for conn in list(self._connections):
            if conn.session is not None and conn.session.connection is conn:
                conn.session.connection = None
            conn.close(code)
        self.notify()

    def request_reconnect(self) -> None:
        """Send op 7 RECONNECT: the client closes and RESUMEs (Discord does this on deploys)."""
        for conn in list(self._connections):
            conn.send({"op": OP_RECONNECT, "d": None})

    def invalidate_sessions(self) -> None:
        """Send op 9 INVALID_SESSION (not resumable): the client must IDENTIFY again."""
        for session in self.sessions:
            if session.connection is not None:
                session.connection.send({"op": OP_INVALID_SESSION, "d": False})
            session.ended = True
            session.connection = None
        self.notify()

    # ------------------------------------------------------------------ gateway internals

    def _sessions_for(self, guild_id: int | None, intent: int = 0) -> list[GatewaySession]:
        return [
            s
            for s in self.sessions
            if not s.ended and s.covers_guild(guild_id) and (not intent or s.has_intent(intent))
        ]

    def _interaction_session(self, guild_id: int | None) -> GatewaySession | None:
        """Discord delivers each interaction to exactly one session.

        Prefer the newest *connected* one; otherwise the newest resumable one (the
        event is buffered and replayed on RESUME). Note that a closed discord.py
        client usually leaves a resumable session behind (see ``gateway.py``).
        """
        candidates = self._sessions_for(guild_id)
        connected = [s for s in candidates if s.connected]
        if connected:
            return connected[-1]
        return candidates[-1] if candidates else None

    async def _gateway_handler(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        compress = self.gateway_compression and request.query.get("compress") == "zlib-stream"
        conn = GatewayConnection(ws, compress=compress)
        self._connections.add(conn)
        conn.send(
            {"op": OP_HELLO, "d": {"heartbeat_interval": int(self.heartbeat_interval * 1000)}}
        )
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    try:
                        self._on_gateway_frame(conn, json.loads(msg.data))
                    except Exception as exc:  # a harness bug: record it, keep serving
                        self._internal_error(f"gateway frame {msg.data[:200]!r}", exc)
                elif msg.type == WSMsgType.ERROR:
                    break
        finally:
            self._connections.discard(conn)
            session = conn.session
            log.debug(
                "connection %s closed: code=%s by_server=%s",
                conn.id,
                ws.close_code,
                conn.closed_by_server,
            )
            if session is not None and session.connection is conn:
                session.connection = None
                # A client-initiated 1000/1001 close ends the session (it cannot resume).
                if not conn.closed_by_server and ws.close_code in (1000, 1001):
                    session.ended = True
            await conn.aclose()
            self.notify()
        return ws

    def _on_gateway_frame(self, conn: GatewayConnection, frame: JSON) -> None:
        op = frame.get("op")
        data = frame.get("d")
        if op == OP_HEARTBEAT:
            # A moment later, as over a network: discord.py notes when it sent a heartbeat
            # only once its heartbeat thread wakes after the send, and an acknowledgement
            # read before that is measured as a whole interval of lag ("Can't keep up").
            asyncio.get_running_loop().call_later(
                HEARTBEAT_ACK_DELAY, conn.send, {"op": OP_HEARTBEAT_ACK})
        elif op == OP_IDENTIFY:
            self._identify(conn, data or {})
        elif op == OP_RESUME:
            self._resume(conn, data or {})
        elif op == OP_PRESENCE_UPDATE:
            if conn.session is not None:
                conn.session.identify["presence"] = data
        elif op == OP_REQUEST_GUILD_MEMBERS:
            self._request_members(conn, data or {})
        else:
            log.debug("ignoring gateway op %s", op)

    def _identify(self, conn: GatewayConnection, data: JSON) -> None:
        if conn.session is not None:
            conn.close(4005)  # Already authenticated
            return
        if data.get("token") != self.token:
            conn.close(4004)  # Authentication failed
            return
        intents = int(data.get("intents", 0))
        if intents & PRIVILEGED_INTENTS & ~self.allowed_privileged_intents:
            conn.close(4014)  # Disallowed intent(s)
            return
        shard_id, shard_count = data.get("shard") or (0, 1)
        if not 0 <= shard_id < shard_count:
            conn.close(4010)  # Invalid shard
            return
        session = GatewaySession(
            session_id=secrets.token_hex(16),
            token=data["token"],
            intents=intents,
            shard=(int(shard_id), int(shard_count)),
            connection=conn,
            identify=dict(data),
        )
        conn.session = session
        self.sessions.append(session)
        guilds = [g for g in self.guilds.values() if session.covers_guild(g.id)]
        session.dispatch(
            "READY",
            {
                "v": API_VERSION,
                "user": {
                    **self.bot_user.payload(),
                    "verified": True,
                    "mfa_enabled": False,
                    "flags": 0,
                },
                "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
                "session_id": session.session_id,
                "session_type": "normal",
                "resume_gateway_url": self.gateway_url,
                "shard": [session.shard[0], session.shard[1]],
                "application": {"id": str(self.application_id), "flags": self._application_flags()},
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "guild_join_requests": [],
                "geo_ordered_rtc_regions": [],
                "auth": {},
                "user_settings": {},
            },
        )
        for guild in guilds:
            session.dispatch("GUILD_CREATE", self._guild_create_payload(guild, session))
        self.notify()

    def _resume(self, conn: GatewayConnection, data: JSON) -> None:
        session = next((s for s in self.sessions if s.session_id == data.get("session_id")), None)
        if (
            self.resume_policy != "resume"
            or session is None
            or session.ended
            or data.get("token") != session.token
        ):
            # d=false: not resumable. discord.py then closes with 1000 and IDENTIFYs.
            conn.send({"op": OP_INVALID_SESSION, "d": False})
            if session is not None:
                session.ended = True
            return
        if session.connection is not None and session.connection is not conn:
            session.connection.close(4000)  # a zombie connection of the same session
        session.connection = conn
        conn.session = session
        for frame in session.replay_after(int(data.get("seq") or 0)):
            conn.send(frame)
        session.dispatch("RESUMED", {})
        self.notify()

    def _request_members(self, conn: GatewayConnection, data: JSON) -> None:
        session = conn.session
        guild = self.guilds.get(int(data.get("guild_id", 0)))
        if session is None or guild is None:
            return
        members = list(guild.members.values())
        user_ids = {int(u) for u in data.get("user_ids") or []}
        query = str(data.get("query") or "").lower()
        if user_ids:
            members = [m for m in members if m.id in user_ids]
        elif query:
            members = [m for m in members if m.user.username.lower().startswith(query)]
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: JSON = {
            "guild_id": str(guild.id),
            "members": [m.payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
        }
        if user_ids:
            chunk["not_found"] = [str(u) for u in user_ids - {m.id for m in members}]
        if data.get("nonce"):
            chunk["nonce"] = data["nonce"]
        session.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    def _application_flags(self) -> int:
        flags = 0
        if self.allowed_privileged_intents & INTENT_GUILD_PRESENCES:
            flags |= 1 << 13  # GATEWAY_PRESENCE_LIMITED
        if self.allowed_privileged_intents & INTENT_GUILD_MEMBERS:
            flags |= 1 << 15  # GATEWAY_GUILD_MEMBERS_LIMITED
        if self.allowed_privileged_intents & INTENT_MESSAGE_CONTENT:
            flags |= 1 << 19  # GATEWAY_MESSAGE_CONTENT_LIMITED
        return flags

    def _guild_create_payload(self, guild: FakeGuild, session: GatewaySession) -> JSON:
        # Without the presences intent Discord only includes the bot itself (plus voice
        # members); discord.py then chunks the rest if it has the members intent.
        if session.has_intent(INTENT_GUILD_PRESENCES):
            members = list(guild.members.values())
        else:
            members = [guild.members[self.bot_user.id]]
        return guild.payload(members=members, member_count=len(guild.members))

    @staticmethod
    def _with_guild_id(payload: JSON, guild_id: int | None) -> JSON:
        if guild_id is not None:
            payload["guild_id"] = str(guild_id)
        return payload

    # ------------------------------------------------------------------ messages (used by REST)

    def permissions_in(self, channel: FakeChannel, user: FakeUser) -> int:
        guild = self.guild_of(channel)
        if guild is None:
            return DEFAULT_EVERYONE_PERMISSIONS  # DMs
        member = guild.members.get(user.id)
        return guild.permissions_for(member) if member else 0

    def create_message(
        self,
        channel: FakeChannel,
        author: FakeUser,
        payload: JSON,
        files: Sequence[UploadedFile] = (),
        *,
        type: int = 0,
        interaction: InteractionRecord | None = None,
        validate: bool = True,
        extra_flags: int = 0,
    ) -> FakeMessage:
        """Store a new message and dispatch MESSAGE_CREATE (unless ephemeral)."""
        if validate:
            validation.check_message(payload, file_sizes=[len(f.data) for f in files])
        flags = int(payload.get("flags") or 0) | extra_flags
        msg = FakeMessage(
            id=self.snowflake(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=author,
            content=payload.get("content") or "",
            embeds=list(payload.get("embeds") or []),
            components=_number_components(payload.get("components") or []),
            flags=flags,
            type=type,
            tts=bool(payload.get("tts", False)),
            allowed_mentions=payload.get("allowed_mentions"),
            nonce=payload.get("nonce"),
        )
        msg.attachments = self._attachments_for(msg, payload, files, existing=[])
        if msg.ephemeral and interaction is not None:
            msg.visible_to = interaction.user.id
        if interaction is not None:
            msg.interaction_id = interaction.id
            msg.webhook_id = self.application_id
            msg.application_id = self.application_id
            msg.interaction_metadata = self._interaction_metadata(interaction)
        ref = payload.get("message_reference")
        if isinstance(ref, dict) and ref.get("message_id"):
            referenced = self.messages_by_id.get(int(ref["message_id"]))
            if referenced is None and ref.get("fail_if_not_exists", True):
                raise ApiError.form([("message_reference", "Unknown message")])
            msg.message_reference = {
                "type": 0,
                "message_id": str(ref["message_id"]),
                "channel_id": str(ref.get("channel_id") or channel.id),
                **({"guild_id": str(channel.guild_id)} if channel.guild_id else {}),
            }
            if msg.type == 0:
                msg.type = 19  # REPLY
        self.messages_by_id[msg.id] = msg
        if not msg.ephemeral:
            channel.last_message_id = msg.id
            self._dispatch_message_event("MESSAGE_CREATE", msg)
        self.notify()
        return msg

    def edit_message(
        self,
        msg: FakeMessage,
        payload: JSON,
        files: Sequence[UploadedFile] = (),
    ) -> FakeMessage:
        """Apply a PATCH-style edit (only given keys change), keeping the old state in history."""
        validation.check_message(
            payload, file_sizes=[len(f.data) for f in files], existing=self.message_payload(msg)
        )
        msg.history.append(msg.snapshot())
        if "content" in payload:
            msg.content = payload["content"] or ""
        if "embeds" in payload:
            msg.embeds = list(payload["embeds"] or [])
        if "components" in payload:
            msg.components = _number_components(payload["components"] or [])
        if "attachments" in payload or files:
            msg.attachments = self._attachments_for(msg, payload, files, existing=msg.attachments)
        if payload.get("flags") is not None:
            # Only SUPPRESS_EMBEDS can be toggled and IS_COMPONENTS_V2 set; the rest sticks.
            new = int(payload["flags"])
            keep = msg.flags & ~(MessageFlags.SUPPRESS_EMBEDS)
            msg.flags = keep | (
                new & (MessageFlags.SUPPRESS_EMBEDS | MessageFlags.IS_COMPONENTS_V2)
            )
        if "allowed_mentions" in payload:
            msg.allowed_mentions = payload["allowed_mentions"]
        msg.flags &= ~MessageFlags.LOADING  # a deferred "thinking" message is now answered
        msg.edited_at = time.time()
        if not msg.ephemeral:
            self._dispatch_message_event("MESSAGE_UPDATE", msg)
        self.notify()
        return msg

    def delete_message(self, msg: FakeMessage) -> None:
        msg.deleted = True
        if not msg.ephemeral:
            channel = self.channel(msg.channel_id)
            data = self._with_guild_id(
                {"id": str(msg.id), "channel_id": str(msg.channel_id)}, msg.guild_id
            )
            for session in self._message_sessions(channel, msg.guild_id):
                session.dispatch("MESSAGE_DELETE", data)
        self.notify()

    def message_payload(
        self, msg: FakeMessage, *, for_gateway: bool = False, hide_content: bool = False
    ) -> JSON:
        """A message as REST returns it (``for_gateway`` adds guild_id and member)."""
        guild = self.guilds.get(msg.guild_id) if msg.guild_id is not None else None
        mentions: list[JSON] = []
        mention_roles: list[str] = []
        for uid in dict.fromkeys(int(m) for m in _USER_MENTION.findall(msg.content)):
            user = self.users.get(uid)
            if user is None:
                continue
            entry = user.payload()
            if guild is not None and uid in guild.members:
                entry["member"] = guild.members[uid].payload(with_user=False)
            mentions.append(entry)
        if guild is not None:
            mention_roles = [r for r in _ROLE_MENTION.findall(msg.content) if int(r) in guild.roles]
        member = None
        if for_gateway and guild is not None:
            member = guild.members.get(msg.author.id)
        data = msg.payload(
            author_member=member,
            mentions=mentions,
            mention_roles=mention_roles,
            include_guild_id=for_gateway,
            hide_content=hide_content,
        )
        if msg.message_reference is not None:
            ref = self.messages_by_id.get(int(msg.message_reference["message_id"]))
            data["referenced_message"] = (
                None if ref is None or ref.deleted else ref.payload(mentions=[])
            )
        return data

    def _message_sessions(
        self, channel: FakeChannel | None, guild_id: int | None
    ) -> list[GatewaySession]:
        intent = INTENT_DIRECT_MESSAGES if guild_id is None else INTENT_GUILD_MESSAGES
        return self._sessions_for(guild_id, intent)

    def _dispatch_message_event(self, event: str, msg: FakeMessage) -> None:
        channel = self.channel(msg.channel_id)
        for session in self._message_sessions(channel, msg.guild_id):
            # Without MESSAGE_CONTENT, Discord blanks other users' content in guilds
            # unless the bot is mentioned (its own messages and DMs are always full).
            hide = (
                not session.has_intent(INTENT_MESSAGE_CONTENT)
                and msg.author.id != self.bot_user.id
                and msg.guild_id is not None
                and self.bot_user.mention not in msg.content
                and f"<@!{self.bot_user.id}>" not in msg.content
            )
            session.dispatch(event, self.message_payload(msg, for_gateway=True, hide_content=hide))

    def _attachments_for(
        self,
        msg: FakeMessage,
        payload: JSON,
        files: Sequence[UploadedFile],
        *,
        existing: list[FakeAttachment],
    ) -> list[FakeAttachment]:
        """Resolve the ``attachments`` array against uploaded ``files[n]`` parts.

        Entries whose ``id`` matches an existing attachment keep it; entries whose id
        is a small integer refer to the upload ``files[id]`` (discord.py's
        ``File.to_dict(index)``). Without an ``attachments`` array all uploads are added.
        """
        by_index = {f.index: f for f in files}
        used: set[int] = set()
        result: list[FakeAttachment] = []
        spec = payload.get("attachments")
        if spec is None:
            result = list(existing)
            spec = []
        old = {a.id: a for a in existing}
        for entry in spec:
            raw_id = int(entry.get("id", -1))
            if raw_id in old:
                result.append(old[raw_id])
            elif raw_id in by_index:
                used.add(raw_id)
                result.append(self._store_upload(msg, by_index[raw_id], entry))
        for f in files:
            if f.index not in used:
                result.append(self._store_upload(msg, f, {}))
        return result

    def _store_upload(self, msg: FakeMessage, upload: UploadedFile, entry: JSON) -> FakeAttachment:
        return self.store_attachment(
            msg.channel_id,
            entry.get("filename") or upload.filename,
            upload.data,
            description=entry.get("description"),
            ephemeral=msg.ephemeral,
        )

    def store_attachment(
        self,
        channel_id: int,
        filename: str,
        data: bytes,
        *,
        description: str | None = None,
        ephemeral: bool = False,
    ) -> FakeAttachment:
        """Keep an uploaded file and serve it at a CDN-like URL on this server."""
        att_id = self.snowflake()
        width, height = _image_size(data)
        attachment = FakeAttachment(
            id=att_id,
            filename=filename,
            data=data,
            content_type=mimetypes.guess_type(filename)[0],
            url=f"{self.http_base}/attachments/{channel_id}/{att_id}/{filename}",
            description=description,
            width=width,
            height=height,
            ephemeral=ephemeral,
        )
        self.attachments[att_id] = attachment
        return attachment

    async def _cdn(self, request: web.Request) -> web.Response:
        attachment = self.attachments.get(int(request.match_info["attachment_id"]))
        if attachment is None:
            return web.Response(status=404)
        return web.Response(
            body=attachment.data, content_type=attachment.content_type or "application/octet-stream"
        )

    def _internal_error(self, where: str, exc: BaseException) -> None:
        log.error("fake discord internal error in %s", where, exc_info=exc)
        self.errors.append(f"{where}: {type(exc).__name__}: {exc}")

    # ------------------------------------------------------------------ interactions

    def _resolve_actor(
        self, actor: Actor, channel: FakeChannel
    ) -> tuple[FakeUser, FakeMember | None]:
        user = _user_of(actor)
        guild = self.guild_of(channel)
        if guild is None:
            if channel.is_dm and user not in channel.recipients:
                raise FakeDiscordError(f"{user!r} is not a recipient of {channel!r}")
            return user, None
        member = guild.members.get(user.id)
        if member is None:
            raise FakeDiscordError(f"{user!r} is not a member of {guild!r}")
        return user, member

    def _base_interaction(
        self, itype: int, actor: Actor, channel: FakeChannel, *, locale: str
    ) -> tuple[JSON, FakeUser, FakeMember | None]:
        user, member = self._resolve_actor(actor, channel)
        guild = self.guild_of(channel)
        iid = self.snowflake()
        payload: JSON = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": itype,
            "token": f"fake-{secrets.token_urlsafe(24)}",
            "version": 1,
            "channel": channel.payload(permissions=self.permissions_in(channel, user)),
            "channel_id": str(channel.id),
            "locale": locale,
            "app_permissions": str(self.permissions_in(channel, self.bot_user)),
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
            "authorizing_integration_owners": {"0": str(guild.id) if guild else "0"},
            "context": 0 if guild else 1,
        }
        if guild is not None and member is not None:
            payload["guild_id"] = str(guild.id)
            payload["guild_locale"] = "en-US"
            payload["guild"] = {"id": str(guild.id), "locale": "en-US", "features": []}
            payload["member"] = member.payload(permissions=guild.permissions_for(member))
        else:
            payload["user"] = user.payload()
        return payload, user, member

    async def _dispatch_interaction(
        self,
        payload: JSON,
        user: FakeUser,
        member: FakeMember | None,
        channel: FakeChannel,
        name: str,
        *,
        source_message: FakeMessage | None = None,
        parent: InteractionRecord | None = None,
        connect_timeout: float = 10.0,
    ) -> InteractionRecord:
        guild_id = channel.guild_id
        session = await self.wait_for(
            lambda: self._interaction_session(guild_id),
            timeout=connect_timeout,
            description="a bot gateway session to deliver the interaction to",
        )
        record = InteractionRecord(
            fake=self,
            id=int(payload["id"]),
            token=payload["token"],
            type=int(payload["type"]),
            user=user,
            member=member,
            channel=channel,
            payload=payload,
            name=name,
            source_message=source_message,
            parent=parent,
        )
        self.interactions.append(record)
        self._interactions_by_id[record.id] = record
        self._interactions_by_token[record.token] = record
        record.dispatched_at = time.monotonic()
        session.dispatch("INTERACTION_CREATE", payload)
        self.notify()
        return record

    async def slash(
        self,
        user: Actor,
        channel: FakeChannel,
        command: str,
        /,
        *,
        locale: str = "en-US",
        **options: Any,
    ) -> InteractionRecord:
        """Run ``/command`` as ``user`` in ``channel``; returns at once (await the record).

        ``command`` may name a subcommand: ``"game start"``. Options are given as
        keyword arguments and converted per the registered option type: pass
        :class:`FakeMember`/:class:`FakeUser` for USER, :class:`FakeChannel` for CHANNEL,
        :class:`FakeRole` for ROLE, :class:`Upload` for ATTACHMENT. Options whose names
        are not Python identifiers can be passed as ``**{"my-opt": 1}``.
        Raises :class:`FakeDiscordError` for anything a Discord client would refuse.
        """
        return await self._slash(user, channel, command, locale, options, checked=True)

    async def forged_slash(
        self, user: Actor, channel: FakeChannel, command: str, /, **options: Any
    ) -> InteractionRecord:
        """Like :meth:`slash`, but as a modified client would send it: an option's value need
        not be one of its choices nor within its declared lengths and ranges (the client checks
        those; the bot must not rely on it)."""
        return await self._slash(user, channel, command, "en-US", options, checked=False)

    async def raw_slash(
        self,
        user: Actor,
        channel: FakeChannel,
        command: str,
        options: list[JSON],
        /,
        *,
        resolved: JSON | None = None,
        name: str | None = None,
        autocomplete: bool = False,
    ) -> InteractionRecord:
        """``/command`` with ``options`` sent exactly as given: their names, types and values
        are not checked against the command, nor ``resolved`` against them (a string for a
        boolean, a user id that resolves to nobody). What a modified client could send.
        ``name`` replaces the command's name in the payload (a command the bot no longer has,
        as a client that hasn't reloaded the list would send it). With ``autocomplete`` it is
        an autocomplete request (mark the option being typed ``"focused": True``)."""
        cmd = self.find_command(command, channel.guild_id)
        itype = (InteractionType.AUTOCOMPLETE if autocomplete
                 else InteractionType.APPLICATION_COMMAND)
        payload, user_, member = self._base_interaction(itype, user, channel, locale="en-US")
        self._check_can_use(cmd, channel, member)
        data = self._command_data(cmd, list(options), dict(resolved or {}))
        if name is not None:
            data["name"] = name
        payload["data"] = data
        return await self._dispatch_interaction(payload, user_, member, channel, command)

    async def _slash(
        self,
        user: Actor,
        channel: FakeChannel,
        command: str,
        locale: str,
        options: dict[str, Any],
        *,
        checked: bool,
    ) -> InteractionRecord:
        parts = command.split()
        cmd = self.find_command(parts[0], channel.guild_id)
        payload, user_, member = self._base_interaction(
            InteractionType.APPLICATION_COMMAND, user, channel, locale=locale
        )
        self._check_can_use(cmd, channel, member)
        resolved: JSON = {}
        opts = self._build_options(
            cmd, parts[1:], options, resolved, channel, focused=None, checked=checked
        )
        payload["data"] = self._command_data(cmd, opts, resolved)
        return await self._dispatch_interaction(payload, user_, member, channel, command)

    async def user_command(
        self, user: Actor, channel: FakeChannel, command: str, target: Actor
    ) -> InteractionRecord:
        """Run a USER context-menu command on ``target``."""
        cmd = self.find_command(command, channel.guild_id, type=2)
        payload, user_, member = self._base_interaction(
            InteractionType.APPLICATION_COMMAND, user, channel, locale="en-US"
        )
        self._check_can_use(cmd, channel, member)
        resolved: JSON = {}
        target_user = self._resolve_user_option(target, resolved, channel)
        data = self._command_data(cmd, [], resolved)
        data["target_id"] = str(target_user.id)
        payload["data"] = data
        return await self._dispatch_interaction(payload, user_, member, channel, command)

    async def message_command(
        self, user: Actor, channel: FakeChannel, command: str, target: FakeMessage
    ) -> InteractionRecord:
        """Run a MESSAGE context-menu command on ``target``."""
        cmd = self.find_command(command, channel.guild_id, type=3)
        payload, user_, member = self._base_interaction(
            InteractionType.APPLICATION_COMMAND, user, channel, locale="en-US"
        )
        self._check_can_use(cmd, channel, member)
        data = self._command_data(
            cmd, [], {"messages": {str(target.id): self.message_payload(target)}}
        )
        data["target_id"] = str(target.id)
        payload["data"] = data
        return await self._dispatch_interaction(payload, user_, member, channel, command)

    async def autocomplete(
        self,
        user: Actor,
        channel: FakeChannel,
        command: str,
        focused: str,
        value: str,
        /,
        *,
        timeout: float = 5.0,
        **options: Any,
    ) -> list[JSON]:
        """Type ``value`` into option ``focused`` of ``/command``; return the bot's choices.

        Other already-filled options go in ``options``. The record is in
        :attr:`interactions` (for latency reporting).
        """
        parts = command.split()
        cmd = self.find_command(parts[0], channel.guild_id)
        payload, user_, member = self._base_interaction(
            InteractionType.AUTOCOMPLETE, user, channel, locale="en-US"
        )
        resolved: JSON = {}
        opts = self._build_options(
            cmd, parts[1:], {**options, focused: value}, resolved, channel, focused=focused
        )
        payload["data"] = self._command_data(cmd, opts, resolved)
        record = await self._dispatch_interaction(payload, user_, member, channel, command)
        return await record.choices(timeout)

    async def click(
        self, user: Actor, message: FakeMessage, custom_id: str, *, force: bool = False
    ) -> InteractionRecord:
        """Click the button ``custom_id`` on ``message`` as ``user``.

        Refuses (FakeDiscordError) if the button does not exist, is disabled, is a link
        button, or the message is someone else's ephemeral - unless ``force``.
        """
        component = self._find_component(message, custom_id, user, force=force)
        if not force:
            if component.get("type") != 2:
                raise FakeDiscordError(f"{custom_id!r} is not a button: {component}")
            if component.get("disabled"):
                raise FakeDiscordError(f"button {custom_id!r} is disabled")
        data: JSON = {"custom_id": custom_id, "component_type": 2}
        if "id" in component:
            data["id"] = component["id"]
        return await self._component_interaction(user, message, data)

    async def select(
        self,
        user: Actor,
        message: FakeMessage,
        custom_id: str,
        values: Sequence[Any],
        *,
        force: bool = False,
    ) -> InteractionRecord:
        """Choose ``values`` in the select menu ``custom_id`` on ``message``.

        String selects take option values; user/role/channel/mentionable selects take
        the fake objects (resolved data is generated).
        """
        component = self._find_component(message, custom_id, user, force=force)
        ctype = int(component.get("type", 3))
        channel = self._channel_of(message)
        resolved: JSON = {}
        if ctype == 3:
            str_values = [str(v) for v in values]
            if not force:
                allowed = {o["value"] for o in component.get("options", [])}
                unknown = [v for v in str_values if v not in allowed]
                if unknown:
                    raise FakeDiscordError(f"select {custom_id!r} has no option(s) {unknown}")
        elif ctype in (5, 6, 7, 8):
            str_values = [self._resolve_select_value(v, ctype, resolved, channel) for v in values]
        else:
            raise FakeDiscordError(f"{custom_id!r} is not a select menu: {component}")
        if not force:
            if component.get("disabled"):
                raise FakeDiscordError(f"select {custom_id!r} is disabled")
            lo, hi = component.get("min_values", 1), component.get("max_values", 1)
            if not lo <= len(str_values) <= hi:
                raise FakeDiscordError(f"select {custom_id!r} takes {lo}..{hi} values")
        data: JSON = {"custom_id": custom_id, "component_type": ctype, "values": str_values}
        if resolved:
            data["resolved"] = resolved
        if "id" in component:
            data["id"] = component["id"]
        return await self._component_interaction(user, message, data)

    async def component(
        self, user: Actor, message: FakeMessage, data: JSON
    ) -> InteractionRecord:
        """A component interaction on ``message`` with ``data`` exactly as given: any
        ``custom_id`` (shown on the message or not, of any length), ``component_type`` (2 when
        left out) and ``values``. What a button posted by an older version of the bot, or a
        modified client, sends."""
        return await self._component_interaction(
            user, message, {"component_type": 2, **data}
        )

    async def submit_modal(
        self,
        user: Actor,
        opened_by: InteractionRecord,
        values: dict[str, Any],
        *,
        force: bool = False,
    ) -> InteractionRecord:
        """Fill in and submit the modal the bot opened in response to ``opened_by``.

        ``values`` maps each input's custom_id to its text (or a list for selects in
        labels). Missing required inputs / too long text raise FakeDiscordError.
        """
        modal = await opened_by.modal()
        channel = opened_by.channel
        payload, user_, member = self._base_interaction(
            InteractionType.MODAL_SUBMIT, user, channel, locale="en-US"
        )
        components = [self._fill_modal_component(c, values, force) for c in modal["components"]]
        unknown = set(values) - {c.get("custom_id") for c in iter_components(modal["components"])}
        if unknown and not force:
            raise FakeDiscordError(
                f"modal {modal['custom_id']!r} has no input(s) {sorted(unknown)}"
            )
        payload["data"] = {"custom_id": modal["custom_id"], "components": components}
        source = opened_by.source_message
        if source is not None:
            payload["message"] = self.message_payload(source)
        return await self._dispatch_interaction(
            payload,
            user_,
            member,
            channel,
            modal["custom_id"],
            source_message=source,
            parent=opened_by,
        )

    async def send_user_message(
        self,
        user: Actor,
        channel: FakeChannel,
        content: str,
        *,
        reply_to: FakeMessage | None = None,
    ) -> FakeMessage:
        """Post a normal message as ``user`` (dispatches MESSAGE_CREATE to the bot)."""
        author, _ = self._resolve_actor(user, channel)
        payload: JSON = {"content": content}
        if reply_to is not None:
            payload["message_reference"] = {"message_id": reply_to.id, "channel_id": channel.id}
        return self.create_message(channel, author, payload)

    # -- interaction builders

    def _check_can_use(
        self, cmd: RegisteredCommand, channel: FakeChannel, member: FakeMember | None
    ) -> None:
        guild = self.guild_of(channel)
        contexts = cmd.contexts
        in_dm_forbidden = (contexts is not None and 1 not in contexts) or cmd.raw.get(
            "dm_permission"
        ) is False
        if guild is None and in_dm_forbidden:
            raise FakeDiscordError(f"/{cmd.name} is not available in DMs")
        if guild is not None and contexts is not None and 0 not in contexts:
            raise FakeDiscordError(f"/{cmd.name} is not available in guilds")
        if guild is not None and member is not None and cmd.default_member_permissions is not None:
            needed = int(cmd.default_member_permissions)
            if guild.permissions_for(member) & needed != needed:
                raise FakeDiscordError(f"{member!r} lacks permissions {needed} for /{cmd.name}")

    @staticmethod
    def _command_data(cmd: RegisteredCommand, options: list[JSON], resolved: JSON) -> JSON:
        data: JSON = {"id": str(cmd.id), "name": cmd.name, "type": cmd.type}
        if options:
            data["options"] = options
        if resolved:
            data["resolved"] = resolved
        if cmd.guild_id is not None:
            # discord.py looks the command up in the guild tree only if this is set.
            data["guild_id"] = str(cmd.guild_id)
        return data

    def _build_options(
        self,
        cmd: RegisteredCommand,
        sub_path: list[str],
        given: dict[str, Any],
        resolved: JSON,
        channel: FakeChannel,
        *,
        focused: str | None,
        checked: bool = True,
    ) -> list[JSON]:
        definitions = cmd.option(sub_path)
        if any(d.get("type") in (1, 2) for d in definitions):
            subs = [d["name"] for d in definitions if d.get("type") in (1, 2)]
            raise FakeDiscordError(f"/{cmd.name} needs a subcommand, one of {subs}")
        by_name = {d["name"]: d for d in definitions}
        unknown = set(given) - set(by_name)
        if unknown:
            raise FakeDiscordError(
                f"/{cmd.name} {' '.join(sub_path)} has no option(s) {sorted(unknown)}; "
                f"options: {sorted(by_name)}"
            )
        options: list[JSON] = []
        for definition in definitions:
            name = definition["name"]
            if name not in given:
                if definition.get("required") and focused is None:
                    raise FakeDiscordError(f"/{cmd.name}: required option {name!r} missing")
                continue
            if name == focused:
                if not definition.get("autocomplete"):
                    raise FakeDiscordError(f"/{cmd.name} option {name!r} has no autocomplete")
                options.append(
                    {
                        "name": name,
                        "type": definition["type"],
                        "value": str(given[name]),
                        "focused": True,
                    }
                )
                continue
            value = self._option_value(
                cmd, definition, given[name], resolved, channel, checked=checked
            )
            options.append({"name": name, "type": definition["type"], "value": value})
        # Wrap in SUB_COMMAND (1), then SUB_COMMAND_GROUP (2), as Discord nests them.
        for depth, name in enumerate(reversed(sub_path)):
            options = [{"name": name, "type": 1 if depth == 0 else 2, "options": options}]
        return options

    def _option_value(
        self,
        cmd: RegisteredCommand,
        definition: JSON,
        value: Any,
        resolved: JSON,
        channel: FakeChannel,
        *,
        checked: bool = True,
    ) -> Any:
        otype = int(definition["type"])
        name = definition["name"]
        where = f"/{cmd.name} option {name!r}"
        if otype == 3:
            if not isinstance(value, str):
                raise FakeDiscordError(f"{where} expects a string, got {value!r}")
            lo, hi = definition.get("min_length", 0), definition.get("max_length", 6000)
            if not checked:
                lo, hi = 0, 6000
            if not lo <= len(value) <= hi:
                raise FakeDiscordError(f"{where}: length must be in {lo}..{hi}")
        elif otype == 4:
            if isinstance(value, bool) or not isinstance(value, int):
                raise FakeDiscordError(f"{where} expects an integer, got {value!r}")
        elif otype == 5:
            if not isinstance(value, bool):
                raise FakeDiscordError(f"{where} expects a boolean, got {value!r}")
        elif otype == 10:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise FakeDiscordError(f"{where} expects a number, got {value!r}")
        elif otype == 6:
            return str(self._resolve_user_option(value, resolved, channel).id)
        elif otype == 7:
            if not isinstance(value, FakeChannel):
                raise FakeDiscordError(f"{where} expects a FakeChannel, got {value!r}")
            allowed = definition.get("channel_types")
            if allowed and value.type not in allowed:
                raise FakeDiscordError(f"{where} accepts channel types {allowed}")
            self._resolve_channel(value, resolved)
            return str(value.id)
        elif otype == 8:
            if not isinstance(value, FakeRole):
                raise FakeDiscordError(f"{where} expects a FakeRole, got {value!r}")
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            return str(value.id)
        elif otype == 9:
            if isinstance(value, FakeRole):
                resolved.setdefault("roles", {})[str(value.id)] = value.payload()
                return str(value.id)
            return str(self._resolve_user_option(value, resolved, channel).id)
        elif otype == 11:
            if not isinstance(value, Upload):
                raise FakeDiscordError(f"{where} expects an Upload(filename, data), got {value!r}")
            att = self.store_attachment(channel.id, value.filename, value.data, ephemeral=True)
            resolved.setdefault("attachments", {})[str(att.id)] = att.payload()
            return str(att.id)
        else:
            raise FakeDiscordError(f"{where}: unsupported option type {otype}")
        if otype in (4, 10) and checked:
            lo, hi = definition.get("min_value"), definition.get("max_value")
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                raise FakeDiscordError(f"{where}: {value} outside {lo}..{hi}")
        choices = definition.get("choices")
        if checked and choices and value not in [c["value"] for c in choices]:
            raise FakeDiscordError(f"{where}: {value!r} is not one of the choices {choices}")
        return value

    def _resolve_user_option(self, value: Any, resolved: JSON, channel: FakeChannel) -> FakeUser:
        if isinstance(value, FakeMember):
            user = value.user
        elif isinstance(value, FakeUser):
            user = value
        elif isinstance(value, int) and value in self.users:
            user = self.users[value]
        else:
            raise FakeDiscordError(f"expected a FakeMember/FakeUser, got {value!r}")
        resolved.setdefault("users", {})[str(user.id)] = user.payload()
        guild = self.guild_of(channel)
        if guild is not None and user.id in guild.members:
            member = guild.members[user.id]
            resolved.setdefault("members", {})[str(user.id)] = member.payload(
                with_user=False, permissions=guild.permissions_for(member)
            )
        return user

    def _resolve_channel(self, channel: FakeChannel, resolved: JSON) -> None:
        data = channel.payload(permissions=self.permissions_in(channel, self.bot_user))
        resolved.setdefault("channels", {})[str(channel.id)] = data

    def _resolve_select_value(
        self, value: Any, ctype: int, resolved: JSON, channel: FakeChannel
    ) -> str:
        if isinstance(value, FakeRole) and ctype in (6, 7):
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            return str(value.id)
        if isinstance(value, FakeUser | FakeMember) and ctype in (5, 7):
            return str(self._resolve_user_option(value, resolved, channel).id)
        if isinstance(value, FakeChannel) and ctype == 8:
            self._resolve_channel(value, resolved)
            return str(value.id)
        raise FakeDiscordError(f"value {value!r} does not fit select type {ctype}")

    def _channel_of(self, message: FakeMessage) -> FakeChannel:
        channel = self.channel(message.channel_id)
        if channel is None:
            raise FakeDiscordError(f"{message!r} is in an unknown channel")
        return channel

    def _find_component(
        self, message: FakeMessage, custom_id: str, user: Actor, *, force: bool
    ) -> JSON:
        current = self.messages_by_id.get(message.id, message)
        if not force:
            if current.deleted:
                raise FakeDiscordError(f"{current!r} was deleted")
            viewer = _user_of(user).id
            if current.visible_to not in (None, viewer):
                raise FakeDiscordError(f"{current!r} is ephemeral for someone else")
        try:
            return current.component(custom_id)
        except KeyError:
            if force:
                return {"custom_id": custom_id, "type": 2}
            raise FakeDiscordError(
                f"{current!r} has no component {custom_id!r}; it has {current.custom_ids()}"
            ) from None

    async def _component_interaction(
        self, user: Actor, message: FakeMessage, data: JSON
    ) -> InteractionRecord:
        channel = self._channel_of(message)
        payload, user_, member = self._base_interaction(
            InteractionType.MESSAGE_COMPONENT, user, channel, locale="en-US"
        )
        payload["data"] = data
        payload["message"] = self.message_payload(message)
        return await self._dispatch_interaction(
            payload, user_, member, channel, str(data.get("custom_id", "")),
            source_message=message,
        )

    def _fill_modal_component(self, comp: JSON, values: dict[str, Any], force: bool) -> JSON:
        """Echo a modal component tree back with the user's input, as Discord submits it."""
        ctype = comp.get("type")
        if ctype == 1:
            return {
                "type": 1,
                "components": [
                    self._fill_modal_component(c, values, force) for c in comp["components"]
                ],
            }
        if ctype == 18:
            out: JSON = {
                "type": 18,
                "component": self._fill_modal_component(comp["component"], values, force),
            }
            if "id" in comp:
                out["id"] = comp["id"]
            return out
        custom_id = str(comp.get("custom_id") or "")
        if ctype == 4:  # text input
            value = values.get(custom_id, comp.get("value") or "")
            if not isinstance(value, str):
                raise FakeDiscordError(f"text input {custom_id!r} takes a string")
            if not force:
                if comp.get("required", True) and not value:
                    raise FakeDiscordError(f"text input {custom_id!r} is required")
                lo, hi = comp.get("min_length", 0), comp.get("max_length", 4000)
                if value and not lo <= len(value) <= hi:
                    raise FakeDiscordError(
                        f"text input {custom_id!r}: length must be in {lo}..{hi}"
                    )
            return {"type": 4, "custom_id": custom_id, "value": value, **_id_of(comp)}
        if ctype in (3, 5, 6, 7, 8):
            chosen = values.get(custom_id, [])
            return {
                "type": ctype,
                "custom_id": custom_id,
                "values": [str(v) for v in chosen],
                **_id_of(comp),
            }
        if ctype == 10:  # text display: echoed as-is
            return {"type": 10, **_id_of(comp)}
        out = {"type": ctype, **_id_of(comp)}
        if custom_id is not None:
            out["custom_id"] = custom_id
            if custom_id in values:
                out["values" if isinstance(values[custom_id], list) else "value"] = values[
                    custom_id
                ]
        return out

    # -- callback handling (called by rest.py)

    def accept_callback(
        self, record: InteractionRecord, body: JSON, files: Sequence[UploadedFile]
    ) -> JSON:
        """Process POST /interactions/{id}/{token}/callback; returns the ``with_response`` body."""
        cb_type = int(body.get("type", 0))
        now = time.monotonic()
        if record.callback is not None:
            record.rejected_callbacks.append((cb_type, "already acknowledged"))
            raise ApiError.already_acknowledged()
        deadline = self.interaction_deadline
        if (
            deadline is not None
            and record.dispatched_at is not None
            and now - record.dispatched_at > deadline
        ):
            record.rejected_callbacks.append(
                (cb_type, f"late by {now - record.dispatched_at:.2f}s")
            )
            self.notify()
            raise ApiError.unknown_interaction()
        if cb_type not in ALLOWED_CALLBACKS.get(record.type, set()) or (
            cb_type in (6, 7) and record.source_message is None
        ):
            record.rejected_callbacks.append((cb_type, "invalid callback type"))
            raise ApiError.form([("type", f"Invalid interaction callback type {cb_type}")])
        data: JSON = body.get("data") or {}
        message: FakeMessage | None = None
        if cb_type == CallbackType.CHANNEL_MESSAGE:
            message = self.create_message(
                record.channel,
                self.bot_user,
                data,
                files,
                type=self._response_message_type(record),
                interaction=record,
            )
            record.response_message = message
        elif cb_type == CallbackType.DEFERRED_CHANNEL_MESSAGE:
            message = self.create_message(
                record.channel,
                self.bot_user,
                {"flags": int(data.get("flags") or 0) & MessageFlags.EPHEMERAL},
                type=self._response_message_type(record),
                interaction=record,
                validate=False,
                extra_flags=MessageFlags.LOADING,
            )
            record.response_message = message
        elif cb_type == CallbackType.UPDATE_MESSAGE:
            assert record.source_message is not None
            message = self.edit_message(record.source_message, data, files)
        elif cb_type == CallbackType.AUTOCOMPLETE_RESULT:
            validation.check_autocomplete(data)
        elif cb_type == CallbackType.MODAL:
            validation.check_modal(data)
        record.callback = CallbackRecord(
            type=cb_type, data=data, at=now, files=[(f.filename, f.data) for f in files]
        )
        self.notify()
        interaction: JSON = {"id": str(record.id), "type": record.type}
        target = record.original_message
        if target is not None and cb_type in (4, 5, 6, 7):
            interaction["response_message_id"] = str(target.id)
            interaction["response_message_loading"] = cb_type == 5
            interaction["response_message_ephemeral"] = target.ephemeral
        result: JSON = {"interaction": interaction}
        resource: JSON = {"type": cb_type}
        if message is not None and cb_type in (4, 7):
            resource["message"] = self.message_payload(message)
        result["resource"] = resource
        return result

    @staticmethod
    def _response_message_type(record: InteractionRecord) -> int:
        if record.type == InteractionType.APPLICATION_COMMAND:
            data = record.payload.get("data", {})
            return 20 if data.get("type", 1) == 1 else 23  # CHAT_INPUT / CONTEXT_MENU
        return 0

    def _interaction_metadata(self, record: InteractionRecord) -> JSON:
        meta: JSON = {
            "id": str(record.id),
            "type": record.type,
            "user": record.user.payload(),
            "authorizing_integration_owners": record.payload.get(
                "authorizing_integration_owners", {}
            ),
        }
        if record.type == InteractionType.APPLICATION_COMMAND:
            meta["name"] = record.name
            meta["command_type"] = record.payload.get("data", {}).get("type", 1)
        if record.source_message is not None:
            meta["interacted_message_id"] = str(record.source_message.id)
        if record.response_message is not None:
            meta["original_response_message_id"] = str(record.response_message.id)
        return meta

    def create_followup(
        self, record: InteractionRecord, payload: JSON, files: Sequence[UploadedFile]
    ) -> FakeMessage:
        """POST /webhooks/{app}/{token}: a follow-up (the first after a "thinking"
        defer replaces the placeholder instead, as on Discord)."""
        if record.callback is None:
            raise ApiError.unknown_webhook()
        placeholder = record.response_message
        if (
            record.callback.type == CallbackType.DEFERRED_CHANNEL_MESSAGE
            and placeholder is not None
            and placeholder.loading
            and not placeholder.deleted
            and not record.followups
        ):
            # Ephemerality was fixed by the defer; the follow-up's flag is ignored.
            message = self.edit_message(
                placeholder, {k: v for k, v in payload.items() if k != "flags"}, files
            )
        else:
            message = self.create_message(
                record.channel, self.bot_user, payload, files, interaction=record
            )
        record.followups.append(message)
        self.notify()
        return message

    def webhook_message(self, record: InteractionRecord, message_id: str) -> FakeMessage:
        """Resolve ``@original`` or a follow-up id for the webhook message routes."""
        if message_id == "@original":
            msg = record.original_message
        else:
            msg = self.messages_by_id.get(int(message_id))
            if (
                msg is not None
                and msg not in record.followups
                and msg is not record.original_message
            ):
                msg = None
        if msg is None or msg.deleted:
            raise ApiError.unknown_message()
        return msg

    # ------------------------------------------------------------------ commands (used by REST)

    def upsert_commands(
        self, guild_id: int | None, payloads: list[JSON], *, replace: bool
    ) -> list[RegisteredCommand]:
        validation.check_commands(payloads)
        self.command_syncs += 1
        existing = {k: v for k, v in self.registered.items() if k[0] == guild_id}
        if replace:
            for key in existing:
                del self.registered[key]
        result = []
        for raw in payloads:
            ctype = int(raw.get("type", 1))
            key = (guild_id, raw["name"], ctype)
            old = existing.get(key)
            cmd = RegisteredCommand(
                id=old.id if old else self.snowflake(),  # Discord keeps ids across overwrites
                application_id=self.application_id,
                guild_id=guild_id,
                name=raw["name"],
                type=ctype,
                description=raw.get("description", ""),
                options=list(raw.get("options") or []),
                default_member_permissions=raw.get("default_member_permissions"),
                contexts=raw.get("contexts"),
                integration_types=raw.get("integration_types"),
                raw=dict(raw),
                version=self.snowflake(),
            )
            self.registered[key] = cmd
            result.append(cmd)
        self.notify()
        return result

    async def wait_commands(
        self, *names: str, guild: FakeGuild | None = None, timeout: float = 5.0
    ) -> dict[str, RegisteredCommand]:
        """Wait until all ``names`` are registered in the given scope."""

        def registered() -> dict[str, RegisteredCommand] | None:
            cmds = self.commands(guild)
            return cmds if cmds and all(n in cmds for n in names) else None

        return await self.wait_for(
            registered,
            timeout=timeout,
            description=f"commands {names} to be registered",
        )


# ---------------------------------------------------------------------------- helpers

_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")


def _user_of(actor: Actor) -> FakeUser:
    return actor.user if isinstance(actor, FakeMember) else actor


def _id_of(comp: JSON) -> JSON:
    return {"id": comp["id"]} if "id" in comp else {}


def _number_components(components: list[JSON]) -> list[JSON]:
    """Give every component a numeric ``id`` (unique per message) like Discord does."""
    copied: list[JSON] = json.loads(json.dumps(components))
    used = {c["id"] for c in iter_components(copied) if isinstance(c.get("id"), int)}
    next_id = 1
    for comp in iter_components(copied):
        if "id" not in comp:
            while next_id in used:
                next_id += 1
            comp["id"] = next_id
            used.add(next_id)
    return copied


def _image_size(data: bytes) -> tuple[int | None, int | None]:
    """Width/height of PNG/GIF/JPEG data (Discord reports these for images)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return int(width), int(height)
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                break
            marker = data[i + 1]
            length = struct.unpack(">H", data[i + 2 : i + 4])[0]
            if marker in (0xC0, 0xC1, 0xC2):
                height, width = struct.unpack(">HH", data[i + 5 : i + 9])
                return int(width), int(height)
            i += 2 + length
    return None, None
