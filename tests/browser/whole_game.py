"""Whole games from the sandbox page, as a person plays them (issue 19's "done when").

Start the sandbox as the README says (``python -m bot sandbox``, here with ``--fresh --port 0``)
and give this script the address it prints::

    python tests/browser/whole_game.py http://127.0.0.1:8080/ \
        [--games classic-cpu,kings-cpu,classic-pvp]

It drives one real page in Debian's chromium (headless, ``CHROMIUM``, default
``/usr/bin/chromium``) and acts only through it: typing commands, choosing the bot's autocomplete
suggestions, clicking buttons, choosing in menus, switching the person at the bottom left. It
reads nothing but the page (no database, no bot internals): whose turn it is comes from the
board in the game's thread, the moves from /play's suggestions or the hand's menu.

Games:

- ``classic-cpu`` / ``kings-cpu``: Alice challenges the computer (``opponent:Spite & Malice``,
  level easy) and plays all her turns until the game (kings: the match to 50) is over.
- ``classic-pvp`` / ``kings-pvp``: Alice challenges Bob, Bob (switched to in the page) accepts
  with the button, and they play each other to the end, the page switching to whoever is on
  turn.

Each player makes a turn's moves through /play's autocomplete on odd turns and through the
hand's menu and buttons (opened with the board's "Show my hand") on even turns; /pass (or the
Pass button) when nothing else can be done. The strategy is a plain greedy one: pay-off card to
the centre, then side-stack tops, then hand cards (wild cards last), else a discard.

Every step has a timeout (``--step-timeout``); when one runs out the script says which step,
prints what the page shows (the last messages, the command box, the popup, any refusal) and
saves a screenshot, then exits with status 1.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from page_actions import private_after, send_command  # this script's own folder

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
STEP_TIMEOUT = 30.0
"""Seconds any one step may take (a computer's whole turn counts as one step)."""
NO_SUGGESTIONS = 3.5
"""Seconds without a suggestion popup that mean "the bot offers none" (it answers within 2 s)."""


class Stuck(Exception):
    """A step didn't finish in time (or the page showed something unexpected)."""


@dataclass
class Tally:
    name: str
    moves: int = 0
    by_autocomplete: int = 0
    by_menu: int = 0
    passes: int = 0
    turns: dict[str, int] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    result: str = ""
    final_board: str = ""
    ended: float | None = None
    games_in_match: int = 0
    """Games of a match (kings) finished before the last one."""

    def line(self) -> str:
        took = (self.ended or time.monotonic()) - self.started
        turns = ", ".join(f"{k} {v}" for k, v in self.turns.items())
        return (f"{self.name}: {self.moves} moves through the page ({self.by_autocomplete} via "
                f"/play autocomplete, {self.by_menu} via the hand's menu/buttons, {self.passes} "
                f"passes); turns played: {turns}; wall time {took:.1f} s")


def log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13}


def rank_of(token: str) -> int:
    """``7H`` → 7, ``QC`` → 12, ``JK`` (joker) → 0."""
    token = token.upper()
    if token == "JK":
        return 0
    head = token[:-1]
    return RANKS.get(head, int(head) if head.isdigit() else 0)


