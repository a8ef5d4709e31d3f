"""REST routes of channels: the channel itself, its messages, pins and reactions, typing."""

from __future__ import annotations

import time

from .fake_errors import ApiError
from .gateway import INTENT_GUILDS
from .models import JSON, Perm, iso
from .rest_resource import ApiRequest, RestResource


class ChannelRoutes(RestResource):
    """``/channels/{channel_id}`` and its messages, pins and reactions."""

    # ------------------------------------------------------------------ channels

    async def get_channel(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        return channel.payload()

    async def edit_channel(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        body = req.body()
        if channel.is_dm:
            raise ApiError(403, 50003, "Cannot execute action on a DM channel")
        self._require(channel, Perm.MANAGE_THREADS if channel.is_thread else Perm.MANAGE_CHANNELS)
        for key in ("name", "topic", "position", "archived", "locked", "auto_archive_duration"):
            if key in body:
                setattr(channel, key, body[key])
        event = "THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE"
        for session in self.fake._sessions_for(channel.guild_id, INTENT_GUILDS):
            session.dispatch(event, channel.payload())
        self.fake.notify()
        return channel.payload()

    async def delete_channel(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        guild = self.fake.guild_of(channel)
        if guild is None:
            return channel.payload()  # "closing" a DM is a no-op here
        self._require(channel, Perm.MANAGE_THREADS if channel.is_thread else Perm.MANAGE_CHANNELS)
        del guild.channels[channel.id]
        event = "THREAD_DELETE" if channel.is_thread else "CHANNEL_DELETE"
        data = channel.payload()
        for session in self.fake._sessions_for(guild.id, INTENT_GUILDS):
            session.dispatch(event, data)
        self.fake.notify()
        return data

    async def typing(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        self.fake.typing.append((channel.id, self.fake.bot_user.id, time.time()))
        self.fake.notify()

    async def list_messages(self, req: ApiRequest) -> list[JSON]:
        channel = self._channel(req)
        self._require(channel, Perm.READ_MESSAGE_HISTORY)
        limit = max(1, min(100, int(req.query.get("limit", 50))))
        msgs = self.fake.messages(channel, include_ephemeral=False)
        if "around" in req.query:
            around = int(req.query["around"])
            older = [m for m in msgs if m.id <= around][-(limit // 2 + 1) :]
            newer = [m for m in msgs if m.id > around][: limit - len(older)]
            chosen = older + newer
        elif "after" in req.query:
            after = int(req.query["after"])
            chosen = [m for m in msgs if m.id > after][:limit]
        else:
            before = int(req.query.get("before", 1 << 63))
            chosen = [m for m in msgs if m.id < before][-limit:]
        # Discord always returns newest first.
        return [self.fake.message_payload(m) for m in reversed(chosen)]

    async def send_message(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        if channel.guild_id is not None:
            send = Perm.SEND_MESSAGES_IN_THREADS if channel.is_thread else Perm.SEND_MESSAGES
            self._require(channel, send, *([Perm.ATTACH_FILES] if req.files else []))
        if channel.is_thread and channel.archived:
            if channel.locked:
                raise ApiError(400, 50083, "Thread is archived")
            channel.archived = False  # sending a message unarchives, as on Discord
        body = req.body()
        if int(body.get("flags") or 0) & 64:
            raise ApiError.form([("flags", "Only interaction responses can be ephemeral")])
        if body.get("enforce_nonce") and body.get("nonce"):
            # As Discord: the same nonce from the same author in the same channel within a
            # few minutes gives back the message already created (a retry after a timeout).
            same = self.fake.message_by_nonce(channel, str(body["nonce"]))
            if same is not None:
                return self.fake.message_payload(same)
        msg = self.fake.create_message(channel, self.fake.bot_user, body, req.files)
        return self.fake.message_payload(msg)

    async def get_message(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        self._require(channel, Perm.READ_MESSAGE_HISTORY)
        return self.fake.message_payload(self._channel_message(req, channel))

    async def edit_message(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        msg = self._channel_message(req, channel)
        body = req.body()
        if msg.author.id != self.fake.bot_user.id and set(body) - {"flags"}:
            raise ApiError.not_author()
        return self.fake.message_payload(self.fake.edit_message(msg, body, req.files))

    async def delete_message(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        msg = self._channel_message(req, channel)
        if msg.author.id != self.fake.bot_user.id:
            if channel.is_dm:
                raise ApiError(403, 50003, "Cannot execute action on a DM channel")
            self._require(channel, Perm.MANAGE_MESSAGES)
        self.fake.delete_message(msg)

    async def bulk_delete(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        self._require(channel, Perm.MANAGE_MESSAGES)
        ids = [int(i) for i in req.body().get("messages", [])]
        if not 2 <= len(ids) <= 100:
            raise ApiError.form([("messages", "Must be between 2 and 100 in length.")])
        for mid in ids:
            msg = self.fake.messages_by_id.get(mid)
            if msg is not None and msg.channel_id == channel.id and not msg.deleted:
                self.fake.delete_message(msg)

    async def list_pins(self, req: ApiRequest) -> JSON:
        channel = self._channel(req)
        pinned = [m for m in self.fake.messages(channel, include_ephemeral=False) if m.pinned]
        return {
            "items": [
                {
                    "pinned_at": iso(m.edited_at or m.created_at),
                    "message": self.fake.message_payload(m),
                }
                for m in reversed(pinned)
            ],
            "has_more": False,
        }

    async def pin(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        self._require(channel, Perm.MANAGE_MESSAGES)
        self._channel_message(req, channel).pinned = True
        self.fake.notify()

    async def unpin(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        self._require(channel, Perm.MANAGE_MESSAGES)
        self._channel_message(req, channel).pinned = False
        self.fake.notify()

    # -- reactions

    async def list_reactions(self, req: ApiRequest) -> list[JSON]:
        channel = self._channel(req)
        msg = self._channel_message(req, channel)
        ids = msg.reactions.get(req.params["emoji"], set())
        return [self.fake.users[i].payload() for i in sorted(ids) if i in self.fake.users]

    async def add_reaction(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        self._require(channel, Perm.READ_MESSAGE_HISTORY, Perm.ADD_REACTIONS)
        msg = self._channel_message(req, channel)
        msg.reactions.setdefault(req.params["emoji"], set()).add(self.fake.bot_user.id)
        self.fake.notify()

    async def remove_reaction(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        msg = self._channel_message(req, channel)
        user_id = req.params["user_id"]
        uid = self.fake.bot_user.id if user_id == "@me" else int(user_id)
        if uid != self.fake.bot_user.id:
            self._require(channel, Perm.MANAGE_MESSAGES)
        msg.reactions.get(req.params["emoji"], set()).discard(uid)
        self.fake.notify()

    async def clear_emoji(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        self._require(channel, Perm.MANAGE_MESSAGES)
        self._channel_message(req, channel).reactions.pop(req.params["emoji"], None)
        self.fake.notify()

    async def clear_reactions(self, req: ApiRequest) -> None:
        channel = self._channel(req)
        self._require(channel, Perm.MANAGE_MESSAGES)
        self._channel_message(req, channel).reactions.clear()
        self.fake.notify()
