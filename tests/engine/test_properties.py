"""Property tests over many seeded random games, for both rule sets and their options.

Each test plays whole games from a seeded deal with a seeded random policy (both seeds drawn by
hypothesis) and checks one guarantee of RULES.md ("What the engine must guarantee") after every
move: cards are conserved, every legal move is accepted and every illegal one refused without a
change, games end, views hide what their viewer may not see, saves and replays reproduce the
game, and matches add up. A failing example prints the deal seed and the policy seed; the game
is then ``Game.new(rules, seed)`` played with ``_choose`` and ``random.Random(policy_seed)``.

The examples are derandomized (no database, same examples every run) so CI is deterministic.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from engine import (
    ALL_MOVES,
    CLASSIC,
    KINGS,
    PASS,
    Card,
    Dealt,
    Drew,
    EndReason,
    Event,
    Game,
    GameOver,
    IllegalMoveError,
    Match,
    Move,
    RuleSet,
    Source,
    Target,
    View,
    full_deck,
)
from engine.cards import ALL_KINDS
from engine.game import _side_accepts_mask, _side_result

# ---------------------------------------------------------------------- rule sets and policies

CLASSIC_NO_REFILL = CLASSIC.with_options(refill_empty_hand=False)
KINGS_NO_KING_START = KINGS.with_options(king_starts_stack=False)

RULESETS = [
    pytest.param(CLASSIC, id="classic"),
    pytest.param(KINGS, id="kings"),
    pytest.param(CLASSIC_NO_REFILL, id="classic-no-refill"),
    pytest.param(KINGS_NO_KING_START, id="kings-no-king-start"),
]

DECK_SIZE = {"classic": 108, "kings": 104}

# A policy is (p_play, p_discard, p_pass): take a centre play with probability p_play when one
# exists, else a discard with probability p_discard, else pass with probability p_pass, else any
# legal move uniformly. The mix gives short idle games, long play-heavy games that empty pay-off
# piles and complete many centre stacks, and discard-heavy games that build tall side stacks.
POLICIES = {
    "mostly-play": (0.9, 0.95, 0.0),
    "play-first": (1.0, 1.0, 0.0),
    "half-play": (0.5, 0.9, 0.0),
    "uniform": (0.0, 0.0, 0.0),
    "discard-first": (0.1, 1.0, 0.0),
    "passy": (0.5, 0.2, 0.5),
}

MAX_MOVES = 20_000
"""A generous bound on the moves of one game: at most 1,000 turns (rules 16, 22) of a discard or
pass plus the plays, and random games here take about 50 to 1,100 moves."""

seeds = st.integers(min_value=0, max_value=2**62 - 1)
policy_seeds = st.integers(min_value=0, max_value=2**32 - 1)
policies = st.sampled_from(list(POLICIES))

# No shrinking for the game tests: a deal seed or policy seed does not get "simpler" when it
# gets smaller, and shrinking whole games would take minutes. The falsifying example printed is
# the one found; the side-stack masks below do shrink.
GAMES = settings(
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    phases=[Phase.explicit, Phase.generate],
)
MASKS = settings(GAMES, phases=list(Phase))


def _choose(moves: Sequence[Move], rng: random.Random, policy: str) -> Move:
    """A random legal move under ``policy`` (see ``POLICIES``)."""
    assert moves, "the game is not over but there are no legal moves"
    p_play, p_discard, p_pass = POLICIES[policy]
    plays = [m for m in moves if m.is_play]
    if plays and rng.random() < p_play:
        return rng.choice(plays)
    discards = [m for m in moves if m.is_discard]
    if discards and rng.random() < p_discard:
        return rng.choice(discards)
    if PASS in moves and rng.random() < p_pass:
        return PASS
    return rng.choice(moves)


def _where(game: Game) -> str:
    """Where a failure happened, for assertion messages."""
    recent = " ".join(f"{p}:{m}" for p, m in game.history[-8:])
    return (f"[{game.rules.name} refill={game.rules.refill_empty_hand} "
            f"king_starts={game.rules.king_starts_stack} seed={game.seed} "
            f"after {len(game.history)} moves, turn {game.turn_number}, seat {game.turn} on turn; "
            f"last moves: {recent}]")


def _play_out(
    rules: RuleSet, seed: int, policy_seed: int, policy: str
) -> Iterator[tuple[Game, Move, list[Event]]]:
    """Play a random game; yield (game, move, events) after each move (the game is live)."""
    game, _ = Game.new(rules, seed)
    rng = random.Random(policy_seed)
    for _ in range(MAX_MOVES):
        if game.result is not None:
            return
        move = _choose(game.legal_moves(), rng, policy)
        events = game.play(move)
        _check_not_endless(game)
        yield game, move, events
    raise AssertionError(f"game did not end within {MAX_MOVES} moves {_where(game)}")


def _check_not_endless(game: Game) -> None:
    assert len(game.history) < MAX_MOVES, f"the game has not ended {_where(game)}"
    assert game.turn_number <= game.rules.turn_limit, f"past the turn limit {_where(game)}"


# ---------------------------------------------------------------------- 1. conservation


def _check_conservation(game: Game, deck: Counter[Card]) -> None:
    rules = game.rules
    where = _where(game)
    total = DECK_SIZE[rules.name]
    assert sum(deck.values()) == total == rules.deck_size

    everything = game.all_cards()
    assert len(everything) == total, (
        f"all_cards() holds {len(everything)} cards, not {total} {where}")
    assert Counter(everything) == deck, (
        f"all_cards() differs from the deck: missing {deck - Counter(everything)}, "
        f"extra {Counter(everything) - deck} {where}")

    # The piles themselves, independently of all_cards().
    assert len(game.payoffs) == 2 and len(game.hands) == 2 and len(game.sides) == 2
    assert len(game.centre) == rules.centre_stacks, f"{len(game.centre)} centre slots {where}"
    piles: list[list[Card]] = [*game.payoffs, *game.hands, *game.centre, game.stock]
    for p in range(2):
        assert len(game.sides[p]) == rules.side_stacks, f"seat {p} side stacks {where}"
        piles.extend(game.sides[p])
    counted: Counter[Card] = Counter()
    for pile in piles:
        assert all(isinstance(c, Card) for c in pile), f"a pile holds a non-card {where}"
        counted.update(pile)
    assert counted == deck, (
        f"the piles differ from the deck: missing {deck - counted}, extra {counted - deck} {where}")
    assert sum(len(p) for p in piles) == total, f"the piles hold {sum(map(len, piles))} {where}"

    for p in range(2):
        assert len(game.hands[p]) <= rules.hand_size, f"seat {p} holds {game.hands[p]} {where}"
        for s in range(rules.side_stacks):
            assert len(game.side_masks[p][s]) == len(game.sides[p][s]), (
                f"seat {p} side stack {s + 1}: masks out of step with cards {where}")
    for i, stack in enumerate(game.centre):
        assert len(stack) < rules.top_rank, f"complete centre stack {i + 1} stayed {where}"
        for j, card in enumerate(stack):
            rank = j + 1
            natural = not card.is_joker and card.rank == rank
            wild = (rules.wild_rank == 0 and card.is_joker and rank != 1) or (
                rules.wild_rank == 13 and card.rank == 13
                and (rank != 1 or rules.king_starts_stack))
            assert natural or wild, f"{card} stands as rank {rank} in centre stack {i + 1} {where}"

    # What the public view counts adds up to the deck too.
    view = game.public_view()
    in_view = (sum(view.payoff_counts) + sum(view.hand_sizes) + view.stock_size
               + sum(len(s) for player in view.sides for s in player)
               + sum(len(c.cards) for c in view.centre))
    assert in_view == total, f"the public view accounts for {in_view} cards, not {total} {where}"


@pytest.mark.parametrize("rules", RULESETS)
@settings(GAMES, max_examples=20)
@given(seed=seeds, policy_seed=policy_seeds, policy=policies)
def test_cards_are_conserved_after_every_move(
    rules: RuleSet, seed: int, policy_seed: int, policy: str
) -> None:
    deck = Counter(full_deck(rules))
    game, _ = Game.new(rules, seed)
    _check_conservation(game, deck)
    for game, _move, _events in _play_out(rules, seed, policy_seed, policy):
        _check_conservation(game, deck)


# ---------------------------------------------------------------------- 2. legal and illegal moves


def _plausible(game: Game, move: Move) -> bool:
    """True if the move's source card exists (so only the rules, not a missing card, stop it)."""
    p = game.turn
    if move.is_pass:
        return True
    if move.card is not None:
        return move.card in game.hands[p]
    if move.source_index >= 0:
        return bool(game.sides[p][move.source_index])
    return bool(game.payoffs[p])


