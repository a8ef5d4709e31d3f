"""GameService without Discord: challenges, moves, locks, persistence, restarts."""

from __future__ import annotations

import asyncio

import pytest

from bot.games.game_service import GameService, LiveGame, UserError, restore_match
from bot.storage import Storage
from engine import PASS
from tests.support import Clock

ANN, BOB, CAROL, BOT = 101, 202, 303, 999


@pytest.fixture
async def env(database: str):
    clock = Clock(1_000_000.0)
    storage = await Storage.open(database, clock)
    service = GameService(storage, computer_id=BOT, clock=clock)
    yield service, clock, database
    await storage.close()


async def _challenge(service: GameService, rules: str = "kings") -> LiveGame:
    row = await service.inviting.challenge(guild_id=1, channel_id=10, challenger_id=ANN,
                                           opponent_id=BOB,
                                           opponent_is_bot=False, rules_name=rules, names=("Ann",
                                                                                           "Bob"))
    assert not isinstance(row, LiveGame)
    _, live = await service.inviting.accept(row.id, BOB)
    return live


async def test_challenge_rules(env) -> None:
    service, clock, _ = env
    with pytest.raises(UserError, match="yourself"):
        await service.inviting.challenge(guild_id=1, channel_id=10, challenger_id=ANN,
                                         opponent_id=ANN,
                                         opponent_is_bot=False, rules_name=None)
    with pytest.raises(UserError, match="Other bots"):
        await service.inviting.challenge(guild_id=1, channel_id=10, challenger_id=ANN,
                                         opponent_id=5,
                                         opponent_is_bot=True, rules_name=None)
    row = await service.inviting.challenge(guild_id=1, channel_id=10, challenger_id=ANN,
                                           opponent_id=BOB,
                                           opponent_is_bot=False, rules_name=None)
    with pytest.raises(UserError, match="already an open challenge"):
        await service.inviting.challenge(guild_id=1, channel_id=10, challenger_id=BOB,
                                         opponent_id=ANN,
                                         opponent_is_bot=False, rules_name=None)
    with pytest.raises(UserError, match="Only the challenged player"):
        await service.inviting.accept(row.id, ANN)
    with pytest.raises(UserError, match="Only the challenger"):
        await service.inviting.cancel(row.id, BOB)
    clock.now += 901
    with pytest.raises(UserError, match="expired"):
        await service.inviting.accept(row.id, BOB)


async def test_default_rules_come_from_the_server(env) -> None:
    service, _, _ = env
    await service.inviting.update_settings(1, default_rules="classic", refill_empty_hand=0)
    live = await _challenge(service, rules=None)  # type: ignore[arg-type]
    assert live.match.rules.name == "classic"
    assert live.match.rules.refill_empty_hand is False


async def test_expire_due(env) -> None:
    service, clock, _ = env
    row = await service.inviting.challenge(guild_id=1, channel_id=10, challenger_id=ANN,
                                           opponent_id=BOB,
                                           opponent_is_bot=False, rules_name=None)
    assert await service.inviting.expire_due() == []
    clock.now += 1000
    expired = await service.inviting.expire_due()
    assert [r.id for r in expired] == [row.id] and expired[0].status == "expired"
    assert await service.inviting.expire_due() == []


async def test_moves_are_checked_and_saved(env) -> None:
    service, _, _ = env
    live = await _challenge(service)
    on_turn = live.on_turn
    other = ANN if on_turn == BOB else BOB
    move = live.match.game.legal_moves()[0]
    with pytest.raises(UserError, match="not your turn"):
        await service.playing.play(live.id, other, move.text)
    with pytest.raises(UserError, match="not playing"):
        await service.playing.play(live.id, CAROL, move.text)
    with pytest.raises(UserError, match="is not a move|is not a source|is not a target"):
        await service.playing.play(live.id, on_turn, "banana")
    with pytest.raises(UserError, match="can't pass in kings"):
        await service.playing.play(live.id, on_turn, "pass")
    version = live.version
    outcome = await service.playing.play(live.id, on_turn, move.text)
    assert outcome.game.version == version + 1
    row = await service.storage.games.get_game(live.id)
    assert row is not None and row.version == version + 1
    assert await service.storage.games.move_log(live.id) == [(1, live.match.game.history[0][0],
                                                        on_turn, move.text)]


