"""The words of the game: counts read as English."""

from __future__ import annotations

import pytest

from bot.pictures.text import board_fields, clip, plural, quote
from engine import CLASSIC, KINGS, Game


def test_one_of_a_thing_is_singular() -> None:
    game = Game.from_layout(CLASSIC, payoffs=["9H", "6S"], hands=["KS", "KH QH"],
                            centre=["AS"], turn=0)
    text = "\n".join(body for _, body in board_fields(game.public_view(), ("Ann", "Bob")))
    assert "C1: A (1 card), needs 2" in text
    assert "Hand: 1 card\n" in text and "Hand: 2 cards\n" in text
    assert plural(1, "point") == "1 point" and plural(0, "point") == "0 points"


def test_user_input_is_quoted_short_and_messages_fit() -> None:
    assert quote("godlike") == "`godlike`"
    assert quote("x" * 3000) == "`" + "x" * 24 + "…`"
    assert quote("a`b") == "`aˋb`", "a backtick can't end the code span early"
    assert len(clip("y" * 5000)) == 2000 and clip("short") == "short"


def test_the_board_text_says_what_a_side_stack_joker_stands_for() -> None:
    from bot.pictures.text import board_fields
    from engine import CLASSIC, Game
    from engine.players import make_player

    game, _ = Game.new(CLASSIC, 0)
    players = [make_player("easy", 1), make_player("easy", 2)]
    while game.result is None:
        game.play(players[game.turn].choose(game.view(game.turn)))
        view = game.public_view()
        jokers = [(seat, side) for seat in (0, 1) for side in range(4)
                  if any(view.joker_ranks(seat, side))]
        if jokers:
            break
    assert jokers, "this seeded game puts a joker on a side stack"
    seat, side = jokers[0]
    text = dict(board_fields(view, ("A", "B")))["AB"[seat]]
    line = next(t for t in text.splitlines() if t.startswith(f"S{side + 1}:"))
    assert "🃏(as " in line


# ---------------------------------------------------------------------- tables of three or four

NAMES4 = ("Ann", "Bob", "Carol", "Dmitri")


def _group_game(rules: object, players: int, moves: int, seed: int = 6) -> Game:
    game, _ = Game.new(rules, seed, players=players)  # type: ignore[arg-type]
    for _ in range(moves):
        if game.result is not None:
            break
        game.play(game.legal_moves()[0])
    return game


def test_board_fields_give_every_seat() -> None:
    for rules in (CLASSIC, KINGS):
        for players in (3, 4):
            names = NAMES4[:players]
            game = _group_game(rules, players, 30)
            leaver = (game.turn + 1) % players
            game.resign(leaver)
            view = game.public_view()
            fields = board_fields(view, names)
            headings = [h for h, _ in fields]
            assert headings[0] == "Centre stacks" and headings[-1] == "Stock"
            assert len(fields) == players + 2
            assert f"{names[view.turn]} ▶ on turn" in headings
            assert f"{names[leaver]} (left the game)" in headings
            for seat in range(players):
                body = dict(fields)[headings[1 + seat]]
                assert f"({view.payoff_counts[seat]} left)" in body
                assert f"Hand: {plural(view.hand_sizes[seat], 'card')}" in body
                assert body.count("\nS") == 4
            # The same words from a player's view: nothing private in them.
            assert board_fields(game.view(0), names) == fields


def test_board_fields_fit_an_embed_with_long_side_stacks() -> None:
    import dataclasses

    from bot.pictures.text import MAX_FIELD, MAX_FIELDS_TEXT
    from engine import parse_cards

    view = _group_game(CLASSIC, 4, 10).public_view()
    pile = tuple(parse_cards("KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S " * 9))  # more than a game holds
    long = dataclasses.replace(view, sides=tuple((pile,) * 4 for _ in range(4)), side_ranks=())
    fields = board_fields(long, NAMES4)
    assert sum(len(h) + len(b) for h, b in fields) <= MAX_FIELDS_TEXT
    assert all(len(b) <= MAX_FIELD and len(h) <= 256 for h, b in fields)
    ann = fields[1][1]
    assert "S1 (108): … " in ann
    assert ann.split("\n")[2].endswith("3♠ 2♠")  # the top cards are kept


