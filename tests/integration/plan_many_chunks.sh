#!/bin/sh
# passes: plain
# --plan has no limit on the chunks of a namespace (issue 30): with 100,500 chunks in one collection a zone range
# over its last chunks plans their moves (it used to read 100,000 chunks, skip the namespace and say nothing moves).
# And --plan stays fast with many moves there: a zone over the last 1,500 chunks plans 1,000 moves in a couple of
# seconds (it took 131 s: a linear load scan per move and a dataSize per move; now a kept load table, and one
# dataSize per span of empty chunks; shardsim's log counts the dataSize calls), and so does a drain of 33,500 chunks.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1

LOG="$TMPD/commands.log"
if ! sim_start --scenario large --large-shards 3 --large-collections 1 --large-chunks 100500 --log-commands "$LOG"; then
   fail "plan_many" "shardsim did not start"
   exit 0
fi
printf 'sh.addShardToZone("shard02", "Z")\nsh.updateZoneKeyRange("db000.coll000", {k: NumberLong(100497000)}, {k: MaxKey}, "Z")\n' \
   > "$TMPD/many.js"
out=$("$SHARDSH" --norc --quiet --plan "$SIM_URI" -f "$TMPD/many.js" 2>&1)
check_eq "plan_many: exits 0" 0 "$?"
check_contains "plan_many: the chunks past 100,000 move" \
   "move db000.coll000 [{ k: Long('100499000') }, { k: MaxKey() }) 0 docs, 0B shard03 -> shard02 when the balancer runs" "$out"
check_contains "plan_many: the total" "total: 2 chunks, 0 docs, 0B would move: 2 when the balancer runs" "$out"

printf 'sh.addShardToZone("shard02", "Z")\nsh.updateZoneKeyRange("db000.coll000", {k: NumberLong(99000000)}, {k: MaxKey}, "Z")\n' \
   > "$TMPD/moves.js"
: > "$LOG"
t0=$(date +%s%3N)
out=$("$SHARDSH" --norc --quiet --plan "$SIM_URI" -f "$TMPD/moves.js" 2>&1)
rc=$?
ms=$(($(date +%s%3N) - t0))
echo "# plan_moves: $ms ms" >&2
check_eq "plan_moves: exits 0" 0 "$rc"
check_contains "plan_moves: the total" "total: 1000 chunks, 0 docs, 0B would move: 1000 when the balancer runs" "$out"
check_contains "plan_moves: the first move" \
   "move db000.coll000 [{ k: Long('99000000') }, { k: Long('99001000') }) 0 docs, 0B shard01 -> shard02 when the balancer runs" \
   "$out"
check_contains "plan_moves: the last move" \
   "move db000.coll000 [{ k: Long('100499000') }, { k: MaxKey() }) 0 docs, 0B shard03 -> shard02 when the balancer runs" "$out"
n=$(grep -c '"cmd": { "dataSize"' "$LOG")
if [ "$n" -le 20 ]; then pass "plan_moves: few dataSize calls"; else fail "plan_moves: few dataSize calls" "$n sent"; fi
if [ "$ms" -lt 15000 ]; then pass "plan_moves: fast"; else fail "plan_moves: fast" "took $ms ms"; fi

printf 'db.adminCommand({removeShard: "shard03"})\n' > "$TMPD/drain.js"
: > "$LOG"
t0=$(date +%s%3N)
out=$("$SHARDSH" --norc --quiet --plan "$SIM_URI" -f "$TMPD/drain.js" 2>&1)
rc=$?
ms=$(($(date +%s%3N) - t0))
echo "# plan_drain: $ms ms" >&2
check_eq "plan_drain: exits 0" 0 "$rc"
check_contains "plan_drain: what drains" "shard shard03 drains: 33500 chunks, 0 docs, 0B in 1 collections" "$out"
check_contains "plan_drain: the total" "total: 33500 chunks, 0 docs, 0B would move: 33500 when the balancer runs" "$out"
n=$(grep -c '"cmd": { "dataSize"' "$LOG")
if [ "$n" -le 30 ]; then pass "plan_drain: few dataSize calls"; else fail "plan_drain: few dataSize calls" "$n sent"; fi
if [ "$ms" -lt 15000 ]; then pass "plan_drain: fast"; else fail "plan_drain: fast" "took $ms ms"; fi
sim_stop