async def test_double_click_applies_once(env) -> None:
    service, _, _ = env
    live = await _challenge(service)
    player = live.on_turn
    move = live.match.game.legal_moves()[0]
    version = live.version
    results = await asyncio.gather(
        service.playing.play(live.id, player, move.text, expected_version=version),
        service.playing.play(live.id, player, move.text, expected_version=version),
        return_exceptions=True,
    )
    ok = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, UserError)]
    assert len(ok) == 1 and len(refused) == 1
    assert "moved on" in str(refused[0])
    assert len(await service.storage.games.move_log(live.id)) == 1


async def test_restart_loses_nothing(env) -> None:
    service, clock, database = env
    live = await _challenge(service)
    for _ in range(5):
        player = live.on_turn
        await service.playing.play(live.id, player, live.match.game.legal_moves()[0].text)
    saved = live.match.to_dict()
    storage2 = await Storage.open(database)
    try:
        fresh = GameService(storage2, computer_id=BOT, clock=clock)
        reloaded = await fresh.live.game(live.id)
        assert reloaded.match.to_dict() == saved
        assert reloaded.version == live.version
    finally:
        await storage2.close()


async def test_failed_save_changes_nothing(env, monkeypatch) -> None:
    service, _, _ = env
    live = await _challenge(service)
    before = live.match.to_dict()
    player = live.on_turn

    async def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(service.storage.games, "save_moves", broken)
    with pytest.raises(UserError, match="couldn't be saved"):
        await service.playing.play(live.id, player, live.match.game.legal_moves()[0].text)
    monkeypatch.undo()
    again = await service.live.game(live.id)
    assert again.match.to_dict() == before  # reloaded from the database


async def test_what_the_bot_posted_is_remembered_only_once_saved(env, monkeypatch) -> None:
    # A board, a result, a thread, a reminder or a claim offer is noted in memory only after
    # the database has it: a failed save leaves the game as it was, so the try again (with the
    # same nonce) posts and saves it, rather than taking it for saved.
    from bot.storage import DatabaseUnavailable

    service, _, _ = env
    live = await _challenge(service)
    before = (live.board_message_id, live.board_turn, live.board_version, live.thread_id,
              live.result_message_id, live.claim_offered_at, live.reminded_at)

    async def away(*args, **kwargs):
        raise DatabaseUnavailable("the database server is not answering")

    calls = [(service.playing, "set_board", (live, 5, 1, 1)),
             (service.playing, "set_board_version", (live, 3)),
             (service.playing, "set_thread", (live, 7)),
             (service.finishing, "set_result_message", (live, 9)),
             (service.playing, "set_claim_offered", (live,)),
             (service.playing, "set_reminded", (live,))]
    for part, name, args in calls:
        monkeypatch.setattr(service.storage.games, name, away)
        with pytest.raises(DatabaseUnavailable):
            await getattr(part, name)(*args)
    assert (live.board_message_id, live.board_turn, live.board_version, live.thread_id,
            live.result_message_id, live.claim_offered_at, live.reminded_at) == before
    monkeypatch.undo()
    await service.finishing.set_result_message(live, 9)
    assert live.result_message_id == 9


