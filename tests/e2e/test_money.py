"""End to end: stakes on a challenge, the ledger entry, settling up, CSV, the leaderboard."""

from __future__ import annotations

import csv
import io

from PIL import Image

from tests.fakediscord.interactions import InteractionRecord
from tests.fakediscord.models import FakeMessage

from .conftest import World, select_options
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
    assert live.stake_cents == 50 and live.per_card_cents == 5
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
