"""Rules 25, 26 and 28 where the bot turns a finished table into money and ratings: a match
margin never below 0, nothing owed when the players still seated draw (the leavers included),
places shared 1, 2, 2, 4 in the ratings, and a claim that completes a round of idle turns
ending the game in a stalemate."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from bot.games.game_service import GameService
from bot.money.ledger_service import table_rankings
from bot.money.stakes import game_entries
from bot.storage import ChallengeRow, GameTerms, LedgerRow, Storage
from engine import CLASSIC, KINGS, PASS, EndReason, Game, Match
from tests.support import Clock

ANN, BOB, CAROL, DAN = 101, 202, 303, 404
G = 1
FULL = ["KS QS JS 10S 9S", "KD QD JD 10D 9D", "KH QH JH 10H 9H"]
"""Full hands without an Ace or a 2: nobody draws, nothing is compulsory."""


@dataclass(frozen=True)
class Staked:
    id: int
    terms: GameTerms


def staked(*players: int, stake: int = 100, per_card: int = 10) -> Staked:
    names = tuple(str(p) for p in players)
    return Staked(7, GameTerms(G, 10, players, names, False, stake, per_card))


def line(i: int, game: int, debtor: int, creditor: int, winner: int | None, margin: int
         ) -> LedgerRow:
    return LedgerRow(i, G, "game", debtor, creditor, 0, game, "kings", winner, margin, None,
                     None, None, 0.0)


def test_ratings_share_places_1_2_2_4() -> None:
    rows = [line(1, 5, BOB, ANN, ANN, 3), line(2, 5, CAROL, ANN, ANN, 3),
            line(3, 5, DAN, ANN, ANN, 5)]
    # 0-based: the rule's places 1, 2, 2, 4.
    assert table_rankings(rows) == [("kings", [(ANN, 0), (BOB, 1), (CAROL, 1), (DAN, 3)])]


def test_a_leaver_with_more_points_than_the_winner_owes_the_stake_alone() -> None:
    match, _ = Match.new(KINGS, 2, players=3)
    match.scores = [0, 45, 10]
    match.resign(1)
    match.resign(2)  # Ann wins the last game (20 + 20) and, the last one seated, the match
    assert match.winner == 0 and match.scores == [40, 45, 10]
    assert match.margins == (None, 0, 30)
    entries = game_entries(staked(ANN, BOB, CAROL), match)
    assert [(e.debtor_id, e.creditor_id, e.amount_cents, e.margin) for e in entries] == [
        (BOB, ANN, 100, 0), (CAROL, ANN, 100 + 10 * 30, 30)]
    two, _ = Match.new(KINGS, 2)
    two.scores = [0, 45]
    two.resign(1)
    (entry,) = game_entries(staked(ANN, BOB), two)
    assert (entry.debtor_id, entry.amount_cents, entry.margin) == (BOB, 100, 0)


def test_when_the_rest_draw_nobody_owes_anything_the_leavers_included() -> None:
    game = Game.from_layout(CLASSIC, payoffs=["8C", "8D", "8H 8H 8H"], hands=FULL, turn=0)
    match = Match(CLASSIC, 0, game)
    match.resign(2)  # Carol leaves with 3 pay-off cards
    match.play(PASS)
    match.play(PASS)  # Ann and Bob: a whole round idle, with equal pay-off piles
    assert match.is_over and match.winner is None
    assert game.result is not None and game.result.margins == (None, None, 3)
    assert match.ranks == (1, 1, 1)
    entries = game_entries(staked(ANN, BOB, CAROL), match)
    assert entries and all(e.amount_cents == 0 and e.winner_id is None for e in entries)
    rows = [line(i, 6, e.debtor_id, e.creditor_id, e.winner_id, e.margin)
            for i, e in enumerate(entries, 1)]
    assert table_rankings(rows) == [("kings", [(CAROL, 0), (ANN, 0), (BOB, 0)])]


@pytest.fixture
async def env(database: str):
    clock = Clock(1_000_000.0)
    storage = await Storage.open(database, clock)
    seeds = iter(range(7_000, 8_000))
    service = GameService(storage, computer_id=999, clock=clock, seed_source=lambda: next(seeds))
    yield service, clock
    await storage.close()


async def test_a_claim_that_completes_an_idle_round_ends_the_game_in_a_stalemate(env) -> None:
    # Rule 25: the player on turn leaving without a play, after each of the others ended a
    # turn idle, completes the round; rule 26: his margin is his pay-off count.
    service, clock = env
    row = await service.inviting.invite(
        guild_id=G, channel_id=10, host=(ANN, "Ann"),
        invited=[(BOB, "Bob", False), (CAROL, "Carol", False)], rules_name="classic",
        stakes=(100, 10), target=None, level="normal")
    assert isinstance(row, ChallengeRow)
    await service.inviting.accept_seat(row.id, BOB)
    _, live = await service.inviting.accept_seat(row.id, CAROL)
    assert live is not None
    game = live.match.game
    for _ in range(5_000):
        if game.idle_streak == 2 and game.plays_this_turn == 0:
            break
        moves = game.legal_moves()
        move = PASS if PASS in moves and game.plays_this_turn == 0 else moves[0]
        await service.playing.play(live.id, live.on_turn, move.text)
        assert game.result is None
    else:
        raise AssertionError("no two idle turns in a row")
    idle = game.turn
    claimer = next(u for s, u in enumerate(live.players) if s != idle)
    clock.now += live.terms.claim_s + 1
    outcome = await service.playing.claim(live.id, claimer)
    result = game.result
    assert outcome.match_over and result is not None
    assert result.reason is EndReason.STALEMATE and result.left == (idle,)
    seated = [s for s in range(3) if s != idle]
    counts = {s: len(game.payoffs[s]) for s in range(3)}
    assert result.margins[idle] == counts[idle]  # not reduced by the winner's count
    lines = {e.debtor_id: (e.amount_cents, e.margin) for e in outcome.entries}
    if counts[seated[0]] == counts[seated[1]]:
        assert result.winner is None
        assert all(amount == 0 for amount, _ in lines.values())
    else:
        winner = min(seated, key=lambda s: counts[s])
        loser = max(seated, key=lambda s: counts[s])
        assert result.winner == winner
        assert lines == {
            live.players[idle]: (100 + 10 * counts[idle], counts[idle]),
            live.players[loser]: (100 + 10 * (counts[loser] - counts[winner]),
                                  counts[loser] - counts[winner])}
    saved = await service.storage.games.get_game(live.id)
    assert saved is not None and saved.status == "finished"
    assert saved.result is not None and saved.result["ranks"] == list(result.ranks)
