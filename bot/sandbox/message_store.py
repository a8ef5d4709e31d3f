"""What the bot's REST calls change: its messages and files, its answers, its commands.

:class:`MessageStore` stores messages (validated against Discord's limits), dispatches their
events to the gateway sessions that should see them, keeps attachments, and turns an
interaction's callback and follow-ups into messages as Discord does, and registers the bot's
application commands. ``rest.py`` calls it.
"""

from __future__ import annotations

import mimetypes
import re
import struct
import time
from collections.abc import Sequence
from typing import Any

from .discord_state import DiscordState, UploadedFile
from .fake_errors import ApiError
from .gateway import (
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_MESSAGES,
    INTENT_MESSAGE_CONTENT,
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
    JSON,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeUser,
    MessageFlags,
    RegisteredCommand,
    iter_components,
)
from .validation import check_autocomplete, check_commands, check_message, check_modal


class MessageStore:
    """The messages, answers and commands the bot makes in the fake's state (``fake.store``)."""

    def __init__(self, state: DiscordState) -> None:
        self.state = state

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
            check_message(payload, file_sizes=[len(f.data) for f in files])
        flags = int(payload.get("flags") or 0) | extra_flags
        msg = FakeMessage(
            id=self.state.snowflake(),
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
            msg.webhook_id = self.state.application_id
            msg.application_id = self.state.application_id
            msg.interaction_metadata = self._interaction_metadata(interaction)
        ref = payload.get("message_reference")
        if isinstance(ref, dict) and ref.get("message_id"):
            referenced = self.state.messages_by_id.get(int(ref["message_id"]))
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
        self.state.messages_by_id[msg.id] = msg
        self.state.added(msg)
        if not msg.ephemeral:
            channel.last_message_id = msg.id
            self._dispatch_message_event("MESSAGE_CREATE", msg)
        self.state.notify()
        return msg

    def edit_message(
        self,
        msg: FakeMessage,
        payload: JSON,
        files: Sequence[UploadedFile] = (),
    ) -> FakeMessage:
        """Apply a PATCH-style edit (only given keys change), keeping the old state in history."""
        # What the validation reads of the message edited (its flags and whether anything is
        # left in it), without building its whole payload.
        existing: JSON = {"content": msg.content, "embeds": msg.embeds,
                          "components": msg.components, "attachments": msg.attachments,
                          "flags": msg.flags}
        check_message(payload, file_sizes=[len(f.data) for f in files], existing=existing)
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
        self.state.notify()
        return msg

    def delete_message(self, msg: FakeMessage) -> None:
        msg.deleted = True
        if not msg.ephemeral:
            channel = self.state.channel(msg.channel_id)
            data = self.state._with_guild_id(
                {"id": str(msg.id), "channel_id": str(msg.channel_id)}, msg.guild_id
            )
            for session in self._message_sessions(channel, msg.guild_id):
                session.dispatch("MESSAGE_DELETE", data)
        self.state.notify()

    def message_payload(
        self, msg: FakeMessage, *, for_gateway: bool = False, hide_content: bool = False
    ) -> JSON:
        """A message as REST returns it (``for_gateway`` adds guild_id and member)."""
        guild = self.state.guilds.get(msg.guild_id) if msg.guild_id is not None else None
        mentions: list[JSON] = []
        mention_roles: list[str] = []
        for uid in dict.fromkeys(int(m) for m in _USER_MENTION.findall(msg.content)):
            user = self.state.users.get(uid)
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
            ref = self.state.messages_by_id.get(int(msg.message_reference["message_id"]))
            data["referenced_message"] = (
                None if ref is None or ref.deleted else ref.payload(mentions=[])
            )
        return data

    def _message_sessions(
        self, channel: FakeChannel | None, guild_id: int | None
    ) -> list[GatewaySession]:
        intent = INTENT_DIRECT_MESSAGES if guild_id is None else INTENT_GUILD_MESSAGES
        return self.state._sessions_for(guild_id, intent)

    def _dispatch_message_event(self, event: str, msg: FakeMessage) -> None:
        channel = self.state.channel(msg.channel_id)
        for session in self._message_sessions(channel, msg.guild_id):
            # Without MESSAGE_CONTENT, Discord blanks other users' content in guilds
            # unless the bot is mentioned (its own messages and DMs are always full).
            hide = (
                not session.has_intent(INTENT_MESSAGE_CONTENT)
                and msg.author.id != self.state.bot_user.id
                and msg.guild_id is not None
                and self.state.bot_user.mention not in msg.content
                and f"<@!{self.state.bot_user.id}>" not in msg.content
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
        att_id = self.state.snowflake()
        width, height = _image_size(data)
        attachment = FakeAttachment(
            id=att_id,
            filename=filename,
            data=data,
            content_type=mimetypes.guess_type(filename)[0],
            url=f"{self.state.http_base}/attachments/{channel_id}/{att_id}/{filename}",
            description=description,
            width=width,
            height=height,
            ephemeral=ephemeral,
        )
        self.state.attachments[att_id] = attachment
        return attachment

    # -- answers to interactions (called by rest.py)

    def accept_callback(
        self, record: InteractionRecord, body: JSON, files: Sequence[UploadedFile]
    ) -> JSON:
        """Process POST /interactions/{id}/{token}/callback; returns the ``with_response`` body."""
        cb_type = int(body.get("type", 0))
        now = time.monotonic()
        if record.callback is not None:
            record.rejected_callbacks.append((cb_type, "already acknowledged"))
            raise ApiError.already_acknowledged()
        deadline = self.state.interaction_deadline
        if (
            deadline is not None
            and record.dispatched_at is not None
            and now - record.dispatched_at > deadline
        ):
            record.rejected_callbacks.append(
                (cb_type, f"late by {now - record.dispatched_at:.2f}s")
            )
            self.state.notify()
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
                self.state.bot_user,
                data,
                files,
                type=self._response_message_type(record),
                interaction=record,
            )
            record.response_message = message
        elif cb_type == CallbackType.DEFERRED_CHANNEL_MESSAGE:
            message = self.create_message(
                record.channel,
                self.state.bot_user,
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
            check_autocomplete(data)
        elif cb_type == CallbackType.MODAL:
            check_modal(data)
        record.callback = CallbackRecord(
            type=cb_type, data=data, at=now, files=[(f.filename, f.data) for f in files]
        )
        self.state.notify()
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
                record.channel, self.state.bot_user, payload, files, interaction=record
            )
        record.followups.append(message)
        self.state.notify()
        return message

    def webhook_message(self, record: InteractionRecord, message_id: str) -> FakeMessage:
        """Resolve ``@original`` or a follow-up id for the webhook message routes."""
        if message_id == "@original":
            msg = record.original_message
        else:
            msg = self.state.messages_by_id.get(int(message_id))
            if (
                msg is not None
                and msg not in record.followups
                and msg is not record.original_message
            ):
                msg = None
        if msg is None or msg.deleted:
            raise ApiError.unknown_message()
        return msg

    # -- commands (called by rest.py)

    def upsert_commands(
        self, guild_id: int | None, payloads: list[JSON], *, replace: bool
    ) -> list[RegisteredCommand]:
        check_commands(payloads)
        self.state.command_syncs += 1
        existing = {k: v for k, v in self.state.registered.items() if k[0] == guild_id}
        if replace:
            for key in existing:
                del self.state.registered[key]
        result = []
        for raw in payloads:
            ctype = int(raw.get("type", 1))
            key = (guild_id, raw["name"], ctype)
            old = existing.get(key)
            cmd = RegisteredCommand(
                id=old.id if old else self.state.snowflake(),  # Discord keeps ids across overwrites
                application_id=self.state.application_id,
                guild_id=guild_id,
                name=raw["name"],
                type=ctype,
                description=raw.get("description", ""),
                options=list(raw.get("options") or []),
                default_member_permissions=raw.get("default_member_permissions"),
                contexts=raw.get("contexts"),
                integration_types=raw.get("integration_types"),
                raw=dict(raw),
                version=self.state.snowflake(),
            )
            self.state.registered[key] = cmd
            result.append(cmd)
        self.state.notify()
        return result

    async def wait_commands(
        self, *names: str, guild: FakeGuild | None = None, timeout: float = 5.0
    ) -> dict[str, RegisteredCommand]:
        """Wait until all ``names`` are registered in the given scope."""

        def registered() -> dict[str, RegisteredCommand] | None:
            cmds = self.state.commands(guild)
            return cmds if cmds and all(n in cmds for n in names) else None

        return await self.state.wait_for(
            registered,
            timeout=timeout,
            description=f"commands {names} to be registered",
        )


_USER_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")


def _number_components(components: list[JSON]) -> list[JSON]:
    """Give every component a numeric ``id`` (unique per message) like Discord does, in a
    copy (the request's own JSON stays as the bot sent it)."""
    copied: list[JSON] = _copy_json(components)
    used = {c["id"] for c in iter_components(copied) if isinstance(c.get("id"), int)}
    next_id = 1
    for comp in iter_components(copied):
        if "id" not in comp:
            while next_id in used:
                next_id += 1
            comp["id"] = next_id
            used.add(next_id)
    return copied


def _copy_json(value: Any) -> Any:
    """A deep copy of JSON data (a tuple becomes a list, as through ``json``): twice as fast
    as a round trip through ``json.dumps`` and ``json.loads``."""
    if isinstance(value, dict):
        return {key: _copy_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_copy_json(item) for item in value]
    return value


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
