"""Computer players: legal moves only, views only, reproducible, at every level and rule set."""

from __future__ import annotations

import dataclasses
import functools
import gc
import random
from collections import Counter
from typing import Any

import pytest

from engine import CLASSIC, KINGS, PASS, Game, Match, Move, RuleSet, View, full_deck
from engine.ai.knowledge import (
    UnseenPool,
    determinize,
    hand_fits,
    last_turn_ends,
    sample_hidden,
    unseen_cards,
)
from engine.ai.planner import Candidate, Planner
from engine.ai.search import HARD_WEIGHTS, Searcher
from engine.arena import play_game
from engine.cards import Card
from engine.players import LEVELS, Player, make_player, simple_move

from .conftest import EMPTY4, lay

RULE_SETS = [CLASSIC, KINGS]
NO_REFILL = CLASSIC.with_options(refill_empty_hand=False)
GAMES = {"random": 12, "easy": 12, "normal": 12, "hard": 3}


class Checked:
    """Wraps a player and checks every move it makes against the view it was given."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.name = player.name
        self.moves: list[Move] = []

    def choose(self, view: View) -> Move:
        assert isinstance(view, View)
        move = self.player.choose(view)
        assert move in view.legal_moves, f"{self.name} chose {move} not in {view.legal_moves}"
        self.moves.append(move)
        return move


@pytest.mark.parametrize("rules", [*RULE_SETS, NO_REFILL],
                         ids=["classic", "kings", "classic-no-refill"])
@pytest.mark.parametrize("level", list(LEVELS))
def test_each_level_plays_only_legal_moves_to_the_end(rules: RuleSet, level: str) -> None:
    opponents = ["random", "normal"]
    for n in range(GAMES[level]):
        me = Checked(make_player(level, n))
        other = Checked(make_player(opponents[n % 2], 100 + n))
        seats = [me, other] if n % 2 == 0 else [other, me]
        game = play_game(rules, 7_000 + n, seats)  # Game.play refuses any illegal move too
        assert game.result is not None
        assert me.moves


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_compulsory_aces_and_twos_are_played_first(rules: RuleSet) -> None:
    # Classic rule 10: with an Ace due, the only legal moves are compulsory and every level
    # picks one of them; kings has no compulsory plays and the same position plays freely.
    game = lay(rules, payoffs=["9C 9C", "9D 5D"], hands=["AH 7S 8S 9S 10S", "2C 3C 4C 5C 6C"])
    view = game.view(0)
    for level in LEVELS:
        move = make_player(level, 1).choose(view)
        assert move in view.legal_moves
        if rules is CLASSIC:
            assert move in view.compulsory


def test_the_view_holds_no_reference_to_the_game() -> None:
    game, _ = Game.new(KINGS, 3)
    view = game.view(game.turn)
    seen: set[int] = set()
    todo: list[object] = [view]
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        assert not isinstance(obj, Game)
        if isinstance(obj, type):
            continue  # classes lead to modules, not to this game
        todo.extend(gc.get_referents(obj))
    # The hidden cards are nowhere in the view: only counts.
    assert view.hand_sizes[1 - view.viewer] == 5 and view.stock_size == len(game.stock)


def _swap_hidden(game: Game, seed: int) -> Game:
    """The same game with the hidden cards (opponent's hand, stock, pay-off cards below the
    tops) dealt differently."""
    twin = Game.from_dict(game.to_dict())
    me, opp = twin.turn, 1 - twin.turn
    pool = twin.hands[opp] + twin.stock
    below = [twin.payoffs[p][:-1] for p in (0, 1)]
    rng = random.Random(seed)
    rng.shuffle(pool)
    for pile in below:
        rng.shuffle(pile)
    n = len(twin.hands[opp])
    twin.hands[opp] = pool[:n]
    twin.stock = pool[n:]
    twin.payoffs = [below[p] + twin.payoffs[p][-1:] for p in (0, 1)]
    twin._legal = None
    assert Counter(twin.all_cards()) == Counter(full_deck(twin.rules))
    assert twin.view(me) == game.view(me)
    return twin


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_players_cannot_tell_games_apart_that_differ_only_in_hidden_cards(rules: RuleSet) -> None:
    game, _ = Game.new(rules, 21)
    driver = make_player("normal", 5)
    checked = 0
    step = 0
    while game.result is None and checked < 6:
        view = game.view(game.turn)
        if step % 9 == 0 and len(view.legal_moves) > 1:
            twin = _swap_hidden(game, step)
            for level in LEVELS:
                a = make_player(level, 99).choose(view)
                b = make_player(level, 99).choose(twin.view(twin.turn))
                assert a is b, level
            checked += 1
        game.play(driver.choose(view))
        step += 1
    assert checked >= 3


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
@pytest.mark.parametrize("level", list(LEVELS))
def test_same_seed_same_moves(rules: RuleSet, level: str) -> None:
    def history() -> list[tuple[int, Move]]:
        seats = [make_player(level, 4), make_player("easy", 5)]
        return play_game(rules, 77, seats).history

    assert history() == history()


def _sixty_moves_in(rules: RuleSet) -> Game:
    """A game of seed 8, 60 moves of the easy player in: cards in every kind of place."""
    game, _ = Game.new(rules, 8)
    driver = make_player("easy", 1)
    for _ in range(60):
        game.play(driver.choose(game.view(game.turn)))
    return game


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_a_determinization_agrees_with_the_view_and_conserves_cards(rules: RuleSet) -> None:
    game = _sixty_moves_in(rules)
    seat = game.turn
    view = game.view(seat)
    unseen = unseen_cards(view)
    real_hidden = game.hands[1 - seat] + game.stock + game.payoffs[0][:-1] + game.payoffs[1][:-1]
    assert Counter(unseen) == Counter(real_hidden)
    for k in range(5):
        det = determinize(view, random.Random(k))
        assert Counter(det.all_cards()) == Counter(full_deck(rules))
        mine = det.view(seat).to_dict()
        theirs = view.to_dict()
        mine.pop("recent"), theirs.pop("recent")  # history is not part of a determinization
        assert mine == theirs
        if rules.payoff_from_pack_a:
            assert not any(c.is_joker for pile in det.payoffs for c in pile)
    hidden = sample_hidden(view, random.Random(0))
    assert len(hidden.stock) == view.stock_size
    assert len(hidden.opponent_hand) == view.hand_sizes[1 - seat]


def test_an_idle_pass_that_wins_the_stalemate_is_taken() -> None:
    # Rule 16: the opponent (seat 1) passed without playing; seat 0 has fewer pay-off cards, so
    # passing now ends the game in seat 0's favour.
    game = lay(CLASSIC, payoffs=["9C", "9D 9D 9H"], hands=["KS QS 7H 8H JH", "KD QD 7D 8D JD"],
               turn=1)
    game.play(PASS)
    view = game.view(0)
    for level in ("normal", "hard"):
        assert make_player(level, 0).choose(view) is PASS


def test_hard_behind_does_not_pass_idly_while_it_can_discard() -> None:
    # Rule 16: seat 0 has more pay-off cards; an idle pass would let seat 1 end the game by
    # passing too. Discarding a joker is costly, but hard discards; normal passes.
    game = lay(CLASSIC, payoffs=["9C 9C 9H", "9D"], hands=["JK JK JK JK", "KD QD 7D 8D JD"])
    view = game.view(0)
    assert make_player("normal", 0).choose(view) is PASS
    move = make_player("hard", 0).choose(view)
    assert move.is_discard


def test_the_stuck_risk_of_side_stacks() -> None:
    # Classic side stacks take the same rank or one lower: tops K, Q, 9, 9 take K, Q, J, 9, 8
    # (and jokers). A held card that fits means no risk; an empty stack means no risk.
    game = lay(CLASSIC, payoffs=["9C 9C 9H", "9D"], hands=["2C 3C 4C 5C", "KD QD 7D 8D JD"],
               sides=[["KS", "QS", "9S", "9H"], EMPTY4], stock="2D 3D 4D 5D 6D")
    planner = Planner(game.view(0), HARD_WEIGHTS)
    tops = [1 << 13, 1 << 12, 1 << 9, 1 << 9]
    hand = list(game.view(0).hand or ())
    risk = planner._stuck_risk(hand, tops, False)
    assert 0.0 < risk < 1.0
    assert planner._stuck_risk([*hand, Card.parse("8D")], tops, False) == 0.0
    assert planner._stuck_risk(hand, [*tops[:3], -1], False) == 0.0
    assert planner._stuck_risk([*hand, Card.parse("6D")], tops, False) == 1.0  # no draw


def test_normal_plays_a_line_that_reaches_the_pay_off_card() -> None:
    # Pay-off 5; centre needs a 3; the 3 and the 4 are in the hand: play them, then the 5.
    game = lay(KINGS, payoffs=["9C 5H", "9D 9D"], hands=["3S 4D QH QS JC", "2C 2C 2D 2H 2S"],
               centre=["AS 2D", "", ""])
    moves = []
    player = make_player("normal", 0)
    while game.turn == 0 and game.result is None and len(moves) < 3:
        move = player.choose(game.view(0))
        moves.append(move.text)
        game.play(move)
    assert moves == ["3S>C1", "4D>C1", "P>C1"]


def test_make_player_levels_and_the_simple_policy() -> None:
    for level in LEVELS:
        assert make_player(level, 1).name == level
    with pytest.raises(ValueError, match="Unknown level"):
        make_player("grandmaster", 1)
    game, _ = Game.new(KINGS, 2)
    view = game.view(game.turn)
    assert simple_move(view, random.Random(1)) in view.legal_moves
    with pytest.raises(ValueError):
        simple_move(game.view(1 - game.turn))


@pytest.mark.parametrize("level", list(LEVELS))
def test_each_level_plays_a_kings_match_to_its_target(level: str) -> None:
    match, _ = Match.new(KINGS, 31)
    players = [make_player(level, 1), make_player("easy", 2)]
    while not match.is_over:
        if match.game.result is not None:
            match.next_game()
            continue
        game = match.game
        view = game.view(game.turn)
        move = players[game.turn].choose(view)
        assert move in view.legal_moves
        match.play(move, player=game.turn)
    assert match.target is not None and max(match.scores) >= match.target or match.resigned


def test_the_hard_player_takes_no_parameter_that_does_nothing() -> None:
    # ``candidates`` and ``deals`` used to be accepted and ignored (they fed re-scoring code that
    # could never run); the hard player's strength comes from its sampled deals and node budget.
    import inspect

    from engine.ai import search
    from engine.players import HardPlayer

    assert list(inspect.signature(HardPlayer).parameters) == ["seed"]
    assert list(inspect.signature(search.Searcher).parameters) == [
        "seed", "node_limit", "threat_deals", "tries"]
    assert not hasattr(search, "chase")
    assert make_player("hard", 3).name == "hard"


def test_players_read_what_a_side_stack_joker_stands_for_from_the_view() -> None:
    # A joker placed on a 3 while one centre stack is in play stands for a 3 only (rules 12,
    # 13); recomputing it from the cards alone would also allow a 2.
    game = lay(CLASSIC, hands=["JK 2H 7C 7D 8S", "9H 10H JD 10D 10C"],
               sides=[["3C", "", "", ""], EMPTY4], centre=["AS 2S 3S"])
    game.play("JK>S1")
    game.play("10H>S1")
    view = game.view(0)
    assert view.side_ranks[0][0] == ((3,), (3,))
    from engine.ai.knowledge import determinize, seat_side_masks, side_masks

    assert seat_side_masks(view, 0)[0] == [1 << 3, 1 << 3]
    assert side_masks(CLASSIC, view.sides[0][0]) == [1 << 3, (1 << 3) | (1 << 2)]
    assert determinize(view, random.Random(1)).side_masks[0][0] == [1 << 3, 1 << 3]
    assert Planner(view).masks0[0] == [1 << 3, 1 << 3]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_a_glimpse_deals_unseen_cards_as_a_full_deal_would(rules: RuleSet) -> None:
    # The hard player samples only the opponent's hand and the top of the stock: the cards come
    # from the unseen ones, in the numbers the view shows, and in classic (pay-off piles from
    # pack A, so jokers lie only in hands and the stock) a joker turns up in the opponent's hand
    # as often as in full deals.
    game = _sixty_moves_in(rules)
    view = game.view(game.turn)
    opp = 1 - game.turn
    pool = UnseenPool(view)
    unseen = Counter(unseen_cards(view))
    rng = random.Random(5)
    for _ in range(50):
        glimpse = pool.glimpse(rng, 15)
        assert len(glimpse.opponent_hand) == view.hand_sizes[opp]
        assert len(glimpse.stock) == min(15, view.stock_size)
        assert not Counter(glimpse.opponent_hand + glimpse.stock) - unseen
    if rules.payoff_from_pack_a:
        n = 3000
        full = sum(sum(c.is_joker for c in sample_hidden(view, rng).opponent_hand)
                   for _ in range(n)) / n
        quick = sum(sum(c.is_joker for c in pool.glimpse(rng, 0).opponent_hand)
                    for _ in range(n)) / n
        assert full > 0 and abs(full - quick) < 0.1 * full


def test_own_reach_counts_the_deals_in_which_the_next_turn_reaches_the_pay_off_card() -> None:
    # Pay-off 6, a centre stack needs a 4: the 4 and the 5 kept in the hand reach it whatever
    # is drawn; with only the 4 kept, it takes a 5 (or a King) among the cards drawn.
    game = lay(KINGS, payoffs=["9C 6H", "9D 9D"], hands=["4S 5D", "2C 2C 2D 2H 2S"],
               centre=["AS 2D 3C", "", ""], stock="7C 7D 7H 7S 8C 8D 8H 8S 9H 9S JC JD")
    view = game.view(0)
    weights = dataclasses.replace(HARD_WEIGHTS, own_reach=100.0)
    deals = [UnseenPool(view).glimpse(random.Random(k), 15) for k in range(weights.own_deals)]
    planner = Planner(view, weights, deals=deals)
    both = Candidate(0.0, (), "end", None, (4, 1, 1), tuple(view.hand or ()), ((),) * 4)
    assert planner.own_reach(both) == 1.0
    one = Candidate(0.0, (), "end", None, (4, 1, 1), (Card.parse("4S"),), ((),) * 4)
    assert 0.0 < planner.own_reach(one) < 1.0
    far = Candidate(0.0, (), "end", None, (8, 1, 1), (), ((),) * 4)
    assert planner.own_reach(far) < planner.own_reach(one)


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_every_level_plays_any_seat_of_a_bigger_table_even_after_a_player_left(
    rules: RuleSet, players: int
) -> None:
    for n, level in enumerate(LEVELS):
        others = ["easy", "normal", "hard", "random"]
        seats = [Checked(make_player(level if s == n % players else others[(n + s) % 4], s))
                 for s in range(players)]
        game, _ = Game.new(rules, 300 + n, players)
        moves = 0
        while game.result is None:
            if moves == 40 and players == 4:
                game.resign((n + 1) % players)  # the computer players see a seat that left
            view = game.view(game.turn)
            game.play(seats[game.turn].choose(view), player=game.turn)
            moves += 1
        assert seats[n % players].moves


def _after_two_turns() -> Game:
    # A table of three, classic. Seat 1 (pay-off 7) ends his turn with a discard while the
    # centre needs a 4, a 3 and an Ace (two free slots); seat 2 then plays a 3, so the centre
    # seat 0 sees needs 4, 4 and Aces.
    game = lay(CLASSIC, payoffs=["9C 9C", "9D 7H", "9S 9S"],
               hands=["KS QS", "KD QD JD 9C", "3S KH QH JH"],
               centre=["AS 2D 3C", "AH 2H"], turn=1, stock="8C 8D 8H 8S")
    for text in ("KD>S1", "3S>C2", "KH>S1"):
        game.play(Move.parse(text))
    return game


def test_an_opponents_last_turn_tells_what_his_hand_cannot_hold() -> None:
    game = _after_two_turns()
    ends = last_turn_ends(game.view(0))
    assert set(ends) == {1, 2}
    end = ends[1]
    # The centre as he left it (seat 2's 3 taken back), below his pay-off 7.
    assert end.starts == (1, 3, 4) and end.goal == 7 and end.discarded == Card.parse("KD")

    def fits(text: str) -> bool:
        return hand_fits(CLASSIC, end, [Card.parse(c) for c in text.split()])

    assert fits("QD JD 9C")  # what he holds
    assert fits("5S 6S 9C")  # a 4 missing: he could not go on from the 3 or the 4
    assert not fits("4S 5S 6S")  # 4, 5, 6 and the 7 from the pay-off pile
    assert not fits("JK 5S 6S")  # the joker stands for the 4
    assert not fits("AC QD JD")  # rule 10: a free slot and an Ace, so he could not end his turn
    assert fits("2C QD JD")  # no stack showed an Ace: a 2 was not due


def test_hard_reads_the_last_turns_only_at_a_bigger_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Two-player games stay move for move what they were (test_two_player_pins).
    game = lay(CLASSIC, payoffs=["9C 9C", "9D 7H"], hands=["KS QS", "KD QD JD 9H"],
               centre=["AS 2D 3C"], turn=1, stock="8C 8D 8H 8S")
    game.play(Move.parse("KD>S1"))
    calls = Counter[str]()
    dealt = UnseenPool.glimpse_fitting

    def spy(*args: Any) -> Any:
        # args: the pool, rng, stock cards, checks, tries; a plain glimpse checks nothing.
        if any(check is not None for check in args[3]):
            calls["deals"] += 1
        return dealt(*args)

    monkeypatch.setattr(UnseenPool, "glimpse_fitting", spy)
    for view, reads in ((game.view(0), False), (_after_two_turns().view(0), True)):
        assert last_turn_ends(view)  # readable at any table
        calls.clear()
        searcher = Searcher(0)
        assert searcher.plan(view) is not None
        assert calls["deals"] == (searcher.threat_deals if reads else 0)


def test_hard_at_a_bigger_table_deals_hands_that_fit_the_last_turns() -> None:
    view = _after_two_turns().view(0)
    ends = last_turn_ends(view)
    pool = UnseenPool(view)
    rng = random.Random(5)
    # Seat 1 plays right after seat 0: his hand is the glimpse's first, seat 2's the later one.
    plain = [pool.glimpse(rng, 15) for _ in range(300)]
    checks = [functools.partial(hand_fits, CLASSIC, ends[seat]) for seat in (1, 2)]
    fitted = [pool.glimpse_fitting(rng, 15, checks, 50) for _ in range(300)]
    for deals, fit in ((plain, False), (fitted, True)):
        fits = [hand_fits(CLASSIC, ends[1], d.opponent_hand)
                and hand_fits(CLASSIC, ends[2], d.later_hands[0]) for d in deals]
        assert all(fits) if fit else fits.count(False) > 30
        assert all(len(d.stock) == 15 and len(d.opponent_hand) == len(d.later_hands[0]) == 3
                   for d in deals)
    # A check that never passes still gives a deal: the last try.
    assert pool.glimpse_fitting(rng, 15, [lambda hand: False, None], 3).opponent_hand


def test_a_deal_dealt_again_holds_only_unseen_cards() -> None:
    # Each try deals from the same unseen cards: a card drawn in a failed try goes back, so
    # the kept deal never holds a card more often than the unseen cards do (it once did: a
    # draw overwrote the drawn card's place, so a retry could deal one card twice).
    view = _after_two_turns().view(0)
    pool = UnseenPool(view)
    unseen = Counter(unseen_cards(view))
    rng = random.Random(7)
    for tries in (2, 5, 20):
        for _ in range(50):
            deal = pool.glimpse_fitting(rng, 40, [lambda hand: False, None], tries)
            dealt = Counter(deal.opponent_hand + deal.later_hands[0] + deal.stock)
            assert sum(dealt.values()) == 3 + 3 + min(40, view.stock_size)
            assert not dealt - unseen


def test_normal_in_classic_at_a_bigger_table_keeps_its_jokers_where_at_two_it_spends_them() -> None:
    # Seat 0 could play the 3, both jokers and the 5 (none of it reaching its pay-off 10). At a
    # table of two normal does; at a table of three it keeps the jokers for its pay-off card
    # (TABLE_CLASSIC_WEIGHTS) and ends the turn with a discard.
    hands = ["JK JK 5D 10S 3C", "7C 8C QD", "7D 8D"]
    sides = [[["JD", "10D"], [], [], []], [["9C"], ["10C"], [], []], [["JS"], ["KD"], [], []]]
    payoffs = ["9H 10D", "9S 4H", "9D JS"]
    centre = ["AC JK 3H 4D 5H 6H", "AS 2H"]
    three = lay(CLASSIC, payoffs=payoffs, hands=hands, sides=sides, centre=centre)
    two = lay(CLASSIC, payoffs=payoffs[:2], hands=hands[:2], sides=sides[:2], centre=centre)
    assert make_player("normal", 0).choose(two.view(0)).text == "3C>C2"
    assert Planner(three.view(0)).best_move().text == "3C>C2"  # the two-player weights
    assert make_player("normal", 0).choose(three.view(0)).text == "10S>S1"
