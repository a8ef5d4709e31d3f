"""The load benchmark's simulated players (``python -m bot.bench load``, ``load_bench``): a
table's players see their hands and play through interactions only, as people do. The chaos
benchmark plays with them too (``chaos_bench``).

A table has two players, or three or four (``--tables``: a share of the games). Its first
player challenges the others (``/challenge`` with ``opponent2``, ``opponent3``), who each
press Accept; the game is then played in its thread. Whoever is on turn is found from the
hands: the seat that last played first, then the next ones round the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bot.pictures.text import DB_DOWN, NO_PICTURE_NOW, SAVED_NOT_SHOWN

__all__ = ["ANSWER_TIMEOUT", "REPLY_TIMEOUT", "Load", "Table", "choose"]

ANSWER_TIMEOUT = 10.0
"""How long a player waits for a first response before giving up on it."""

REPLY_TIMEOUT = 30.0
"""How long a player waits for the answer itself (the follow-up or the edit)."""

RANKS = "A 2 3 4 5 6 7 8 9 10 J Q K".split()


# ---------------------------------------------------------------------- the players


def _select_options(message: Any) -> list[dict[str, Any]]:
    for comp in message.iter_components():
        if comp.get("type") == 3 and str(comp.get("custom_id", "")).startswith("sm:src:"):
            return list(comp.get("options", []))
    return []


def _targets(option: dict[str, Any]) -> list[str]:
    text = str(option.get("description", "")).split("to ", 1)[-1]
    return re.findall(r"\b[CS]\d\b", text)


def _pass_id(message: Any) -> str | None:
    return next((c for c in message.custom_ids() if c.startswith("sm:mv:")
                 and c.endswith(":pass")), None)


def _my_turn(message: Any) -> bool:
    return bool(_select_options(message)) or _pass_id(message) is not None


def choose(options: list[dict[str, Any]], has_pass: bool, rng: random.Random
           ) -> tuple[str, str] | None:
    """A quick-finishing player: the pay-off card first, then side-stack tops, then hand
    cards to the centre, then the highest card to a side stack (in classic, sometimes a pass
    instead); ``None`` means pass."""
    parsed = [(str(o["value"]), _targets(o)) for o in options]
    for want in ("P", "S", ""):
        for token, targets in parsed:
            if token.startswith(want) if want != "S" else re.fullmatch(r"S\d", token):
                centre = [t for t in targets if t.startswith("C")]
                if centre:
                    return token, centre[0]
    if has_pass and rng.random() < 0.3:
        return None
    discards = [(token, targets) for token, targets in parsed
                if any(t.startswith("S") for t in targets)]
    if discards:
        token, targets = max(discards, key=lambda d: RANKS.index(d[0][:-1])
                             if d[0][:-1] in RANKS else -1)
        return token, next(t for t in targets if t.startswith("S"))
    return None


@dataclass
class Table:
    """One game's players, two to four (the challenger first), and what they last saw."""

    index: int
    players: tuple[Any, ...]
    rules: str
    rng: random.Random
    where: Any = None
    """The game's thread, or the channel if it has none."""
    on_turn: int = 0
    hands: dict[int, Any] = field(default_factory=dict)
    step: int = 0
    live: bool = False
    channel: Any = None
    """Where the game is challenged (its server's channel)."""


