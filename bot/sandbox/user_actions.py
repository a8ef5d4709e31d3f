"""What people do in Discord's client: commands, clicks, selects, modals, messages.

:class:`UserActions` builds each interaction as a Discord client would (refusing what the client
refuses, unless forged on purpose) and delivers it to one of the bot's gateway sessions. Tests
and the sandbox's page call these; each returns an :class:`InteractionRecord` to await.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from typing import Any

from .discord_state import Actor, Upload, user_of
from .fake_errors import FakeDiscordError
from .interactions import InteractionRecord, InteractionType
from .message_store import MessageStore
from .models import (
    ATTACHMENT_SIZE_LIMIT,
    JSON,
    FakeChannel,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    RegisteredCommand,
    iter_components,
)


class UserActions(MessageStore):
    """The fake's state and messages, with the people who act in it."""

    def _resolve_actor(
        self, actor: Actor, channel: FakeChannel
    ) -> tuple[FakeUser, FakeMember | None]:
        user = user_of(actor)
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
            viewer = user_of(user).id
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


def _id_of(comp: JSON) -> JSON:
    return {"id": comp["id"]} if "id" in comp else {}

