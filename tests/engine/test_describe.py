"""How moves and events read: each event's notation, and a description for one viewer."""

from __future__ import annotations

import pytest

from engine import (
    ALL_MOVES,
    CLASSIC,
    KINGS,
    PASS,
    Card,
    Dealt,
    Description,
    Discarded,
    Drew,
    EndReason,
    Game,
    GameOver,
    InvalidMoveError,
    Left,
    Move,
    Passed,
    Played,
    Result,
    Source,
    StackCompleted,
    Target,
    TurnEnded,
    describe_event,
    describe_events,
    describe_move,
    describe_result,
    history_lines,
    parse_move_notation,
    public_lines,
)
from engine.players import make_player

NAMES = ("Alice", "Bob")
C = Card.parse


# ------------------------------------------------------------------------------------ moves

def test_a_hand_play_that_completes_its_stack() -> None:
    # Centre stack 1 holds Ace to Queen: the King completes it (rule 5).
    game = Game.from_layout(CLASSIC, payoffs=["9H", "6S"], hands=["KH 4C", "2S"],
                            centre=["AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS"], turn=0)
    events = game.play("KH>C1")
    assert [e.kind for e in events] == ["played", "stack_completed"]
    played, completed = describe_events(events)
    assert played.sentence(NAMES) == (
        "Alice played K♥ from their hand to centre stack 1, completing it")
    assert played.line(NAMES) == "Alice: K♥ from hand → centre 1"
    assert (played.kind, played.seat, played.card, played.source, played.target,
            played.target_index, played.completed) == (
        "played", 0, C("KH"), Source.HAND, Target.CENTRE, 0, True)
    assert played.notation == "0 KH>C1"
    assert completed.notation == "C1 completed 13"
    assert completed.sentence(NAMES) == (
        f"Centre stack 1 was completed: its 13 cards went into the stock "
        f"({completed.stock} cards now)")
    assert completed.line(NAMES) is None
    # Alone, the play does not know it completed its stack.
    assert not describe_event(events[0]).completed


def test_a_play_that_does_not_complete_is_not_said_to() -> None:
    game = Game.from_layout(CLASSIC, payoffs=["9H", "6S"], hands=["2H 3C", "2S"],
                            centre=["AS"], turn=0)
    (played,) = describe_events(game.play("2H>C1"))
    assert played.sentence(NAMES) == "Alice played 2♥ from their hand to centre stack 1"
    assert not played.completed


def test_a_payoff_play_turns_up_the_next_card_or_empties_the_pile() -> None:
    game = Game.from_layout(CLASSIC, payoffs=["9D 5H", "6S"], hands=["KC", "2S"],
                            centre=["AS 2S 3S 4S"], turn=0)
    (played,) = describe_events(game.play("P>C1"))
    assert played.notation == "0 P>C1 reveals 9D"
    assert played.revealed is C("9D") and played.card is C("5H")
    assert played.sentence(NAMES) == (
        "Alice played 5♥ from their pay-off pile to centre stack 1, turning up 9♦")
    assert played.line(NAMES) == "Alice: 5♥ from pay-off → centre 1"

    last = Game.from_layout(CLASSIC, payoffs=["5H", "6S"], hands=["KC", "2S"],
                            centre=["AS 2S 3S 4S"], turn=0)
    events = last.play("P>C1")
    played = describe_events(events)[0]
    assert played.notation == "0 P>C1 empties P" and played.emptied_payoff
    assert played.sentence(NAMES).endswith(", emptying their pay-off pile")
    assert isinstance(events[-1], GameOver)
    assert describe_events(events)[-1].line(NAMES) == (
        "Game over: Alice wins, scoring 1 point: Alice played the last pay-off card.")


def test_a_side_stack_play_and_a_wild_card() -> None:
    game = Game.from_layout(CLASSIC, payoffs=["9D", "6S"], hands=["JK 2C", "2S"],
                            sides=[["", "", "7C", ""], ["", "", "", ""]],
                            centre=["AS 2S 3S 4S 5S"], turn=0)
    (wild,) = describe_events(game.play("JK>C1"))
    assert wild.notation == "0 JK>C1 as 6" and wild.as_rank == 6
    assert wild.sentence(NAMES) == "Alice played 🃏 as 6 from their hand to centre stack 1"
    assert wild.line(NAMES) == "Alice: 🃏 as 6 from hand → centre 1"
    (side,) = describe_events(game.play("S3>C1"))
    assert side.notation == "0 S3>C1" and side.source_index == 2 and side.card is C("7C")
    assert side.sentence(NAMES) == "Alice played 7♣ from their side stack 3 to centre stack 1"
    assert side.line(NAMES) == "Alice: 7♣ from side 3 → centre 1"