def _check_moves(game: Game, rng: random.Random) -> None:
    where = _where(game)
    legal = game.legal_moves()
    assert legal, f"no legal move in a live game {where}"
    assert len(set(legal)) == len(legal), f"duplicate legal moves {legal} {where}"
    for move in legal:
        assert game.is_legal(move), f"{move} is in legal_moves() but is_legal says no {where}"
        assert game.is_legal(move.text), f"is_legal({move.text!r}) is False {where}"
        assert game.explain(move) == "That move is legal.", f"explain({move}) {where}"

    due = game.compulsory_plays()
    if due:
        assert set(legal) == set(due), (
            f"compulsory plays {due} are due but the legal moves are {legal} {where}")
    if not game.rules.may_pass:
        assert PASS not in legal, f"pass offered in {game.rules.name} {where}"
    elif not due:
        assert PASS in legal, f"pass not offered though no compulsory play is due {where}"

    legal_set = set(legal)
    illegal = [m for m in ALL_MOVES if m not in legal_set]
    near = [m for m in illegal if _plausible(game, m)]
    sample = rng.sample(illegal, min(3, len(illegal))) + rng.sample(near, min(3, len(near)))
    before = game.to_dict()
    for move in sample:
        assert not game.is_legal(move), (
            f"{move} is not in legal_moves() but is_legal says yes {where}")
        with pytest.raises(IllegalMoveError) as caught:
            game.play(move)
        message = str(caught.value).strip()
        assert message, f"illegal {move} refused without a message {where}"
        assert message != "That move is legal.", f"illegal {move} explained as legal {where}"
        after = game.to_dict()
        assert after == before, f"refusing {move} ({message}) changed the game {where}"
        assert game.legal_moves() == legal, f"refusing {move} changed the legal moves {where}"

    other = 1 - game.turn
    move = rng.choice(legal)
    with pytest.raises(IllegalMoveError) as caught:
        game.play(move, player=other)
    assert "not your turn" in str(caught.value).lower(), (
        f"seat {other} playing {move} out of turn: {caught.value!r} {where}")
    assert game.to_dict() == before, f"a move out of turn changed the game {where}"


