"""Discord's payload limits, enforced so that tests catch what production would reject.

A message that is too long, a select menu with 26 options, a duplicate ``custom_id``
or an empty message all pass silently in unit tests yet fail with
``400 Invalid Form Body`` against the real API. The fake answers such requests the
way Discord does (see :class:`~.errors.ApiError`), so discord.py raises
``HTTPException`` in the bot and the test's "no ERROR logs" guard flags it.

Limits follow the public Discord API documentation; the checks are intentionally a
reasonable subset, not an exhaustive reimplementation.
"""

from __future__ import annotations

import re
from typing import Any

from .fake_errors import ApiError
from .models import ATTACHMENT_SIZE_LIMIT, JSON, MessageFlags, iter_components

MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TOTAL = 6000
MAX_FILES = 10
MAX_V2_COMPONENTS = 40

_SENDABLE_FLAGS = (
    MessageFlags.SUPPRESS_EMBEDS
    | MessageFlags.EPHEMERAL
    | MessageFlags.SUPPRESS_NOTIFICATIONS
    | MessageFlags.IS_COMPONENTS_V2
)
_V2_TOP_LEVEL = {1, 9, 10, 12, 13, 14, 17}
_SELECT_TYPES = {3, 5, 6, 7, 8}
_CHAT_INPUT_NAME = re.compile(r"^[-_'\w]{1,32}$")

Problems = list[tuple[str, str]]


