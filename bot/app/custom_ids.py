"""The ``custom_id`` of every button and menu the bot posts: one grammar, with a version.

    sm:<kind>:v<version>:<part>:<part>…      (at most 100 characters: Discord's limit)

Discord sends a click back with the id its message was posted with, whatever version of the bot
posted it: a challenge a week old, a payment waiting to be confirmed. So an id says which
version of its kind's layout it follows. Ids posted before versions existed have no version
part (``sm:ch:3:accept``): they are version 0, and each kind still reads them exactly as it
did. When a kind's parts change, its version goes up; ids of the older layout are then either
still read (the template accepts both) or answered as old (see ``ui.answer_unclaimed``), never
misread as the new one.

Each part is written by the bot (an id is a number without sign or leading zero, never above
what the database stores), so a template accepts exactly what the bot writes: an id that
differs in any way (``ACCEPT``, a trailing space, a number too large to be a row) matches no
template and is answered as a button that no longer works, instead of failing further in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["CURRENT", "KINDS", "MAX_LENGTH", "PAGE", "Kind", "at_most", "make", "number",
           "read_head", "template"]

PREFIX = "sm"
MAX_LENGTH = 100
"""Discord refuses a component whose ``custom_id`` is longer."""

CURRENT = 1
"""The version of the ids the bot posts now (0: the ids posted before they had one)."""

INT64 = 2**63 - 1
"""The largest id a row (game, challenge, payment) or a Discord user can have in the database."""


@dataclass(frozen=True)
class Kind:
    """What the bot knows of one kind of id: the newest version it reads, and the command a
    player may use instead of one of its buttons that no longer works."""

    name: str
    newest: int
    instead: str


KINDS: dict[str, Kind] = {}
"""Every kind of id the bot reads, by name (filled in by ``template``)."""


def at_most(limit: int) -> str:
    """A pattern for the numbers 0 to ``limit`` as the bot writes them (ASCII digits, no sign,
    no leading zero): a forged id can't name a row the database can't hold."""
    digits = str(limit)
    size = len(digits)
    ways = ["0"]
    if size > 1:
        ways.append(f"[1-9][0-9]{{0,{size - 2}}}")  # fewer digits than the limit
    for i, digit in enumerate(digits):  # as many digits: below the limit at digit i
        low = 1 if i == 0 else 0
        if int(digit) > low:
            rest = size - i - 1
            ways.append(digits[:i] + f"[{low}-{int(digit) - 1}]"
                        + (f"[0-9]{{{rest}}}" if rest else ""))
    ways.append(digits)
    return "(?:" + "|".join(dict.fromkeys(ways)) + ")"


def number(name: str, limit: int = INT64) -> str:
    """A named part: a number from 0 to ``limit``."""
    return f"(?P<{name}>{at_most(limit)})"


PAGE = f"(?P<page>-1|{at_most(10**9)})"
"""A page of a list: -1 on a "newer" button of the first page (disabled, but it has an id)."""


def template(kind: str, *parts: str, versions: tuple[int, ...] = (0, CURRENT),
             instead: str = "/board or /games") -> str:
    """The ``DynamicItem`` template of ``kind``: ``sm:<kind>``, then ``:v<version>`` for each
    version in ``versions`` but 0 (the bare form), then ``parts`` (patterns), ``:``-separated.

    ``instead`` is what an outdated button of this kind points the player to."""
    if not re.fullmatch(r"[a-z0-9]+", kind):
        raise ValueError(f"a kind is lower-case letters and digits, not {kind!r}")
    known = KINDS.get(kind)
    newest = max(versions)
    if known is None or known.newest < newest:
        KINDS[kind] = Kind(kind, newest, instead)
    tagged = [str(v) for v in versions if v]
    version = (f"(?::v(?P<idv>{'|'.join(tagged)}))" + ("?" if 0 in versions else "")
               if tagged else "")
    return f"{PREFIX}:{kind}{version}" + "".join(":" + part for part in parts)


def make(kind: str, *parts: object, version: int = CURRENT) -> str:
    """A new id of ``kind`` with ``parts``, in the layout of ``version`` (the current one)."""
    head = f"{PREFIX}:{kind}" + (f":v{version}" if version else "")
    custom_id = ":".join([head, *map(str, parts)])
    if len(custom_id) > MAX_LENGTH:
        raise ValueError(f"a custom_id of {len(custom_id)} characters (at most {MAX_LENGTH})")
    return custom_id


_HEAD = re.compile(rf"{PREFIX}:(?P<kind>[a-z0-9]+)(?::v(?P<version>[0-9]{{1,6}}))?(?::.*)?",
                   re.DOTALL)


def read_head(custom_id: str) -> tuple[str | None, int | None]:
    """The kind and version an id claims (``None``, ``None`` if it isn't the bot's grammar at
    all; version 0 for a bare one), whether or not its parts parse."""
    match = _HEAD.fullmatch(custom_id)
    if match is None:
        return None, None
    return match["kind"], int(match["version"] or 0)
