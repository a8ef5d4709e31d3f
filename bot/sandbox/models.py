"""State objects of the fake Discord server and their JSON (wire) representations.

Every object here is a plain mutable dataclass owned by :class:`~.server.FakeDiscord`.
Tests may read them freely (``message.content``, ``message.buttons()``...) and may
tweak them (``role.permissions = ...``) before the bot connects.

The ``*_payload`` methods build the JSON that Discord would put on the wire. The
field sets were taken from what discord.py 2.7 actually reads (``Message.__init__``,
``Member.__init__``, ``Guild._from_data``, ``TextChannel._update`` ...); a missing
*required* key there is a ``KeyError`` inside discord.py's gateway parser, which is
swallowed and logged, so the payloads err on the side of completeness.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

JSON = dict[str, Any]

DISCORD_EPOCH_MS = 1_420_070_400_000

#: Discord's default size limit for uploads in a non-boosted guild (10 MiB).
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024


class ChannelType(IntEnum):
    """The channel types the fake knows about (subset of Discord's)."""

    GUILD_TEXT = 0
    DM = 1
    GUILD_VOICE = 2
    GUILD_CATEGORY = 4
    GUILD_NEWS = 5
    PUBLIC_THREAD = 11
    PRIVATE_THREAD = 12


class MessageFlags(IntEnum):
    """Message flag bits the harness cares about."""

    SUPPRESS_EMBEDS = 1 << 2
    EPHEMERAL = 1 << 6
    LOADING = 1 << 7
    SUPPRESS_NOTIFICATIONS = 1 << 12
    IS_COMPONENTS_V2 = 1 << 15


class Perm(IntEnum):
    """Permission bits used by the fake's defaults (see Discord's permission table)."""

    CREATE_INSTANT_INVITE = 1 << 0
    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    MENTION_EVERYONE = 1 << 17
    USE_EXTERNAL_EMOJIS = 1 << 18
    CONNECT = 1 << 20
    SPEAK = 1 << 21
    CHANGE_NICKNAME = 1 << 26
    USE_APPLICATION_COMMANDS = 1 << 31
    MANAGE_THREADS = 1 << 34
    CREATE_PUBLIC_THREADS = 1 << 35
    CREATE_PRIVATE_THREADS = 1 << 36
    SEND_MESSAGES_IN_THREADS = 1 << 38


#: All permission bits Discord currently defines (used for administrators / owners).
ALL_PERMISSIONS = (1 << 51) - 1

#: What a fresh guild's @everyone role can do.
DEFAULT_EVERYONE_PERMISSIONS = (
    Perm.CREATE_INSTANT_INVITE
    | Perm.ADD_REACTIONS
    | Perm.VIEW_CHANNEL
    | Perm.SEND_MESSAGES
    | Perm.EMBED_LINKS
    | Perm.ATTACH_FILES
    | Perm.READ_MESSAGE_HISTORY
    | Perm.USE_EXTERNAL_EMOJIS
    | Perm.CONNECT
    | Perm.SPEAK
    | Perm.CHANGE_NICKNAME
    | Perm.USE_APPLICATION_COMMANDS
    | Perm.CREATE_PUBLIC_THREADS
    | Perm.CREATE_PRIVATE_THREADS
    | Perm.SEND_MESSAGES_IN_THREADS
)

#: What the bot's managed role gets: the usual "invite link" set of a card-game bot.
DEFAULT_BOT_PERMISSIONS = DEFAULT_EVERYONE_PERMISSIONS | Perm.MANAGE_MESSAGES | Perm.MANAGE_THREADS


@functools.lru_cache(maxsize=4096)
def iso(ts: float | None) -> str | None:
    """Format a UNIX timestamp the way Discord does (ISO 8601 with an explicit UTC offset).

    Remembered: a message's or a member's time is formatted again in every payload of it."""
    if ts is None:
        return None
    return dt.datetime.fromtimestamp(ts, dt.UTC).isoformat()


class SnowflakeFactory:
    """Generates strictly increasing, realistic Discord snowflakes.

    discord.py derives ``created_at`` from the snowflake's timestamp bits, and sorts
    messages by id, so ids must look real and must never go backwards.
    """

    def __init__(self) -> None:
        self._last = 0

    def __call__(self) -> int:
        now_ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        candidate = (now_ms << 22) | (1 << 17)
        self._last = max(candidate, self._last + 1)
        return self._last

    def on_shard(self, shard_id: int, shard_count: int) -> int:
        """The next id that Discord routes to shard ``shard_id`` of ``shard_count``
        (``(id >> 22) % shard_count``): the timestamp moves on by less than ``shard_count`` ms."""
        if not 0 <= shard_id < shard_count:
            raise ValueError(f"shard {shard_id} is not one of {shard_count}")
        timestamp = self() >> 22
        timestamp += (shard_id - timestamp) % shard_count
        self._last = max(self._last, (timestamp << 22) | (1 << 17))
        return self._last


# ---------------------------------------------------------------------------
# users, guilds, channels
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class FakeUser:
    """A Discord user account (human or bot)."""

    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    avatar: str | None = None

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    @property
    def display_name(self) -> str:
        return self.global_name or self.username

    def payload(self) -> JSON:
        """The user object (``discord.types.user.User``)."""
        data: JSON = {
            "id": str(self.id),
            "username": self.username,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": self.avatar,
            "public_flags": 0,
        }
        if self.bot:
            data["bot"] = True
        return data

    def __repr__(self) -> str:
        return f"<FakeUser {self.username} id={self.id}{' bot' if self.bot else ''}>"


@dataclass(eq=False)
class FakeRole:
    """A guild role. The @everyone role's id equals the guild id (a Discord rule)."""

    id: int
    name: str
    permissions: int = 0
    position: int = 0
    color: int = 0
    managed: bool = False
    mentionable: bool = False
    hoist: bool = False

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    def payload(self) -> JSON:
        return {
            "id": str(self.id),
            "name": self.name,
            "color": self.color,
            "colors": {
                "primary_color": self.color,
                "secondary_color": None,
                "tertiary_color": None,
            },
            "hoist": self.hoist,
            "icon": None,
            "unicode_emoji": None,
            "position": self.position,
            "permissions": str(self.permissions),
            "managed": self.managed,
            "mentionable": self.mentionable,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeMember:
    """A user's membership in a guild."""

    user: FakeUser
    guild_id: int
    role_ids: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: float = field(default_factory=time.time)

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def mention(self) -> str:
        return self.user.mention

    @property
    def display_name(self) -> str:
        return self.nick or self.user.display_name

    def payload(self, *, with_user: bool = True, permissions: int | None = None) -> JSON:
        """The guild member object; ``permissions`` is only present in interactions."""
        data: JSON = {
            "roles": [str(r) for r in self.role_ids],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": iso(self.joined_at),
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.payload()
        if permissions is not None:
            data["permissions"] = str(permissions)
        return data

    def __repr__(self) -> str:
        return f"<FakeMember {self.user.username} guild={self.guild_id}>"


@dataclass(eq=False)
class FakeChannel:
    """A guild channel, thread or DM channel."""

    id: int
    type: int
    name: str = ""
    guild_id: int | None = None
    position: int = 0
    topic: str | None = None
    parent_id: int | None = None
    #: DM channels: the non-bot participant(s).
    recipients: list[FakeUser] = field(default_factory=list)
    # thread-only fields
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    thread_member_ids: set[int] = field(default_factory=set)
    created_at: float = field(default_factory=time.time)
    last_message_id: int | None = None

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    @property
    def is_thread(self) -> bool:
        return self.type in (ChannelType.PUBLIC_THREAD, ChannelType.PRIVATE_THREAD)

    @property
    def is_dm(self) -> bool:
        return self.type == ChannelType.DM

    def payload(self, *, permissions: int | None = None) -> JSON:
        """The channel object, shaped per channel type."""
        data: JSON = {"id": str(self.id), "type": int(self.type), "flags": 0}
        if permissions is not None:
            data["permissions"] = str(permissions)
        if self.is_dm:
            data["recipients"] = [u.payload() for u in self.recipients]
            data["last_message_id"] = _opt_str(self.last_message_id)
            return data
        data.update(
            guild_id=str(self.guild_id),
            name=self.name,
            parent_id=_opt_str(self.parent_id),
            rate_limit_per_user=0,
        )
        if self.is_thread:
            data.update(
                owner_id=str(self.owner_id),
                last_message_id=_opt_str(self.last_message_id),
                message_count=0,
                member_count=len(self.thread_member_ids),
                total_message_sent=0,
                thread_metadata={
                    "archived": self.archived,
                    "auto_archive_duration": self.auto_archive_duration,
                    "archive_timestamp": iso(self.created_at),
                    "locked": self.locked,
                    "invitable": True,
                    "create_timestamp": iso(self.created_at),
                },
            )
            return data
        data.update(position=self.position, permission_overwrites=[], nsfw=False)
        if self.type in (ChannelType.GUILD_TEXT, ChannelType.GUILD_NEWS):
            data.update(topic=self.topic, last_message_id=_opt_str(self.last_message_id))
        elif self.type == ChannelType.GUILD_VOICE:
            data.update(bitrate=64000, user_limit=0, rtc_region=None)
        return data

    def __repr__(self) -> str:
        return f"<FakeChannel #{self.name or self.id} type={self.type} id={self.id}>"


@dataclass(eq=False)
class FakeGuild:
    """A guild with its roles, channels (incl. threads) and members."""

    id: int
    name: str
    owner_id: int
    roles: dict[int, FakeRole] = field(default_factory=dict)
    channels: dict[int, FakeChannel] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    created_at: float = field(default_factory=time.time)

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    def channel(self, name: str) -> FakeChannel:
        """Look a channel (or thread) up by name."""
        for ch in self.channels.values():
            if ch.name == name:
                return ch
        raise KeyError(f"guild {self.name!r} has no channel named {name!r}")

    def member(self, name_or_id: str | int) -> FakeMember:
        """Look a member up by id, username or nickname."""
        for m in self.members.values():
            if name_or_id in (m.id, m.user.username, m.nick, m.user.global_name):
                return m
        raise KeyError(f"guild {self.name!r} has no member {name_or_id!r}")

    def role(self, name: str) -> FakeRole:
        for r in self.roles.values():
            if r.name == name:
                return r
        raise KeyError(f"guild {self.name!r} has no role {name!r}")

    def permissions_for(self, member: FakeMember) -> int:
        """Guild-level permissions (no channel overwrites: the fake has none)."""
        if member.id == self.owner_id:
            return ALL_PERMISSIONS
        perms = self.everyone.permissions
        for rid in member.role_ids:
            role = self.roles.get(rid)
            if role is not None:
                perms |= role.permissions
        if perms & Perm.ADMINISTRATOR:
            return ALL_PERMISSIONS
        return perms

    def payload(self, *, members: list[FakeMember], member_count: int) -> JSON:
        """The full GUILD_CREATE object."""
        channels = [c for c in self.channels.values() if not c.is_thread]
        threads = [c for c in self.channels.values() if c.is_thread and not c.archived]
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 1,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "preferred_locale": "en-US",
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "features": [],
            "application_id": None,
            "max_members": 500000,
            "max_video_channel_users": 25,
            "roles": [r.payload() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "unavailable": False,
            "large": member_count > 250,
            "member_count": member_count,
            "joined_at": iso(self.created_at),
            "lazy": True,
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "channels": [c.payload() for c in channels],
            "threads": [t.payload() for t in threads],
            "members": [m.payload() for m in members],
        }

    def __repr__(self) -> str:
        return f"<FakeGuild {self.name!r} id={self.id}>"


# ---------------------------------------------------------------------------
# messages
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class FakeAttachment:
    """An uploaded file. ``data`` holds the real bytes the client sent."""

    id: int
    filename: str
    data: bytes
    content_type: str | None
    url: str
    description: str | None = None
    width: int | None = None
    height: int | None = None
    ephemeral: bool = False

    @property
    def size(self) -> int:
        return len(self.data)

    def payload(self) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
            "content_type": self.content_type,
        }
        if self.description is not None:
            data["description"] = self.description
        if self.width is not None:
            data["width"] = self.width
            data["height"] = self.height
        if self.ephemeral:
            data["ephemeral"] = True
        return data


@dataclass(frozen=True)
class MessageRevision:
    """A snapshot of a message's visible state, taken *before* each edit."""

    content: str
    embeds: list[JSON]
    components: list[JSON]
    attachments: list[FakeAttachment]
    flags: int
    at: float


@dataclass(eq=False)
class FakeMessage:
    """A message in a channel, including ephemeral interaction responses.

    ``history`` holds every earlier state (oldest first); the current state is the
    object itself. ``visible_to`` is set for ephemeral messages: only that user sees it.
    """

    id: int
    channel_id: int
    guild_id: int | None
    author: FakeUser
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    tts: bool = False
    created_at: float = field(default_factory=time.time)
    edited_at: float | None = None
    history: list[MessageRevision] = field(default_factory=list)
    deleted: bool = False
    pinned: bool = False
    webhook_id: int | None = None
    application_id: int | None = None
    #: id of the interaction this message answers (initial response or follow-up).
    interaction_id: int | None = None
    interaction_metadata: JSON | None = None
    visible_to: int | None = None
    message_reference: JSON | None = None
    allowed_mentions: JSON | None = None
    #: emoji string -> ids of users that reacted.
    reactions: dict[str, set[int]] = field(default_factory=dict)
    nonce: str | None = None

    # -- convenience accessors for tests ------------------------------------

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & MessageFlags.EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while this is a deferred "Bot is thinking..." placeholder."""
        return bool(self.flags & MessageFlags.LOADING)

    @property
    def edited(self) -> bool:
        return bool(self.history)

    def iter_components(self) -> Iterator[JSON]:
        """Every component (rows, buttons, selects, v2 containers...) depth-first."""
        return iter_components(self.components)

    def component(self, custom_id: str) -> JSON:
        """The interactive component with ``custom_id`` (KeyError if absent)."""
        for comp in self.iter_components():
            if comp.get("custom_id") == custom_id:
                return comp
        raise KeyError(f"message {self.id} has no component with custom_id {custom_id!r}")

    def buttons(self) -> list[JSON]:
        return [c for c in self.iter_components() if c.get("type") == 2]

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.iter_components() if "custom_id" in c]

    def text(self) -> str:
        """All human-visible text: content, embed text, v2 text displays, button labels."""
        parts: list[str] = [self.content] if self.content else []
        for embed in self.embeds:
            parts.extend(_embed_texts(embed))
        for comp in self.iter_components():
            if comp.get("type") == 10 and comp.get("content"):  # TextDisplay
                parts.append(str(comp["content"]))
            elif comp.get("label"):
                parts.append(str(comp["label"]))
        return "\n".join(parts)

    # -- mutation -------------------------------------------------------------

    def snapshot(self) -> MessageRevision:
        return MessageRevision(
            content=self.content,
            embeds=list(self.embeds),
            components=list(self.components),
            attachments=list(self.attachments),
            flags=self.flags,
            at=self.edited_at or self.created_at,
        )

    # -- wire format ----------------------------------------------------------

    def payload(
        self,
        *,
        author_member: FakeMember | None = None,
        mentions: list[JSON] | None = None,
        mention_roles: list[str] | None = None,
        include_guild_id: bool = False,
        hide_content: bool = False,
    ) -> JSON:
        """The message object. ``hide_content`` mimics the missing MESSAGE_CONTENT intent."""
        data: JSON = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": self.author.payload(),
            "content": "" if hide_content else self.content,
            "timestamp": iso(self.created_at),
            "edited_timestamp": iso(self.edited_at),
            "tts": self.tts,
            "mention_everyone": False,
            "mentions": mentions or [],
            "mention_roles": mention_roles or [],
            "attachments": [] if hide_content else [a.payload() for a in self.attachments],
            "embeds": [] if hide_content else list(self.embeds),
            "components": [] if hide_content else list(self.components),
            "pinned": self.pinned,
            "type": self.type,
            "flags": self.flags,
        }
        if include_guild_id and self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if author_member is not None:
            data["member"] = author_member.payload(with_user=False)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            data["application_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            data["interaction_metadata"] = self.interaction_metadata
        if self.message_reference is not None:
            data["message_reference"] = self.message_reference
        if self.nonce is not None:
            data["nonce"] = self.nonce
        if self.reactions:
            data["reactions"] = [
                {
                    "emoji": _emoji_payload(emoji),
                    "count": len(users),
                    "count_details": {"burst": 0, "normal": len(users)},
                    "burst_colors": [],
                    "me": False,
                    "me_burst": False,
                }
                for emoji, users in self.reactions.items()
                if users
            ]
        return data

    def __repr__(self) -> str:
        flags = " ephemeral" if self.ephemeral else ""
        return (
            f"<FakeMessage id={self.id} channel={self.channel_id}{flags} content={self.content!r}>"
        )


def iter_components(components: list[JSON]) -> Iterator[JSON]:
    """Walk a component tree, including Components-V2 containers, sections and labels."""
    for comp in components:
        yield comp
        children = comp.get("components")
        if isinstance(children, list):
            yield from iter_components(children)
        for key in ("component", "accessory"):
            child = comp.get(key)
            if isinstance(child, dict):
                yield from iter_components([child])


def _embed_texts(embed: JSON) -> Iterator[str]:
    for key in ("title", "description"):
        if embed.get(key):
            yield str(embed[key])
    for fld in embed.get("fields", []):
        yield str(fld.get("name", ""))
        yield str(fld.get("value", ""))
    for key in ("footer", "author"):
        sub = embed.get(key)
        if isinstance(sub, dict):
            text = sub.get("text") or sub.get("name")
            if text:
                yield str(text)


_CUSTOM_EMOJI = re.compile(r"^<?a?:?(?P<name>\w+):(?P<id>\d+)>?$")


def _emoji_payload(emoji: str) -> JSON:
    match = _CUSTOM_EMOJI.match(emoji)
    if match:
        return {"id": match["id"], "name": match["name"]}
    return {"id": None, "name": emoji}


def _opt_str(value: int | None) -> str | None:
    return None if value is None else str(value)


# ---------------------------------------------------------------------------
# application commands
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class RegisteredCommand:
    """An application command as registered by the bot (PUT/POST .../commands)."""

    id: int
    application_id: int
    guild_id: int | None
    name: str
    type: int
    description: str
    options: list[JSON]
    default_member_permissions: str | None
    contexts: list[int] | None
    integration_types: list[int] | None
    raw: JSON
    version: int

    def payload(self) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "application_id": str(self.application_id),
            "version": str(self.version),
            "type": self.type,
            "name": self.name,
            "name_localizations": self.raw.get("name_localizations"),
            "description": self.description,
            "description_localizations": self.raw.get("description_localizations"),
            "options": self.options,
            "default_member_permissions": self.default_member_permissions,
            "dm_permission": self.raw.get("dm_permission", True),
            "contexts": self.contexts,
            "integration_types": self.integration_types or [0],
            "nsfw": bool(self.raw.get("nsfw", False)),
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        return data

    def option(self, path: list[str]) -> list[JSON]:
        """The option list of the (sub)command reached by ``path`` (["group", "sub"])."""
        options = self.options
        for name in path:
            for opt in options:
                if opt["name"] == name and opt.get("type") in (1, 2):
                    options = opt.get("options", [])
                    break
            else:
                raise KeyError(f"/{self.name} has no subcommand {' '.join(path)!r}")
        return options

    def __repr__(self) -> str:
        scope = f"guild={self.guild_id}" if self.guild_id else "global"
        return f"<RegisteredCommand /{self.name} {scope} id={self.id}>"