async def test_an_accepted_challenge_is_never_called_unchanged(env, monkeypatch) -> None:
    # The game is saved with the acceptance; if the database goes away before it can be read
    # back, the answer says it was saved (not "nothing was changed").
    import contextvars

    from bot.storage import DatabaseUnavailable

    service, _, _ = env
    row = await service.inviting.challenge(guild_id=1, channel_id=10, challenger_id=ANN,
                                           opponent_id=BOB,
                                           opponent_is_bot=False, rules_name="kings", names=("Ann",
                                                                                             "Bob"))

    async def away(*args, **kwargs):
        raise DatabaseUnavailable("the database server is not answering")

    monkeypatch.setattr(service.storage.games, "get_game", away)
    with pytest.raises(UserError, match="That was saved"):
        # In a context of its own, as each interaction has.
        await contextvars.copy_context().run(asyncio.ensure_future, service.inviting.accept(row.id,
                                                                                            BOB))
    monkeypatch.undo()
    assert (await service.storage.challenges.get_challenge(row.id)).status == "accepted"


async def test_computer_game_plays_itself_legally(env) -> None:
    service, _, _ = env
    live = await service.inviting.challenge(guild_id=1, channel_id=10, challenger_id=ANN,
                                            opponent_id=BOT,
                                            opponent_is_bot=True, rules_name="classic")
    assert isinstance(live, LiveGame) and live.terms.vs_computer
    for _ in range(3000):
        if live.finished:
            break
        if live.on_turn == BOT:
            assert await service.playing.computer_step(live.id) is not None
        else:
            legal = live.match.game.legal_moves()
            move = PASS if PASS in legal else legal[-1]
            await service.playing.play(live.id, ANN, move.text)
    assert live.finished
    assert (await service.storage.games.get_game(
        live.id)).status == "finished"  # type: ignore[union-attr]


async def test_resign_and_claim(env) -> None:
    service, clock, _ = env
    live = await _challenge(service)
    idle = live.on_turn
    other = ANN if idle == BOB else BOB
    with pytest.raises(UserError, match="still has time"):
        await service.playing.claim(live.id, other)
    with pytest.raises(UserError, match="your own turn"):
        await service.playing.claim(live.id, idle)
    clock.now += 259_201
    outcome = await service.playing.claim(live.id, other)
    assert outcome.match_over and live.match.winner == live.terms.seat_of(other)
    with pytest.raises(UserError, match="over"):
        await service.playing.resign(live.id, other)


async def test_autocomplete_sources_and_targets_match_the_engine(env) -> None:
    service, _, _ = env
    live = await _challenge(service, "classic")
    player = live.on_turn
    legal = set(live.match.game.legal_moves())
    sources = service.playing.legal_sources(live, player)
    offered = set()
    for source in sources:
        offered.update(service.playing.legal_targets(live, player, source.source_token))
    assert offered == {m for m in legal if not m.is_pass}
    other = ANN if player == BOB else BOB
    assert service.playing.legal_sources(live, other) == []


async def test_finished_games_are_forgotten_from_memory_but_kept(env) -> None:
    service, _, _ = env
    live = await _challenge(service)
    await service.playing.resign(live.id, ANN)
    assert service.live.forget_finished() == 1
    again = await service.live.game(live.id)
    assert again is not live and again.finished
    assert again.match.to_dict() == live.match.to_dict()


async def test_a_players_game_is_found_among_many_in_memory(env) -> None:
    service, _, _ = env
    # Games of other players in the same channel, and Ann's own in other channels.
    for n in range(6):
        row = await service.inviting.challenge(guild_id=1, channel_id=10, challenger_id=1000 + n,
                                               opponent_id=2000 + n, opponent_is_bot=False,
                                               rules_name="kings")
        await service.inviting.accept(row.id, 2000 + n)
    elsewhere = await service.inviting.challenge(guild_id=1, channel_id=11, challenger_id=ANN,
                                                 opponent_id=CAROL, opponent_is_bot=False,
                                                 rules_name="kings")
    _, other = await service.inviting.accept(elsewhere.id, CAROL)
    first = await _challenge(service)
    await service.live.active_games()  # from now on lookups are answered from memory
    assert await service.live.find_game(ANN, 10) is first
    assert await service.live.find_game(BOB, 10) is first
    assert await service.live.find_game(ANN, 11) is other
    with pytest.raises(UserError, match="no game going"):
        await service.live.find_game(CAROL, 10)
    # A finished game, forgotten, is found no more; the newer one in the channel is.
    await service.playing.resign(first.id, ANN)
    service.live.forget_finished()
    with pytest.raises(UserError, match="no game going"):
        await service.live.find_game(ANN, 10)
    second = await _challenge(service)
    assert await service.live.find_game(BOB, 10) is second
    assert await service.live.find_game(ANN, 11) is other


