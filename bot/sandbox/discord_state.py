"""The fake Discord's state: what the page, the REST API and the gateway all serve.

:class:`DiscordState` holds the world (guilds, channels, members, roles), the messages and
interactions, the registered commands and the gateway sessions, as plain dataclasses
(``models.py``) tests inspect directly, plus the records of what the bot asked for. What
changes it are parts that each hold it (``fake.state``), imported one way: the servers and
people set up (``guild_setup.py``), the bot's messages, answers and commands
(``message_store.py``), what people do (``user_actions.py``), the REST API (``rest.py``), the
gateway (``gateway_endpoint.py``) and the server that binds them (``server.py``).
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from .fake_errors import FakeDiscordError
from .gateway import (
    INTENT_GUILD_MEMBERS,
    INTENT_GUILD_PRESENCES,
    INTENT_MESSAGE_CONTENT,
    PRIVILEGED_INTENTS,
    GatewayConnection,
    GatewaySession,
)
from .interactions import InteractionRecord
from .models import (
    DEFAULT_EVERYONE_PERMISSIONS,
    DISCORD_EPOCH_MS,
    JSON,
    ChannelType,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeUser,
    RegisteredCommand,
    SnowflakeFactory,
)
from .waiting import Waiting

log = logging.getLogger("fakediscord")

Actor = FakeUser | FakeMember
API_VERSION = 10


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


class HostedBot(Protocol):
    """A bot started against the fake (``runner.BotHandle``), which ``FakeDiscord.stop`` closes."""

    @property
    def task(self) -> asyncio.Task[None]: ...

    async def stop(self, timeout: float = ...) -> None: ...


class DiscordState(Waiting):
    """What the fake Discord holds: its world, messages, interactions, commands and sessions.

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
        super().__init__()
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
        # Message ids by (channel, nonce), oldest first: a cache of ``messages_by_id`` kept
        # by ``added`` (rebuilt when that dict is replaced or grew without it).
        self._nonces: dict[tuple[int, str], list[int]] = {}
        self._nonces_of: dict[int, FakeMessage] | None = None
        self._nonces_len = 0
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
        self.bots: list[HostedBot] = []
        self.connections: set[GatewayConnection] = set()
        #: Set once the server listens (``FakeDiscord.start``).
        self._port: int | None = None

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

    # ------------------------------------------------------------------ waiting

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
        viewer = user_of(visible_to).id if visible_to is not None else None
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

    def added(self, msg: FakeMessage) -> None:
        """Note a message just stored in ``messages_by_id`` (for ``message_by_nonce``)."""
        if self._nonces_of is self.messages_by_id and \
                self._nonces_len + 1 == len(self.messages_by_id):
            self._nonces_len += 1
            if msg.nonce is not None:
                self._nonces.setdefault((msg.channel_id, msg.nonce), []).append(msg.id)

    def _nonce_index(self) -> dict[tuple[int, str], list[int]]:
        if self._nonces_of is not self.messages_by_id or \
                self._nonces_len != len(self.messages_by_id):
            self._nonces = {}
            for msg in self.messages_by_id.values():
                if msg.nonce is not None:
                    self._nonces.setdefault((msg.channel_id, msg.nonce), []).append(msg.id)
            self._nonces_of, self._nonces_len = self.messages_by_id, len(self.messages_by_id)
        return self._nonces

    def message_by_nonce(self, channel: FakeChannel, nonce: str) -> FakeMessage | None:
        """The bot's live message in ``channel`` with ``nonce``, created in the last
        :attr:`NONCE_WINDOW` seconds (looked up by nonce: a scan of every message was 5 ms
        a board post in the load benchmark)."""
        horizon = int((time.time() - self.NONCE_WINDOW) * 1000) - DISCORD_EPOCH_MS
        for message_id in reversed(self._nonce_index().get((channel.id, nonce), [])):
            msg = self.messages_by_id.get(message_id)
            if msg is None:
                continue
            if (msg.id >> 22) < horizon:
                break  # by id, oldest first: the rest are older still
            if not msg.deleted and msg.author.id == self.bot_user.id:
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

    def dm_channel(self, user: Actor) -> FakeChannel:
        """The DM channel between the bot and ``user`` (created on first use)."""
        user = user_of(user)
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = FakeChannel(id=self.snowflake(), type=ChannelType.DM, recipients=[user])
            self.dm_channels[user.id] = channel
        return channel

    def permissions_in(self, channel: FakeChannel, user: FakeUser) -> int:
        guild = self.guild_of(channel)
        if guild is None:
            return DEFAULT_EVERYONE_PERMISSIONS  # DMs
        member = guild.members.get(user.id)
        return guild.permissions_for(member) if member else 0

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

    def _internal_error(self, where: str, exc: BaseException) -> None:
        log.error("fake discord internal error in %s", where, exc_info=exc)
        self.errors.append(f"{where}: {type(exc).__name__}: {exc}")

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


def user_of(actor: Actor) -> FakeUser:
    """The user behind a member (or the user itself)."""
    return actor.user if isinstance(actor, FakeMember) else actor
