"""End to end: stakes on a challenge, the ledger entry, settling up, CSV, the leaderboard."""

from __future__ import annotations

import csv
import io
import re

import pytest
from PIL import Image

from bot.money.ledger_service import display_rating
from bot.sandbox.interactions import InteractionRecord
from bot.sandbox.models import FakeMessage

from .conftest import World, quick, select_options, slowed
from .test_bot_play import live_game, resign, start_challenge


async def public_reply(inter: InteractionRecord) -> FakeMessage:
    """The public message a command posts after its private acknowledgement."""
    await inter.message()
    message = (await inter.wait_followups())[-1]
    assert not message.ephemeral
    return message


def _dollars(cents: int) -> str:
    """Money as every reply shows it: always two decimals."""
    return f"${cents // 100:,}.{cents % 100:02d}"


async def _staked_game_resigned(world: World, stake: str, per_card: str) -> int:
    challenge = await start_challenge(world, "classic", stake=stake, per_card=per_card)
    assert "$0.50 to the winner" in challenge.text() and "$0.05 a card" in challenge.text()
    live = live_game(world)
    assert live.terms.stake_cents == 50 and live.terms.per_card_cents == 5
    user = world.alice if live.on_turn == world.alice.id else world.bob
    message = await (await world.fake.slash(user, world.channel, "hand")).message()
    assert select_options(message)
    # Bob resigns: Alice wins the stake plus 5 cents a card left in Bob's pay-off pile.
    await resign(world, world.bob)
    return 50 + 5 * len(live.match.game.payoffs[1])


async def test_staked_game_to_ledger_settlement_csv_and_leaderboard(world: World,
                                                                    no_error_logs) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    owed = await _staked_game_resigned(world, "0.50", ".05")
    dollars = _dollars(owed)
    reply = await (await fake.slash(bob, world.channel, "ledger")).message()
    assert reply.ephemeral and f"you owe {dollars}" in reply.content
    reply = await (await fake.slash(alice, world.channel, "ledger", user=bob)).message()
    assert f"owes you **{dollars}**" in reply.content and "you won" in reply.content
    # Export CSV.
    inter = await fake.click(alice, reply, next(c for c in reply.custom_ids()
                                                if c.startswith("sm:csv:")))
    csv_message = await inter.message()
    data = csv_message.attachments[0].data.decode()
    rows = list(csv.DictReader(io.StringIO(data)))
    assert len(rows) == 1 and rows[0]["kind"] == "game" and rows[0]["amount"] == dollars
    # Bob says he paid 20 cents: Alice must confirm. Carol can't.
    inter = await fake.slash(bob, world.channel, "settle", user=alice, amount="0.20")
    note = await inter.message()
    assert note.ephemeral and f"{dollars} → {_dollars(owed - 20)}" in note.content
    pending = await public_reply(inter)
    assert "Confirm" in pending.text() and "goes down by $0.20" in pending.text()
    carol = fake.add_member(world.guild, "carol")
    confirm_id = next(c for c in pending.custom_ids() if c.endswith(":yes"))
    reply = (await (await fake.click(carol, pending, confirm_id)).wait_followups())[0]
    assert reply.ephemeral and "Only the person who was paid" in reply.content
    await (await fake.click(alice, pending, confirm_id)).wait_edit()
    assert "confirmed" in pending.content
    # A second claim of payment, refused by Alice.
    inter = await fake.slash(bob, world.channel, "settle", user=alice, amount="0.10")
    pending = await public_reply(inter)
    refuse_id = next(c for c in pending.custom_ids() if c.endswith(":no"))
    await (await fake.click(alice, pending, refuse_id)).wait_edit()
    assert "refused" in pending.content
    left = owed - 20
    left_text = _dollars(left)
    reply = await (await fake.slash(bob, world.channel, "ledger")).message()
    assert f"you owe {left_text}" in reply.content
    # Nonsense amounts are refused politely.
    reply = await (await fake.slash(bob, world.channel, "settle", user=alice,
                                    amount="abc")).message()
    assert reply.ephemeral and "isn't an amount" in reply.content
    # The leaderboard, as an image and as text.
    inter = await fake.slash(alice, world.channel, "leaderboard")
    board = await inter.message()
    assert board.attachments and board.attachments[0].filename == "leaderboard.png"
    Image.open(io.BytesIO(board.attachments[0].data)).verify()
    assert "alice" in board.content.lower() or "Player" in board.content
    inter = await fake.slash(alice, world.channel, "leaderboard", by="rating", rules="classic")
    board = await inter.message()
    assert "fewer than 5 games" in board.content
    inter = await fake.slash(alice, world.channel, "stats")
    stats = await inter.message()
    assert "Games 1" in stats.content and stats.attachments
    # Only admins void; the error is private.
    reply = await (await fake.slash(bob, world.channel, "void", game=live_game(world).id,
                                    reason="nope")).message()
    assert reply.ephemeral and "Manage Server" in reply.content