def test_a_player_leaving_is_described() -> None:
    from bot.pictures.text import describe_events
    from engine import Left

    assert describe_events(NAMES4[:3], [Left(2, 12, 0)]) == [
        "Carol left the game (12 cards in their pay-off pile)"]
    assert describe_events(NAMES4[:3], [Left(0, 1, 1)]) == [
        "Ann left the game (1 card in their pay-off pile)"]
    # At a table of two the end of the game says it, as it always did.
    assert describe_events(NAMES4[:2], [Left(0, 12, None)]) == []


def test_group_results_name_every_margin_and_the_score() -> None:
    from bot.pictures.text import result_announcement, result_text
    from engine import EndReason, Result

    won = Result(1, 35, EndReason.PAYOFF_EMPTIED, (12, 0, 3, 20), (12, None, 3, 20), (0,))
    assert result_text(won, NAMES4) == (
        "Bob wins, scoring 35 points (3 + 12 + 20): Bob played the last pay-off card. "
        "Carol loses by 3, Ann by 12 (left the game), Dmitri by 20.")
    left = Result(2, 30, EndReason.RESIGNED, (10, 20, 4), (10, 20, None), (0, 1))
    assert result_text(left, NAMES4[:3]) == (
        "Carol wins, scoring 30 points (10 + 20): everyone else left the game. "
        "Ann loses by 10 (left the game), Bob by 20 (left the game).")
    stalemate = Result(0, 9, EndReason.STALEMATE, (4, 7, 10), (None, 3, 6))
    assert result_text(stalemate, NAMES4[:3]).startswith(
        "Ann wins, scoring 9 points (3 + 6) (stalemate: a whole round without a play")
    drawn = Result(None, 0, EndReason.STALEMATE, (5, 5, 9, 12), (None, None, None, 12), (3,))
    assert result_text(drawn, NAMES4) == (
        "Drawn game, no points: stalemate: a whole round without a play, and Ann and Bob share "
        "the fewest pay-off cards (5). Dmitri (12 cards) left the game and loses nothing to "
        "anyone.")
    tie = Result(None, 0, EndReason.STOCK_OUT, (5, 6, 9), (None, None, None))
    assert result_text(tie, NAMES4[:3]) == "Drawn game, no points: the stock ran out."
    text = result_announcement(game_id=9, players=(1, 2, 3, 4), names=NAMES4, rules="kings",
                               result=won, claimed=True, match_winner=1, scores=(12, 51, 3, 20),
                               target=50, money="x" * 3000)
    assert text.startswith("🏁 <@1> <@2> <@3> <@4> · game #9 (kings) is over.\nBob wins")
    assert "Ann 12, Bob 51, Carol 3, Dmitri 20 (first to 50 points)" in text
    assert len(text) <= 2000


def test_group_turn_summary_and_hand_text() -> None:
    from bot.pictures.text import hand_text, turn_summary

    game = _group_game(KINGS, 3, 0)
    mover = game.turn
    while game.turn == mover:
        game.play(game.legal_moves()[0])
    summary = turn_summary(game.public_view(), NAMES4[:3])
    assert NAMES4[mover] in summary
    assert not any(NAMES4[s] + ":" in summary for s in range(3) if s != mover)
    other = (game.turn + 1) % 3
    text = hand_text(game.view(other), NAMES4[:3])
    assert f"It's {NAMES4[game.turn]}'s turn." in text
    assert "**Next, in order:** " in text


