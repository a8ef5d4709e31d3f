"""End to end (issue 34): four people play for stakes, a plan settles them in the fewest
payments. Three accept and the fourth refuses: nothing changes. A new plan all accept: it is
netted, each person's total as before; the one planned payment is settled with ``/settle`` and
confirmed by the receiver, and everyone is square. Then the same with the real bot process
killed (SIGKILL) between two acceptances: every acceptance acknowledged is kept, and the plan
is netted once.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from PIL import Image

from bot.sandbox import FakeDiscord
from bot.sandbox.interactions import InteractionRecord
from bot.sandbox.models import FakeMessage
from tests.dbtools import run_sql

from .conftest import World
from .test_crash import Bot

Between = Callable[[], Awaitable[None]]


async def _nothing() -> None:
    return None


async def reply(fake: FakeDiscord, actor: Any, channel: Any, command: str, /,
                **options: Any) -> FakeMessage:
    return await (await fake.slash(actor, channel, command, **options)).message(timeout=15)


async def staked_game(fake: FakeDiscord, channel: Any, winner: Any, loser: Any) -> None:
    """``winner`` challenges ``loser`` for $4 a game; ``loser`` accepts and resigns."""
    challenge = await reply(fake, winner, channel, "challenge", opponent=loser, rules="classic",
                            stake="4", per_card="0")
    assert "$4.00 to the winner" in challenge.text(), challenge.text()
    accept = next(c for c in challenge.custom_ids() if c.endswith(":accept"))
    await (await fake.click(loser, challenge, accept)).settled(timeout=15)
    question = await reply(fake, loser, channel, "resign")
    assert question.ephemeral and "$4.00" in question.content, question.content
    confirm = next(c for c in question.custom_ids() if c.startswith("sm:rs:"))
    await (await fake.click(loser, question, confirm)).settled(timeout=15)


async def balances(fake: FakeDiscord, channel: Any, user: Any) -> str:
    return (await reply(fake, user, channel, "ledger")).content


async def propose(fake: FakeDiscord, channel: Any, user: Any) -> FakeMessage:
    """``user`` runs /ledger-plan: the private note, then the public plan."""
    inter = await fake.slash(user, channel, "ledger-plan")
    note = await inter.message(timeout=15)
    assert note.ephemeral and "is posted below" in note.content, note.content
    plan = (await inter.wait_followups(timeout=15))[-1]
    assert not plan.ephemeral and plan.attachments[0].filename == "plan.png"
    with Image.open(_png(plan)) as picture:
        picture.verify()
    return plan


def _png(message: FakeMessage) -> io.BytesIO:
    return io.BytesIO(message.attachments[0].data)


def button(plan: FakeMessage, action: str) -> str:
    return next(c for c in plan.custom_ids() if c.endswith(":" + action))


async def press(fake: FakeDiscord, user: Any, plan: FakeMessage, action: str,
                force: bool = False) -> FakeMessage:
    """``user`` presses a button of the plan; his private answer."""
    inter: InteractionRecord = await fake.click(user, plan, button(plan, action), force=force)
    answer = await inter.message(timeout=15)
    assert answer.ephemeral, answer.content
    return answer


async def four_people_settle_up(fake: FakeDiscord, channel: Any, people: dict[str, Any],
                                between_accepts: Between, database: str) -> None:
    alice, bob, carol, dave = (people[n] for n in ("alice", "bob", "carol", "dave"))
    erin = people["erin"]
    # Bob owes Alice $4, Carol owes Bob $4, Dave owes Carol $4: three payments as it is; Dave
    # paying Alice $4 settles everyone.
    await staked_game(fake, channel, alice, bob)
    await staked_game(fake, channel, bob, carol)
    await staked_game(fake, channel, carol, dave)
    before = {n: await balances(fake, channel, p) for n, p in people.items() if n != "erin"}
    assert f"<@{alice.id}>: you owe $4.00" in before["bob"]

    # A plan, three accepts, the fourth refuses.
    plan = await propose(fake, channel, alice)
    text = plan.content
    assert f"<@{dave.id}> pays <@{alice.id}> **$4.00**" in text and "1 payment instead of 3" in text
    assert "The fewest payments possible." in text
    assert (f"Net positions: <@{alice.id}> is owed $4.00 · <@{dave.id}> owes $4.00 · 2 square"
            in text), text
    mine = await press(fake, bob, plan, "mine")
    assert (f"Your $4.00 to <@{alice.id}> and $4.00 from <@{carol.id}> become nothing"
            in mine.content), mine.content
    mine = await press(fake, dave, plan, "mine")
    assert f"Your $4.00 to <@{carol.id}> becomes $4.00 to <@{alice.id}>" in mine.content
    for user in (alice, bob, carol):
        answer = await press(fake, user, plan, "accept")
        assert "You accepted plan" in answer.content, answer.content
    answer = await press(fake, bob, plan, "accept")
    assert "already accepted" in answer.content and f"<@{dave.id}>" in answer.content
    answer = await press(fake, erin, plan, "accept")
    assert "doesn't change your balances" in answer.content
    answer = await press(fake, erin, plan, "refuse")
    assert "only the people whose balances it changes" in answer.content
    answer = await press(fake, bob, plan, "withdraw")
    assert f"Only <@{alice.id}>, who proposed" in answer.content
    answer = await press(fake, dave, plan, "refuse")
    assert "You refused plan" in answer.content
    await fake.wait_for(lambda: "was refused by" in plan.content, timeout=15,
                        description="the plan says it was refused")
    answer = await press(fake, carol, plan, "accept", force=True)  # an old client's click
    assert "refused" in answer.content and "Nothing was changed" in answer.content
    for name, user in people.items():
        if name != "erin":
            assert await balances(fake, channel, user) == before[name]

    # A new plan: everyone accepts (the test may kill the bot between two acceptances).
    plan = await propose(fake, channel, bob)
    assert f"<@{dave.id}> pays <@{alice.id}> **$4.00**" in plan.content
    for user in (dave, carol):
        assert "You accepted plan" in (await press(fake, user, plan, "accept")).content
    await between_accepts()
    answer = await press(fake, carol, plan, "accept")
    assert "already accepted" in answer.content  # kept through the kill
    assert "You accepted plan" in (await press(fake, bob, plan, "accept")).content
    answer = await press(fake, alice, plan, "accept")
    assert "the last to: it is netted" in answer.content, answer.content
    await fake.wait_for(lambda: "netted in the notebook" in plan.content, timeout=15,
                        description="the plan says it is netted")
    answer = await press(fake, alice, plan, "accept", force=True)
    assert "accepted by everyone" in answer.content
    assert "you owe $4.00" in await balances(fake, channel, dave)
    assert "square" in await balances(fake, channel, bob)
    history = await reply(fake, bob, channel, "ledger", user=alice)
    assert "Netted by plan #2" in history.content, history.content

    # The planned payment, settled as today.
    inter = await fake.slash(dave, channel, "settle", user=alice, amount="4")
    await inter.message(timeout=15)
    pending = (await inter.wait_followups(timeout=15))[-1]
    confirm = next(c for c in pending.custom_ids() if c.endswith(":yes"))
    await (await fake.click(alice, pending, confirm)).wait_edit(timeout=15)
    assert "confirmed" in pending.content
    for name, user in people.items():
        if name == "erin":
            continue
        text = await balances(fake, channel, user)
        assert "you owe" not in text and "owes you" not in text, (name, text)
    nobody = await reply(fake, erin, channel, "ledger-plan")
    assert nobody.ephemeral and "Nobody in this server owes anyone anything" in nobody.content

    # In the database: netted once, every pair square.
    rows = await run_sql(database, "SELECT COUNT(*) FROM pair_balances WHERE owed_cents <> 0")
    assert int(rows[0][0]) == 0
    rows = await run_sql(database, "SELECT COUNT(*) FROM ledger WHERE kind = 'netting'")
    assert int(rows[0][0]) == 4  # one per changed pair: A-B, B-C, C-D and A-D


async def test_four_people_refuse_then_accept_a_plan_and_settle_to_zero(
        world: World, no_error_logs) -> None:
    fake = world.fake
    people = {"alice": world.alice, "bob": world.bob}
    for name in ("carol", "dave", "erin"):
        people[name] = fake.add_member(world.guild, name)
    await four_people_settle_up(fake, world.channel, people, _nothing, str(world.db))
    await world.settle()


async def test_a_bot_killed_between_two_acceptances_nets_the_plan_once(
        tmp_path: Path, database: str) -> None:
    fake = FakeDiscord(token="plan-crash-token-" + "z" * 40)
    await fake.start()
    guild = fake.add_guild("Test Guild", channels=("general",))
    channel = guild.channel("general")
    people = {name: fake.add_member(guild, name)
              for name in ("alice", "bob", "carol", "dave", "erin")}
    bot = Bot(fake, tmp_path, database)

    async def kill_and_restart() -> None:
        await bot.kill()
        await bot.start()

    try:
        await bot.start()
        await four_people_settle_up(fake, channel, people, kill_and_restart, database)
        logs = bot.logs()
        assert "Traceback" not in logs, logs[-3000:]
    finally:
        if bot.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                bot.proc.kill()
            await bot.proc.wait()
        await fake.stop()


async def test_a_plan_expires_or_turns_void_and_its_message_says_so(world: World,
                                                                     no_error_logs) -> None:
    fake, channel, alice, bob = world.fake, world.channel, world.alice, world.bob
    carol = fake.add_member(world.guild, "carol")
    owner = world.guild.members[world.guild.owner_id]
    answer = await reply(fake, owner, channel, "settings", plan_expiry_hours=2.0)
    assert "plan (`/ledger-plan`) expires after **2 h**" in answer.content, answer.content
    answer = await reply(fake, alice, channel, "settings", plan_expiry_hours=3.0)
    assert "Manage Server" in answer.content
    answer = await reply(fake, alice, channel, "ledger-plan", members="@zed <@1>")
    assert answer.ephemeral and "`@zed` isn't a member" in answer.content
    answer = await reply(fake, alice, channel, "ledger-plan", members=f"<@{bob.id}>")
    assert "at least two members" in answer.content
    await staked_game(fake, channel, alice, bob)
    await staked_game(fake, channel, bob, carol)
    answer = await reply(fake, alice, channel, "ledger-plan",
                         members=f"<@{alice.id}> <@{carol.id}>")
    assert "None of these members owes another" in answer.content
    answer = await reply(fake, alice, channel, "ledger-plan", members=f"@alice <@{carol.id}>")
    assert "None of these members owes another" in answer.content  # a name known to the bot
    # A plan, then a game between two of its people: void, and the message says so.
    plan = await propose(fake, channel, alice)
    assert "Waiting for" in plan.content
    await press(fake, bob, plan, "accept")
    await staked_game(fake, channel, carol, alice)
    await fake.wait_for(lambda: "is void: a balance between its members changed" in plan.content,
                        timeout=15, description="the plan says it is void after the game")
    answer = await press(fake, alice, plan, "accept", force=True)
    assert "is void" in answer.content and "Nothing was changed" in answer.content
    # A payment voids a plan at once, and its message says so.
    plan = await propose(fake, channel, bob)
    inter = await fake.slash(alice, channel, "settle", user=bob, amount="1")
    await inter.message(timeout=15)
    await fake.wait_for(lambda: "is void" in plan.content, timeout=15,
                        description="the plan says it is void after a payment")
    # A plan left to expire.
    plan = await propose(fake, channel, carol)
    world.clock.now += 2 * 3600
    answer = await press(fake, alice, plan, "accept")  # found expired by the click
    assert "expired before everyone accepted it" in answer.content
    await fake.wait_for(lambda: "expired before everyone" in plan.content, timeout=15,
                        description="the plan says it expired")
    plan = await propose(fake, channel, carol)
    world.clock.now += 2 * 3600
    assert world.bot is not None
    await world.bot.tick()  # found expired by the housekeeping round
    assert "expired before everyone" in plan.content
    answer = await press(fake, alice, plan, "accept", force=True)
    assert "expired before everyone accepted it" in answer.content
    await world.settle()