async def test_admin_settings_shape_new_challenges_and_void(world: World, no_error_logs) -> None:
    fake = world.fake
    owner = world.guild.members[world.guild.owner_id]
    reply = await (await fake.slash(owner, world.channel, "settings", rules="classic",
                                    currency="€", stake_classic="1,50")).message()
    assert reply.ephemeral and "Settings changed" in reply.content and "€1.50" in reply.content
    reply = await (await fake.slash(owner, world.channel, "settings", reminder_hours=5.0,
                                    claim_hours=2.0)).message()
    assert "longer than the reminder" in reply.content
    challenge = await start_challenge(world, None)
    assert "classic" in challenge.text() and "€1.50 to the winner" in challenge.text()
    live = live_game(world)
    await resign(world, world.alice)
    assert "owes" in world.boards()[-1].text() and "€1.50" in world.boards()[-1].text()
    inter = await fake.slash(owner, world.channel, "void", game=live.id, reason="practice game")
    assert (await inter.message()).ephemeral
    reply = await public_reply(inter)
    assert "voided" in reply.content and "practice game" in reply.content
    reply = await (await fake.slash(world.alice, world.channel, "ledger")).message()
    assert "square" in reply.content
    # The game stays in the players' history, marked as counting for nothing.
    reply = await (await fake.slash(world.bob, world.channel, "history")).message()
    line = next(x for x in reply.content.splitlines() if f"#{live.id}" in x)
    assert "voided, it counts for nothing" in line
    reply = await (await fake.slash(owner, world.channel, "void", game=live.id,
                                    reason="again")).message()
    assert reply.ephemeral and "already voided" in reply.content


async def test_an_amount_of_thousands_of_digits_gets_a_short_polite_refusal(
        world: World, no_error_logs) -> None:
    fake = world.fake
    await _staked_game_resigned(world, "0.50", ".05")  # Bob owes Alice
    for amount in ("9" * 5000, "1" * 1990 + "x"):
        reply = await (await fake.slash(world.alice, world.channel, "settle", user=world.bob,
                                        amount=amount)).message()
        assert reply.ephemeral and len(reply.content) < 200
        assert ("too long" in reply.content and "…" in reply.content
                and amount[:20] in reply.content)
    reply = await (await fake.slash(world.alice, world.channel, "ledger")).message()
    assert "owes you" in reply.content  # nothing was recorded