def test_the_words_of_moves_and_results_are_the_engines() -> None:
    # The pictures and messages format what the engine says (engine.describe): a move's line,
    # a wild card's rank, a card the move does not name, and how a game ended.
    from bot.pictures.text import describe_events, describe_history, describe_move, result_text
    from engine import (
        Card,
        EndReason,
        Move,
        Result,
        describe_result,
        history_lines,
        public_lines,
    )

    joker = Move.parse("JK>C2")
    assert describe_move("Ann", joker, Card.parse("JK"), 7) == "Ann: 🃏 as 7 from hand → centre 2"
    assert describe_move("Ann", joker, None, 7) == "Ann: from hand → centre 2"
    assert describe_move("Bob", Move.parse("S3>S1"), Card.parse("9D")) == (
        "Bob: 9♦ from side 3 → side 1")
    assert describe_move("Bob", Move.parse("pass"), None) == "Bob passed"
    history = [(0, Move.parse("7H>C2")), (1, Move.parse("P>C1"))]
    assert describe_history(("Ann", "Bob"), history) == history_lines(history, ("Ann", "Bob"))
    game = Game.from_layout(CLASSIC, payoffs=["5H", "6S"], hands=["KC", "2S"],
                            centre=["AS 2S 3S 4S"], turn=0)
    events = game.play("P>C1")
    assert describe_events(("Ann", "Bob"), events) == public_lines(events, ("Ann", "Bob")) == [
        "Ann: 5♥ from pay-off → centre 1",
        "Game over: Ann wins, scoring 1 point: Ann played the last pay-off card."]
    tie = Result(None, 0, EndReason.STOCK_OUT, (4, 5))
    assert result_text(tie, ("Ann", "Bob")) == describe_result(tie, ("Ann", "Bob"))


def test_every_side_stack_target_says_the_same_things_the_same_way() -> None:
    from bot.pictures.text import target_label
    from engine import Move

    game = Game.from_layout(CLASSIC, payoffs=["9H", "6S"], hands=["5S 7D", "KH"],
                            sides=[["QC", "", "", ""], ["", "", "", ""]], turn=0)
    view = game.view(0)
    labels = [target_label(Move.parse(f"5S>S{i}"), view) for i in range(1, 5)]
    assert labels == ["Side 1 (on Q♣, ends your turn)", "Side 2 (empty, ends your turn)",
                      "Side 3 (empty, ends your turn)", "Side 4 (empty, ends your turn)"]


def test_only_the_voice_library_warnings_of_discord_are_silenced(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    import logging

    import discord

    from bot.app.client import SpiteBot
    from bot.ops.config import Config

    # discord.py warns once a process: make it warn again for this bot.
    monkeypatch.setattr(discord.VoiceClient, "warn_nacl", True)
    monkeypatch.setattr(discord.VoiceClient, "warn_dave", True)
    with caplog.at_level(logging.DEBUG, logger="discord"):
        SpiteBot(Config(token="t"))
        logging.getLogger("discord.client").warning("something else went wrong")
    assert "voice" not in caplog.text
    assert "something else went wrong" in caplog.text


def test_the_readme_says_who_the_sandbox_admin_is_and_what_a_challenge_is() -> None:
    """What the README's Playing section tells a newcomer, and that it is so."""
    from pathlib import Path

    from bot.sandbox import FakeDiscord
    from bot.sandbox.world import new_world
    from bot.storage.rows import GuildSettings

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    playing = readme.split("### Playing", 1)[1].split("\n### ", 1)[0]
    assert "a `kings` match to 50 points" in playing
    assert "Alice owns the server and so is its admin" in playing and "`/void`" in playing
    assert GuildSettings(guild_id=1).default_rules == "kings" and KINGS.match_target == 50
    world = new_world(FakeDiscord())
    owner = world.guild.members[world.guild.owner_id]
    assert owner.user.global_name == "Alice"


def test_help_with_every_section_fits_one_discord_message() -> None:
    # /help is three parts written in three modules; together they must stay one message.
    from bot.app.cogs.game_commands import TABLE_HELP
    from bot.app.cogs.season_commands import SEASON_HELP
    from bot.pictures.text import HELP_TEXT

    assert len(HELP_TEXT + TABLE_HELP + SEASON_HELP) <= 2000
