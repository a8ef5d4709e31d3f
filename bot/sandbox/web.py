"""The sandbox's web page: a Discord channel in a browser, over the fake Discord.

The page (``static/``: plain HTML, CSS and JavaScript, nothing to build or download) talks to
this server over one websocket, as one of the sandbox's people at a time (``/?as=bob``).

* **Down**: on connecting, the channels, the slash commands and the messages that person may
  see; then every change, pushed as it happens (the fake calls :attr:`DiscordState.listeners`
  on each change; a burst of changes goes out as one frame). A private (ephemeral) message is
  only ever sent to the websocket of the person it was for.
* **Up**: what a person does in Discord's client, turned into the fake's user actions, which
  send the bot the very interactions Discord would: a slash command with its options, an
  autocomplete request (the bot's own suggestions come back), a click on a button, a choice
  in a menu. What Discord's client itself refuses (a missing required option, a number that
  isn't one) is refused here too, with the reason; everything else reaches the bot, which
  answers as it would in Discord.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from importlib import resources
from typing import Any
from urllib.parse import quote

from aiohttp import WSMsgType, web

from .fake_errors import FakeDiscordError
from .interactions import InteractionRecord, InteractionType
from .models import (
    JSON,
    ChannelType,
    FakeChannel,
    FakeMember,
    FakeMessage,
    FakeUser,
    MessageFlags,
)
from .world import BOT_NAME, SandboxWorld

__all__ = ["SandboxPage"]

log = logging.getLogger("bot.sandbox")

HISTORY = 200
"""Messages per channel a page gets when it connects (older ones stay on the server)."""

_STATIC = re.compile(r"^[a-z0-9][a-z0-9._-]*\.(html|css|js|png|svg|ico)$")
_TYPES = {"html": "text/html", "css": "text/css", "js": "text/javascript",
          "png": "image/png", "svg": "image/svg+xml", "ico": "image/x-icon"}
_TEXT_CHANNELS = (ChannelType.GUILD_TEXT, ChannelType.GUILD_NEWS, ChannelType.PUBLIC_THREAD,
                  ChannelType.PRIVATE_THREAD)


class Refused(Exception):
    """What Discord's client would not send; the message says why (shown to the person)."""


class _Viewer:
    """One open page: who it is, and what it was last sent."""

    def __init__(self, ws: web.WebSocketResponse, member: FakeMember) -> None:
        self.ws = ws
        self.member = member
        self.sent: dict[int, tuple[float, bool, int]] = {}
        self.floor: dict[int, int] = {}
        self.channels: Any = None
        self.commands: Any = None
        self.wake = asyncio.Event()
        self.tasks: set[asyncio.Task[None]] = set()