async def test_a_game_named_by_id_is_played_only_in_its_own_server(env) -> None:
    service, _, _ = env
    live = await _challenge(service)  # in server 1
    assert await service.live.find_game(ANN, 99, live.id, guild_id=1) is live
    with pytest.raises(UserError, match="another server"):
        await service.live.find_game(ANN, 99, live.id, guild_id=2)
    with pytest.raises(UserError, match="not playing"):
        await service.live.find_game(CAROL, 99, live.id, guild_id=1)


async def test_a_finished_game_still_wanted_is_kept_in_memory(env) -> None:
    service, _, _ = env
    live = await _challenge(service)
    await service.playing.resign(live.id, ANN)
    assert service.live.forget_finished(keep=lambda game_id: game_id == live.id) == 0
    assert await service.live.game(live.id) is live
    assert service.live.forget_finished(keep=lambda game_id: False) == 1


async def test_a_load_during_a_move_never_rolls_the_cached_game_back(env, monkeypatch) -> None:
    # After a restart nothing is cached: a hand shown (a load outside the game's lock) reads
    # the row, a move is made and saved meanwhile, and only then does the load finish.
    service, clock, database = env
    live = await _challenge(service)
    fresh = GameService(service.storage, computer_id=BOT, clock=clock)
    real_get = service.storage.games.get_game
    read, release = asyncio.Event(), asyncio.Event()
    calls = 0

    async def slow_first_read(game_id: int):
        nonlocal calls
        calls += 1
        row = await real_get(game_id)
        if calls == 1:
            read.set()
            await release.wait()
        return row

    monkeypatch.setattr(service.storage.games, "get_game", slow_first_read)
    shown = asyncio.create_task(fresh.live.game(live.id))
    await read.wait()
    player = live.on_turn
    outcome = await fresh.playing.play(live.id, player, live.match.game.legal_moves()[0].text)
    release.set()
    await shown
    cached = await fresh.live.game(live.id)
    stored = await real_get(live.id)
    assert stored is not None and stored.version == outcome.game.version
    assert cached.version == stored.version
    assert cached.match.to_dict() == restore_match(stored).to_dict()


async def test_a_game_keeps_the_claim_time_it_started_with(env) -> None:
    service, clock, _ = env
    live = await _challenge(service)
    idle = live.on_turn
    other = ANN if idle == BOB else BOB
    # The opponent, an admin, shortens the claim time after the game started.
    await service.inviting.update_settings(1, reminder_s=600, claim_s=3600)
    clock.now += 2 * 3600
    with pytest.raises(UserError, match="still has time"):
        await service.playing.claim(live.id, other)
    # ... and so it stays after a restart.
    fresh = GameService(service.storage, computer_id=BOT, clock=clock)
    reloaded = await fresh.live.game(live.id)
    assert (reloaded.terms.reminder_s, reloaded.terms.claim_s) == (43_200, 259_200)
    with pytest.raises(UserError, match="still has time"):
        await fresh.playing.claim(live.id, other)
    # A game started after the change has the new times.
    await service.playing.resign(live.id, ANN)
    newer = await _challenge(service)
    assert (newer.terms.reminder_s, newer.terms.claim_s) == (600, 3600)