async def test_settle_never_flips_a_debt_and_confirmation_checks_again(
        world: World, no_error_logs) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    owed = await _staked_game_resigned(world, "0.50", ".05")  # Bob owes Alice
    posted = len(world.public())
    # The case: the creditor forgives (or records receiving) more than is owed.
    for amount, forgive in (("50", True), ("104", False)):
        reply = await (await fake.slash(alice, world.channel, "settle", user=bob, amount=amount,
                                        forgive=forgive)).message()
        assert reply.ephemeral
        assert f"<@{bob.id}> owes you {_dollars(owed)}: you can record at most that" \
            in reply.content
    # The debtor can't record paying more than he owes; a stranger owes nothing either way.
    reply = await (await fake.slash(bob, world.channel, "settle", user=alice,
                                    amount="50")).message()
    assert reply.ephemeral and f"You owe <@{alice.id}> {_dollars(owed)}" in reply.content
    carol = fake.add_member(world.guild, "carol")
    reply = await (await fake.slash(carol, world.channel, "settle", user=alice,
                                    amount="1")).message()
    assert reply.ephemeral and "square: there is nothing to settle" in reply.content
    assert len(world.public()) == posted  # nothing was posted, nothing waits for a click
    reply = await (await fake.slash(bob, world.channel, "ledger")).message()
    assert f"you owe {_dollars(owed)}" in reply.content
    # Two claims of paying it all; once the first is confirmed, the second is refused politely.
    first = await public_reply(await fake.slash(bob, world.channel, "settle", user=alice,
                                                amount=_dollars(owed)))
    second = await public_reply(await fake.slash(bob, world.channel, "settle", user=alice,
                                                 amount=_dollars(owed)))
    assert "lowers what you are owed" not in second.text()
    await (await fake.click(alice, first, _button(first, ":yes"))).wait_edit()
    assert "confirmed" in first.content
    before = second.content
    inter = await fake.click(alice, second, _button(second, ":yes"))
    reply = (await inter.wait_followups())[0]
    assert reply.ephemeral and f"<@{bob.id}> owes you nothing now" in reply.content
    assert "Nothing was changed" in reply.content
    assert second.content == before and not any(b.get("disabled") for b in second.buttons())
    reply = await (await fake.slash(alice, world.channel, "ledger")).message()
    assert "square" in reply.content and "owes you" not in reply.content


def _button(message: FakeMessage, suffix: str) -> str:
    return next(c for c in message.custom_ids() if c.endswith(suffix))


async def test_amounts_always_show_two_decimals(world: World, no_error_logs) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    challenge = await start_challenge(world, "classic", stake="2", per_card="0")
    assert "$2.00 to the winner" in challenge.text()
    await resign(world, bob)
    assert "$2.00" in world.boards()[-1].text()
    reply = await (await fake.slash(bob, world.channel, "ledger")).message()
    assert "you owe $2.00" in reply.content
    reply = await (await fake.slash(alice, world.channel, "ledger", user=bob)).message()
    assert "owes you **$2.00**" in reply.content and "you're up $2.00" in reply.content
    board = await (await fake.slash(alice, world.channel, "leaderboard")).message()
    assert "$2.00" in board.content and "-$2.00" in board.content
    stats = await (await fake.slash(bob, world.channel, "stats")).message()
    assert "Net money: -$2.00" in stats.content


async def test_few_games_show_on_every_leaderboard_with_ratings_players_know(
        world: World, no_error_logs) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    await _staked_game_resigned(world, "0.50", ".05")  # Alice won the only game
    assert world.bot is not None
    await world.bot.ledger.update_ratings(world.guild.id)
    ratings = await world.bot.storage.standings.ratings(world.guild.id, "classic")
    shown = {user: display_rating(mu, sigma) for (user, _), (mu, sigma, _) in ratings.items()}
    assert shown[alice.id] > shown[bob.id] >= 0
    requests = len(fake.requests)
    board = await (await fake.slash(alice, world.channel, "leaderboard", by="win_rate")).message()
    assert "Nobody yet" not in board.content
    assert "1 · alice · 1 · 1-0-0 · 100%?" in board.content
    assert "2 · bob · 1 · 0-1-0 · 0%?" in board.content and "provisional" in board.content
    board = await (await fake.slash(bob, world.channel, "leaderboard", by="rating",
                                    rules="classic")).message()
    assert f"1 · alice · 1 · 1-0-0 · 100% · {shown[alice.id]}?" in board.content
    assert f"2 · bob · 1 · 0-1-0 · 0% · {shown[bob.id]}?" in board.content
    ratings_shown = re.findall(r"· ([^·\n]+)\?$", board.content, re.MULTILINE)
    assert len(ratings_shown) == 2 and all(r.isdigit() for r in ratings_shown)  # never negative
    # The names came from what the bot knows: no member was fetched from Discord one by one.
    assert not [r for r in fake.requests[requests:] if "/members/" in r.path], \
        fake.requests[requests:]
    stats = await (await fake.slash(bob, world.channel, "stats")).message()
    assert "no wins yet" in stats.content.lower() and "best win" not in stats.content
    assert f"classic {shown[bob.id]} (provisional)" in stats.content
    stats = await (await fake.slash(alice, world.channel, "stats")).message()
    assert "best win" in stats.content and "no wins yet" not in stats.content.lower()


