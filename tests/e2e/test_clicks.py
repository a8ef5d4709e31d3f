"""End to end: every click and every command gets an answer, even one the bot never made.

Discord sends a click back with the ``custom_id`` its message was posted with, by whichever
version of the bot posted it (a challenge a week old, a payment waiting to be confirmed), and a
modified client sends anything. discord.py drops a click that no ``DynamicItem`` template
reads without a word (the player sees "This interaction failed"), and passes an option value
of the wrong type on to the command as it came. Each test here sends such an interaction and
checks that a private answer arrives within Discord's 3 s, that nothing changed (the database,
the message), that it was logged once at INFO, and (``no_error_logs``) never at ERROR.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
import sqlite3
from contextlib import closing
from typing import Any

import pytest

from bot.app import custom_ids, invitations, ui
from bot.app.client import INTERACTION_TASKS
from bot.app.cogs import history_commands, money_commands
from bot.sandbox import ErrorLogGuard, FakeMessage, InteractionRecord

from .conftest import World, option_targets, select_options
from .test_bot_play import hand, live_game, start_challenge
from .test_money import _staked_game_resigned, public_reply

WITHIN = 3.0
"""Discord's limit for the first answer, in seconds."""

TEMPLATES = [factory.__discord_ui_compiled_template__ for factory in
             (*ui.DYNAMIC_ITEMS, *invitations.DYNAMIC_ITEMS, *money_commands.DYNAMIC_ITEMS,
              *history_commands.DYNAMIC_ITEMS)]


def read_by_a_template(custom_id: str) -> bool:
    return any(t.fullmatch(custom_id) for t in TEMPLATES)


async def database(world: World) -> dict[str, list[Any]]:
    """Every row of every table of the bot's database, once no command or click still runs
    (a command saves what it posted after answering)."""
    busy = (*INTERACTION_TASKS, "discord.py: on_interaction")

    def quiet() -> bool:
        return not any(t.get_name().startswith(busy) and not t.done()
                       for t in asyncio.all_tasks())
    await world.fake.wait_for(quiet, timeout=10, description="no interaction running")
    await world.settle()
    with closing(sqlite3.connect(f"file:{world.db}?mode=ro", uri=True)) as db:
        tables = [row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {t: sorted(map(repr, db.execute(f'SELECT * FROM "{t}"'))) for t in tables}


def unread_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "bot.app.ui" and "doesn't read" in
            r.getMessage()]


def outdated(what: str = "button", instead: str = "/board or /games") -> str:
    return (f"This {what} is from an older version of the game and no longer works: "
            f"use {instead}.")


async def posted_challenge(world: World) -> FakeMessage:
    """Alice's challenge to Bob, not yet answered."""
    inter = await world.fake.slash(world.alice, world.channel, "challenge", opponent=world.bob)
    message = await inter.message()
    assert "A challenge!" in message.text()
    return message


def challenge_id(message: FakeMessage) -> int:
    accept = next(c for c in message.custom_ids() if c.endswith(":accept"))
    return int(accept.split(":")[-2])


def answered_twice(world: World) -> list[InteractionRecord]:
    """Interactions the bot answered more than once (Discord refuses the second answer: the
    fallback and discord.py's own dispatch must never both answer)."""
    return [i for i in world.fake.interactions if i.rejected_callbacks]


async def answered_privately(inter: InteractionRecord, user: Any) -> FakeMessage:
    reply = await inter.message(timeout=WITHIN)
    assert inter.latency is not None and inter.latency < WITHIN
    assert reply.ephemeral and reply.visible_to == user.id, reply
    return reply


# ---------------------------------------------------------------------- ids no template reads


