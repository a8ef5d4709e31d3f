"""Property tests at tables of two, three and four, in both rule sets (rules 23 to 29).

Each test plays whole seeded games with a seeded random policy (as ``test_properties`` does for
two players, whose helpers it shares) and, at bigger tables, sometimes makes a player leave
(``Game.resign``, rule 26). After every move it checks one guarantee of RULES.md: cards are
conserved (108/104, 160/156, 212/208), every legal move is accepted and every other refused
without a change, the legal moves are the rule book's, views and events show nobody what he may
not see, saves and replays reproduce the game, and results add up.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    ALL_MOVES,
    CLASSIC,
    KINGS,
    PASS,
    Card,
    Drew,
    EndReason,
    Event,
    Game,
    GameOver,
    IllegalMoveError,
    Left,
    Match,
    Move,
    RuleSet,
    Source,
    full_deck,
)

from .test_properties import (
    GAMES,
    MAX_MOVES,
    _choose,
    _event_cards,
    _reference_legal,
    _seen,
    _side_ranks_after,
    _view_diff,
    policies,
    policy_seeds,
    seeds,
)

RULES = [pytest.param(CLASSIC, id="classic"), pytest.param(KINGS, id="kings")]
TABLES = [2, 3, 4]
DECK = {("classic", 2): 108, ("classic", 3): 160, ("classic", 4): 212,
        ("kings", 2): 104, ("kings", 3): 156, ("kings", 4): 208}
LEAVE_CHANCE = 1 / 250
"""At a table of three or four, the chance before each move that a random player leaves."""


def _where(game: Game) -> str:
    recent = " ".join(f"{p}:{m}" for p, m in game.history[-8:])
    return (f"[{game.rules.name} players={game.players} seed={game.seed} left={game.departures}"
            f" after {len(game.history)} moves, turn {game.turn_number}, seat {game.turn} on "
            f"turn; last moves: {recent}]")


def _maybe_leave(game: Game, rng: random.Random) -> list[Event]:
    """Sometimes make a seated player leave (never at a table of two)."""
    if game.players == 2 or game.result is not None or rng.random() >= LEAVE_CHANCE:
        return []
    return game.resign(rng.choice(game.seated))


def _check_conservation(game: Game) -> None:
    rules, n = game.rules, game.players
    where = _where(game)
    total = DECK[(rules.name, n)]
    assert game.deck_size == total
    deck = Counter(full_deck(rules, n))
    assert sum(deck.values()) == total
    piles = [*game.payoffs, *game.hands, *game.centre, game.stock,
             *(s for seat in game.sides for s in seat)]
    assert len(game.payoffs) == len(game.hands) == len(game.sides) == n, where
    counted: Counter[Card] = Counter()
    for pile in piles:
        counted.update(pile)
    assert counted == deck, f"missing {deck - counted}, extra {counted - deck} {where}"
    assert Counter(game.all_cards()) == deck, where
    view = game.public_view()
    in_view = (sum(view.payoff_counts) + sum(view.hand_sizes) + view.stock_size
               + sum(len(s) for player in view.sides for s in player)
               + sum(len(c.cards) for c in view.centre))
    assert in_view == total, f"the public view holds {in_view} cards {where}"
    for seat in game.left:
        assert seat not in game.seated and game.turn != seat or game.result is not None, where


@pytest.mark.parametrize("players", TABLES)
@pytest.mark.parametrize("rules", RULES)
@settings(GAMES, max_examples=8)
@given(seed=seeds, policy_seed=policy_seeds, policy=policies)
def test_cards_are_conserved_and_leavers_never_play(
    rules: RuleSet, players: int, seed: int, policy_seed: int, policy: str
) -> None:
    game, _ = Game.new(rules, seed, players)
    rng = random.Random(policy_seed)
    _check_conservation(game)
    for _ in range(MAX_MOVES):
        if game.result is not None:
            break
        if _maybe_leave(game, rng):
            _check_conservation(game)
            continue
        assert game.turn in game.seated, f"a leaver is on turn {_where(game)}"
        game.play(_choose(game.legal_moves(), rng, policy), player=game.turn)
        _check_conservation(game)
    assert game.result is not None, f"the game did not end {_where(game)}"
    for seat, at in game.departures:
        assert all(p != seat for p, _m in game.history[at:]), f"{seat} moved {_where(game)}"


def _check_moves(game: Game, rng: random.Random) -> None:
    where = _where(game)
    legal = game.legal_moves()
    assert legal and len(set(legal)) == len(legal), where
    for move in legal:
        assert game.is_legal(move) and game.explain(move) == "That move is legal.", where
    legal_set = set(legal)
    illegal = [m for m in ALL_MOVES if m not in legal_set]
    before = game.to_dict()
    for move in rng.sample(illegal, min(4, len(illegal))):
        assert not game.is_legal(move), where
        with pytest.raises(IllegalMoveError) as caught:
            game.play(move)
        assert str(caught.value).strip() and str(caught.value) != "That move is legal."
        assert game.to_dict() == before, f"refusing {move} changed the game {where}"
    for other in range(game.players):
        if other == game.turn:
            continue
        with pytest.raises(IllegalMoveError, match="not your turn"):
            game.play(rng.choice(legal), player=other)
    assert game.to_dict() == before, f"a move out of turn changed the game {where}"


@pytest.mark.parametrize("players", TABLES)
@pytest.mark.parametrize("rules", RULES)
@settings(GAMES, max_examples=4)
@given(seed=seeds, policy_seed=policy_seeds, policy=policies)
def test_every_legal_move_accepted_every_other_refused_and_the_rule_book_agrees(
    rules: RuleSet, players: int, seed: int, policy_seed: int, policy: str
) -> None:
    game, _ = Game.new(rules, seed, players)
    rng = random.Random(policy_seed)
    check_rng = random.Random(~policy_seed)
    side_ranks: list[list[list[frozenset[int]]]] = [
        [[] for _ in range(rules.side_stacks)] for _ in range(players)]
    while game.result is None:
        assert len(game.history) < MAX_MOVES, _where(game)
        if _maybe_leave(game, rng):
            continue
        if check_rng.random() < 0.3:
            _check_moves(game, check_rng)
        legal = set(game.legal_moves())
        expected = _reference_legal(game, side_ranks)
        assert legal == expected, (
            f"engine only {sorted(map(str, legal - expected))}, rule book only "
            f"{sorted(map(str, expected - legal))} {_where(game)}")
        move = _choose(game.legal_moves(), rng, policy)
        p = game.turn
        if move.is_discard and move.card is not None:
            four = sum(1 for s in game.centre if s) == rules.centre_stacks
            pile = side_ranks[p][move.target_index]
            pile.append(_side_ranks_after(pile[-1] if pile else None, move.card, four)
                        if rules.side_down_or_same else frozenset({move.card.rank}))
        elif move.source is Source.SIDE:
            side_ranks[p][move.source_index].pop()
        game.play(move, player=p)
    assert game.result is not None
    before = game.to_dict()
    for move in rng.sample(ALL_MOVES, 5):
        with pytest.raises(IllegalMoveError, match="over"):
            game.play(move)
    with pytest.raises(IllegalMoveError, match="over"):
        game.resign(0)
    assert game.to_dict() == before


def _permuted(game: Game, viewer: int | None, rng: random.Random) -> Game:
    """A copy of ``game`` with everything ``viewer`` may not see shuffled: the hands of every
    other seat pooled with the stock and dealt back, each pay-off pile shuffled below its top."""
    data = json.loads(json.dumps(game.to_dict()))
    hidden = [p for p in range(game.players) if p != viewer]
    pool: list[str] = list(data["stock"])
    for p in hidden:
        pool.extend(data["hands"][p])
    rng.shuffle(pool)
    for p in hidden:
        n = len(data["hands"][p])
        data["hands"][p], pool = pool[:n], pool[n:]
    data["stock"] = pool
    for p in range(game.players):
        pile = data["payoffs"][p]
        if pile:
            below = pile[:-1]
            rng.shuffle(below)
            data["payoffs"][p] = below + [pile[-1]]
    return Game.from_dict(data)


def _check_views(game: Game, rng: random.Random, changed: list[int]) -> None:
    where = _where(game)
    for viewer in [*range(game.players), None]:
        view = game.view(viewer)
        if viewer is None:
            assert view.hand is None and view.legal_moves == () and view.compulsory == ()
        else:
            assert view.hand == tuple(game.hands[viewer]), where
            # Every other seat, in the order they play after the viewer.
            order = [s.seat for s in view.opponents]
            assert order == [(viewer + k) % game.players for k in range(1, game.players)
                             if (viewer + k) % game.players not in game.absent], where
            for seat_view in view.opponents:
                s = seat_view.seat
                assert seat_view.hand_size == len(game.hands[s]), where
                assert seat_view.payoff_count == len(game.payoffs[s]), where
                assert seat_view.payoff_top == (game.payoffs[s][-1] if game.payoffs[s]
                                                else None), where
                assert seat_view.sides == tuple(tuple(p) for p in game.sides[s]), where
                assert seat_view.has_left == (s in game.left), where
        copy = _permuted(game, viewer, rng)
        if copy != game:
            changed[0] += 1
        other = copy.view(viewer)
        assert other == view, f"{viewer=}: a hidden card shows:\n{_view_diff(view, other)} {where}"
        assert other.to_dict() == view.to_dict(), where


@pytest.mark.parametrize("players", TABLES)
@pytest.mark.parametrize("rules", RULES)
@settings(GAMES, max_examples=4)
@given(seed=seeds, policy_seed=policy_seeds, policy=policies)
def test_views_and_events_show_nobody_what_he_may_not_see(
    rules: RuleSet, players: int, seed: int, policy_seed: int, policy: str
) -> None:
    game, _ = Game.new(rules, seed, players)
    rng = random.Random(policy_seed)
    check_rng = random.Random(policy_seed ^ 0x5EED)
    changed = [0]
    viewers: list[int | None] = [*range(players), None]
    _check_views(game, check_rng, changed)
    while game.result is None:
        before = {v: game.view(v) for v in viewers}
        move: Move | None = None
        events = _maybe_leave(game, rng)
        if not events:
            move = _choose(game.legal_moves(), rng, policy)
            events = game.play(move)
        for e in events:
            if isinstance(e, Drew):
                assert e.cards is not None and e.visible_to(e.player) == e
                for v in viewers:
                    if v != e.player:
                        hidden = e.visible_to(v)
                        assert isinstance(hidden, Drew) and hidden.cards is None, _where(game)
            else:
                assert all(e.visible_to(v) == e for v in viewers), _where(game)
        for v in viewers:
            allowed = _seen(before[v]) | _seen(game.view(v))
            if move is not None and move.card is not None:
                allowed[move.card] += 1
            for e in events:
                for card in _event_cards(e.visible_to(v)):
                    assert allowed[card], f"{v=} is shown {card} by {e} {_where(game)}"
        if check_rng.random() < 0.1 or game.result is not None:
            _check_views(game, check_rng, changed)
    assert changed[0] > 0


@pytest.mark.parametrize("players", TABLES)
@pytest.mark.parametrize("rules", RULES)
@settings(GAMES, max_examples=5)
@given(seed=seeds, policy_seed=policy_seeds, policy=policies)
def test_saves_and_replays_reproduce_the_game_with_its_leavers(
    rules: RuleSet, players: int, seed: int, policy_seed: int, policy: str
) -> None:
    game, dealt = Game.new(rules, seed, players)
    twin, twin_dealt = Game.new(rules, seed, players)
    assert twin == game and twin_dealt == dealt
    rng = random.Random(policy_seed)
    check_rng = random.Random(policy_seed + 1)
    loaded: Game | None = None
    while game.result is None:
        if loaded is None and check_rng.random() < 0.05:
            loaded = Game.from_dict(json.loads(json.dumps(game.to_dict())))
            assert loaded == game, _where(game)
        if players > 2 and rng.random() < LEAVE_CHANCE:
            seat = rng.choice(game.seated)
            events = game.resign(seat)
            if loaded is not None:
                assert [e.to_dict() for e in loaded.resign(seat)] == \
                    [e.to_dict() for e in events]
            continue
        move = _choose(game.legal_moves(), rng, policy)
        events = game.play(move)
        if loaded is not None:
            assert [e.to_dict() for e in loaded.play(move)] == [e.to_dict() for e in events]
            assert loaded == game, f"the loaded game drifted after {move} {_where(game)}"
            if check_rng.random() < 0.1:
                loaded = None
    assert Game.from_dict(json.loads(json.dumps(game.to_dict()))) == game
    moves = [m for _, m in game.history]
    again = Game.replay(rules, seed, moves, players, game.departures)
    assert again == game, f"replay differs {_where(game)}"
    assert again.result == game.result


def _check_result(game: Game) -> None:
    result = game.result
    where = _where(game)
    assert result is not None, where
    n = game.players
    left = tuple(len(p) for p in game.payoffs)
    assert result.payoff_left == left and len(result.margins) == n, where
    assert result.left == game.left, where
    margins = result.margins
    for seat in game.left:
        assert margins[seat] == len(game.payoffs[seat]), f"leaver {seat}: {result} {where}"
    if result.winner is None:
        assert result.score == 0, where
        assert all(m is None for s, m in enumerate(margins) if s not in game.left), where
        # Rules 26 and 28: a drawn game ranks everyone equal, the leavers too.
        assert all(result.ranks[s] == 1 for s in game.dealt_in), where
    else:
        w = result.winner
        assert w in game.seated and margins[w] is None and result.ranks[w] == 1, where
        assert result.score == sum(m for m in margins if m is not None), where
        assert all(m is not None and m >= 0 for s, m in enumerate(margins) if s != w), where
        losers = [s for s in range(n) if s != w]
        for a in losers:
            for b in losers:
                ma, mb = margins[a], margins[b]
                assert ma is not None and mb is not None
                ra, rb = result.ranks[a], result.ranks[b]
                assert ra is not None and rb is not None
                assert (ma < mb) == (ra < rb) and (ma == mb) == (ra == rb), where
    if result.reason is EndReason.PAYOFF_EMPTIED:
        assert result.winner is not None and left[result.winner] == 0, where
        for s in range(n):
            if s != result.winner:
                assert margins[s] == left[s], where
    elif result.reason is EndReason.STALEMATE:
        assert game.rules.stalemate and game.idle_streak >= len(game.seated), where
        fewest = min(left[s] for s in game.seated)
        holders = [s for s in game.seated if left[s] == fewest]
        assert result.winner == (holders[0] if len(holders) == 1 else None), where
        for s in game.seated:
            if result.winner is not None and s != result.winner:
                assert margins[s] == left[s] - fewest, where
    elif result.reason is EndReason.STOCK_OUT:
        assert game.rules.stock_out_tie and result.winner is None and not game.stock, where
    elif result.reason is EndReason.RESIGNED:
        assert len(game.seated) == 1 and result.winner == game.seated[0], where
    else:
        assert result.reason is EndReason.TURN_LIMIT and game.turn_number == 1000, where


@pytest.mark.parametrize("players", TABLES)
@pytest.mark.parametrize("rules", RULES)
@settings(GAMES, max_examples=12)
@given(seed=seeds, policy_seed=policy_seeds, policy=policies,
       leave=st.sampled_from([0.0, LEAVE_CHANCE, 0.02]))
def test_results_give_margins_and_ranks_that_add_up(
    rules: RuleSet, players: int, seed: int, policy_seed: int, policy: str, leave: float
) -> None:
    game, _ = Game.new(rules, seed, players)
    rng = random.Random(policy_seed)
    overs: list[Event] = []
    while game.result is None:
        assert len(game.history) < MAX_MOVES, _where(game)
        if players > 2 and rng.random() < leave:
            events = game.resign(rng.choice(game.seated))
            assert isinstance(events[0], Left)
        else:
            events = game.play(_choose(game.legal_moves(), rng, policy))
        overs.extend(e for e in events if isinstance(e, GameOver))
    assert overs == [GameOver(game.result)]
    _check_result(game)


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("rules", [pytest.param(KINGS, id="kings"),
                                   pytest.param(CLASSIC.with_options(match_target=40),
                                                id="classic-to-40")])
@settings(GAMES, max_examples=3)
@given(seed=seeds, policy_seed=policy_seeds,
       policy=st.sampled_from(["play-first", "mostly-play"]))
def test_matches_of_three_or_four_add_up_and_leavers_are_not_dealt_in(
    rules: RuleSet, players: int, seed: int, policy_seed: int, policy: str
) -> None:
    match, _ = Match.new(rules, seed, players)
    rng = random.Random(policy_seed)
    games = [match.game]
    while not match.is_over:
        assert len(games) < 300
        if match.game.result is not None:
            match.next_game()
            games.append(match.game)
            assert set(match.game.absent) == set(match.left)
            assert len(match.game.all_cards()) == DECK[(rules.name, len(match.seated))]
            continue
        if rng.random() < 0.001:
            match.resign(rng.choice(match.seated))
            continue
        match.play(_choose(match.game.legal_moves(), rng, policy), player=match.game.turn)
    expected = [sum(r.score for r in match.results if r.winner == p) for p in range(players)]
    assert match.scores == expected
    w = match.winner
    assert w is not None and w in match.seated
    assert len(match.seated) == 1 or match.scores[w] >= rules.match_target  # type: ignore[operator]
    margins = match.margins
    assert margins[w] is None and all(m is not None for s, m in enumerate(margins) if s != w)
    # Rule 28: the difference of match scores, never below 0.
    assert all(m == max(0, match.scores[w] - match.scores[s])
               for s, m in enumerate(margins) if s != w)
    assert match.ranks[w] == 1
    with pytest.raises(IllegalMoveError):
        match.play(PASS)
    assert Match.from_dict(json.loads(json.dumps(match.to_dict()))) == match


def test_the_stalemate_round_counts_the_players_still_seated() -> None:
    """Rule 25 against an independent model: the seats that ended a turn without a play or
    discard since the last play or discard. The game ends in a stalemate exactly when that set
    holds every player still seated; a leaver drops out of it and breaks nothing, unless he
    played a card in his turn before leaving."""
    stalemates = after_leaving = 0
    for seed in range(60):
        for players in (3, 4):
            game, _ = Game.new(CLASSIC, seed, players)
            rng = random.Random(seed)
            idle: set[int] = set()
            left_in_round = False
            while game.result is None:
                assert len(game.history) < MAX_MOVES, _where(game)
                if rng.random() < 0.02:
                    seat = rng.choice(game.seated)
                    played = seat == game.turn and game.plays_this_turn > 0
                    game.resign(seat)
                    idle.discard(seat)
                    if played:
                        idle.clear()
                    left_in_round = bool(idle)
                else:
                    seat, fresh = game.turn, game.plays_this_turn == 0
                    moves = game.legal_moves()
                    move = PASS if PASS in moves and rng.random() < 0.6 else \
                        _choose(moves, rng, "mostly-play")
                    game.play(move)
                    if move is PASS:
                        if fresh:
                            idle.add(seat)
                    else:
                        idle.clear()
                        left_in_round = False
                due = set(game.seated) <= idle
                result = game.result
                if result is None:
                    assert not due, f"a whole round idle went on {idle} {_where(game)}"
                elif result.reason is EndReason.STALEMATE:
                    assert due, f"a stalemate before the round was complete {idle} {_where(game)}"
                    stalemates += 1
                    after_leaving += left_in_round
    # The model was put to the test: stalemates, some of them in a round a player left.
    assert stalemates >= 20 and after_leaving >= 3, (stalemates, after_leaving)
