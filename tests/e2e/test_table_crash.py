"""A table of three survives a kill -9 in the middle of its game: the real ``python -m bot``
is killed (SIGKILL) while three people play a staked classic game through ``/hand``, ``/play``
and ``/pass``; with the process dead the game is exactly a replay of its stored moves, and
every move a player saw acknowledged is among them; started again on the same database, the
game is played to its end, and its result, ledger lines and ratings are right for every seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from bot.games.game_service import restore_match
from bot.games.replay import replay_match
from bot.money.ledger_service import LedgerService
from bot.sandbox import FakeDiscord
from bot.storage import Storage
from engine import Move, RuleSet

from .conftest import select_options
from .test_bot_play import choose
from .test_crash import Bot, _answer, _is_subsequence


def _normal(data: dict[str, Any]) -> Any:
    return json.loads(json.dumps(data, sort_keys=True))


async def _move(fake: FakeDiscord, channel: Any, users: list[Any], step: int
                ) -> tuple[str, bool] | None:
    """The player on turn (found by asking each for his hand, as people would look) makes
    one move; (its notation, acknowledged), or ``None`` if nobody could move (the game is
    over, or the bot is down). ``users`` is turned to start with the one who moved: he is
    asked first next time (a turn is several moves)."""
    for n, user in enumerate(list(users)):
        hand = await _answer(fake, user, channel, "hand")
        if hand is None:
            return None
        assert hand.ephemeral and hand.visible_to == user.id, "a hand is never public"
        options = select_options(hand)
        has_pass = any(c.endswith(":pass") for c in hand.custom_ids())
        if not options and not has_pass:
            continue
        users[:] = users[n:] + users[:n]
        choice = choose(options, has_pass, step)
        if choice is None:
            reply = await _answer(fake, user, channel, "pass")
            text = "pass"
        else:
            token, target = choice
            text = Move.parse(f"{token}>{target}").text
            reply = await _answer(fake, user, channel, "play", card=token, to=target)
        return text, reply is not None and "✅" in reply.content
    return None


async def _check_replays(db: str, game_id: int, acked: list[str], status: str) -> None:
    storage = await Storage.open(db)
    try:
        row = await storage.games.get_game(game_id)
        assert row is not None and len(row.players) == 3 and row.status == status
        log = await storage.games.move_log(game_id)
        assert [seq for seq, _, _, _ in log] == list(range(1, row.version + 1))
        replay = replay_match(RuleSet.from_dict(row.state["rules"]), int(row.state["seed"]),
                              [(seat, text) for _, seat, _, text in log], row.names)
        assert _normal(replay.final) == _normal(restore_match(row).to_dict())
        assert _is_subsequence(acked, [text for _, _, _, text in log])
    finally:
        await storage.close()


async def test_a_table_of_three_killed_mid_game_plays_on_to_a_right_result(
        tmp_path: Path, database: str) -> None:
    fake = FakeDiscord(token="table-crash-token-" + "z" * 40)
    await fake.start()
    guild = fake.add_guild("Test Guild", channels=("general",))
    channel = guild.channel("general")
    alice, bob, carol = (fake.add_member(guild, n) for n in ("alice", "bob", "carol"))
    users = [alice, bob, carol]
    bot = Bot(fake, tmp_path, database)
    try:
        await bot.start()
        challenge = await _answer(fake, alice, channel, "challenge", opponent=bob,
                                  opponent2=carol, rules="classic", stake="0.50",
                                  per_card="0.05")
        assert challenge is not None and "A challenge for 3" in challenge.text()
        accept = next(c for c in challenge.custom_ids() if c.endswith(":accept"))
        for user in (bob, carol):
            await (await fake.click(user, challenge, accept)).response()
        await fake.wait_for(lambda: "game on" in (challenge.content or ""), timeout=10,
                            description="the game starts")
        acked: list[str] = []
        step = 0
        while len(acked) < 25:
            step += 1
            made = await _move(fake, channel, users, step)
            assert made is not None, "somebody can move"
            if made[1]:
                acked.append(made[0])
        await asyncio.sleep(0.02)
        await bot.kill()
        await _check_replays(bot.db, 1, acked, "active")  # killed in the middle of the game
        await bot.start()
        for _ in range(3000):
            step += 1
            made = await _move(fake, channel, users, step)
            if made is None:
                break
            if made[1]:
                acked.append(made[0])
        else:
            raise AssertionError("the game did not end")
        await fake.wait_for(lambda: any("🏁" in m.text() for m in fake.messages(channel)),
                            timeout=20, description="the result")
        await bot.kill()
        await _check_replays(bot.db, 1, acked, "finished")
        storage = await Storage.open(bot.db)
        try:
            row = await storage.games.get_game(1)
            assert row is not None and row.status == "finished"
            match = restore_match(row)
            winner = match.winner
            results = [m for m in fake.messages(channel) if "🏁" in m.text()]
            assert len(results) == 1
            text = results[0].content
            assert all(f"<@{u.id}>" in text for u in users)
            lines = await storage.ledger.game_entries(row.guild_id, 1)
            if winner is None:
                assert all(line.amount_cents == 0 for line in lines)
            else:
                assert sorted(line.debtor_id for line in lines) == sorted(
                    u for s, u in enumerate(row.players) if s != winner)
                for line in lines:
                    margin = match.margins[row.players.index(line.debtor_id)] or 0
                    assert line.amount_cents == 50 + 5 * margin
                    assert f"owes {row.names[winner]}" in text
                await LedgerService(storage).update_ratings(row.guild_id)
                ratings = await storage.standings.ratings(row.guild_id, "classic")
                assert {u for u, _ in ratings} == set(row.players)
        finally:
            await storage.close()
        assert "Traceback" not in bot.logs(), bot.logs()[-3000:]
    finally:
        if bot.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                bot.proc.kill()
            await bot.proc.wait()
        await fake.stop()