UNREAD = [
    ("sm:ch:{c}:ACCEPT", "/board or /games"),
    ("sm:ch:{c}:accept ", "/board or /games"),      # a trailing space
    ("sm:ch:{c}:delete", "/board or /games"),
    ("sm:ch:v1:{c}:Accept", "/board or /games"),
    ("SM:CH:{c}:ACCEPT", "/board or /games"),
    ("sm:ch:{c}", "/board or /games"),              # a part missing
    ("sm:ch:{c}:accept:again", "/board or /games"),  # a part too many
    ("sm:ch:0{c}:accept", "/board or /games"),      # a leading zero
    ("sm:ch:{c}:accept\n", "/board or /games"),
    ("sm:ch:99999999999999999999:accept", "/board or /games"),  # beyond any row's id
    ("sm:hand:" + "9" * 92, "/board or /games"),    # 100 characters, a number too large
    ("sm:hand:١٢", "/board or /games"),             # digits, but not ASCII ones
    ("sm:pay:1:maybe", "/ledger"),
    ("sm:h2h:1:2:x", "/ledger"),
    ("sm:plan:v1:1:maybe", "/ledger-plan"),
    ("sm:rp:1:0:middle", "/history or /replay"),
    ("sm:" + "z" * 97, "/board or /games"),         # 100 characters, no kind the bot has
    ("#&!%?", "/board or /games"),
    (" ", "/board or /games"),
    ("x" * 100, "/board or /games"),
]


