"""The world the tests and the sandbox set up: users, guilds, channels, members, roles, DMs.

:class:`GuildSetup` adds to the fake's state what a server's owner and its members would
(creating the server, its channels and roles, joining it), and tells a connected bot each change
as Discord does (GUILD_CREATE, CHANNEL_CREATE, GUILD_MEMBER_ADD...).
"""

from __future__ import annotations

from collections.abc import Sequence

from .discord_state import Actor, DiscordState, user_of
from .fake_errors import FakeDiscordError
from .gateway import INTENT_GUILD_MEMBERS, INTENT_GUILDS
from .models import (
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    ChannelType,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeRole,
    FakeUser,
)


class GuildSetup(DiscordState):
    """The fake's state, with the servers and people in it."""

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
        user = user_of(user)
        channel = self.dm_channels.get(user.id)
        if channel is None:
            channel = FakeChannel(id=self.snowflake(), type=ChannelType.DM, recipients=[user])
            self.dm_channels[user.id] = channel
        return channel