@pytest.mark.parametrize("rules", RULESETS)
@settings(GAMES, max_examples=6)
@given(seed=seeds, policy_seed=policy_seeds, policy=policies)
def test_legal_moves_accepted_illegal_moves_refused_without_change(
    rules: RuleSet, seed: int, policy_seed: int, policy: str
) -> None:
    game, _ = Game.new(rules, seed)
    rng = random.Random(policy_seed)
    check_rng = random.Random(~policy_seed)
    while game.result is None:
        _check_not_endless(game)
        _check_moves(game, check_rng)
        move = _choose(game.legal_moves(), rng, policy)
        seat, length = game.turn, len(game.history)
        events = game.play(move, player=seat)
        assert events, f"{move} produced no events {_where(game)}"
        assert game.history[length:] == [(seat, move)], f"history after {move} {_where(game)}"

    # A finished game refuses every move and changes nothing.
    before = game.to_dict()
    assert not game.legal_moves(), f"moves offered after the end {_where(game)}"
    assert not game.compulsory_plays(), f"compulsory plays after the end {_where(game)}"
    for move in rng.sample(ALL_MOVES, 5):
        assert not game.is_legal(move)
        with pytest.raises(IllegalMoveError, match="over"):
            game.play(move)
    assert game.to_dict() == before, f"a move after the end changed the game {_where(game)}"


