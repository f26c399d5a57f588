#!/bin/sh
# passes: plain
# sh.adviseShardKey against shardsim: a collection built through the wire with one field per known property
# (bench/advisor_load.c: ascending, random, hashed, low cardinality, zipf, compound coarse+fine) must get, for each
# candidate, the verdict that property implies; on 7.0 the server's analyzeShardKey stands beside shardsh's figures,
# on 6.0 it does not run; on a sharded collection the write spread follows its chunk map.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

N=${ADVISOR_TEST_DOCS:-6000}
LOADER="$TMPD/advisor_load"
if ! cc -std=c11 -D_DEFAULT_SOURCE -O2 -o "$LOADER" bench/advisor_load.c $(pkg-config --cflags --libs libmongoc-1.0) \
   -lm 2> "$TMPD/cc.err"; then
   skip advisor/sim "cannot build bench/advisor_load.c: $(head -c 300 "$TMPD/cc.err")"
   exit 0
fi
if [ ! -x "$SHARDSIM" ]; then
   skip advisor/sim "no $SHARDSIM"
   exit 0
fi

# the candidate block of KEY (its header line and the indented lines under it) from the pretty report in $OUT
block() {
   printf '%s\n' "$OUT" | awk -v k="$1" '
      /^[0-9]+\. / { on = index($0, ". " k "  (") > 0 }
      on { print }'
}

advise() {
   NO_COLOR=1 "$SHARDSH" --norc --quiet "$@" 2> "$TMPD/advise.err"
}

# ---- 7.0: every property, and the server beside shardsh ----
if ! sim_start --version 7.0 --scenario empty --shards 3; then
   fail advisor/sim "shardsim did not start"
   exit 1
fi
if ! "$LOADER" "$SIM_URI" app events "$N" > "$TMPD/load.out" 2>&1; then
   fail advisor/load "$(head -c 300 "$TMPD/load.out")"
   exit 1
fi
OUT=$(advise "$SIM_URI" --eval 'sh.adviseShardKey("app.events", null, {sampleSize: 2000})')
NFMT=$(echo "$N" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta')
check_contains advisor/header "app.events: 2,000 of $NFMT documents sampled; 3 shards; not sharded" "$OUT"

B=$(block "{ts: 1}")
check_contains advisor/ascending/verdict \
   'ascending: every insert goes to the MaxKey chunk on one shard; consider {ts: "hashed"}, or {z: 1, ts: 1}' "$B"
check_contains advisor/ascending/spread "shard01 0%, shard02 0%, shard03 100%" "$B"
check_contains advisor/ascending/order "ascending (rank correlation 1.00 with the ObjectId time of _id)" "$B"

B=$(block "{_id: 1}")
check_contains advisor/objectid/verdict 'ascending: every insert goes to the MaxKey chunk on one shard; consider {_id: "hashed"}' "$B"

B=$(block "{r: 1}")
check_contains advisor/random/verdict "verdict       good: every sampled value distinct" "$B"
check_contains advisor/random/monotonicity "not monotonic" "$B"

B=$(block '{ts: "hashed"}')
check_contains advisor/hashed/verdict "verdict       good:" "$B"
check_contains advisor/hashed/ranges "hashed: range queries on ts go to every shard" "$B"
check_contains advisor/hashed/spread "(an even split of the hashed range)" "$B"

B=$(block "{lvl: 1}")
check_contains advisor/low-cardinality/verdict "4 distinct values: at most 4 chunks, adding shards will not help; consider {lvl: 1, _id: 1}" "$B"

B=$(block "{z: 1}")
check_contains advisor/zipf/verdict "will become jumbo" "$B"
check_not_contains advisor/zipf/not-low-cardinality "at most 4 chunks" "$B"

B=$(block "{coarse: 1, fine: 1}")
check_contains advisor/compound/verdict "verdict       good:" "$B"

check_contains advisor/rank/first "1. " "$(printf '%s\n' "$OUT" | grep '^1\. ' | grep 'score 100')"
check_contains advisor/rank/last "{lvl: 1}" "$(printf '%s\n' "$OUT" | grep -E '^[0-9]+\. ' | tail -n 1)"
check_contains advisor/variants/hashed '{_id: "hashed"}  (hashed variant of {_id: 1})' "$OUT"
check_contains advisor/variants/compound "(compound variant of {ts: 1})" "$OUT"

# the server's analyzeShardKey beside shardsh's figures: agreement where both measure the same thing, a reason where
# they do not (no supporting index for a variant)
check_contains advisor/server/ascending "server        agrees on cardinality, frequency and monotonicity" "$(block "{ts: 1}")"
check_contains advisor/server/low-cardinality "server        agrees" "$(block "{lvl: 1}")"
check_contains advisor/server/no-index "analyzeShardKey has no key characteristics: no supporting index" "$(block "{z: 1, ts: 1}")"
# zipf: the server counts every value exactly; shardsh's Chao1 estimate from a random sample lands within a factor
# of two (agrees) or the note names the sample size
case "$(block "{z: 1}")" in
*"server        agrees"* | *"server        differs: distinct values: the server counted"*"(sample size:"*) pass advisor/server/zipf ;;
*) fail advisor/server/zipf "no agreement and no sample-size reason: $(block "{z: 1}" | grep server)" ;;
esac