class Page:
    """The one browser page, and what a person does on it."""

    def __init__(self, page: Any, url: str, step_timeout: float) -> None:
        self.page = page
        self.url = url
        self.step_timeout = step_timeout
        self.me = ""
        self.rules = ""

    # ------------------------------------------------------------------ steps and diagnosis

    async def step(self, what: str, awaitable: Any, timeout: float | None = None) -> Any:
        try:
            return await asyncio.wait_for(awaitable, timeout or self.step_timeout)
        except TimeoutError as exc:
            raise Stuck(f"timed out after {timeout or self.step_timeout:.0f} s: {what}") from exc
        except Exception as exc:  # a Playwright error: say where
            if isinstance(exc, Stuck):
                raise
            raise Stuck(f"{what}: {type(exc).__name__}: {exc}".splitlines()[0]) from exc

    async def diagnose(self, shot: str) -> None:
        page = self.page
        try:
            print("---- what the page shows ----")
            print("title:", await page.title())
            print("channel:", await page.locator("#channel-name").inner_text())
            print("command box:", repr(await page.locator("#command").input_value()))
            print("popup hidden:", await page.locator("#popup").is_hidden(),
                  "·", (await page.locator("#popup").inner_text())[:600])
            print("refusal:", (await page.locator("#refusal").inner_text())[:300])
            texts = await page.locator("#messages > *").evaluate_all(
                "els => els.slice(-6).map(e => e.innerText)")
            for t in texts:
                print("· message:", t.replace("\n", " | ")[:900])
            await page.screenshot(path=shot)
            print("screenshot:", shot)
        except Exception as exc:  # noqa: BLE001 - diagnosis is best effort
            print("(diagnosis failed:", exc, ")")

    # ------------------------------------------------------------------ basics

    async def open_as(self, name: str) -> None:
        await self.page.goto(f"{self.url}?as={name.lower()}")
        await self._ready(name)

    async def _ready(self, name: str) -> None:
        await self.page.wait_for_function(
            "(n) => document.title.startsWith(n + ' ·') && "
            "document.getElementById('connection').classList.contains('up')", arg=name)
        await self.page.locator(".channel").first.wait_for()
        self.me = name

    async def switch_to(self, name: str) -> None:
        """Click the person at the bottom left."""
        if self.me == name:
            return
        await self.step(f"switch the page to {name}", self._switch(name))

    async def _switch(self, name: str) -> None:
        await self.page.locator("#user-switch button", has_text=name).click()
        await self._ready(name)

    async def open_channel(self, name: str) -> None:
        await self.step(f"open the channel {name!r}", self._open_channel(name))

    async def _open_channel(self, name: str) -> None:
        # A thread of a game now over is archived; a game's thread is the newest of its name.
        await self.page.locator(".channel:not(.archived)", has_text=name).last.click()
        await self.page.wait_for_function(
            "(n) => document.getElementById('channel-name').textContent.includes(n)", arg=name)

    async def channel_name(self) -> str:
        return str(await self.page.locator("#channel-name").inner_text())

    async def private_after(self, action: Any) -> Any:
        """Do ``action``; return the private answer it brings, once the bot stopped thinking."""
        return await private_after(self.page, action)

    async def send(self, text: str) -> None:
        """Type a whole command and press Enter (it leaves the box once sent)."""
        await send_command(self.page, text)
        refusal = self.page.locator("#refusal")
        if await refusal.is_visible():
            raise Stuck(f"the page refused {text!r}: {await refusal.inner_text()}")

    async def dismiss(self, message: Any) -> None:
        """Dismiss a private message (so a long game's page doesn't fill up with hands)."""
        link = message.locator("a.dismiss")
        if await link.count():
            await link.click()

    async def suggestions(self, text: str, option: str) -> list[tuple[str, str]]:
        """Type ``text`` (ending in ``option:``) and read the bot's suggestions, as
        (value, label); [] when the bot offers none."""
        page = self.page
        box = page.locator("#command")
        if not await box.evaluate("e => e === document.activeElement"):
            # Click into the box first, at a person's pace: the page hides its popup 150 ms
            # after the box loses focus, even if focus is back by then (see the report).
            await box.click()
            await page.wait_for_timeout(200)
        title = page.locator("#popup .popup-title", has_text=f"{option}: suggestions")
        for attempt in (1, 2):
            await box.fill("")  # hides any popup
            await page.locator("#popup").wait_for(state="hidden")
            await box.fill(text)
            try:
                await title.wait_for(timeout=NO_SUGGESTIONS * 1000)
                break
            except Exception:  # noqa: BLE001 - no popup: none offered (or missed): once more
                if attempt == 2:
                    return []
                log(f"  no suggestion popup for {text!r} within {NO_SUGGESTIONS} s; "
                    "typing it again")
        rows: list[dict[str, str]] = await page.locator("#popup .choice").evaluate_all(
            "els => els.map(e => ({value: e.dataset.value, "
            "label: e.querySelector('.name').textContent}))")
        return [(r["value"], r["label"]) for r in rows]

    async def pick(self, value: str) -> None:
        """Click the suggestion ``value`` in the open popup."""
        await self.page.locator(f'#popup .choice[data-value="{value}"]').click()

    # ------------------------------------------------------------------ the board

    async def board(self) -> tuple[str, str] | None:
        """The live board in the channel shown: (title, status line), or None."""
        rows: list[list[str]] = await self.page.locator(".message .embed").evaluate_all(
            "els => els.map(e => [e.querySelector('.embed-title')?.textContent || '', "
            "e.querySelector('.embed-description')?.textContent || ''])")
        for title, status in reversed(rows):
            if title.startswith("Spite & Malice") and status[:1] in ("▶", "🏆"):
                return title, status
        return None

    async def wait_board(self, predicate: Any, what: str, timeout: float) -> tuple[str, str]:
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last = await self.board()
            if last is not None and predicate(last):
                return last
            await asyncio.sleep(0.25)
        raise Stuck(f"timed out after {timeout:.0f} s waiting for {what}; the board says {last}")


