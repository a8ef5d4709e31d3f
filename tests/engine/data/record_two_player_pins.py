# ruff: noqa
# Kept verbatim as it was run on 42ffd6f to record two_player_pins.json (not linted: a record).
"""Record two-player fingerprints from the engine as it is now (run once, before any change)."""
import hashlib, json, random, sys
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[3]))
from engine import CLASSIC, KINGS, Game, Match, PRESETS
from engine.players import make_player

VIEW_KEYS = ["rules", "viewer", "hand", "hand_sizes", "payoff_tops", "payoff_counts", "sides",
             "centre", "stock_size", "turn", "turn_number", "first_player", "plays_this_turn",
             "legal_moves", "compulsory", "recent", "result", "side_ranks"]

def digest(obj):
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()

def views(game):
    return [{k: game.view(v).to_dict()[k] for k in VIEW_KEYS} for v in (0, 1, None)]

def ai_game(rules, seed, levels):
    game, dealt = Game.new(rules, seed)
    players = [make_player(levels[0], seed * 2 + 1), make_player(levels[1], seed * 2 + 2)]
    trail = [[e.to_dict() for e in dealt], views(game)]
    moves = []
    n = 0
    while game.result is None:
        move = players[game.turn].choose(game.view(game.turn))
        events = game.play(move)
        moves.append(move.text)
        trail.append([e.to_dict() for e in events])
        n += 1
        if n % 7 == 0:
            trail.append(views(game))
            trail.append(game.to_dict())
    trail.append(views(game))
    return {"rules": rules.name, "seed": seed, "levels": levels, "moves": moves,
            "game": digest(game.to_dict()), "trail": digest(trail)}

def resigned(rules, seed, after, seat):
    game, _ = Game.new(rules, seed)
    rng = random.Random(seed)
    for _ in range(after):
        game.play(rng.choice([m for m in game.legal_moves() if not m.is_pass]))
    events = game.resign(seat)
    return {"rules": rules.name, "seed": seed, "after": after, "seat": seat,
            "game": digest(game.to_dict()), "result": game.result.to_dict(),
            "events": [e.to_dict() for e in events]}

def match_record(seed):
    match, dealt = Match.new(KINGS, seed)
    players = [make_player("normal", seed), make_player("easy", seed + 1)]
    trail = [[e.to_dict() for e in dealt]]
    moves = []
    while not match.is_over:
        if match.game.result is not None:
            trail.append([e.to_dict() for e in match.next_game()])
            moves.append("next")
            continue
        g = match.game
        move = players[g.turn].choose(g.view(g.turn))
        trail.append([e.to_dict() for e in match.play(move)])
        moves.append(move.text)
    return {"seed": seed, "moves": moves, "match": digest(match.to_dict()), "trail": digest(trail),
            "scores": match.scores, "winner": match.winner}

out = {"deals": {}, "games": [], "resigned": [], "matches": []}
for rules in (CLASSIC, KINGS):
    out["deals"][rules.name] = digest([[Game.new(rules, s)[0].to_dict(), [e.to_dict() for e in Game.new(rules, s)[1]]] for s in range(300)])
    for seed, levels in [(1, ["normal", "easy"]), (2, ["easy", "normal"]), (3, ["normal", "normal"]), (4, ["easy", "easy"]), (5, ["hard", "normal"])]:
        out["games"].append(ai_game(rules, seed, levels))
    out["resigned"].append(resigned(rules, 9, 40, 1))
    out["resigned"].append(resigned(rules, 10, 25, 0))
out["matches"].append(match_record(7))
out["matches"].append(match_record(8))
json.dump(out, open(__import__("pathlib").Path(__file__).with_name("two_player_pins.json"), "w"), indent=0)
print({g["rules"] + str(g["seed"]): len(g["moves"]) for g in out["games"]}, [len(m["moves"]) for m in out["matches"]])