class SandboxPage:
    """Serves the page on 127.0.0.1 and acts for the people on it."""

    def __init__(self, world: SandboxWorld) -> None:
        self.world = world
        self.fake = world.fake
        self._viewers: set[_Viewer] = set()
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self.fake.state.listeners.append(self._changed)

    # ------------------------------------------------------------------ serving

    async def start(self, port: int = 8080) -> None:
        """Listen on 127.0.0.1:``port`` (0: any free port)."""
        app = web.Application(middlewares=[self._only_this_machine])
        app.router.add_get("/", self._index)
        app.router.add_get("/static/{name}", self._static)
        # Browsers ask for it whatever the page says.
        app.router.add_get("/favicon.ico", self._favicon)
        app.router.add_get("/attachments/{attachment_id}/{filename}", self._attachment)
        app.router.add_get("/ws", self._websocket)
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", port, reuse_address=True)
        try:
            await site.start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self._port = sockets[0].getsockname()[1] if sockets else port

    async def stop(self) -> None:
        """Close every page's websocket and stop serving."""
        with contextlib.suppress(ValueError):
            self.fake.state.listeners.remove(self._changed)
        for viewer in list(self._viewers):
            for task in viewer.tasks:
                task.cancel()
            await viewer.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    @property
    def url(self) -> str:
        """The page's address."""
        if self._port is None:
            raise RuntimeError("the page is not served yet")
        return f"http://127.0.0.1:{self._port}/"

    @web.middleware
    async def _only_this_machine(self, request: web.Request, handler: Any) -> web.StreamResponse:
        # The page acts as anyone in the sandbox: other web sites open in the same browser
        # must not (a page elsewhere may open a websocket to 127.0.0.1, or rebind a name of
        # its own to it), so only requests addressed to this server, from its own page, pass.
        port = self._port
        hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        origin = request.headers.get("Origin")
        if request.host not in hosts or (origin is not None and origin not in {
                f"http://{host}" for host in hosts}):
            raise web.HTTPForbidden(text="The sandbox answers its own page only.")
        response: web.StreamResponse = await handler(request)
        return response

    async def _index(self, request: web.Request) -> web.StreamResponse:
        return self._file("index.html")

    async def _favicon(self, request: web.Request) -> web.StreamResponse:
        return self._file("favicon.ico")

    async def _static(self, request: web.Request) -> web.StreamResponse:
        return self._file(request.match_info["name"])

    @staticmethod
    def _file(name: str) -> web.StreamResponse:
        match = _STATIC.match(name)
        path = resources.files(__package__).joinpath("static", name)
        if match is None or not path.is_file():
            raise web.HTTPNotFound()
        return web.Response(body=path.read_bytes(), content_type=_TYPES[match.group(1)],
                            headers={"Cache-Control": "no-cache"})

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        try:
            attachment = self.fake.state.attachments.get(int(request.match_info["attachment_id"]))
        except ValueError:
            attachment = None
        if attachment is None:
            raise web.HTTPNotFound()
        return web.Response(body=attachment.data,
                            content_type=attachment.content_type or "application/octet-stream",
                            headers={"Cache-Control": "private, max-age=3600"})

    # ------------------------------------------------------------------ the websocket

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        member = self._person(request.query.get("as", ""))
        ws = web.WebSocketResponse(heartbeat=30)
        await ws.prepare(request)
        viewer = _Viewer(ws, member)
        self._viewers.add(viewer)
        pump = asyncio.create_task(self._pump(viewer), name="sandbox-page-pump")
        viewer.tasks.add(pump)
        try:
            await ws.send_json(self._hello(viewer))
            async for frame in ws:
                if frame.type != WSMsgType.TEXT:
                    continue
                try:
                    request_ = json.loads(frame.data)
                except ValueError:
                    continue
                if isinstance(request_, dict):
                    task = asyncio.create_task(self._act(viewer, request_),
                                               name="sandbox-page-action")
                    viewer.tasks.add(task)
                    task.add_done_callback(viewer.tasks.discard)
        finally:
            self._viewers.discard(viewer)
            for task in list(viewer.tasks):
                task.cancel()
        return ws

    def _person(self, key: str) -> FakeMember:
        people = self.world.people
        for member in people:
            if key.lower() in (member.user.username.lower(), str(member.id)):
                return member
        return people[0]

    def _changed(self) -> None:
        for viewer in self._viewers:
            viewer.wake.set()

    async def _pump(self, viewer: _Viewer) -> None:
        """Send the page what changed, a burst of changes at a time."""
        while not viewer.ws.closed:
            await viewer.wake.wait()
            await asyncio.sleep(0.03)
            viewer.wake.clear()
            frames = self._changes(viewer)
            try:
                for frame in frames:
                    await viewer.ws.send_json(frame)
            except (ConnectionError, RuntimeError):
                return

    def _hello(self, viewer: _Viewer) -> JSON:
        guild = self.world.guild
        me = viewer.member
        visible: dict[int, list[FakeMessage]] = {}
        for message in self.fake.state.messages_by_id.values():
            if self._visible(message, me):
                visible.setdefault(message.channel_id, []).append(message)
        messages: list[JSON] = []
        for channel_id, in_channel in visible.items():
            kept = in_channel[-HISTORY:]
            if len(kept) < len(in_channel):
                viewer.floor[channel_id] = kept[0].id
            for message in kept:
                viewer.sent[message.id] = self._version(message)
                if not message.deleted:
                    messages.append(self._message(message))
        viewer.channels = self._channels()
        viewer.commands = self._commands()
        return {
            "op": "hello",
            "guild": {"id": str(guild.id), "name": guild.name},
            "me": self._person_json(me),
            "people": [self._person_json(m) for m in self.world.people],
            "users": {str(m.id): self._name(m.user) for m in guild.members.values()},
            "bot": {"id": str(self.fake.bot_user.id), "name": BOT_NAME},
            "channels": viewer.channels,
            "commands": viewer.commands,
            "messages": messages,
        }

    def _changes(self, viewer: _Viewer) -> list[JSON]:
        frames: list[JSON] = []
        channels = self._channels()
        if channels != viewer.channels:
            viewer.channels = channels
            frames.append({"op": "channels", "channels": channels,
                           "users": {str(m.id): self._name(m.user)
                                     for m in self.world.guild.members.values()}})
        commands = self._commands()
        if commands != viewer.commands:
            viewer.commands = commands
            frames.append({"op": "commands", "commands": commands})
        changed: list[JSON] = []
        for message in self.fake.state.messages_by_id.values():
            if message.id < viewer.floor.get(message.channel_id, 0):
                continue
            version = self._version(message)
            if viewer.sent.get(message.id) == version or not self._visible(message,
                                                                            viewer.member):
                continue
            viewer.sent[message.id] = version
            changed.append({"id": str(message.id), "channel": str(message.channel_id),
                            "deleted": True} if message.deleted else self._message(message))
        if changed:
            frames.append({"op": "messages", "messages": changed})
        return frames

    def _visible(self, message: FakeMessage, member: FakeMember) -> bool:
        # The one place that decides who sees a private answer: only the person it was for.
        return (message.guild_id == self.world.guild.id
                and message.visible_to in (None, member.id))

    @staticmethod
    def _version(message: FakeMessage) -> tuple[float, bool, int]:
        # Every edit sets ``edited_at`` anew (the sandbox trims ``history``, see world.tidy).
        return message.edited_at or 0.0, message.deleted, message.flags

    # ------------------------------------------------------------------ what the page shows

    def _name(self, user: FakeUser) -> str:
        if user.id == self.fake.bot_user.id:
            return BOT_NAME
        member = self.world.guild.members.get(user.id)
        if member is not None and member.nick:
            return member.nick
        return user.global_name or user.username

    def _person_json(self, member: FakeMember) -> JSON:
        return {"id": str(member.id), "key": member.user.username,
                "name": self._name(member.user)}

    def _channels(self) -> list[JSON]:
        out = []
        for channel in sorted(self.world.guild.channels.values(),
                              key=lambda c: (c.parent_id or c.id, c.parent_id is not None, c.id)):
            if channel.type not in _TEXT_CHANNELS:
                continue
            out.append({"id": str(channel.id), "name": channel.name,
                        "thread": channel.is_thread,
                        "parent": str(channel.parent_id) if channel.parent_id else None,
                        "archived": channel.archived})
        return out

    def _registered(self) -> dict[str, Any]:
        commands = {c.name: c for c in self.fake.state.registered.values()
                    if c.guild_id is None and c.type == 1}
        commands.update({c.name: c for c in self.fake.state.registered.values()
                         if c.guild_id == self.world.guild.id and c.type == 1})
        return commands

    def _options(self, name: str) -> list[JSON] | None:
        """The options of ``/name``, a command or a group's subcommand (``tournament
        create``: the page offers each subcommand as a command of two words); ``None`` if
        the bot has no such command."""
        group, _, sub = name.partition(" ")
        command = self._registered().get(group)
        if command is None:
            return None
        subs = {o["name"]: o for o in command.options if o.get("type") == 1}
        if not sub:
            return None if subs else list(command.options)
        found = subs.get(sub)
        return None if found is None else list(found.get("options", []))

    def _commands(self) -> list[JSON]:
        keys = ("name", "description", "type", "required", "choices", "autocomplete",
                "min_value", "max_value", "min_length", "max_length")
        out = []
        for cmd in sorted(self._registered().values(), key=lambda c: c.name):
            subs = [o for o in cmd.options if o.get("type") == 1]
            for name, description, options in ([(f"{cmd.name} {o['name']}",
                                                  o.get("description", ""),
                                                  o.get("options", [])) for o in subs]
                                               or [(cmd.name, cmd.description, cmd.options)]):
                out.append({"name": name, "description": description,
                            "options": [{k: o[k] for k in keys if k in o} for o in options]})
        return out

    def _message(self, message: FakeMessage) -> JSON:
        files = {a.filename: a for a in message.attachments}
        in_embeds: set[str] = set()

        def picture(url: Any) -> str | None:
            if not isinstance(url, str):
                return None
            if url.startswith("attachment://"):
                attachment = files.get(url[len("attachment://"):])
                if attachment is None:
                    return None
                in_embeds.add(attachment.filename)
                return self._attachment_url(attachment.id, attachment.filename)
            return None  # nothing is fetched from elsewhere: the page works offline

        embeds = []
        for embed in message.embeds:
            shown: JSON = {k: embed[k] for k in ("title", "description", "color", "fields",
                                                 "footer", "author", "url") if k in embed}
            for key in ("image", "thumbnail"):
                url = picture((embed.get(key) or {}).get("url"))
                if url:
                    shown[key] = url
            embeds.append(shown)
        attachments = [{"url": self._attachment_url(a.id, a.filename), "filename": a.filename,
                        "image": (a.content_type or "").startswith("image/"),
                        "width": a.width, "height": a.height, "description": a.description}
                       for a in message.attachments if a.filename not in in_embeds]
        command = None
        meta = message.interaction_metadata
        if meta and meta.get("type") == InteractionType.APPLICATION_COMMAND:
            user = self.fake.users.get(int(meta["user"]["id"]))
            command = {"name": meta.get("name", ""),
                       "user": self._name(user) if user else meta["user"]["username"]}
        return {
            "id": str(message.id),
            "channel": str(message.channel_id),
            "author": {"id": str(message.author.id), "name": self._name(message.author),
                       "bot": message.author.bot},
            "content": message.content,
            "embeds": embeds,
            "attachments": attachments,
            "components": message.components,
            "ephemeral": message.ephemeral,
            "loading": message.loading,
            "edited": self._edited(message),
            "time": message.created_at,
            "command": command,
        }

    @staticmethod
    def _edited(message: FakeMessage) -> bool:
        # The answer that replaces a "thinking…" placeholder is not an edit to the person.
        answered = bool(message.history) and bool(message.history[0].flags & MessageFlags.LOADING)
        return len(message.history) > (1 if answered else 0) and not message.loading

    @staticmethod
    def _attachment_url(attachment_id: int, filename: str) -> str:
        return f"/attachments/{attachment_id}/{quote(filename)}"

    # ------------------------------------------------------------------ acting for a person

    async def _act(self, viewer: _Viewer, request: JSON) -> None:
        op = request.get("op")
        reply: JSON = {"op": "done", "req": request.get("req")}
        try:
            if op == "slash":
                await self._slash(viewer, request)
            elif op == "autocomplete":
                reply["choices"] = await self._autocomplete(viewer, request)
            elif op == "click":
                await self._component(viewer, request, values=None)
            elif op == "select":
                await self._component(viewer, request, values=[str(v) for v in
                                                               request.get("values", [])])
            else:
                raise Refused(f"unknown request {op!r}")
        except Refused as exc:
            reply["error"] = str(exc)
        except FakeDiscordError as exc:  # Discord's client would not have sent it
            reply["error"] = str(exc)
        except Exception as exc:  # a sandbox bug: say so on the page, keep serving
            log.exception("the sandbox page failed to %s", op)
            reply["error"] = f"The sandbox failed: {exc}"
        with contextlib.suppress(ConnectionError, RuntimeError):
            await viewer.ws.send_json(reply)

    def _channel(self, request: JSON) -> FakeChannel:
        try:
            channel = self.world.guild.channels.get(int(request.get("channel", 0)))
        except (TypeError, ValueError):
            channel = None
        if channel is None:
            raise Refused("That channel doesn't exist.")
        return channel

    async def _slash(self, viewer: _Viewer, request: JSON) -> None:
        channel = self._channel(request)
        name = " ".join(str(request.get("command", "")).strip().lstrip("/").lower().split())
        given = {str(k): str(v) for k, v in dict(request.get("options") or {}).items()}
        declared = self._options(name)
        if declared is None:
            record = await self._unknown_command(viewer, channel, name, given)
        else:
            definitions = {o["name"]: o for o in declared}
            unknown = sorted(set(given) - set(definitions))
            if unknown:
                raise Refused(f"/{name} has no option {unknown[0]}: its options are "
                              f"{', '.join(definitions) or 'none'}.")
            missing = [o for o, d in definitions.items() if d.get("required") and o not in given]
            if missing:
                raise Refused(f"/{name} needs {', '.join(o + ':' for o in missing)}")
            options = {key: self._value(name, definitions[key], text)
                       for key, text in given.items()}
            record = await self.fake.slash(viewer.member, channel, name, **options)
        self._watch(viewer, record)

    async def _unknown_command(self, viewer: _Viewer, channel: FakeChannel, name: str,
                               given: dict[str, str]) -> InteractionRecord:
        """A command the bot doesn't have (as from a client whose list of commands is out of
        date): Discord delivers it, and the bot answers."""
        if not re.fullmatch(r"[\w-]{1,32}", name):
            raise Refused("Type / and a command's name, e.g. /help.")
        fake = self.fake
        payload, user, member = fake.people._base_interaction(
            InteractionType.APPLICATION_COMMAND, viewer.member, channel, locale="en-US")
        data: JSON = {"id": str(fake.state.snowflake()), "name": name, "type": 1}
        if given:
            data["options"] = [{"name": k, "type": 3, "value": v} for k, v in given.items()]
        payload["data"] = data
        return await fake.people._dispatch_interaction(payload, user, member, channel, name)

    def _value(self, command: str, definition: JSON, text: str) -> Any:
        """A typed option value as Discord's client sends it (it refuses what isn't one)."""
        kind = int(definition.get("type", 3))
        name = definition["name"]
        text = text.strip()
        choices = definition.get("choices")
        if choices:
            for choice in choices:
                if text.lower() in (str(choice["value"]).lower(), str(choice["name"]).lower()):
                    return choice["value"]
            raise Refused(f"{name}: choose one of "
                          f"{', '.join(str(c['value']) for c in choices)}.")
        if kind == 3:
            return text
        value: float
        if kind == 4:
            if not re.fullmatch(r"-?\d{1,15}", text):
                raise Refused(f"{name} takes a whole number.")
            value = int(text)
        elif kind == 10:
            try:
                value = float(text)
            except ValueError:
                raise Refused(f"{name} takes a number.") from None
        elif kind == 5:
            if text.lower() not in ("true", "false"):
                raise Refused(f"{name} takes True or False.")
            return text.lower() == "true"
        elif kind in (6, 9):
            return self._member(name, text)
        else:
            raise Refused(f"/{command} {name}: the sandbox can't type this kind of option.")
        low, high = definition.get("min_value"), definition.get("max_value")
        if (low is not None and value < low) or (high is not None and value > high):
            raise Refused(f"{name} must be between {low} and {high}.")
        return value

    def _member(self, option: str, text: str) -> FakeMember:
        wanted = text.lstrip("@").strip().lower()
        for member in self.world.guild.members.values():
            names = {member.user.username.lower(), self._name(member.user).lower(),
                     str(member.id)}
            if wanted in names or text.strip() in (f"<@{member.id}>", f"<@!{member.id}>"):
                return member
        raise Refused(f"{option}: there is nobody called {text!r} here.")

    async def _autocomplete(self, viewer: _Viewer, request: JSON) -> list[JSON]:
        channel = self._channel(request)
        name = " ".join(str(request.get("command", "")).strip().lstrip("/").lower().split())
        declared = self._options(name)
        focused = str(request.get("focused", ""))
        if declared is None:
            return []
        definitions = {o["name"]: o for o in declared}
        if not definitions.get(focused, {}).get("autocomplete"):
            return []
        others: dict[str, Any] = {}
        for key, text in dict(request.get("options") or {}).items():
            if key in definitions and key != focused:
                with contextlib.suppress(Refused):  # the client leaves out what isn't valid
                    others[key] = self._value(name, definitions[key], str(text))
        choices = await self.fake.autocomplete(viewer.member, channel, name, focused,
                                               str(request.get("value", "")), **others)
        return [{"name": str(c.get("name")), "value": c.get("value")} for c in choices]

    async def _component(self, viewer: _Viewer, request: JSON, *,
                         values: list[str] | None) -> None:
        try:
            message = self.fake.state.messages_by_id.get(int(request.get("message", 0)))
        except (TypeError, ValueError):
            message = None
        if message is None or message.deleted or not self._visible(message, viewer.member):
            raise Refused("That message is gone.")
        custom_id = str(request.get("custom_id", ""))
        shown = {c.get("custom_id"): c for c in message.iter_components()}
        # A page may show a button a moment after the message lost it (or disabled it): the
        # click still reaches the bot, as in Discord, and the bot answers it.
        stale = custom_id not in shown or bool(shown[custom_id].get("disabled"))
        if values is None:
            record = await self.fake.click(viewer.member, message, custom_id, force=stale)
        else:
            record = await self.fake.select(viewer.member, message, custom_id, values,
                                            force=stale)
        self._watch(viewer, record)

    def _watch(self, viewer: _Viewer, record: InteractionRecord) -> None:
        """Discord says "The application did not respond" when the bot misses its 3 s."""
        deadline = self.fake.state.interaction_deadline

        async def watch() -> None:
            if deadline is None:
                return
            try:
                await record.response(timeout=deadline + 0.5)
            except FakeDiscordError:
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await viewer.ws.send_json({"op": "notice", "channel": str(record.channel.id),
                                               "text": f"{BOT_NAME} did not respond."})

        task = asyncio.create_task(watch(), name="sandbox-page-watch")
        viewer.tasks.add(task)
        task.add_done_callback(viewer.tasks.discard)