# ---------------------------------------------------------------------- choosing a move

@dataclass
class Choice:
    source: str          # the token: 7H, P, S2, JK
    label: str           # "7♥ from hand"
    target: str = ""     # C1, S3
    target_label: str = ""


def is_wild(token: str, rules: str) -> bool:
    return token.upper() == "JK" or (rules == "kings" and rank_of(token) == 13)


def source_order(token: str, rules: str) -> tuple[int, int]:
    """Which source to try first for a play to the centre."""
    t = token.upper()
    if t == "P":
        return (0, 0)
    if re.fullmatch(r"S[1-4]", t):
        return (1, 0)
    if is_wild(t, rules):
        return (3, 0)
    return (2, rank_of(t))


def side_preference(card: str, target_label: str) -> int:
    """Lower is better: on a card of the same rank or one higher, then an empty stack."""
    m = re.search(r"\(on (\S+?)[♠♥♦♣,]", target_label)
    if m:
        top = RANKS.get(m.group(1), int(m.group(1)) if m.group(1).isdigit() else 0)
        return 0 if rank_of(card) in (top, top - 1) else 2
    return 1 if "(empty" in target_label else 3


def discard_order(token: str, rules: str) -> tuple[int, int]:
    """Which hand card to discard first: not a wild one, the highest."""
    return (1 if is_wild(token, rules) else 0, -rank_of(token))


# ---------------------------------------------------------------------- a turn