async def test_the_csv_names_the_players(world: World, no_error_logs) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    owed = await _staked_game_resigned(world, "0.50", ".05")
    reply = await (await fake.slash(bob, world.channel, "ledger", user=alice)).message()
    message = await (await fake.click(bob, reply, _button(reply, f":{alice.id}"))).message()
    rows = list(csv.DictReader(io.StringIO(message.attachments[0].data.decode())))
    assert [(r["debtor"], r["debtor_name"], r["creditor"], r["creditor_name"], r["amount"])
            for r in rows] == [(str(bob.id), "bob", str(alice.id), "alice", _dollars(owed))]
    assert rows[0]["result"] == "won by alice"
    # The file is named after the players, for a reader who saves a few of them.
    assert message.attachments[0].filename == "ledger-bob-alice.csv"
    assert "Page 1 of 1 · 1 entry, newest first" in reply.content


async def test_money_commands_and_buttons_answer_first(world: World, no_error_logs,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    owner = world.guild.members[world.guild.owner_id]
    await _staked_game_resigned(world, "0.50", ".05")  # Bob owes Alice
    for _ in range(10):  # eleven lines between them: two pages of notebook
        await (await fake.slash(alice, world.channel, "settle", user=bob,
                                amount="0.01")).message()
    assert world.bot is not None
    ledger = world.bot.ledger

    slowed(monkeypatch, ledger, ("settings", "balances", "head_to_head", "csv_export", "settle",
                                 "answer_settlement", "void", "leaderboard", "stats"))
    reply = await (await quick(await fake.slash(bob, world.channel, "ledger"))).message()
    assert reply.ephemeral and "you owe" in reply.content
    notebook = await (await quick(await fake.slash(alice, world.channel, "ledger",
                                                   user=bob))).message()
    assert notebook.ephemeral and "Page 1 of 2" in notebook.content
    inter = await quick(await fake.click(alice, notebook, _button(notebook, ":1")))
    assert "Page 2 of 2" in (await inter.wait_edit()).content
    inter = await quick(await fake.click(alice, notebook, _button(notebook, f":{bob.id}")))
    assert (await inter.message()).attachments[0].filename.endswith(".csv")
    pending = await public_reply(await quick(await fake.slash(bob, world.channel, "settle",
                                                              user=alice, amount="0.05")))
    inter = await quick(await fake.click(alice, pending, _button(pending, ":yes")))
    assert "confirmed" in (await inter.wait_edit()).content
    board = await (await quick(await fake.slash(bob, world.channel, "leaderboard"))).message()
    assert not board.ephemeral and board.attachments
    stats = await (await quick(await fake.slash(bob, world.channel, "stats"))).message()
    assert not stats.ephemeral and stats.attachments
    game = live_game(world).id
    voided = await public_reply(await quick(await fake.slash(owner, world.channel, "void",
                                                             game=game, reason="test")))
    assert "voided" in voided.content
    assert fake.latency_report().unanswered == 0


async def test_a_failing_money_button_apologises_privately_and_logs_once(
        world: World, no_error_logs, monkeypatch) -> None:
    import logging

    no_error_logs.allow("failed", logger="bot.app.ui")
    assert world.bot is not None
    await start_challenge(world, "classic", stake="0.50")
    await resign(world, world.bob)
    notebook = await (await world.fake.slash(world.alice, world.channel, "ledger",
                                             user=world.bob)).message()
    csv_id = next(c for c in notebook.custom_ids() if c.startswith("sm:csv:"))

    async def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(world.bot.ledger, "csv_export", boom)
    no_error_logs.clear()
    reply = await (await world.fake.click(world.alice, notebook, csv_id)).settled()
    assert reply.ephemeral and reply.content.startswith("Sorry, something went wrong")
    errors = [r for r in no_error_logs.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is not None