def _fits_centre(rules: RuleSet, card: Card, need: int) -> bool:
    """Rules 5, 9 and 17: may ``card`` go on a centre stack that needs rank ``need``?"""
    if rules.wild_rank == 0 and card.is_joker:
        return need >= 2  # rule 9: a joker is anything but an Ace
    if rules.wild_rank == 13 and card.rank == 13:
        return need >= 2 or rules.king_starts_stack  # rule 17
    return card.rank == need


def _side_ranks_after(below: frozenset[int] | None, card: Card, four: bool) -> frozenset[int]:
    """Classic rules 12 and 13 from the rule book: the ranks ``card`` stands for when placed on
    a side stack whose top stands for ``below`` (``None``: empty); empty if it may not go there."""
    if below is None:
        return frozenset(range(2, 14)) if card.is_joker else frozenset({card.rank})
    if card.is_joker:
        same = {r for r in below if r >= 2}
        lower = {r - 1 for r in below if r - 1 >= 3 or (r - 1 == 2 and four)}
        return frozenset(same | lower)
    r = card.rank
    if r in below or (r + 1 in below and (r > 2 or four)):
        return frozenset({r})
    return frozenset()


def _reference_legal(game: Game, side_ranks: list[list[list[frozenset[int]]]]) -> set[Move]:
    """The legal moves as the rule book (RULES.md) describes them, computed independently of the
    engine's move generator; ``side_ranks`` tracks the ranks each side-stack card stands for."""
    rules, p = game.rules, game.turn
    payoff, sides, hand = game.payoffs[p], game.sides[p], set(game.hands[p])
    sources: list[tuple[Card, Any]] = []  # (card, stack index -> move to that centre stack)
    if payoff:
        sources.append((payoff[-1], lambda i: Move.payoff(Target.CENTRE, i)))
    for s, pile in enumerate(sides):
        if pile:
            sources.append((pile[-1], lambda i, s=s: Move.side(s, Target.CENTRE, i)))
    for card in hand:
        sources.append((card, lambda i, c=card: Move.hand(c, Target.CENTRE, i)))
    if rules.compulsory_aces_twos:  # rules 10 and 11
        empty = [i for i, st_ in enumerate(game.centre) if not st_]
        on_ace = [i for i, st_ in enumerate(game.centre) if len(st_) == 1]
        due = {make(i) for card, make in sources if card.rank == 1 for i in empty}
        due |= {make(i) for card, make in sources if card.rank == 2 for i in on_ace}
        if due:
            return due
    legal = {make(i) for card, make in sources for i, stack in enumerate(game.centre)
             if _fits_centre(rules, card, len(stack) + 1)}
    four = sum(1 for st_ in game.centre if st_) == rules.centre_stacks
    for card in hand:
        for s in range(rules.side_stacks):
            below = side_ranks[p][s][-1] if side_ranks[p][s] else None
            if not rules.side_down_or_same or _side_ranks_after(below, card, four):
                legal.add(Move.hand(card, Target.SIDE, s))
    if rules.may_pass:
        legal.add(PASS)
    return legal


@pytest.mark.parametrize("rules", RULESETS)
@settings(GAMES, max_examples=25)
@given(seed=seeds, policy_seed=policy_seeds, policy=policies)
def test_legal_moves_are_those_of_the_rule_book(
    rules: RuleSet, seed: int, policy_seed: int, policy: str
) -> None:
    game, _ = Game.new(rules, seed)
    rng = random.Random(policy_seed)
    side_ranks: list[list[list[frozenset[int]]]] = [
        [[] for _ in range(rules.side_stacks)] for _ in range(2)]
    while game.result is None:
        _check_not_endless(game)
        legal = set(game.legal_moves())
        expected = _reference_legal(game, side_ranks)
        assert legal == expected, (
            "legal moves differ from the rule book: engine only "
            f"{sorted(map(str, legal - expected))}, rule book only "
            f"{sorted(map(str, expected - legal))}; hand {game.hands[game.turn]}, "
            f"centre {game.centre}, sides {game.sides[game.turn]} {_where(game)}")
        move = _choose(game.legal_moves(), rng, policy)
        p = game.turn
        if move.is_discard and move.card is not None:
            four = sum(1 for st_ in game.centre if st_) == rules.centre_stacks
            pile = side_ranks[p][move.target_index]
            pile.append(_side_ranks_after(pile[-1] if pile else None, move.card, four)
                        if rules.side_down_or_same else frozenset({move.card.rank}))
        elif move.source is Source.SIDE:
            side_ranks[p][move.source_index].pop()
        game.play(move)