class Player:
    def __init__(self, ui: Page, tally: Tally) -> None:
        self.ui = ui
        self.tally = tally

    async def turn_by_autocomplete(self, name: str) -> None:
        """Moves through /play's suggestions until the turn is over."""
        ui = self.ui
        while True:
            cards = await ui.step(f"{name}: /play card: suggestions",
                                  ui.suggestions("/play card:", "card"))
            if not cards:
                raise Stuck(f"{name} is on turn (says the board) but /play card: offers no "
                            "suggestion")
            if len(cards) == 1 and cards[0][0] == "pass":
                log(f"  {name}: the only suggestion is {cards[0][1]!r}: /pass")
                await self._command_move(name, "/pass", "pass")
                self.tally.passes += 1
                return
            # A play to the centre: probe each source's targets, best source first.
            centre: Choice | None = None
            sides: list[Choice] = []
            for token, label in sorted(cards, key=lambda c: source_order(c[0], ui.rules)):
                targets = await ui.step(
                    f"{name}: /play card:{token} to: suggestions",
                    ui.suggestions(f"/play card:{token} to:", "to"))
                c_targets = [t for t in targets if t[0].upper().startswith("C")]
                if c_targets:
                    centre = Choice(token, label, *c_targets[0])
                    break
                if "from hand" in label:
                    for t in targets:
                        sides.append(Choice(token, label, *t))
            if centre is not None:
                await ui.step(f"{name}: pick {centre.target}", ui.pick(centre.target))
                await self._enter_move(name, centre)
                if await self._over_or_not_mine():
                    return
                continue
            if sides:
                best = min(sides, key=lambda c: (discard_order(c.source, ui.rules),
                                                 side_preference(c.source, c.target_label)))
                # Type the card again and choose its side stack from the suggestions.
                targets = await ui.step(f"{name}: /play card:{best.source} to: suggestions",
                                        ui.suggestions(f"/play card:{best.source} to:", "to"))
                if best.target not in [t[0] for t in targets]:
                    raise Stuck(f"{best.target} no longer suggested for {best.source}: {targets}")
                await ui.step(f"{name}: pick {best.target}", ui.pick(best.target))
                await self._enter_move(name, best)
                return
            # Suggestions, but none goes anywhere: passing is all that's left (classic).
            log(f"  {name}: suggestions {cards} but no target for any: /pass")
            await self._command_move(name, "/pass", "pass")
            self.tally.passes += 1
            return

    async def _enter_move(self, name: str, choice: Choice) -> None:
        ui = self.ui
        box = ui.page.locator("#command")
        typed = await box.input_value()
        want = f"/play card:{choice.source} to:{choice.target} "
        if typed != want:
            raise Stuck(f"the command box says {typed!r} after picking, not {want!r}")
        answer = await ui.step(f"{name}: send {want.strip()}", ui.private_after(box.press("Enter")))
        await self._check_done(name, answer, want.strip())
        self.tally.moves += 1
        self.tally.by_autocomplete += 1

    async def _command_move(self, name: str, command: str, what: str) -> None:
        ui = self.ui
        answer = await ui.step(f"{name}: {command}", ui.private_after(ui.send(command)))
        await self._check_done(name, answer, command)
        self.tally.moves += 1
        self.tally.by_autocomplete += 1

    async def _check_done(self, name: str, answer: Any, what: str) -> None:
        text = await answer.inner_text()
        if "✅" not in text:
            raise Stuck(f"{name}: {what} was not done; the bot answered: "
                        f"{text.replace(chr(10), ' | ')[:400]}")
        self._last_answer = text
        await self.ui.dismiss(answer)

    async def _over_or_not_mine(self) -> bool:
        text = getattr(self, "_last_answer", "")
        return "The game is over." in text or "opponent's turn" in text or "'s turn." in text

    # ------------------------------------------------------------------ the hand's menu

    async def turn_by_menu(self, name: str) -> None:
        """Moves through the hand's menu and buttons (opened with the board's Show my hand)."""
        ui = self.ui
        page = ui.page
        board_button = page.locator(".message", has=page.locator(".embed-description",
                                                                  has_text="to play")).last \
            .get_by_role("button", name="Show my hand")
        hand = await ui.step(f"{name}: Show my hand (the board's button)",
                             ui.private_after(board_button.click()))
        hand_id = await hand.get_attribute("data-id")
        hand = page.locator(f'.message[data-id="{hand_id}"]')
        while True:
            text = await hand.inner_text()
            if "The game is over." in text or "opponent's turn" in text or "'s turn." in text:
                await ui.dismiss(hand)
                return
            menu = hand.locator("select.select-menu")
            if not await menu.count():
                pass_button = hand.get_by_role("button", name="Pass (end turn)")
                if await pass_button.count():
                    await self._click_move(name, hand, pass_button, "Pass (end turn)")
                    self.tally.passes += 1
                    await ui.dismiss(hand)
                    return
                raise Stuck(f"{name}'s hand has no menu and no Pass, and doesn't say the turn "
                            f"is over: {text.replace(chr(10), ' | ')[:400]}")
            options: list[dict[str, str]] = await menu.locator("option").evaluate_all(
                "els => els.filter(e => e.value).map(e => ({value: e.value, "
                "text: e.textContent}))")
            parsed = []
            for o in options:
                where = re.search(r"to ([CS0-9, ]+)$", o["text"])
                targets = [t.strip() for t in where.group(1).split(",")] if where else []
                parsed.append((o["value"], o["text"], targets))
            centre = [p for p in parsed if any(t.startswith("C") for t in p[2])]
            if centre:
                token, label, _ = min(centre, key=lambda p: source_order(p[0], ui.rules))
                kind = "Centre"
            else:
                hand_cards = [p for p in parsed if any(t.startswith("S") for t in p[2])
                              and "from hand" in p[1]]
                if not hand_cards:
                    pass_button = hand.get_by_role("button", name="Pass (end turn)")
                    if await pass_button.count():
                        await self._click_move(name, hand, pass_button, "Pass (end turn)")
                        self.tally.passes += 1
                        await ui.dismiss(hand)
                        return
                    raise Stuck(f"{name}: the menu offers {parsed} but nothing to play or "
                                "discard, and no Pass button")
                token, label, _ = min(hand_cards, key=lambda p: discard_order(p[0], ui.rules))
                kind = "Side"
            await ui.step(f"{name}: choose {label!r} in the hand's menu",
                          self._choose(hand, token))
            buttons: list[str] = await hand.locator('button[data-custom-id^="sm:mv:"]') \
                .evaluate_all("els => els.map(e => e.textContent)")
            wanted = [b for b in buttons if b.startswith(kind)]
            if not wanted:
                raise Stuck(f"{name}: after choosing {label!r} the buttons are {buttons}, none "
                            f"{kind}")
            if kind == "Side":
                wanted.sort(key=lambda b: side_preference(token, b))
            button = hand.locator('button[data-custom-id^="sm:mv:"]', has_text=wanted[0]).first
            await self._click_move(name, hand, button, f"{label} → {wanted[0]}")
            if kind == "Side":
                await ui.dismiss(hand)
                return

    async def _choose(self, hand: Any, token: str) -> None:
        await hand.locator("select.select-menu").select_option(token)
        await hand.locator('button[data-custom-id^="sm:mv:"]').first.wait_for()
        await hand.get_by_text("to…").first.wait_for()

    async def _click_move(self, name: str, hand: Any, button: Any, what: str) -> None:
        ui = self.ui

        async def click() -> None:
            await button.click()
            # The hand is edited in place: the move's ✅, and the buttons give way to the menu.
            await ui.page.wait_for_function(
                "(id) => { const m = document.querySelector(`.message[data-id=\"${id}\"]`);"
                " return m && m.innerText.includes('✅') && !m.innerText.includes('to…'); }",
                arg=await hand.get_attribute("data-id"))

        await ui.step(f"{name}: click {what!r}", click())
        self.tally.moves += 1
        self.tally.by_menu += 1