class Load:
    """The simulated players of one run, and what they counted."""

    def __init__(self, fake: Any, channel: Any, mode: str, interval: float) -> None:
        self.fake = fake
        self.channel = channel
        self.mode = mode
        self.interval = interval
        self.stopping = False
        self.moves = 0
        self.games_finished = 0
        self.turn_ends = 0
        """Moves after which the turn was no longer the player's (a discard, a pass)."""
        self.played: list[tuple[int, float, str, float]] = []
        """Cards played: the game's channel, when the ✅ came, the move in words, and when the
        player began the move (its board may come before its ✅: the reply waits for the
        hand's picture)."""
        self.replies: dict[int, tuple[float, float]] = {}
        """Replies seen, by interaction id: when it was sent, and seconds until its reply."""
        self.problems: Counter[str] = Counter()
        self.hands_in_words = 0
        """Replies that came with the hand in words only: its picture wasn't drawn within the
        bot's wait for it (a reply fast because it gave its picture up)."""

    # -- one interaction

    async def _answer(self, record: Any) -> Any | None:
        """The reply the player sees, or None (counted) if none came."""
        if not await self.fake.answered(record, ANSWER_TIMEOUT):
            return None  # counted from the records at the end
        try:
            message = await self.fake.reply(record, REPLY_TIMEOUT)
        except TimeoutError:
            self.problems["no_reply"] += 1
            return None
        if record.dispatched_at is not None:
            self.replies[record.id] = (record.dispatched_at,
                                       time.monotonic() - record.dispatched_at)
        text = message.content
        if NO_PICTURE_NOW[3:40] in text:
            self.hands_in_words += 1
        # Any of the bot's apologies: a failure, a database not answering, a move saved but
        # not shown. None of them should happen under load alone.
        if any(words in text for words in ("something went wrong", DB_DOWN, SAVED_NOT_SHOWN[:40],
                                           "couldn't be saved")):
            self.problems["apology"] += 1
        return message

    async def _hand(self, table: Table, user: Any) -> Any | None:
        """The user's hand: the board's Show my hand every other time, else ``/hand``."""
        board = self.fake.store.latest_board.get(table.where.id)
        record = None
        if board is not None and table.step % 2 == 0:
            button = next((c for c in board.custom_ids() if c.startswith("sm:hand:")), None)
            if button is not None:
                with contextlib.suppress(Exception):  # the board lost its button meanwhile
                    record = await self.fake.click(user, board, button)
        if record is None:
            record = await self.fake.slash(user, table.where, "hand")
        return await self._answer(record)

    # -- a game

    async def open(self, table: Table) -> bool:
        """The first player challenges the others, who accept; False if that failed."""
        challenger, *others = table.players
        channel = table.channel or self.channel
        named = {("opponent" if n == 0 else f"opponent{n + 1}"): user
                 for n, user in enumerate(others)}
        record = await self.fake.slash(challenger, channel, "challenge", rules=table.rules,
                                       **named)
        challenge = await self._answer(record)
        if challenge is None:
            return False
        accept = next((c for c in challenge.custom_ids() if c.endswith(":accept")), None)
        if accept is None:
            self.problems["challenge_refused"] += 1
            return False
        for opponent in others:
            if await self._answer(await self.fake.click(opponent, challenge, accept)) is None:
                return False
        # A thread opened from a message has the message's id (a Discord rule).
        table.where = self.fake.guilds[channel.guild_id].channels.get(challenge.id, channel)
        table.hands.clear()
        table.live = True
        return True

    async def _find_turn(self, table: Table) -> tuple[Any, Any] | None:
        """Who is on turn, with his hand; None when the game is over (or a reply failed)."""
        seats = len(table.players)
        for seat in ((table.on_turn + n) % seats for n in range(seats)):
            user = table.players[seat]
            message = await self._hand(table, user)
            if message is None:
                return None
            if "no game going" in message.content:
                table.live = False
                return None
            if _my_turn(message):
                table.on_turn = seat
                table.hands[user.id] = message
                return user, message
        table.live = False  # neither may move: the game is over
        return None

    async def move(self, table: Table) -> None:
        """One move of the game (opening a new game first if the last one ended)."""
        if not table.live and not await self.open(table):
            return
        user = table.players[table.on_turn]
        message = table.hands.get(user.id)
        if message is None or not _my_turn(message):
            found = await self._find_turn(table)
            if found is None:
                if not table.live:
                    self.games_finished += 1
                return
            user, message = found
        table.step += 1
        options = _select_options(message)
        pass_id = _pass_id(message)
        choice = choose(options, pass_id is not None, table.rng)
        if choice is None and pass_id is None:
            self.problems["no_legal_choice"] += 1
            table.hands.pop(user.id, None)
            return
        began = time.monotonic()
        if table.step % 2 == 0:
            reply = await self._by_buttons(user, message, choice, pass_id)
        else:
            reply = await self._typed(table, user, choice)
        if reply is None:
            table.hands.pop(user.id, None)
            return
        if "✅" not in reply.content:
            self.problems["refused"] += 1
            table.hands.pop(user.id, None)
            return
        self.moves += 1
        first = reply.content.split("\n", 1)[0].removeprefix("✅ ")
        if choice is not None and first:
            self.played.append((table.where.id, time.monotonic(), first, began))
        table.hands[user.id] = reply
        if not _my_turn(reply):
            self.turn_ends += 1
            table.on_turn = (table.on_turn + 1) % len(table.players)
            table.hands.clear()  # the others' old hands are out of date

    async def _by_buttons(self, user: Any, message: Any, choice: tuple[str, str] | None,
                          pass_id: str | None) -> Any | None:
        if choice is None:
            assert pass_id is not None
            return await self._answer(await self.fake.click(user, message, pass_id))
        token, target = choice
        menu = next(c for c in message.custom_ids() if c.startswith("sm:src:"))
        shown = await self._answer(await self.fake.select(user, message, menu, [token]))
        if shown is None:
            return None
        button = next((c for c in shown.custom_ids() if c.endswith(f":{token}>{target}")), None)
        if button is None:
            self.problems["refused"] += 1
            return None
        return await self._answer(await self.fake.click(user, shown, button))

    async def _typed(self, table: Table, user: Any, choice: tuple[str, str] | None
                     ) -> Any | None:
        if choice is None:
            return await self._answer(await self.fake.slash(user, table.where, "pass"))
        token, target = choice
        if table.step % 10 == 1:  # what a Discord client asks while the player types
            for focused, value, extra in (("card", "", {}), ("to", "", {"card": token})):
                record = await self.fake.people.autocomplete_record(
                    user, table.where, "play", focused, value, **extra)
                if await self.fake.answered(record, ANSWER_TIMEOUT):
                    with contextlib.suppress(TimeoutError):
                        await self.fake.choices(record, REPLY_TIMEOUT)
        return await self._answer(await self.fake.slash(user, table.where, "play", card=token,
                                                        to=target))

    async def play(self, table: Table, first_delay: float) -> None:
        """The table's players, until the run stops."""
        if self.mode == "paced":
            await asyncio.sleep(first_delay)
        while not self.stopping:
            started = time.monotonic()
            try:
                await self.move(table)
            except Exception as exc:  # a fault of the players or the fake: count, go on
                self.problems[f"player_{type(exc).__name__}"] += 1
                table.hands.clear()
            if self.mode == "paced":
                pause = self.interval * table.rng.uniform(0.5, 1.5)
                await asyncio.sleep(max(0.0, pause - (time.monotonic() - started)))
