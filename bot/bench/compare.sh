#!/bin/sh
# The goal runs of issue 35, for two versions of the bot one after the other, with this
# checkout's benchmark harness (the same fake Discord, players and counting for both):
#
#   bot/bench/compare.sh OLD_CHECKOUT [OUT_DIR]
#
# OLD_CHECKOUT is a checkout of the old main (make one with
# `git worktree add --detach /tmp/old-main 83ac289`); the new bot is this checkout. Run it on a
# quiet machine: every run is preceded by the load average, and the runs alternate old, new,
# so that a change of the machine's load shows in both. Each run writes its JSON row to
# OUT_DIR/<name>.json and its one-line summary to OUT_DIR/summary.txt (printed as it goes).
#
# Environment: DURATION (seconds of play per load run, default 60), GAMES (paced games,
# default 1000), ROUNDS (old/new pairs of each run, default 1), MIGRATE_GAMES (default 1000;
# 10000 takes about an hour to build), SKIP (space-separated: paced eager migrate workers),
# PYTHON (runs the harness and the new bot), OLD_PYTHON (runs the old bot; default $PYTHON),
# INTERVAL (the paced runs' seconds between a game's moves, default 10: 100 moves a second at
# 1,000 games; 20 halves the load, so that a slow machine keeps up with both bots' pictures),
# WARM_UP (seconds of play before each paced window, default 0: the window starts with the
# players' first round, as the goal's rows were measured).
# Give the old bot a Python of its own lock file's dependencies: an installed package that the
# new lock adds and that a library picks up by itself (orjson, which discord.py uses when it
# can import it) would otherwise speed the old bot up too:
#   python3 -m venv /tmp/old-venv && /tmp/old-venv/bin/pip install --require-hashes \
#       -r /tmp/old-main/requirements.lock
#
# The runs:
# - paced: `load --mode paced --interval $INTERVAL --games $GAMES --tables 1/3` (a third of
#   the games at tables of three or four), old bot then new bot, new then old in even rounds
#   (a run starts on a machine that the run before may have left busier, and the old bot's
#   runs load it the most);
# - eager: `load --mode eager --games 100 --tables 1/3`, old and new in the same order (no
#   loss: errors 0);
# - workers: the new bot at paced $GAMES with --drawing-workers 1 and then 2;
# - migrate: `migrate --games $MIGRATE_GAMES --replay-workers 1,0` (the replay check one by
#   one, as the old main does it, then over the cores; the same source for both).
set -eu
OLD=${1:?usage: bot/bench/compare.sh OLD_CHECKOUT [OUT_DIR]}
OUT=${2:-bench-compare-$(date -u +%Y%m%dT%H%M%SZ)}
NEW=$(cd "$(dirname "$0")/../.." && pwd)
OLD=$(cd "$OLD" && pwd)
DURATION=${DURATION:-60}
GAMES=${GAMES:-1000}
ROUNDS=${ROUNDS:-1}
MIGRATE_GAMES=${MIGRATE_GAMES:-1000}
SKIP=${SKIP:-}
PYTHON=${PYTHON:-python}
OLD_PYTHON=${OLD_PYTHON:-$PYTHON}
WARM_UP=${WARM_UP:-0}
INTERVAL=${INTERVAL:-10}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"

skipped() { case " $SKIP " in *" $1 "*) return 0;; *) return 1;; esac; }

run() {  # run NAME ARGS...: one benchmark row, with the load average before it
    name=$1; shift
    line="$(date -u +%H:%M:%S) $name: load average before $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "$line" | tee -a "$SUMMARY"
    (cd "$NEW" && PYTHONPATH="$NEW" "$PYTHON" -m bot.bench "$@") >"$OUT/$name.json" \
        2>"$OUT/$name.log" || echo "$name FAILED (see $OUT/$name.log)" | tee -a "$SUMMARY"
    grep -v '^done: \|^bot process \|^bot log: ' "$OUT/$name.log" | tail -n 3 | tee -a "$SUMMARY"
}

run_bot() {  # run_bot old|new NAME ARGS...: run, the old checkout's bot for old
    who=$1; shift
    if [ "$who" = old ]; then
        run "$@" --bot-root "$OLD" --bot-python "$OLD_PYTHON"
    else
        run "$@"
    fi
}

echo "old: $OLD ($(git -C "$OLD" log -1 --format=%h), $OLD_PYTHON); new: $NEW ($(git -C "$NEW" log -1 \
    --format=%h)); $(nproc) cores" | tee -a "$SUMMARY"
round=1
while [ "$round" -le "$ROUNDS" ]; do
    if [ $((round % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
    for who in $order; do
        skipped paced || run_bot "$who" "paced$GAMES-$who-$round" load --mode paced \
            --interval "$INTERVAL" --games "$GAMES" --duration "$DURATION" --warm-up "$WARM_UP" \
            --tables 1/3
    done
    for who in old new; do
        skipped eager || run_bot "$who" "eager100-$who-$round" load --mode eager --games 100 \
            --duration "$DURATION" --tables 1/3
    done
    if ! skipped workers; then
        for workers in 1 2; do
            run "paced$GAMES-new-workers$workers-$round" load --mode paced \
                --interval "$INTERVAL" --games "$GAMES" --duration "$DURATION" --tables 1/3 \
                --drawing-workers "$workers"
        done
    fi
    round=$((round + 1))
done
if ! skipped migrate; then
    run "migrate$MIGRATE_GAMES" migrate --games "$MIGRATE_GAMES" --replay-workers 1,0
    (cd "$NEW" && "$PYTHON" -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print("migrate %(games)s games, replay workers %(replay_workers)s: replay check "
          "%(check_replay_s)s s (%(replay_ms_per_game)s ms a game), total %(total_s)s s, "
          "load %(loadavg_1m)s" % r)' "$OUT/migrate$MIGRATE_GAMES.json") \
        | tee -a "$SUMMARY"
fi
echo "done: $SUMMARY"