# ---------------------------------------------------------------------- a whole game

TURN = re.compile(r"▶ (.+?) to play · turn (\d+)")


async def play_out(ui: Page, tally: Tally, players: set[str], thread: str,
                   turn_timeout: float) -> None:
    """Play every turn of ``players`` (switching the page to whoever is on turn) until the
    board says the game (match) is over."""
    player = Player(ui, tally)
    done = (0, 0)  # (game of the match, turn) last played

    def where(board: tuple[str, str]) -> tuple[int, int]:
        game = re.search(r"· game (\d+) ·", board[0])
        m = TURN.match(board[1])
        return (int(game.group(1)) if game else 1, int(m.group(2)) if m else 0)

    while True:
        title, status = await ui.wait_board(
            lambda b, done=done: b[1].startswith("🏆") or (
                (m := TURN.match(b[1])) is not None and where(b) > done
                and m.group(1) in players),
            f"{' or '.join(sorted(players))}'s turn (after game/turn {done}) or the end",
            turn_timeout)
        if status.startswith("🏆"):
            tally.ended = time.monotonic()
            tally.final_board = f"{title} — {status}"
            return
        m = TURN.match(status)
        assert m is not None
        name, number = m.group(1), int(m.group(2))
        if where((title, status))[0] > done[0] > 0:  # a game of the match is over
            log(f"  a game of the match is over; the board now says: {title}")
            tally.games_in_match += 1
        ui.rules = "kings" if "· kings" in title else "classic"
        if ui.me != name:
            await ui.switch_to(name)
            if thread not in await ui.channel_name():
                await ui.open_channel(thread)
            continue  # read the board again, as the new person sees it
        count = tally.turns.get(name, 0) + 1
        tally.turns[name] = count
        via = "autocomplete" if count % 2 == 1 else "menu"
        if sum(tally.turns.values()) % 10 == 1:
            log(f"  turn {number} ({title.split('·', 2)[-1].strip()}): {name} plays by {via}; "
                f"{tally.moves} moves so far")
        if via == "autocomplete":
            await player.turn_by_autocomplete(name)
        else:
            await player.turn_by_menu(name)
        done = where((title, status))


async def message_ids(ui: Page, text: str) -> list[str]:
    """The ids of the messages in the channel shown that contain ``text``."""
    ids: list[str] = await ui.page.locator(".message", has_text=text).evaluate_all(
        "els => els.map(e => e.dataset.id)")
    return ids


async def new_message(ui: Page, text: str, before: list[str], what: str,
                      private_before: int | None = None) -> Any:
    """Wait for a message containing ``text`` that isn't one of ``before``; return it."""
    if private_before is None:
        private_before = await ui.page.locator(".message.ephemeral").count()

    async def wait() -> str:
        while True:
            fresh = [i for i in await message_ids(ui, text) if i not in before]
            if fresh:
                return fresh[-1]
            private = ui.page.locator(".message.ephemeral")
            if await private.count() > private_before and not await private.last.locator(
                    ".loading").count():
                said = (await private.last.inner_text()).replace("\n", " | ")
                raise Stuck(f"{what}: the bot answered privately instead: {said[:400]}")
            await asyncio.sleep(0.2)
    message_id = await ui.step(what, wait())
    return ui.page.locator(f'.message[data-id="{message_id}"]')


async def result_message(ui: Page, channel: str, before: list[str]) -> str:
    """The new result in the channel where the challenge was made."""
    await ui.open_channel(channel)
    message = await new_message(ui, "is over.", before, "the result message in #" + channel)
    return str(await message.inner_text())