# ---------------------------------------------------------------------- 3. games end


@pytest.mark.parametrize("rules", RULESETS)
@settings(GAMES, max_examples=40)
@given(seed=seeds, policy_seed=policy_seeds, policy=policies)
def test_games_end_with_a_consistent_result(
    rules: RuleSet, seed: int, policy_seed: int, policy: str
) -> None:
    game_overs: list[GameOver] = []
    game = None
    for game, _move, events in _play_out(rules, seed, policy_seed, policy):
        game_overs.extend(e for e in events if isinstance(e, GameOver))
        if game.result is not None:
            assert isinstance(events[-1], GameOver), f"last event {events[-1]} {_where(game)}"
    assert game is not None
    where = _where(game)
    result = game.result
    assert result is not None, f"the game did not end {where}"
    assert game_overs == [GameOver(result)], f"GameOver events {game_overs} for {result} {where}"
    assert game.turn_number <= rules.turn_limit, where
    left = (len(game.payoffs[0]), len(game.payoffs[1]))
    assert result.payoff_left == left, (
        f"result says {result.payoff_left}, the piles hold {left} {where}")
    assert result.winner in (0, 1, None) and result.score >= 0, f"{result} {where}"
    if result.winner is None:
        assert result.score == 0, f"a tie scored points: {result} {where}"
    if result.reason is EndReason.PAYOFF_EMPTIED:
        w = result.winner
        assert w is not None and left[w] == 0 and result.score == left[1 - w], f"{result} {where}"
    elif result.reason is EndReason.STALEMATE:
        assert rules.stalemate, f"stalemate in {rules.name} {where}"
        assert result.score == abs(left[0] - left[1]), f"{result} {where}"
        if left[0] != left[1]:
            assert result.winner == (0 if left[0] < left[1] else 1), f"{result} {where}"
        else:
            assert result.winner is None, f"{result} {where}"
    elif result.reason is EndReason.STOCK_OUT:
        assert rules.stock_out_tie and result.winner is None, f"{result} {where}"
        assert game.stock == [], f"stock-out with {len(game.stock)} cards in the stock {where}"
    else:
        assert result.reason is EndReason.TURN_LIMIT, f"{result} {where}"
        assert game.turn_number == rules.turn_limit, f"{result} {where}"


# ---------------------------------------------------------------------- 4. views hide secrets


def _permuted(game: Game, viewer: int | None, rng: random.Random) -> Game:
    """A copy of ``game`` with everything ``viewer`` may not see shuffled (rule 8).

    The hands ``viewer`` may not see (the opponent's, or both for a spectator) are pooled with
    the stock and dealt back out in a new order; the pay-off piles are shuffled below their tops.
    """
    data = json.loads(json.dumps(game.to_dict()))
    hidden = [p for p in (0, 1) if p != viewer]
    pool: list[str] = list(data["stock"])
    for p in hidden:
        pool.extend(data["hands"][p])
    rng.shuffle(pool)
    for p in hidden:
        n = len(data["hands"][p])
        data["hands"][p], pool = pool[:n], pool[n:]
    data["stock"] = pool
    for p in (0, 1):
        pile = data["payoffs"][p]
        if pile:
            below = pile[:-1]
            rng.shuffle(below)
            data["payoffs"][p] = below + [pile[-1]]
    return Game.from_dict(data)


def _seen(view: View) -> Counter[Card]:
    """The cards a view shows face up."""
    cards: Counter[Card] = Counter(view.hand or ())
    cards.update(c for c in view.payoff_tops if c is not None)
    for player in view.sides:
        for pile in player:
            cards.update(pile)
    for stack in view.centre:
        cards.update(stack.cards)
    return cards


