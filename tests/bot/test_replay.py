"""Replays: from the rules, the seed and the saved moves back to every turn of a finished match;
the history service that lists finished games and decides who may see what.

Matches are played here by the engine's own computer players, recording what the table looked
like at the start of every turn as they go; the replay must give the same positions, end at
the saved state, and show at each turn only what could be seen then.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.games.game_service import GameService, LiveGame, UserError
from bot.games.history import PAGE, HistoryService, position_at
from bot.games.replay import ReplayError, move_list, replay_match, replay_saved
from bot.storage import Storage
from engine import CLASSIC, KINGS, Card, Game, GameOver, Match, RuleSet, TurnEnded, View
from engine.players import make_player
from tests.support import Clock

NAMES = ("Ann", "Ben")


@dataclass
class Played:
    """A match played by two computer players, with the table recorded at every turn."""

    match: Match
    log: list[tuple[int, str]] = field(default_factory=list)
    # (game number, public view, hands of seat 0 and 1) at every turn's start and game's end.
    seen: list[tuple[int, View, tuple[Card, ...], tuple[Card, ...]]] = field(
        default_factory=list)

    def record(self) -> None:
        game = self.match.game
        self.seen.append((self.match.games_dealt, game.public_view(), tuple(game.hands[0]),
                          tuple(game.hands[1])))


def play_match(rules: RuleSet, seed: int, *, resign_after: int | None = None,
               give_up: str = "resign", level: str = "easy") -> Played:
    match, _ = Match.new(rules, seed)
    played = Played(match)
    players = [make_player(level, seed), make_player(level, seed + 1)]
    played.record()
    while not match.is_over:
        if resign_after is not None and len(played.log) >= resign_after:
            # The bot logs a claim under the idle seat, the one on turn.
            seat = match.game.turn if give_up == "claim" else 1 - match.game.turn
            match.resign(seat)
            played.log.append((seat, give_up))
            played.record()
            break
        seat = match.game.turn
        move = players[seat].choose(match.game.view(seat))
        events = match.play(move, seat)
        played.log.append((seat, move.text))
        if any(isinstance(e, GameOver) for e in events):
            played.record()
            if not match.is_over:
                match.next_game()
                played.record()
        elif any(isinstance(e, TurnEnded) for e in events):
            played.record()
    return played


@pytest.fixture(scope="module")
def kings_match() -> Played:
    played = play_match(KINGS, 3)
    assert played.match.games_dealt >= 2, "the fixture should be a match of several deals"
    return played


@pytest.fixture(scope="module")
def classic_game() -> Played:
    return play_match(CLASSIC, 8)


def saved(played: Played) -> dict[str, Any]:
    """The state as the bot saves it: through JSON."""
    state: dict[str, Any] = json.loads(json.dumps(played.match.to_dict()))
    return state


# ---------------------------------------------------------------------- stepping


@pytest.mark.parametrize("name", ["kings_match", "classic_game"])
def test_stepping_through_gives_every_turn_and_ends_at_the_saved_state(
        name: str, request: pytest.FixtureRequest) -> None:
    played: Played = request.getfixturevalue(name)
    replay = replay_saved(saved(played), played.log, NAMES)
    assert len(replay.positions) == len(played.seen)
    for pos, (game_number, public, _, _) in zip(replay.positions, played.seen, strict=True):
        assert pos.game_number == game_number
        assert pos.public == public, f"position {pos.index} differs from the game then"
    last = replay.positions[-1]
    assert last.over and last.public == played.match.game.public_view()
    assert replay.final == played.match.to_dict()
    assert replay.scores == tuple(played.match.scores)
    assert replay.winner == played.match.winner
    assert [p.index for p in replay.positions] == list(range(len(replay.positions)))


def test_a_match_of_several_deals_numbers_turns_per_game(kings_match: Played) -> None:
    replay = replay_match(KINGS, kings_match.match.seed, kings_match.log, NAMES)
    deals = [p for p in replay.positions if p.turn == 1 and not p.over]
    ends = [p for p in replay.positions if p.over]
    assert len(deals) == len(ends) == kings_match.match.games_dealt
    for number, deal in enumerate(deals, 1):
        fresh, _ = Game.new(KINGS, Match.game_seed(kings_match.match.seed, number))
        assert deal.public == fresh.public_view(), "each game starts from its own deal"
        assert replay.label(deal.index) == f"Game {number} · turn 1"
    assert replay.label(ends[0].index) == "Game 1 · end"
    # ▶ from the end of a game is the next deal.
    assert replay.positions[ends[0].index + 1] is deals[1]
    # Turns count up by one within a game.
    for a, b in zip(replay.positions, replay.positions[1:], strict=False):
        if b.game_number == a.game_number and not b.over:
            assert b.turn == a.turn + 1
    assert replay.game_seeds == tuple(Match.game_seed(kings_match.match.seed, n)
                                      for n in range(1, kings_match.match.games_dealt + 1))


def test_a_single_game_is_labelled_by_turn_alone(classic_game: Played) -> None:
    replay = replay_match(CLASSIC, classic_game.match.seed, classic_game.log, NAMES)
    assert replay.single_game
    assert replay.label(0) == "Turn 1"
    assert replay.label(len(replay.positions) - 1) == "End"


@pytest.mark.parametrize("give_up", ["resign", "claim"])
def test_a_game_given_up_or_lost_on_time_replays_to_its_saved_state(give_up: str) -> None:
    played = play_match(KINGS, 21, resign_after=30, give_up=give_up)
    replay = replay_saved(saved(played), played.log, NAMES)
    assert replay.resigned == played.match.resigned is not None
    assert replay.positions[-1].over
    assert replay.turns[-1].moves == (give_up,)
    assert replay.turns[-1].seat == played.match.resigned
    assert "Game over" in replay.positions[-1].previous_turn[-1]


# ---------------------------------------------------------------------- hidden cards


def _public_cards(view: View) -> list[Card]:
    cards: list[Card] = [c for seat in (0, 1) for pile in view.sides[seat] for c in pile]
    cards += [c for stack in view.centre for c in stack.cards]
    cards += [c for c in view.payoff_tops if c is not None]
    return sorted(cards)


@pytest.mark.parametrize("name", ["kings_match", "classic_game"])
def test_no_turn_shows_a_card_to_someone_who_could_not_see_it_then(
        name: str, request: pytest.FixtureRequest) -> None:
    played: Played = request.getfixturevalue(name)
    replay = replay_match(played.match.rules, played.match.seed, played.log, NAMES)
    for pos, (_, public, hand0, hand1) in zip(replay.positions, played.seen, strict=True):
        hands = (hand0, hand1)
        # The public view: no hand, no moves (they would name hand cards), only the cards that
        # lay face up on the table then.
        view = pos.public
        assert view.viewer is None and view.hand is None
        assert view.legal_moves == () and view.compulsory == ()
        assert _public_cards(view) == _public_cards(public)
        assert view.to_dict()["hand"] is None
        for seat in (0, 1):
            own = pos.hand(seat)
            assert own.viewer == seat
            assert own.hand == hands[seat], "a player's view holds his own hand then"
            assert own.hand != hands[1 - seat] or not hands[seat]
            # Nothing but his own hand is added to the public facts.
            assert _public_cards(own) == _public_cards(view)
            assert own.hand_sizes == view.hand_sizes
            assert all(m.card is None or m.card in own.hand for m in own.legal_moves)
            # Everything else is exactly what the public saw.
            private = ("viewer", "hand", "legal_moves", "compulsory")
            assert {k: v for k, v in own.to_dict().items() if k not in private} == \
                {k: v for k, v in view.to_dict().items() if k not in private}
    # The hands really differ between the seats at some turn (so the check above has teeth).
    assert any(p.hand(0).hand != p.hand(1).hand for p in replay.positions)


# ---------------------------------------------------------------------- damaged records


def test_a_log_that_does_not_give_the_saved_game_is_refused(classic_game: Played) -> None:
    state = saved(classic_game)
    with pytest.raises(ReplayError):
        replay_saved(state, classic_game.log[:-1], NAMES)
    bad = list(classic_game.log)
    bad[0] = (bad[0][0], "ZZ>C9")
    with pytest.raises(ReplayError):
        replay_saved(state, bad, NAMES)
    with pytest.raises(ReplayError):
        replay_saved({**state, "seed": state["seed"] + 1}, classic_game.log, NAMES)
    with pytest.raises(ReplayError):
        replay_saved({"rules": "?"}, classic_game.log, NAMES)


# ---------------------------------------------------------------------- the menu and the file


@pytest.mark.parametrize("name", ["kings_match", "classic_game"])
def test_jump_points(name: str, request: pytest.FixtureRequest) -> None:
    played: Played = request.getfixturevalue(name)
    replay = replay_match(played.match.rules, played.match.seed, played.log, NAMES)
    points = replay.jump_points(25)
    n = len(replay.positions)
    assert points == sorted(set(points)) and 0 < len(points) <= 25
    assert points[0] == 0 and points[-1] == n - 1
    if n > 25:
        assert len(points) >= 20, "the menu uses its room"
    deals = [p.index for p in replay.positions if p.turn == 1 and not p.over]
    if len(deals) < 20:
        assert set(deals) <= set(points), "every deal of the match is in the menu"


@pytest.mark.parametrize("name", ["kings_match", "classic_game"])
def test_the_move_list_reproduces_the_match_with_its_own_recipe(
        name: str, request: pytest.FixtureRequest, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    played: Played = request.getfixturevalue(name)
    replay = replay_saved(saved(played), played.log, NAMES)
    text = move_list(replay, 42, 1_764_590_000.0)
    assert text.startswith("# Spite & Malice, game #42: Ann (seat 0) vs Ben (seat 1)")
    assert f"Match seed: {played.match.seed}" in text
    assert "2025-12-01" in text
    moves = [m for line in text.splitlines() if line and not line.startswith("#")
             for m in line.split()[2:]]
    assert moves == [m for _, m in played.log], "every move, in order"
    # The recipe in the header, run as written, gives the same match.
    recipe = "\n".join(line[4:] for line in text.splitlines() if line.startswith("#   "))
    (tmp_path / "game-42.txt").write_text(text)
    monkeypatch.chdir(tmp_path)
    scope: dict[str, Any] = {}
    exec(compile(recipe, "recipe", "exec"), scope)  # noqa: S102 - our own header
    assert scope["match"].to_dict() == played.match.to_dict()
    # And one game alone with Game.replay and its deal seed.
    first = [m for line in text.splitlines() if line.startswith("1.")
             for m in line.split()[2:]]
    game = Game.replay(played.match.rules, replay.game_seeds[0], first)
    assert game.result == played.match.results[0]


# ---------------------------------------------------------------------- the history service

ANN, BOB, CAROL = 101, 202, 303


@pytest.fixture
async def services(tmp_path: Path) -> Any:
    clock = Clock(1_000_000.0)
    storage = await Storage.open(tmp_path / "s.sqlite3", clock)
    yield GameService(storage, computer_id=999, clock=clock), HistoryService(storage), clock
    await storage.close()


async def _start(service: Any, rules: str) -> Any:
    row = await service.inviting.challenge(guild_id=1, channel_id=10, challenger_id=ANN,
                                           opponent_id=BOB, opponent_is_bot=False, rules_name=rules,
                                           names=("Ann", "Bob"))
    assert not isinstance(row, LiveGame)
    _, live = await service.inviting.accept(row.id, BOB)
    return live


async def test_a_game_played_through_the_service_replays_to_its_saved_row(services: Any) -> None:
    service, history, _ = services
    live = await _start(service, "classic")
    with pytest.raises(UserError, match="still being played"):
        await history.replay(live.id, 1)
    players = [make_player("easy", 1), make_player("easy", 2)]
    while not live.finished:
        seat = live.match.game.turn
        move = players[seat].choose(live.match.game.view(seat))
        await service.playing.play(live.id, live.players[seat], move.text)
    row = await service.storage.games.get_game(live.id)
    game = await history.replay(live.id, 1)
    assert game.replay.final == row.state
    assert game.replay.positions[-1].public == live.match.game.public_view()
    assert await history.replay(live.id, 1) is game, "a finished game is replayed once"
    with pytest.raises(UserError, match="no game"):
        await history.replay(live.id, 2)  # another server's game is not there
    with pytest.raises(UserError, match="Only the two players"):
        history.hand_at(game, 0, CAROL)
    with pytest.raises(UserError, match="isn't in this replay"):
        history.hand_at(game, len(game.replay.positions), ANN)
    assert history.hand_at(game, 0, BOB) == 1
    result = live.match.results[0]
    for user, seat in ((ANN, 0), (BOB, 1)):
        page = await history.history(1, user, 0)
        (entry,) = page.entries
        assert entry.game_id == live.id and entry.rules == "classic" and entry.target is None
        assert entry.opponent == ("Bob" if user == ANN else "Ann")
        expected = "tie" if result.winner is None else "won" if result.winner == seat else "lost"
        assert entry.outcome == expected
        assert sum(entry.scores) == result.score
    assert (await history.history(1, CAROL, 0)).entries == ()
    # /replay turn: starts at that turn's position, or says which turns there are.
    positions = game.replay.positions
    for turn in (1, 2, positions[-1].turn):
        index = position_at(game, turn)
        assert positions[index].turn == turn and not positions[index].over
        assert index == min(p.index for p in positions if p.turn == turn)
    with pytest.raises(UserError, match=f"turns go from 1 to {positions[-1].turn}"):
        position_at(game, positions[-1].turn + 1)
    with pytest.raises(UserError, match="had 1 deal"):
        position_at(game, 1, deal=2)


async def test_a_game_lost_on_time_says_so(services: Any) -> None:
    service, history, clock = services
    live = await _start(service, "kings")
    idle = live.on_turn
    other = ANN if idle == BOB else BOB
    clock.now += live.terms.claim_s + 1
    await service.playing.claim(live.id, other)
    page = await history.history(1, other, 0)
    (entry,) = page.entries
    idle_name = live.names[live.terms.seat_of(idle)]
    assert entry.outcome == "won" and entry.how == f"{idle_name} lost on time"
    game = await history.replay(live.id, 1)
    text = history.move_list(game)
    assert text.rstrip().endswith(f"{live.terms.seat_of(idle)}: claim")
    assert game.replay.resigned == live.terms.seat_of(idle)


async def test_history_pages(services: Any) -> None:
    service, history, clock = services
    ids = []
    for _ in range(PAGE + 3):
        live = await _start(service, "kings")
        clock.now += 10
        await service.playing.resign(live.id, ANN)
        ids.append(live.id)
    first = await history.history(1, BOB, 0)
    assert (first.page, first.pages, first.total) == (0, 2, PAGE + 3)
    assert [e.game_id for e in first.entries] == ids[::-1][:PAGE]
    assert all(e.outcome == "won" and e.how == "Ann resigned" for e in first.entries)
    second = await history.history(1, BOB, 1)
    assert [e.game_id for e in second.entries] == ids[::-1][PAGE:]
    beyond = await history.history(1, BOB, 7)
    assert beyond.page == 1 and beyond.entries == second.entries
