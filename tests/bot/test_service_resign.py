"""What a resignation would do, said before it is done (issue 31, point 4): the finishing
service works it out on a copy of the match, and resigning then does exactly that."""

from __future__ import annotations

import pytest

from bot.games.game_service import GameService, LiveGame
from bot.storage import ChallengeRow, Storage
from tests.support import Clock

ANN, BOB, CAROL, BOT = 101, 202, 303, 999


@pytest.fixture
async def service(database: str):
    clock = Clock(1_000_000.0)
    storage = await Storage.open(database, clock)
    seeds = iter(range(5_000, 6_000))
    yield GameService(storage, computer_id=BOT, clock=clock, seed_source=lambda: next(seeds))
    await storage.close()


async def _two(service: GameService, rules: str, stakes: tuple[int, int]) -> LiveGame:
    row = await service.inviting.challenge(
        guild_id=1, channel_id=10, challenger_id=ANN, opponent_id=BOB, opponent_is_bot=False,
        rules_name=rules, names=("Ann", "Bob"), stakes=stakes)
    assert isinstance(row, ChallengeRow)
    _, live = await service.inviting.accept(row.id, BOB)
    return live


async def _three(service: GameService, stakes: tuple[int, int]) -> LiveGame:
    row = await service.inviting.invite(
        guild_id=1, channel_id=10, host=(ANN, "Ann"),
        invited=[(BOB, "Bob", False), (CAROL, "Carol", False)], rules_name="kings",
        stakes=stakes)
    assert isinstance(row, ChallengeRow)
    await service.inviting.accept_seat(row.id, BOB)
    _, live = await service.inviting.accept_seat(row.id, CAROL)
    assert live is not None
    return live


async def test_resigning_a_kings_match_is_said_whole_and_changes_nothing(
        service: GameService) -> None:
    live = await _two(service, "kings", (50, 5))
    before, version = live.match.to_dict(), live.version
    left = len(live.match.game.payoffs[0])  # Ann's margin: her pay-off cards (rule 26)
    said = service.finishing.resignation(live, ANN)
    assert live.match.to_dict() == before and live.version == version
    assert said.match_over and said.winner == 1 and said.target == 50
    assert said.scores == (0, left)
    assert [(e.debtor_id, e.creditor_id, e.amount_cents) for e in said.entries] == [
        (ANN, BOB, 50 + 5 * left)]
    outcome = await service.playing.resign(live.id, ANN)
    assert outcome.match_over and live.match.winner == 1
    assert tuple(live.match.scores) == said.scores and outcome.entries == said.entries


async def test_leaving_a_table_of_three_says_who_plays_on_and_for_what(
        service: GameService) -> None:
    live = await _three(service, (20, 1))
    said = service.finishing.resignation(live, BOB)
    assert not said.match_over and said.winner is None and said.entries == ()
    assert said.playing_on == (0, 2) and said.target == 50
    assert (said.stake_cents, said.per_card_cents) == (20, 1)
    await service.playing.resign(live.id, BOB)
    # The last one but one leaving ends it: Ann wins, and both leavers pay.
    said = service.finishing.resignation(live, CAROL)
    assert said.match_over and said.winner == 0 and said.playing_on == ()
    assert [e.debtor_id for e in said.entries] == [BOB, CAROL]
    outcome = await service.playing.resign(live.id, CAROL)
    assert outcome.entries == said.entries


async def test_a_resignation_that_cant_be_made_is_refused_before_the_question(
        service: GameService) -> None:
    live = await _three(service, (0, 0))
    await service.playing.resign(live.id, BOB)
    with pytest.raises(Exception, match="already left"):
        service.finishing.resignation(live, BOB)
    with pytest.raises(Exception, match="not playing"):
        service.finishing.resignation(live, 4242)
