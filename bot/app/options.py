"""What a slash command's options may hold, checked before the command runs.

discord.py does not check an option's value against its parameter: ``Namespace`` keeps a
string, integer or boolean option as the payload gives it, and the transformer of a plain
``bool``, ``int`` or ``str`` parameter passes it on unchanged. Discord's own clients send only
values of the declared type, but a modified client can send anything: ``"yes"`` for the
boolean ``forgive`` of ``/settle`` reached the command as a true value, and ``"abc"`` for a
user option made ``Namespace`` raise before any handler could answer. ``misread_option`` finds
such a value, so the tree refuses it politely (naming the option) and nothing runs.

Ranges and choices are not checked here: the commands check those in their own words.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from discord import AppCommandOptionType
from discord.app_commands import Command

__all__ = ["DISCORD_INT", "misread_nesting", "misread_option"]

DISCORD_INT = 2**53
"""Discord's integer options hold -2⁵³ to 2⁵³; a value beyond that was not sent by Discord."""

_EXPECTED = {
    AppCommandOptionType.string: "text",
    AppCommandOptionType.integer: "a whole number",
    AppCommandOptionType.boolean: "True or False",
    AppCommandOptionType.number: "a number",
    AppCommandOptionType.user: "someone in this server",
    AppCommandOptionType.channel: "a channel",
    AppCommandOptionType.role: "a role",
    AppCommandOptionType.mentionable: "someone or a role",
    AppCommandOptionType.attachment: "a file",
}

# Where the resolved data of each kind of snowflake option is.
_RESOLVED = {
    AppCommandOptionType.user: ("users",),
    AppCommandOptionType.channel: ("channels",),
    AppCommandOptionType.role: ("roles",),
    AppCommandOptionType.mentionable: ("users", "roles"),
    AppCommandOptionType.attachment: ("attachments",),
}


def misread_option(command: Command[Any, ..., Any], options: Sequence[Any],
                   resolved: Mapping[str, Any] | None, *, typing: bool = False) -> str | None:
    """Why one of ``options`` (the command's own, inside any subcommand) can't be what its
    parameter takes, in a player's words; ``None`` if every one can.

    A value fits when the payload gives it the parameter's type and a value of that type:
    text for a string, an integer within Discord's range (not ``True``) for an integer, a
    finite number for a number, a boolean for a boolean, and for a user, channel, role or file
    an id that the payload's resolved data describes. A required option must be there, unless
    the command is still being typed (``typing``: an autocomplete request, which carries the
    options filled in so far, the one being typed as any text).
    """
    by_name = {param.display_name: param for param in command.parameters}
    given: set[str] = set()
    for option in options:
        if not isinstance(option, Mapping):
            return "I couldn't read the command's options. Nothing was changed."
        name = option.get("name")
        param = by_name.get(name) if isinstance(name, str) else None
        if param is None:
            continue  # discord.py leaves an option the command doesn't have alone
        given.add(param.display_name)
        if option.get("focused"):
            continue  # what is being typed, for autocomplete: any text
        if option.get("type") != param.type.value or not _fits(
                param.type, option.get("value"), resolved or {}):
            return (f"I couldn't read the option `{param.display_name}`: it must be "
                    f"{_EXPECTED.get(param.type, 'of its own kind')}. Nothing was changed.")
    for param in command.parameters:
        if param.required and param.display_name not in given and not typing:
            return f"The option `{param.display_name}` is missing. Nothing was changed."
    return None


def misread_nesting(options: Any) -> str | None:
    """Why the nesting of a payload's options can't be what Discord sends (a subcommand or a
    group given a value, its options not a list); ``None`` if it can. Checked before
    discord.py walks the nesting to find the subcommand, which would take such an option for
    the subcommand it names and run it."""
    if options is None:
        return None
    if not isinstance(options, list) or not all(isinstance(o, Mapping) for o in options):
        return "I couldn't read the command's options. Nothing was changed."
    for option in options:
        if option.get("type") in (1, 2):
            if "value" in option:
                return (f"I couldn't read the option `{option.get('name')}`: it names a "
                        "subcommand and takes no value. Nothing was changed.")
            problem = misread_nesting(option.get("options"))
            if problem is not None:
                return problem
    return None


def _fits(kind: AppCommandOptionType, value: Any, resolved: Mapping[str, Any]) -> bool:
    if kind is AppCommandOptionType.string:
        return isinstance(value, str)
    if kind is AppCommandOptionType.boolean:
        return isinstance(value, bool)
    if kind is AppCommandOptionType.integer:
        return (isinstance(value, int) and not isinstance(value, bool)
                and -DISCORD_INT <= value <= DISCORD_INT)
    if kind is AppCommandOptionType.number:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        try:
            return math.isfinite(float(value))
        except OverflowError:  # an integer beyond any float
            return False
    places = _RESOLVED.get(kind)
    if places is None:
        return False
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not (isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20):
        return False
    return any(isinstance(resolved.get(place), Mapping) and value in resolved[place]
               for place in places)