def _event_cards(value: Any) -> Iterator[Card]:
    """Every card mentioned anywhere in an event (moves included)."""
    if isinstance(value, Card):
        yield value
    elif isinstance(value, Move):
        if value.card is not None:
            yield value.card
    elif isinstance(value, tuple | list):
        for v in value:
            yield from _event_cards(v)
    elif isinstance(value, Event):
        for field in dataclasses.fields(value):
            yield from _event_cards(getattr(value, field.name))


def _check_view_hides(game: Game, rng: random.Random, changed: list[int]) -> None:
    where = _where(game)
    for viewer in (0, 1, None):
        view = game.view(viewer)
        assert view.viewer == viewer
        if viewer is None:
            assert view == game.public_view(), f"view(None) differs from public_view() {where}"
            assert view.hand is None, f"the public view shows a hand {where}"
            assert view.legal_moves == () and view.compulsory == (), (
                f"the public view shows moves {view.legal_moves} / {view.compulsory} {where}")
        else:
            assert view.hand == tuple(game.hands[viewer]), f"seat {viewer}'s own hand {where}"
        copy = _permuted(game, viewer, rng)
        if copy != game:
            changed[0] += 1
        other = copy.view(viewer)
        assert other == view, (
            f"seat {viewer}'s view changes when only hidden cards change:\n"
            f"{_view_diff(view, other)} {where}")
        assert other.to_dict() == view.to_dict(), f"view.to_dict() leaks {where}"


def _view_diff(a: View, b: View) -> str:
    return "\n".join(
        f"  {f.name}: {getattr(a, f.name)!r} != {getattr(b, f.name)!r}"
        for f in dataclasses.fields(a)
        if getattr(a, f.name) != getattr(b, f.name)
    )


def _check_events_hide(
    before: dict[int | None, View], game: Game, move: Move, events: list[Event]
) -> None:
    where = _where(game)
    for e in events:
        if isinstance(e, Drew):
            assert e.cards is not None and len(e.cards) == e.count, f"{e} {where}"
            assert e.visible_to(e.player) == e, f"the drawer does not see his draw {e} {where}"
            for viewer in (1 - e.player, None):
                hidden = e.visible_to(viewer)
                assert isinstance(hidden, Drew) and hidden.cards is None, (
                    f"seat {viewer} sees another player's draw: {hidden} {where}")
                assert (hidden.player, hidden.count, hidden.stock_left) == (
                    e.player, e.count, e.stock_left), f"hiding a draw lost its counts {where}"
            assert e.public() == e.visible_to(None)
            assert e.visible_to(1 - e.player).to_dict()["cards"] is None
        else:
            for viewer in (0, 1, None):
                assert e.visible_to(viewer) == e, f"public event {e} altered for {viewer} {where}"
    for viewer in (0, 1, None):
        allowed = _seen(before[viewer]) | _seen(game.view(viewer))
        if move.card is not None:
            allowed[move.card] += 1
        for e in events:
            for card in _event_cards(e.visible_to(viewer)):
                assert allowed[card], (
                    f"{viewer=} is shown {card} by {e.visible_to(viewer)} although it is "
                    f"neither in his view before nor after {move} {where}")


@pytest.mark.parametrize("rules", RULESETS)
@settings(GAMES, max_examples=8)
@given(seed=seeds, policy_seed=policy_seeds, policy=policies)
def test_views_and_events_hide_what_the_viewer_may_not_see(
    rules: RuleSet, seed: int, policy_seed: int, policy: str
) -> None:
    game, dealt = Game.new(rules, seed)
    check_rng = random.Random(policy_seed ^ 0x5EED)
    (deal,) = dealt
    assert isinstance(deal, Dealt)
    assert deal.payoff_tops == (game.payoffs[0][-1], game.payoffs[1][-1])
    changed = [0]
    _check_view_hides(game, check_rng, changed)
    rng = random.Random(policy_seed)
    while game.result is None:
        _check_not_endless(game)
        before = {v: game.view(v) for v in (0, 1, None)}
        move = _choose(game.legal_moves(), rng, policy)
        events = game.play(move)
        _check_events_hide(before, game, move, events)
        if check_rng.random() < 0.12 or game.result is not None:
            _check_view_hides(game, check_rng, changed)
    # The check above means something only if the hidden cards really were shuffled.
    assert changed[0] > 0, f"no permutation ever changed the hidden cards {_where(game)}"


