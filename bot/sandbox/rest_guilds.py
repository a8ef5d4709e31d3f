"""REST routes of guilds and threads: a guild, its channels, roles and members; threads
started, listed, joined and left.
"""

from __future__ import annotations

from .fake_errors import ApiError
from .gateway import INTENT_GUILD_MEMBERS, INTENT_GUILDS
from .models import JSON, ChannelType, FakeChannel, Perm, iso
from .rest_resource import ApiRequest, RestResource


class GuildRoutes(RestResource):
    """``/guilds/{guild_id}``, and the threads of ``/channels/{channel_id}``."""

    # -- threads

    def _new_thread(
        self, parent: FakeChannel, body: JSON, *, thread_id: int | None, thread_type: int
    ) -> JSON:
        fake = self.fake
        guild = fake.guild_of(parent)
        if guild is None or parent.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        perm = Perm.CREATE_PRIVATE_THREADS if thread_type == 12 else Perm.CREATE_PUBLIC_THREADS
        self._require(parent, perm)
        name = str(body.get("name") or "")
        if not 1 <= len(name) <= 100:
            raise ApiError.form([("name", "Must be between 1 and 100 in length.")])
        thread = FakeChannel(
            id=thread_id or fake.snowflake(),
            type=thread_type,
            name=name,
            guild_id=guild.id,
            parent_id=parent.id,
            owner_id=fake.bot_user.id,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
            thread_member_ids={fake.bot_user.id},
        )
        guild.channels[thread.id] = thread
        for session in fake._sessions_for(guild.id, INTENT_GUILDS):
            session.dispatch("THREAD_CREATE", {**thread.payload(), "newly_created": True})
        fake.notify()
        return thread.payload()

    async def thread_from_message(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        msg = self._channel_message(req, channel)
        if any(c.id == msg.id for g in self.fake.guilds.values() for c in g.channels.values()):
            raise ApiError(400, 160004, "A thread has already been created for this message")
        thread_type = 10 if channel.type == ChannelType.GUILD_NEWS else ChannelType.PUBLIC_THREAD
        # A thread started from a message shares the message's id (a Discord rule).
        return self._new_thread(channel, req.body(), thread_id=msg.id, thread_type=thread_type)

    async def create_thread(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        body = req.body()
        thread_type = int(body.get("type") or ChannelType.PRIVATE_THREAD)
        return self._new_thread(channel, body, thread_id=None, thread_type=thread_type)

    def _thread(self, req: ApiRequest) -> FakeChannel:
        channel = self._channel(req)
        if not channel.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        return channel

    async def list_thread_members(self, req: ApiRequest) -> list[JSON]:
        thread = self._thread(req)
        return [
            {
                "id": str(thread.id),
                "user_id": str(uid),
                "join_timestamp": iso(thread.created_at),
                "flags": 0,
            }
            for uid in sorted(thread.thread_member_ids)
        ]

    async def join_thread(self, req: ApiRequest) -> None:
        thread = self._thread(req)
        raw = req.params["user_id"]
        uid = self.fake.bot_user.id if raw == "@me" else int(raw)
        if uid not in self.fake.users:
            raise ApiError.unknown_user()
        thread.thread_member_ids.add(uid)
        self.fake.notify()

    async def leave_thread(self, req: ApiRequest) -> None:
        thread = self._thread(req)
        raw = req.params["user_id"]
        thread.thread_member_ids.discard(self.fake.bot_user.id if raw == "@me" else int(raw))
        self.fake.notify()

    # ------------------------------------------------------------------ guilds

    async def get_guild(self, req: ApiRequest) -> JSON:
        guild = self._guild(req)
        data = guild.payload(members=[], member_count=len(guild.members))
        for key in ("channels", "threads", "members", "voice_states", "presences", "joined_at"):
            data.pop(key, None)
        if req.query.get("with_counts") in ("1", "true", "True"):
            data["approximate_member_count"] = len(guild.members)
            data["approximate_presence_count"] = 0
        return data

    async def get_guild_channels(self, req: ApiRequest) -> list[JSON]:
        guild = self._guild(req)
        return [c.payload() for c in guild.channels.values() if not c.is_thread]

    async def get_roles(self, req: ApiRequest) -> list[JSON]:
        return [r.payload() for r in self._guild(req).roles.values()]

    async def get_member(self, req: ApiRequest) -> JSON:
        guild = self._guild(req)
        member = guild.members.get(req.int_param("user_id"))
        if member is None:
            raise ApiError.unknown_member()
        return member.payload()

    async def list_members(self, req: ApiRequest) -> list[JSON]:
        guild = self._guild(req)
        if not self.fake.allowed_privileged_intents & INTENT_GUILD_MEMBERS:
            raise ApiError(403, 50001, "Missing Access")
        limit = max(1, min(1000, int(req.query.get("limit", 1))))
        after = int(req.query.get("after", 0))
        members = sorted((m for m in guild.members.values() if m.id > after), key=lambda m: m.id)
        return [m.payload() for m in members[:limit]]

    async def search_members(self, req: ApiRequest) -> list[JSON]:
        guild = self._guild(req)
        query = req.query.get("query", "").lower()
        limit = max(1, min(1000, int(req.query.get("limit", 1))))
        found = [
            m
            for m in guild.members.values()
            if m.user.username.lower().startswith(query) or (m.nick or "").lower().startswith(query)
        ]
        return [m.payload() for m in found[:limit]]

    async def active_threads(self, req: ApiRequest) -> JSON:
        guild = self._guild(req)
        threads = [c for c in guild.channels.values() if c.is_thread and not c.archived]
        return {"threads": [t.payload() for t in threads], "members": []}