# a key given by hand, and --json
OUT=$(advise "$SIM_URI" --json --eval 'sh.adviseShardKey("app.events", [{lvl: 1}, {r: 1}], {sampleSize: 500})')
check_contains advisor/json/low-cardinality '"findings" : [ "lowCardinality", "hotValues"' "$OUT"
check_contains advisor/json/sampled '"sampled" : 500' "$OUT"
check_contains advisor/json/server '"server" : { "numDocsTotal" : '"$N" "$OUT"
check_not_contains advisor/json/no-variants "compound variant" "$OUT"

# a collection that does not exist: an error from listIndexes, nothing printed on stdout
OUT=$(advise "$SIM_URI" --eval 'sh.adviseShardKey("app.nothing")')
check_eq advisor/missing-collection "" "$OUT"
check_contains advisor/missing-collection/err "NamespaceNotFound" "$(cat "$TMPD/advise.err")"

# a sharded collection: the write spread follows its chunk map
advise "$SIM_URI" --eval 'sh.enableSharding("app")' --eval 'sh.shardCollection("app.events", {ts: 1})' > /dev/null
OUT=$(advise "$SIM_URI" --eval 'sh.adviseShardKey("app.events", {ts: 1})')
check_contains advisor/sharded/header "sharded on {ts: 1}" "$OUT"
check_contains advisor/sharded/chunk-map "(the collection's chunk map, every next insert beyond the newest value)" "$OUT"
sim_stop

# ---- 6.0: no analyzeShardKey, the same verdicts ----
if sim_start --version 6.0 --scenario empty --shards 3 --log-commands "$TMPD/60.log"; then
   "$LOADER" "$SIM_URI" app events 2000 > /dev/null 2>&1
   OUT=$(advise "$SIM_URI" --eval 'sh.adviseShardKey("app.events", [{ts: 1}, {lvl: 1}])')
   check_contains advisor/6.0/ascending "ascending: every insert goes to the MaxKey chunk" "$OUT"
   check_contains advisor/6.0/low-cardinality "4 distinct values: at most 4 chunks" "$OUT"
   check_not_contains advisor/6.0/no-server "   server " "$OUT"
   if grep -q analyzeShardKey "$TMPD/60.log"; then
      fail advisor/6.0/not-sent "analyzeShardKey was sent to a 6.0 cluster"
   else
      pass advisor/6.0/not-sent
   fi
   sim_stop
else
   fail advisor/6.0 "shardsim did not start"
fi