def test_a_king_in_kings_stands_for_the_rank_it_takes() -> None:
    game = Game.from_layout(KINGS, payoffs=["9D", "6S"], hands=["KC 2C", "2S"],
                            centre=["AS 2S"], turn=0)
    (wild,) = describe_events(game.play("KC>C1"))
    assert wild.notation == "0 KC>C1 as 3"
    assert wild.sentence(NAMES) == "Alice played K♣ as 3 from their hand to centre stack 1"


def test_a_discard_and_a_pass_end_the_turn() -> None:
    game = Game.from_layout(CLASSIC, payoffs=["9D", "6S"], hands=["KC QC", "QS"], turn=0)
    events = game.play("QC>S2")
    discarded = describe_events(events)[0]
    assert discarded.notation == "0 QC>S2" and discarded.kind == "discarded"
    assert discarded.sentence(NAMES) == (
        "Alice discarded Q♣ from their hand to side stack 2, ending their turn")
    assert discarded.line(NAMES) == "Alice: Q♣ from hand → side 2"
    ended = next(d for d in describe_events(events) if d.kind == "turn_ended")
    assert ended.notation == "0 ends turn 1 next 1"
    assert (ended.seat, ended.turn_number, ended.next_seat, ended.idle) == (0, 1, 1, False)
    assert ended.sentence(NAMES) == "Alice's turn ended (turn 1); Bob is on turn"
    assert ended.line(NAMES) is None

    passing = Game.from_layout(CLASSIC, payoffs=["9D", "6S"], hands=["KC", "QS"], turn=0)
    events = passing.play("pass")
    passed = describe_events(events)[0]
    assert passed.notation == "0 pass" and passed.move is PASS
    assert passed.sentence(NAMES) == "Alice passed, ending their turn without a discard"
    assert passed.line(NAMES) == "Alice passed"
    idle = next(d for d in describe_events(events) if d.kind == "turn_ended")
    assert idle.idle and " idle next 1" in idle.notation
    assert "without a play or a discard" in idle.sentence(NAMES)


def test_a_move_from_a_saved_history_names_hand_cards_only() -> None:
    history = [(0, Move.parse("7H>C2")), (1, Move.parse("P>C1")), (0, Move.parse("S3>C2")),
               (1, PASS)]
    assert history_lines(history, NAMES) == [
        "Alice: 7♥ from hand → centre 2", "Bob: from pay-off → centre 1",
        "Alice: from side 3 → centre 2", "Bob passed"]
    payoff = describe_move(1, Move.parse("P>C1"))
    assert payoff.card is None
    assert payoff.sentence(NAMES) == (
        "Bob played the top card from their pay-off pile to centre stack 1")


@pytest.mark.parametrize("move", ALL_MOVES, ids=str)
def test_every_move_notation_reads_back(move: Move) -> None:
    d = describe_move(3, move)
    assert parse_move_notation(d.notation) == (3, move)
    assert d.move is move and d.sentence(("A", "B", "C", "D")).startswith("D ")


def test_the_notation_of_a_play_reads_back_with_its_notes() -> None:
    assert parse_move_notation("1 JK>C3 as 7") == (1, Move.parse("JK>C3"))
    assert parse_move_notation("0 P>C1 reveals 9D") == (0, Move.parse("P>C1"))
    for text in ("", "7H>C2", "x 7H>C2", "0 drew 3", "²0 pass"):
        with pytest.raises(InvalidMoveError):
            parse_move_notation(text)


# ------------------------------------------------------------------------- other events

def test_a_draw_names_its_cards_to_the_drawer_only() -> None:
    drew = Drew(1, 3, (C("7H"), C("9C"), C("KS")), 40)
    mine = describe_event(drew, viewer=1)
    assert mine.notation == "1 drew 7H 9C KS" and mine.cards == (C("7H"), C("9C"), C("KS"))
    assert mine.sentence(NAMES) == "Bob drew 7♥, 9♣ and K♠ (40 cards left in the stock)"
    for viewer in (0, None):
        theirs = describe_event(drew, viewer)
        assert theirs.notation == "1 drew 3" and theirs.cards is None
        assert theirs.sentence(NAMES) == "Bob drew 3 cards (40 cards left in the stock)"
        assert not any(s in theirs.sentence(NAMES) + theirs.notation
                       for s in ("7", "9", "K", "♥", "♣", "♠"))
    assert describe_event(drew).line(NAMES) is None  # a board never lists a draw
    assert describe_events([drew])[0].cards is None  # a spectator's, unless a viewer is given


def test_the_deal_says_the_tops_and_who_plays_first() -> None:
    dealt = Dealt((C("7H"), C("KS")), (26, 26), 0, 1)
    d = describe_event(dealt)
    assert d.notation == "deal 7H KS first 1"
    assert d.sentence(NAMES) == "The deal turned up Alice 7♥ and Bob K♠; Bob plays first"
    again = describe_event(Dealt((C("7H"), None, C("7S")), (20, 0, 20), 2, 0))
    assert again.notation == "deal 7H - 7S first 0 reshuffled 2"
    assert again.reshuffles == 2 and again.tops == (C("7H"), None, C("7S"))
    assert again.sentence(("A", "B", "C")) == (
        "The deal turned up A 7♥ and C 7♠ after the tied piles were reshuffled 2 times; "
        "A plays first")
    assert again.line(("A", "B", "C")) is None


