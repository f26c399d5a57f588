#!/bin/sh
# passes: plain
# --plan has no limit on the chunks of a namespace (issue 30): with 100,500 chunks in one collection a zone range
# over its last chunks plans their moves (it used to read 100,000 chunks, skip the namespace and say nothing moves).
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1

if ! sim_start --scenario large --large-shards 3 --large-collections 1 --large-chunks 100500; then
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
sim_stop
