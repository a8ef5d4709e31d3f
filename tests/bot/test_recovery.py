"""Recovery is exact: a game saved as a snapshot now and then plus appended moves loads, at any
moment, as the game that was played, and as a replay of its stored moves from the seed."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.games.game_service import SNAPSHOT_EVERY, GameService, LiveGame, restore_match
from bot.games.replay import replay_match
from bot.storage import Storage
from engine import RuleSet
from tests.support import Clock

BOT = 999


def _normal(data: dict[str, Any]) -> Any:
    return json.loads(json.dumps(data, sort_keys=True))


@dataclass
class Plan:
    rules: str
    target: int | None
    ending: str
    """``natural`` (played to the end of the match), ``resign`` or ``claim`` (in deal 3)."""
    game_id: int = 0
    players: tuple[int, int] = (0, 0)


PLANS = (
    Plan("kings", None, "resign"),  # kings to 50: random play ties every deal, so many deals
    Plan("classic", 2, "natural"),  # a classic match to 2 points, several deals
    Plan("classic", None, "natural"),  # one classic game
    Plan("kings", None, "claim"),
)


async def _check_recovery(storage: Storage, service: GameService, fresh: GameService,
                          plans: tuple[Plan, ...]) -> int:
    """Every game loaded by ``fresh`` equals the one in ``service``'s memory and a replay of
    its stored moves; returns how many moves the loads made again on their snapshots."""
    replayed = 0
    for plan in plans:
        row = await storage.games.get_game(plan.game_id)
        assert row is not None
        log = await storage.games.move_log(plan.game_id)
        assert [seq for seq, _, _, _ in log] == list(range(1, row.version + 1))
        assert 0 <= row.version - row.state_version < SNAPSHOT_EVERY
        if row.status == "finished":
            assert row.state_version == row.version  # history and replays read the final state
        replay = replay_match(RuleSet.from_dict(row.state["rules"]), int(row.state["seed"]),
                              [(seat, text) for _, seat, _, text in log])
        in_memory = await service.live.game(plan.game_id)
        loaded = await fresh.live.game(plan.game_id)
        assert loaded is not in_memory
        assert loaded.version == in_memory.version == row.version
        assert loaded.finished == in_memory.finished == (row.status == "finished")
        assert loaded.state_version == row.state_version
        assert (_normal(loaded.match.to_dict()) == _normal(in_memory.match.to_dict())
                == _normal(replay.final) == _normal(restore_match(row).to_dict()))
        replayed += len(row.later_moves)
    return replayed


async def test_games_reload_exactly_at_random_moments(tmp_path: Path) -> None:
    rng = random.Random(20261201)
    clock = Clock(1_000_000.0)
    path = tmp_path / "r.sqlite3"
    seeds = iter(range(7, 10_000))

    def service_on(storage: Storage) -> GameService:
        return GameService(storage, computer_id=BOT, clock=clock, seed_source=lambda: next(seeds))

    storage = await Storage.open(path, clock)
    service = service_on(storage)
    try:
        for n, plan in enumerate(PLANS):
            a, b = 100 + 2 * n, 101 + 2 * n
            row = await service.inviting.challenge(guild_id=1, channel_id=10 + n, challenger_id=a,
                                                   opponent_id=b, opponent_is_bot=False,
                                                   rules_name=plan.rules, names=("Ann", "Bob"),
                                                   target=plan.target)
            assert not isinstance(row, LiveGame)
            _, live = await service.inviting.accept(row.id, b)
            plan.game_id, plan.players = live.id, (a, b)
        reloads = replayed = deal_snapshots = 0
        while True:
            going = [p for p in PLANS if not (await service.live.game(p.game_id)).finished]
            if not going:
                break
            for plan in going:
                live = await service.live.game(plan.game_id)
                if plan.ending != "natural" and live.match.games_dealt == 3:
                    if plan.ending == "resign":
                        outcome = await service.playing.resign(live.id,
                                                               plan.players[rng.randrange(2)])
                    else:
                        clock.now += live.terms.claim_s + 1
                        idle = live.on_turn
                        other = plan.players[1 - plan.players.index(idle)]
                        outcome = await service.playing.claim(live.id, other)
                    assert outcome.match_over
                else:
                    user = live.on_turn
                    move = rng.choice(service.live.view(live, user).legal_moves)
                    outcome = await service.playing.play(live.id, user, move.text)
                if outcome.new_game:
                    row = await storage.games.get_game(live.id)
                    assert row is not None and row.state_version == row.version
                    deal_snapshots += 1
                if rng.random() < 0.06 or outcome.match_over:
                    if rng.random() < 0.4:  # a fresh connection too, as after a restart
                        await storage.close()
                        storage = await Storage.open(path, clock)
                        service.storage = storage
                    fresh = service_on(storage)
                    replayed += await _check_recovery(storage, service, fresh, PLANS)
                    reloads += 1
                    service = fresh  # play on with the reloaded games
        rows = [await storage.games.get_game(p.game_id) for p in PLANS]
        assert all(r is not None and r.status == "finished" for r in rows)
        assert [await storage.games.last_move(p.game_id) for p in PLANS
                if p.ending != "natural"] == ["resign", "claim"]
        # The run went through what it is meant to test: many reloads, moves made again on
        # snapshots, and new deals in the middle of matches.
        assert reloads >= 20 and replayed >= 100 and deal_snapshots >= 4
    finally:
        await storage.close()