async def game_vs_computer(ui: Page, rules: str, turn_timeout: float) -> Tally:
    tally = Tally(f"Alice vs the computer ({rules}, easy)")
    log(f"== {tally.name}")
    await ui.switch_to("Alice")
    await ui.open_channel("general")
    results_before = await message_ids(ui, "is over.")
    said_before = await message_ids(ui, "is playing against the computer")
    private_before = await ui.page.locator(".message.ephemeral").count()
    await ui.step("Alice's /challenge", ui.send(
        f"/challenge opponent:Spite & Malice rules:{rules} level:easy"))
    said = await new_message(ui, "is playing against the computer", said_before,
                             "the bot's answer to the challenge", private_before)
    log("  the bot: " + (await said.locator(".content").inner_text()).strip())
    thread = f"Alice vs Computer · {rules}"
    await ui.step("the game's thread in the side list",
                  ui.page.locator(".channel.thread:not(.archived)", has_text=thread)
                  .last.wait_for())
    await ui.step("open the game's thread", ui.page.locator(
        ".channel.thread:not(.archived)", has_text=thread).last.click())
    tally.started = time.monotonic()
    await play_out(ui, tally, {"Alice"}, thread, turn_timeout)
    tally.result = await result_message(ui, "general", results_before)
    return tally


async def game_vs_bob(ui: Page, rules: str, turn_timeout: float) -> Tally:
    tally = Tally(f"Alice vs Bob ({rules})")
    log(f"== {tally.name}")
    await ui.switch_to("Alice")
    await ui.open_channel("general")
    results_before = await message_ids(ui, "is over.")
    challenges_before = await message_ids(ui, "A challenge!")
    private_before = await ui.page.locator(".message.ephemeral").count()
    await ui.step("Alice's /challenge", ui.send(f"/challenge opponent:Bob rules:{rules}"))
    await new_message(ui, "A challenge!", challenges_before, "the challenge in #general",
                      private_before)
    await ui.switch_to("Bob")
    await ui.open_channel("general")
    challenge = await new_message(ui, "A challenge!", challenges_before,
                                  "Bob sees the challenge")
    log("  Bob sees: " + (await challenge.inner_text()).replace("\n", " | ")[:300])
    accept = challenge.get_by_role("button", name="Accept")
    await ui.step("Bob presses Accept", accept.click())
    await ui.step("the challenge says accepted", challenge.filter(has_text="accepted").wait_for())
    thread = "Alice vs Bob"
    located = ui.page.locator(".channel.thread:not(.archived)", has_text=thread).last
    await ui.step("the game's thread in the side list", located.wait_for())
    await ui.step("open the game's thread", located.click())
    tally.started = time.monotonic()
    await play_out(ui, tally, {"Alice", "Bob"}, thread, turn_timeout)
    tally.result = await result_message(ui, "general", results_before)
    return tally


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the address python -m bot sandbox printed")
    parser.add_argument("--games", default="classic-cpu,classic-pvp",
                        help="comma-separated: classic-cpu, kings-cpu, classic-pvp, kings-pvp "
                             "(a kings match to 50 points takes several games, ~5 min each)")
    parser.add_argument("--step-timeout", type=float, default=STEP_TIMEOUT)
    parser.add_argument("--turn-timeout", type=float, default=60.0,
                        help="seconds to wait for the other side's (computer's) turn")
    parser.add_argument("--shot", default="/tmp/whole_game_stuck.png")
    args = parser.parse_args()
    url = args.url if args.url.endswith("/") else args.url + "/"

    from playwright.async_api import async_playwright

    results: list[Tally] = []
    started = time.monotonic()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        context = await browser.new_context(viewport={"width": 1280, "height": 900})
        context.set_default_timeout(args.step_timeout * 1000)
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        ui = Page(page, url, args.step_timeout)
        await ui.step("load the page as Alice", ui.open_as("Alice"))
        try:
            for game in args.games.split(","):
                rules, kind = game.split("-")
                if kind == "cpu":
                    tally = await game_vs_computer(ui, rules, args.turn_timeout)
                else:
                    tally = await game_vs_bob(ui, rules, args.turn_timeout)
                results.append(tally)
                log(tally.line())
                log("  final board: " + tally.final_board)
                log("  result on the page: " + tally.result.replace("\n", " | "))
        except Stuck as exc:
            print(f"\nSTUCK: {exc}")
            await ui.diagnose(args.shot)
            if errors:
                print("page errors:", errors)
            await browser.close()
            return 1
        if errors:
            print("page errors:", errors)
        await browser.close()
    print("\n==== summary ====")
    for tally in results:
        print(tally.line())
        print("   result:", tally.result.replace("\n", " | "))
    print(f"total wall time {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