# ---------------------------------------------------------------------- 5. saves and replays


def _round_trip(game: Game) -> Game:
    return Game.from_dict(json.loads(json.dumps(game.to_dict())))


@pytest.mark.parametrize("rules", RULESETS)
@settings(GAMES, max_examples=15)
@given(seed=seeds, policy_seed=policy_seeds, policy=policies)
def test_saves_round_trip_and_replays_reproduce_the_game(
    rules: RuleSet, seed: int, policy_seed: int, policy: str
) -> None:
    game, dealt = Game.new(rules, seed)
    twin, twin_dealt = Game.new(rules, seed)
    assert twin == game and twin_dealt == dealt, f"the same seed dealt two games (seed={seed})"
    rng = random.Random(policy_seed)
    check_rng = random.Random(policy_seed + 1)
    loaded: Game | None = None
    while game.result is None:
        _check_not_endless(game)
        if loaded is None and check_rng.random() < 0.05:
            loaded = _round_trip(game)
            assert loaded == game, f"a saved game loads differently {_where(game)}"
        move = _choose(game.legal_moves(), rng, policy)
        if loaded is not None:
            assert loaded.legal_moves() == game.legal_moves(), (
                f"the loaded game offers other moves {_where(game)}")
            assert loaded.compulsory_plays() == game.compulsory_plays(), _where(game)
        events = game.play(move)
        if loaded is not None:
            loaded_events = loaded.play(move)
            assert [e.to_dict() for e in loaded_events] == [e.to_dict() for e in events], (
                f"the loaded game answers {move} differently {_where(game)}")
            assert loaded == game, f"the loaded game drifted after {move} {_where(game)}"
            if check_rng.random() < 0.1:
                loaded = None  # take a fresh save at a later point
    assert _round_trip(game) == game, f"a finished game loads differently {_where(game)}"

    moves = [m for _, m in game.history]
    assert Game.replay(rules, seed, moves) == game, f"replay differs {_where(game)}"
    assert Game.replay(rules, seed, [m.text for m in moves]) == game, (
        f"replay from the notation differs {_where(game)}")


# ---------------------------------------------------------------------- 6. matches


MATCH_RULES = [
    pytest.param(KINGS, id="kings"),
    pytest.param(KINGS_NO_KING_START, id="kings-no-king-start"),
    pytest.param(CLASSIC, id="classic"),
    pytest.param(CLASSIC.with_options(match_target=30), id="classic-to-30"),
]