async def test_a_button_no_template_reads_is_answered_privately_and_changes_nothing(
        world: World, no_error_logs: ErrorLogGuard, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot")
    challenge = await posted_challenge(world)
    number = challenge_id(challenge)
    rows, edits = await database(world), len(challenge.history)
    for pattern, instead in UNREAD:
        custom_id = pattern.format(c=number)
        assert len(custom_id) <= 100 and not read_by_a_template(custom_id), custom_id
        caplog.clear()
        inter = await world.fake.people.component(world.bob, challenge, {"custom_id": custom_id})
        reply = await answered_privately(inter, world.bob)
        assert reply.content == outdated(instead=instead), (custom_id, reply.content)
        lines = unread_lines(caplog)
        assert [r.levelno for r in lines] == [logging.INFO], (custom_id, lines)
        assert custom_id.strip() not in lines[0].getMessage() or len(custom_id.strip()) < 3
    await world.settle()
    assert await database(world) == rows, "nothing changed"
    assert answered_twice(world) == []
    assert len(challenge.history) == edits, "the challenge was not edited"


async def test_a_menu_no_template_reads_is_answered_as_a_menu(
        world: World, no_error_logs: ErrorLogGuard) -> None:
    await start_challenge(world, "kings")
    live = live_game(world)
    user = world.alice if live.on_turn == world.alice.id else world.bob
    message = await hand(world, user)
    rows, version = await database(world), live.version
    for custom_id in (f"sm:src:{live.id}", f"sm:src:{live.id}:{live.version}:x", "sm:menu:1",
                      f"sm:SRC:{live.id}:{live.version}"):
        inter = await world.fake.people.component(user, message, {
            "custom_id": custom_id, "component_type": 3, "values": ["7H"]})
        reply = await answered_privately(inter, user)
        assert reply.content == outdated("menu"), reply.content
    await world.settle()
    assert await database(world) == rows and live.version == version
    assert answered_twice(world) == []


async def test_a_button_from_a_newer_version_asks_to_try_again(
        world: World, no_error_logs: ErrorLogGuard) -> None:
    # While a new version is rolled out over several processes, an older one may get a click
    # on a button the newer one posted.
    challenge = await posted_challenge(world)
    rows, edits = await database(world), len(challenge.history)
    newer = custom_ids.CURRENT + 1
    inter = await world.fake.people.component(world.bob, challenge, {
        "custom_id": f"sm:ch:v{newer}:{challenge_id(challenge)}:accept:now"})
    reply = await answered_privately(inter, world.bob)
    assert "newer version" in reply.content and "try again in a minute" in reply.content
    await world.settle()
    assert await database(world) == rows and len(challenge.history) == edits
    assert answered_twice(world) == []


async def test_a_menu_its_message_no_longer_shows_still_answers(
        world: World, no_error_logs: ErrorLogGuard) -> None:
    # Choosing a card replaces the menu with the card's targets; a second choice made a moment
    # before reaches the bot after that. discord.py drops it (the menu isn't shown any more).
    await start_challenge(world, "kings")
    live = live_game(world)
    user = world.alice if live.on_turn == world.alice.id else world.bob
    message = await hand(world, user)
    menu = next(c for c in message.custom_ids() if c.startswith("sm:src:"))
    first, second = select_options(message)[:2]
    await (await world.fake.select(user, message, menu, [first["value"]])).settled()
    assert menu not in message.custom_ids()
    inter = await world.fake.people.component(user, message, {
        "custom_id": menu, "component_type": 3, "values": [second["value"]]})
    await inter.response(timeout=WITHIN)
    edited = await inter.settled()
    assert edited is message and second["label"].lstrip("❗ ") in message.content
    assert answered_twice(world) == []


# ---------------------------------------------------------------------- ids of version 0


def as_posted_before_versions(message: FakeMessage) -> list[str]:
    """Rewrite ``message``'s ids as a bot from before versioned ids posted them; the ids."""
    for component in message.iter_components():
        if "custom_id" in component:
            component["custom_id"] = re.sub(r"^(sm:[a-z0-9]+):v1(?=:|$)", r"\1",
                                            component["custom_id"])
    return message.custom_ids()


async def test_ids_posted_before_versions_still_work(world: World,
                                                     no_error_logs: ErrorLogGuard) -> None:
    fake = world.fake
    # The challenge: Accept.
    challenge = await posted_challenge(world)
    number = challenge_id(challenge)
    assert f"sm:ch:v1:{number}:accept" in challenge.custom_ids(), "new ids carry a version"
    assert f"sm:ch:{number}:accept" in as_posted_before_versions(challenge)
    await (await fake.click(world.bob, challenge, f"sm:ch:{number}:accept")).settled()
    assert "accepted" in challenge.content
    await fake.wait_for(lambda: world.boards(), timeout=30, description="first board")
    await world.settle()
    live = live_game(world)
    user = world.alice if live.on_turn == world.alice.id else world.bob
    # The board: Show my hand, shown, and shown no more (a board closed a moment before).
    board = world.boards()[-1]
    reply = await (await fake.click(user, board, f"sm:hand:{live.id}", force=True)).message()
    assert reply.ephemeral and select_options(reply)
    as_posted_before_versions(board)
    reply = await (await fake.click(user, board, f"sm:hand:{live.id}")).message()
    assert reply.ephemeral and select_options(reply)
    # The hand: the card menu, then a target.
    message = await hand(world, user)
    as_posted_before_versions(message)
    option = select_options(message)[0]
    menu = f"sm:src:{live.id}:{live.version}"
    await (await fake.select(user, message, menu, [option["value"]])).settled()
    target = option_targets(option)[0]
    move = next(c for c in as_posted_before_versions(message)
                if c.endswith(f":{option['value']}>{target}"))
    assert move == f"sm:mv:{live.id}:{live.version}:{option['value']}>{target}"
    version = live.version
    edited = await (await fake.click(user, message, move)).settled()
    assert edited.content.startswith("✅") and live.version == version + 1
    assert answered_twice(world) == []


async def test_payment_and_history_ids_posted_before_versions_still_work(
        world: World, no_error_logs: ErrorLogGuard) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    await _staked_game_resigned(world, "0.50", "0.05")
    pending = await public_reply(await fake.slash(bob, world.channel, "settle", user=alice,
                                                  amount="0.20"))
    confirm = next(c for c in as_posted_before_versions(pending) if c.endswith(":yes"))
    assert re.fullmatch(r"sm:pay:\d+:yes", confirm)
    await (await fake.click(alice, pending, confirm)).wait_edit()
    assert "confirmed" in pending.content
    page = await (await fake.slash(alice, world.channel, "history")).message()
    assert "sm:histr" in as_posted_before_versions(page)
    game = live_game(world).id
    replay = await (await fake.select(alice, page, "sm:histr", [str(game)])).message()
    assert replay.ephemeral and f"Replay of game #{game}" in replay.text()
    step = next(c for c in as_posted_before_versions(replay) if c.endswith(":next"))
    assert re.fullmatch(rf"sm:rp:{game}:1:next", step)
    edited = await (await fake.click(alice, replay, step)).settled()
    assert "Position 2 of" in edited.text()
    assert answered_twice(world) == []


# ---------------------------------------------------------------------- options


def users_resolved(world: World, *members: Any) -> dict[str, Any]:
    """The ``resolved`` part of a command's payload naming ``members``, as Discord sends it."""
    return {"users": {str(m.id): m.user.payload() for m in members},
            "members": {str(m.id): m.payload(with_user=False) for m in members}}


async def test_option_values_of_the_wrong_type_are_refused_by_name(
        world: World, no_error_logs: ErrorLogGuard, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bot")
    fake, alice, bob = world.fake, world.alice, world.bob
    await _staked_game_resigned(world, "0.50", "0.05")  # Bob owes Alice: she may forgive
    resolved = users_resolved(world, bob)
    user = {"name": "user", "type": 6, "value": str(bob.id)}
    amount = {"name": "amount", "type": 3, "value": "0.05"}
    cases: list[tuple[str, list[dict[str, Any]], str]] = [
        ("settle", [user, amount, {"name": "forgive", "type": 5, "value": "yes"}], "forgive"),
        ("settle", [user, amount, {"name": "forgive", "type": 3, "value": "yes"}], "forgive"),
        ("settle", [user, amount, {"name": "forgive", "type": 5, "value": 1}], "forgive"),
        ("settle", [{**user, "value": "abc"}, amount], "user"),
        ("settle", [{**user, "value": "123456789"}, amount], "user"),  # resolves to nobody
        ("settle", [user, {**amount, "value": 5}], "amount"),
        ("settle", [user], "amount"),  # a required option left out
        ("replay", [{"name": "game", "type": 4, "value": "1"}], "game"),
        ("replay", [{"name": "game", "type": 4, "value": 2**60}], "game"),
        ("replay", [{"name": "game", "type": 4, "value": True}], "game"),
        ("settings", [{"name": "threads", "type": 5, "value": "no"}], "threads"),
        ("settings", [{"name": "reminder_hours", "type": 10, "value": "soon"}],
         "reminder_hours"),
        ("challenge", [{"name": "opponent", "type": 6, "value": "bob"}], "opponent"),
    ]
    rows = await database(world)
    for command, options, name in cases:
        caplog.clear()
        inter = await fake.people.raw_slash(
            alice, world.channel, command, options, resolved=resolved)
        reply = await answered_privately(inter, alice)
        assert f"`{name}`" in reply.content and "Nothing was changed" in reply.content, \
            (command, options, reply.content)
        assert [r.levelno for r in caplog.records if r.name == "bot.app.client"] == \
            [logging.INFO], (command, options)
    inter = await fake.people.raw_slash(alice, world.channel, "help", [], name="spite")
    reply = await answered_privately(inter, alice)
    assert "I have no /spite command" in reply.content and "/help" in reply.content
    # While typing: no suggestions, rather than suggestions from a forged game number.
    inter = await fake.people.raw_slash(alice, world.channel, "play", [
        {"name": "card", "type": 3, "value": "7", "focused": True},
        {"name": "game", "type": 4, "value": "seven"}], autocomplete=True)
    assert await inter.choices() == []
    await world.settle()
    assert await database(world) == rows, "nothing changed"
    assert answered_twice(world) == []
    assert not [m for m in world.public() if "forgave" in m.content]


# ---------------------------------------------------------------------- fuzz


def _mutations(rng: random.Random, custom_id: str) -> str:
    parts = custom_id.split(":")
    pick = rng.randrange(12)
    if pick == 0:
        return custom_id.upper()
    if pick == 1:
        return custom_id + rng.choice([" ", "\t", "\n", ":", "x", "0"])
    if pick == 2:
        return rng.choice([" ", "\u200b", "\u00a0"]) + custom_id
    if pick == 3:
        return ":".join(parts[:-1])
    if pick == 4:
        i = rng.randrange(len(parts))
        parts[i] = rng.choice(["", "-1", "01", "9" * 25, "١", "null", "x" * 20, "v9", "%s"])
        return ":".join(parts)
    if pick == 5:
        return custom_id + ":" + rng.choice(["yes", "1", "v1", "accept"])
    if pick == 6:
        return ":".join(parts[:1] + parts[2:])
    if pick == 7:
        return "".join(rng.choice("sm:chv019 aZ_-#é") for _ in range(rng.randrange(1, 30)))
    if pick == 8:
        return (custom_id * 10)[:100]
    if pick == 9:
        return custom_id.replace(":", rng.choice([";", "::", "/", ""]), 1)
    if pick == 10:
        return "sm:" + rng.choice(["ch", "hand", "pay", "mv", "src", "rp", "hist", "h2h",
                                    "nope"]) + ":v" + str(rng.randrange(2, 99)) + ":1"
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789:") for _ in range(100))


def _renumbered(rng: random.Random, custom_id: str) -> str:
    """The same kind of id with other numbers: read by its template, naming someone else's
    things (or nothing at all)."""
    return re.sub(r"(?<=:)\d+(?=:|$)", lambda m: str(rng.choice(
        [0, 1, 2, 7, 99999, 2**62, int(m.group()) + 1])), custom_id)


WRONG = {
    3: [5, True, None, 1.5, ["x"], {"a": 1}],
    4: ["5", "abc", True, 1.5, 2**60, -(2**60), None, ""],
    5: ["yes", "true", "False", 1, 0, None, ""],
    10: ["1.5", "nan", True, None, "", "1e3"],
    6: ["abc", "", "-1", "１２", 12345, "9" * 25, True, None],
}
RIGHT = {3: "x", 4: 1, 5: False, 10: 1.0}


async def test_fuzz_every_malformed_click_and_option_is_answered(
        world: World, no_error_logs: ErrorLogGuard) -> None:
    rng = random.Random(21)
    fake, alice, bob = world.fake, world.alice, world.bob
    carol = fake.add_member(world.guild, "carol")
    await _staked_game_resigned(world, "0.50", "0.05")
    pending = await public_reply(await fake.slash(bob, world.channel, "settle", user=alice,
                                                  amount="0.20"))
    challenge = await start_challenge(world, "kings")
    notebook = await (await fake.slash(alice, world.channel, "ledger", user=bob)).message()
    page = await (await fake.slash(alice, world.channel, "history")).message()
    messages = [pending, challenge, world.boards()[-1], notebook, page]
    real = sorted({c for m in messages for c in m.custom_ids()})
    assert {c.split(":")[1] for c in real} >= {"pay", "ch", "hand", "h2h", "csv", "hist"}
    await world.settle()
    rows = await database(world)
    sent = 0
    for _ in range(300):
        message = rng.choice(messages)
        custom_id = _mutations(rng, rng.choice(real))
        if read_by_a_template(custom_id) or not custom_id:
            continue
        data: dict[str, Any] = {"custom_id": custom_id,
                                "component_type": rng.choice([2, 2, 3])}
        if data["component_type"] == 3:
            data["values"] = [rng.choice(["1", "x", "7H", ""])]
        user = rng.choice([alice, bob, carol])
        inter = await fake.people.component(user, message, data)
        reply = await answered_privately(inter, user)
        assert "older version" in reply.content or "newer version" in reply.content, \
            (custom_id, reply.content)
        sent += 1
    assert sent > 250
    # Carol's clicks on ids the templates read, naming things that aren't hers (or nothing).
    for _ in range(80):
        message = rng.choice(messages)
        custom_id = _renumbered(rng, rng.choice(real))
        inter = await fake.people.component(carol, message, {"custom_id": custom_id})
        await inter.response(timeout=WITHIN)
        assert inter.latency is not None and inter.latency < WITHIN
        await inter.settled(timeout=WITHIN)
    # Commands with at least one option of the wrong type, or a required one left out.
    commands = {name: c for name, c in fake.state.commands().items() if c.options}
    resolved = users_resolved(world, bob)
    for _ in range(150):
        command = commands[rng.choice(sorted(commands))]
        options: dict[str, dict[str, Any]] = {}
        wrong = False
        for definition in command.options:
            if rng.random() < 0.5:
                continue
            kind = int(definition["type"])
            if rng.random() < 0.5:
                value: Any = RIGHT.get(kind, str(bob.id))
            else:
                value, wrong = rng.choice(WRONG.get(kind, WRONG[6])), True
            options[definition["name"]] = {"name": definition["name"], "type": kind,
                                           "value": value}
        missing = any(d.get("required") and d["name"] not in options for d in command.options)
        if not (wrong or missing):
            definition = rng.choice(command.options)
            kind = int(definition["type"])
            if rng.random() < 0.5:  # a value of its own type, but the type of another option
                other = rng.choice([k for k in RIGHT if k != kind])
                forged = {"name": definition["name"], "type": other, "value": RIGHT[other]}
            else:
                forged = {"name": definition["name"], "type": kind,
                          "value": rng.choice(WRONG.get(kind, WRONG[6]))}
            options[definition["name"]] = forged
        sent_options = list(options.values())
        rng.shuffle(sent_options)
        inter = await fake.people.raw_slash(carol, world.channel, command.name, sent_options,
                                     resolved=resolved)
        reply = await answered_privately(inter, carol)
        assert "option" in reply.content and "Nothing was changed" in reply.content, \
            (command.name, sent_options, reply.content)
    await world.settle()
    assert await database(world) == rows, "nothing changed"
    assert answered_twice(world) == []