def _len(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0


def check_message(payload: JSON, *, file_sizes: list[int], existing: JSON | None = None) -> None:
    """Validate a create/edit message body; ``existing`` is the message being edited.

    Raises :class:`ApiError` (400/413) like Discord would.
    """
    problems: Problems = []
    if len(file_sizes) > MAX_FILES:
        problems.append(("files", f"Must be {MAX_FILES} or fewer files."))
    if any(size > ATTACHMENT_SIZE_LIMIT for size in file_sizes):
        raise ApiError(413, 40005, "Request entity too large")

    content = payload.get("content")
    if content is not None and not isinstance(content, str):
        problems.append(("content", "Must be a string."))
    elif _len(content) > MAX_CONTENT:
        problems.append(("content", f"Must be {MAX_CONTENT} or fewer in length."))

    flags = payload.get("flags")
    if isinstance(flags, int) and flags & ~_SENDABLE_FLAGS:
        problems.append(("flags", f"Flags {flags & ~_SENDABLE_FLAGS} cannot be set by bots."))

    embeds = payload.get("embeds") or []
    problems.extend(_check_embeds(embeds))

    components = payload.get("components")
    effective_flags = flags if isinstance(flags, int) else (existing or {}).get("flags", 0)
    v2 = bool(effective_flags & MessageFlags.IS_COMPONENTS_V2)
    if components is not None:
        problems.extend(check_components(components, v2=v2))
    if v2:
        if content:
            problems.append(("content", "Cannot be used with the IS_COMPONENTS_V2 flag."))
        if embeds:
            problems.append(("embeds", "Cannot be used with the IS_COMPONENTS_V2 flag."))

    if problems:
        raise ApiError.form(problems)

    # The emptiness rule applies to the resulting message, so merge with the old one.
    merged = dict(existing or {})
    merged.update({k: v for k, v in payload.items() if k in _CONTENT_KEYS})
    has_attachments = bool(file_sizes) or bool(merged.get("attachments"))
    if not (
        merged.get("content")
        or merged.get("embeds")
        or merged.get("components")
        or merged.get("sticker_ids")
        or merged.get("poll")
        or has_attachments
    ):
        raise ApiError.empty_message()


_CONTENT_KEYS = ("content", "embeds", "components", "sticker_ids", "poll", "attachments")


def _check_embeds(embeds: list[JSON]) -> Problems:
    problems: Problems = []
    if len(embeds) > MAX_EMBEDS:
        problems.append(("embeds", f"Must be {MAX_EMBEDS} or fewer in length."))
    total = 0
    for i, embed in enumerate(embeds):
        where = f"embeds.{i}"
        for key, limit in (("title", 256), ("description", 4096)):
            total += _len(embed.get(key))
            if _len(embed.get(key)) > limit:
                problems.append((f"{where}.{key}", f"Must be {limit} or fewer in length."))
        fields = embed.get("fields") or []
        if len(fields) > 25:
            problems.append((f"{where}.fields", "Must be 25 or fewer in length."))
        for j, fld in enumerate(fields):
            name, value = fld.get("name"), fld.get("value")
            total += _len(name) + _len(value)
            if not name or _len(name) > 256:
                problems.append(
                    (f"{where}.fields.{j}.name", "Must be between 1 and 256 in length.")
                )
            if not value or _len(value) > 1024:
                problems.append(
                    (f"{where}.fields.{j}.value", "Must be between 1 and 1024 in length.")
                )
        footer = embed.get("footer") or {}
        author = embed.get("author") or {}
        total += _len(footer.get("text")) + _len(author.get("name"))
        if _len(footer.get("text")) > 2048:
            problems.append((f"{where}.footer.text", "Must be 2048 or fewer in length."))
        if _len(author.get("name")) > 256:
            problems.append((f"{where}.author.name", "Must be 256 or fewer in length."))
    if total > MAX_EMBED_TOTAL:
        problems.append(("embeds", f"Embed size exceeds maximum size of {MAX_EMBED_TOTAL}"))
    return problems


def check_components(components: list[JSON], *, v2: bool) -> Problems:
    """Layout rules for message components (classic action rows or Components V2)."""
    problems: Problems = []
    if v2:
        total = sum(1 for _ in iter_components(components))
        if total > MAX_V2_COMPONENTS:
            problems.append(("components", f"Must be {MAX_V2_COMPONENTS} or fewer in total."))
        for i, comp in enumerate(components):
            if comp.get("type") not in _V2_TOP_LEVEL:
                problems.append((f"components.{i}.type", "Invalid top-level component type."))
    else:
        if len(components) > 5:
            problems.append(("components", "Must be 5 or fewer in length."))
        for i, comp in enumerate(components):
            if comp.get("type") != 1:
                problems.append(
                    (f"components.{i}.type", "Top-level components must be action rows.")
                )
    seen: set[str] = set()
    for comp in iter_components(components):
        ctype = comp.get("type")
        custom_id = comp.get("custom_id")
        if custom_id is not None:
            if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= 100:
                problems.append(("components.custom_id", "Must be between 1 and 100 in length."))
            elif custom_id in seen:
                problems.append(
                    ("components.custom_id", f"Component custom id {custom_id!r} is duplicated")
                )
            seen.add(str(custom_id))
        if ctype == 1:
            children = comp.get("components") or []
            buttons = [c for c in children if c.get("type") == 2]
            selects = [c for c in children if c.get("type") in _SELECT_TYPES]
            if not children or len(buttons) > 5 or (selects and len(children) > 1):
                problems.append(
                    ("components.action_row", "An action row holds 1-5 buttons or one select.")
                )
        elif ctype == 2:
            problems.extend(_check_button(comp))
        elif ctype in _SELECT_TYPES:
            problems.extend(_check_select(comp))
    return problems


def _check_button(comp: JSON) -> Problems:
    problems: Problems = []
    style = comp.get("style")
    if style == 5:
        if not comp.get("url") or "custom_id" in comp:
            problems.append(("components.button", "Link buttons need a url and no custom_id."))
    elif style == 6:
        if not comp.get("sku_id"):
            problems.append(("components.button", "Premium buttons need a sku_id."))
    elif not comp.get("custom_id"):
        problems.append(("components.button.custom_id", "This field is required"))
    if _len(comp.get("label")) > 80:
        problems.append(("components.button.label", "Must be 80 or fewer in length."))
    if style != 6 and not comp.get("label") and not comp.get("emoji"):
        problems.append(("components.button", "A button needs a label or an emoji."))
    return problems


def _check_select(comp: JSON) -> Problems:
    problems: Problems = []
    options = comp.get("options") or []
    if comp.get("type") == 3 and not 1 <= len(options) <= 25:
        problems.append(("components.select.options", "Must be between 1 and 25 in length."))
    min_v, max_v = comp.get("min_values", 1), comp.get("max_values", 1)
    if not 0 <= min_v <= 25 or not 1 <= max_v <= 25 or min_v > max_v:
        problems.append(("components.select", "Invalid min_values/max_values."))
    if comp.get("type") == 3 and max_v > len(options):
        problems.append(("components.select.max_values", "Must be <= the number of options."))
    if _len(comp.get("placeholder")) > 150:
        problems.append(("components.select.placeholder", "Must be 150 or fewer in length."))
    values: set[str] = set()
    for opt in options:
        if not 1 <= _len(opt.get("label")) <= 100 or not 1 <= _len(opt.get("value")) <= 100:
            problems.append(("components.select.options", "Labels/values must be 1-100 chars."))
        if _len(opt.get("description")) > 100:
            problems.append(("components.select.options.description", "Max 100 characters."))
        if opt.get("value") in values:
            problems.append(("components.select.options", "Option values must be unique."))
        values.add(str(opt.get("value")))
    return problems


def check_commands(commands: list[JSON]) -> None:
    """Validate a bulk-overwrite of application commands (PUT .../commands)."""
    problems: Problems = []
    seen: set[tuple[int, str]] = set()
    chat_input = 0
    for i, cmd in enumerate(commands):
        ctype = int(cmd.get("type", 1))
        name = str(cmd.get("name", ""))
        where = str(i)
        if (ctype, name) in seen:
            problems.append((f"{where}.name", f"Application command names must be unique: {name}"))
        seen.add((ctype, name))
        if ctype == 1:
            chat_input += 1
            problems.extend(_check_chat_input(cmd, where))
        else:
            if not 1 <= len(name) <= 32:
                problems.append((f"{where}.name", "Must be between 1 and 32 in length."))
            if cmd.get("description"):
                problems.append((f"{where}.description", "Context menus have no description."))
    if chat_input > 100:
        problems.append(("_", "Maximum number of application commands reached (100)."))
    if problems:
        raise ApiError.form(problems)


def _check_chat_input(cmd: JSON, where: str) -> Problems:
    problems: Problems = []
    name = str(cmd.get("name", ""))
    if not _CHAT_INPUT_NAME.match(name) or name != name.lower():
        problems.append((f"{where}.name", f"Invalid slash command name {name!r}."))
    if not 1 <= _len(cmd.get("description")) <= 100:
        problems.append((f"{where}.description", "Must be between 1 and 100 in length."))
    problems.extend(_check_options(cmd.get("options") or [], f"{where}.options"))
    return problems


def _check_options(options: list[JSON], where: str) -> Problems:
    problems: Problems = []
    if len(options) > 25:
        problems.append((where, "Must be 25 or fewer in length."))
    names: set[str] = set()
    optional_seen = False
    for i, opt in enumerate(options):
        here = f"{where}.{i}"
        name = str(opt.get("name", ""))
        if not _CHAT_INPUT_NAME.match(name) or name != name.lower():
            problems.append((f"{here}.name", f"Invalid option name {name!r}."))
        if name in names:
            problems.append((f"{here}.name", f"Option names must be unique: {name}"))
        names.add(name)
        if not 1 <= _len(opt.get("description")) <= 100:
            problems.append((f"{here}.description", "Must be between 1 and 100 in length."))
        if opt.get("type") in (1, 2):
            problems.extend(_check_options(opt.get("options") or [], f"{here}.options"))
            continue
        if opt.get("required"):
            if optional_seen:
                problems.append((here, "Required options must be placed before optional ones."))
        else:
            optional_seen = True
        choices = opt.get("choices") or []
        if choices and opt.get("autocomplete"):
            problems.append((here, "Autocomplete and choices are mutually exclusive."))
        problems.extend(_check_choices(choices, f"{here}.choices"))
    return problems


def _check_choices(choices: list[JSON], where: str) -> Problems:
    problems: Problems = []
    if len(choices) > 25:
        problems.append((where, "Must be 25 or fewer in length."))
    for i, choice in enumerate(choices):
        if not 1 <= _len(choice.get("name")) <= 100:
            problems.append((f"{where}.{i}.name", "Must be between 1 and 100 in length."))
        value = choice.get("value")
        if isinstance(value, str) and len(value) > 100:
            problems.append((f"{where}.{i}.value", "Must be 100 or fewer in length."))
    return problems


def check_autocomplete(data: JSON) -> None:
    problems = _check_choices(data.get("choices") or [], "data.choices")
    if problems:
        raise ApiError.form(problems)


def check_modal(data: JSON) -> None:
    problems: Problems = []
    if not 1 <= _len(data.get("title")) <= 45:
        problems.append(("data.title", "Must be between 1 and 45 in length."))
    if not 1 <= _len(data.get("custom_id")) <= 100:
        problems.append(("data.custom_id", "Must be between 1 and 100 in length."))
    if not 1 <= len(data.get("components") or []) <= 5:
        problems.append(("data.components", "Must be between 1 and 5 in length."))
    if problems:
        raise ApiError.form(problems)