@pytest.mark.parametrize("rules", MATCH_RULES)
@settings(GAMES, max_examples=5)
@given(
    seed=seeds,
    policy_seed=policy_seeds,
    # Kings games played at random mostly end in a stock-out tie; play-heavy policies finish them.
    policy=st.sampled_from(["play-first", "mostly-play"]),
)
def test_matches_score_the_sum_of_game_scores(
    rules: RuleSet, seed: int, policy_seed: int, policy: str
) -> None:
    match, _ = Match.new(rules, seed)
    rng = random.Random(policy_seed)
    games = [match.game]
    moves = 0
    while not match.is_over:
        assert len(games) < 300 and moves < 2_000_000, (
            f"match seed={seed} not over after {len(games)} games: scores {match.scores}")
        if match.game.result is not None:
            assert len(match.results) == match.games_dealt, "a finished game was not scored"
            match.next_game()
            games.append(match.game)
            assert match.game.result is None and match.game_number == len(games)
            continue
        move = _choose(match.game.legal_moves(), rng, policy)
        match.play(move, player=match.game.turn)
        _check_not_endless(match.game)
        moves += 1
        expected = [sum(r.score for r in match.results if r.winner == p) for p in (0, 1)]
        assert match.scores == expected, (
            f"match seed={seed}: scores {match.scores} but the game results give {expected}")

    assert match.results == [g.result for g in games], f"match seed={seed}: results mismatch"
    assert match.games_dealt == len(games) == len(match.results)
    for n, g in enumerate(games, start=1):
        assert g.seed == Match.game_seed(seed, n), f"game {n} of match seed={seed}"
    expected = [sum(r.score for r in match.results if r.winner == p) for p in (0, 1)]
    assert match.scores == expected, f"match seed={seed}: {match.scores} != {expected}"
    target = rules.match_target
    if target is None:
        assert len(games) == 1, f"a one-game match dealt {len(games)} games"
        first = games[0].result
        assert first is not None and match.winner == first.winner, f"match seed={seed}"
    else:
        w = match.winner
        assert w is not None and match.scores[w] >= target > match.scores[1 - w], (
            f"match seed={seed} ended {match.scores} with winner {w}, target {target}")
        assert max(match.scores[p] for p in (0, 1) if p != w) < target
    if rules.name == "kings":
        assert match.winner is not None and match.scores[match.winner] >= 50, match.scores
    with pytest.raises(IllegalMoveError):
        match.play(PASS)
    assert Match.from_dict(json.loads(json.dumps(match.to_dict()))) == match


# ---------------------------------------------------------------------- 7. fast side-stack check


def _check_side_mask(top_mask: int, four: bool) -> None:
    accepts = _side_accepts_mask(top_mask, four)
    for card in ALL_KINDS:
        by_mask = bool(accepts >> card.rank & 1)
        by_rule = _side_result(top_mask, card, four) != 0
        assert by_mask == by_rule, (
            f"top_mask={top_mask:#x} ({_ranks(top_mask)}), four_centres={four}, card={card}: "
            f"_side_accepts_mask says {by_mask}, _side_result says {by_rule}")


def _ranks(mask: int) -> str:
    return "empty" if mask < 0 else "{" + ",".join(str(r) for r in range(14) if mask >> r & 1) + "}"


side_masks = st.one_of(
    st.just(-1),
    st.integers(min_value=1, max_value=13).map(lambda r: 1 << r),  # a natural card's mask
    st.sets(st.integers(min_value=1, max_value=13), min_size=1).map(
        lambda rs: sum(1 << r for r in rs)),
)


@settings(MASKS, max_examples=300)
@given(top_mask=side_masks, four=st.booleans())
def test_side_accepts_mask_agrees_with_side_result(top_mask: int, four: bool) -> None:
    _check_side_mask(top_mask, four)


def test_side_accepts_mask_agrees_with_side_result_on_reachable_masks() -> None:
    # Every mask a real side stack can have on top, built card by card from an empty stack.
    reachable = {-1}
    frontier = [-1]
    while frontier:
        mask = frontier.pop()
        for four in (False, True):
            for card in ALL_KINDS:
                new = _side_result(mask, card, four)
                if new and new not in reachable:
                    reachable.add(new)
                    frontier.append(new)
    assert len(reachable) > 14, f"only {len(reachable)} reachable masks: {sorted(reachable)}"
    for mask in sorted(reachable):
        for four in (False, True):
            _check_side_mask(mask, four)


def _bits(ranks: frozenset[int]) -> int:
    return sum(1 << r for r in ranks)


@settings(MASKS, max_examples=300)
@given(top_mask=side_masks, four=st.booleans())
def test_side_result_follows_the_rule_book(top_mask: int, four: bool) -> None:
    # Rules 12 and 13 as _side_ranks_after spells them out, against the engine's bit version.
    below = None if top_mask < 0 else frozenset(r for r in range(1, 14) if top_mask >> r & 1)
    for card in ALL_KINDS:
        expected = _bits(_side_ranks_after(below, card, four))
        got = _side_result(top_mask, card, four)
        assert got == expected, (
            f"{card} on a side stack whose top stands for {_ranks(top_mask)} "
            f"(four_centres={four}): engine gives {_ranks(got)}, the rule book {_ranks(expected)}")