def test_a_player_leaving_and_the_end() -> None:
    left = describe_event(Left(2, 12, 0))
    assert left.notation == "2 left 12 next 0"
    assert (left.seat, left.margin, left.next_seat) == (2, 12, 0)
    assert left.sentence(("A", "B", "C")) == "C left the game (12 cards in their pay-off pile)"
    assert left.line(("A", "B", "C")) == left.sentence(("A", "B", "C"))
    last = describe_event(Left(0, 1, None))
    assert last.notation == "0 left 1 over"
    assert last.line(NAMES) is None  # at a table of two the end of the game says it
    won = Result(1, 7, EndReason.RESIGNED, (7, 3))
    over = describe_event(GameOver(won))
    assert over.notation == "over 1 wins 7 resigned" and over.result is won
    assert over.sentence(NAMES) == "Bob wins, scoring 7 points: Alice gave the game up."
    tie = describe_event(GameOver(Result(None, 0, EndReason.STOCK_OUT, (4, 5))))
    assert tie.notation == "over tie stock_out"
    assert tie.line(NAMES) == "Game over: Tied game, no points (the stock ran out)."


def test_result_sentences_for_two_players() -> None:
    assert describe_result(Result(0, 1, EndReason.PAYOFF_EMPTIED, (0, 1)), NAMES) == (
        "Alice wins, scoring 1 point: Alice played the last pay-off card.")
    assert describe_result(Result(0, 4, EndReason.STALEMATE, (2, 6)), NAMES) == (
        "Alice wins, scoring 4 points (stalemate: neither player could or would play).")
    assert describe_result(Result(None, 0, EndReason.TURN_LIMIT, (2, 6)), NAMES) == (
        "Tied game, no points (the game reached its turn limit).")


# ---------------------------------------------------------------------- whole games

@pytest.mark.parametrize(("rules", "players", "seed"),
                         [(CLASSIC, 2, 1), (KINGS, 2, 2), (CLASSIC, 3, 3), (KINGS, 4, 4)])
def test_every_event_of_real_games_reads(rules: object, players: int, seed: int) -> None:
    names = ("Ann", "Bob", "Carol", "Dmitri")[:players]
    game, dealt = Game.new(rules, seed, players=players)  # type: ignore[arg-type]
    bots = [make_player("easy", seat + 10) for seat in range(players)]
    events = list(dealt)
    while game.result is None and game.turn_number < 400:
        events += game.play(bots[game.turn].choose(game.view(game.turn)))
    if game.result is None:
        events += game.resign(game.turn)
    kinds = set()
    for viewer in (None, *range(players)):
        for event, d in zip(events, describe_events(events, viewer), strict=True):
            kinds.add(d.kind)
            assert isinstance(d, Description) and d.kind == event.kind
            assert d.notation == event.visible_to(viewer).notation
            sentence = d.sentence(names)
            assert sentence and "None" not in sentence
            if isinstance(event, Played | Discarded | Passed):
                move = PASS if isinstance(event, Passed) else event.move
                assert parse_move_notation(d.notation) == (event.player, move) == (d.seat, d.move)
                assert sentence.startswith(names[event.player])
            if isinstance(event, Drew) and viewer != event.player:
                assert d.cards is None and d.notation == f"{event.player} drew {event.count}"
            if isinstance(event, StackCompleted | TurnEnded | Dealt | Drew):
                assert d.line(names) is None
    assert {"dealt", "drew", "played", "discarded", "turn_ended", "game_over"} <= kinds
    lines = public_lines(events, names)
    described = [d.line(names) for d in describe_events(events)]
    assert lines == [line for line in described if line is not None]
    assert lines and all(" drew " not in line for line in lines)
    assert lines[-1].startswith("Game over: ")


def test_the_modules_examples_hold() -> None:
    import doctest

    import engine.describe

    tried = doctest.testmod(engine.describe)
    assert tried.attempted and not tried.failed


def test_a_stalemate_with_a_leaver_says_how_his_margin_is_counted() -> None:
    # Rule 26: a leaver's margin is his pay-off count when he left, not the difference.
    names = ("Ann", "Bob", "Cat")
    stayed = Result(0, 7, EndReason.STALEMATE, (3, 5, 9), margins=(None, 2, 5))
    assert describe_result(stayed, names).endswith(
        "cards, and each margin is the difference). Bob loses by 2, Cat by 5.")
    left = Result(0, 11, EndReason.STALEMATE, (3, 5, 9), margins=(None, 2, 9), left=(2,))
    assert describe_result(left, names).endswith(
        "cards, and each margin is the difference, a leaver's his pay-off cards when he "
        "left). Bob loses by 2, Cat by 9 (left the game).")
