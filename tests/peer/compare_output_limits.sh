#!/bin/sh
# passes: plain
# Peer check of util.inspect's limits: mongosh 2.12 prints an --eval value without them (every array entry, every
# level, as its non-interactive printing does), while its REPL cuts arrays at 100 entries ("... N more items"). The
# same --eval statements through bin/shardsh and mongosh against one shardsim must print the same text, for an array
# of more than 100 entries (distinct), a document holding one (listShards on a cluster of 120 shards) and a nesting
# deeper than 6 levels. The REPL's cut is checked in tests/integration/repl.sh's territory: here, --eval only.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh

ensure_mongosh compare-limits || exit 0

run_case() {
   name=$1 code=$2
   NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI/test" --eval "$code" > "$TMPD/ours.out" 2>&1
   "$MONGOSH" "$SIM_URI/test" --quiet --eval "$code" > "$TMPD/theirs.out" 2>&1
   if ! [ -s "$TMPD/theirs.out" ]; then
      fail "compare-limits.$name" "mongosh printed nothing"
   elif grep -q "more item" "$TMPD/ours.out"; then
      fail "compare-limits.$name" "shardsh cut the value: $(grep -m1 "more item" "$TMPD/ours.out")"
   elif cmp -s "$TMPD/ours.out" "$TMPD/theirs.out"; then
      pass "compare-limits.$name"
   else
      fail "compare-limits.$name" "$(diff "$TMPD/theirs.out" "$TMPD/ours.out" | head -8 | cut -c1-300 | tr '\n' '|')"
   fi
}

if ! sim_start --scenario demo --version 8.0 --shards 120; then
   fail "compare-limits.start" "shardsim did not start"
else
   # 150 values of n for distinct (a literal statement: the shell's fast path, not the engine)
   docs=$(awk 'BEGIN { for (i = 0; i < 150; i++) printf "%s{_id: %d, n: %d}", (i ? ", " : ""), i, i * 7 }')
   NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI/test" --eval "db.getSiblingDB(\"lim\").many.insertMany([$docs])" \
      > /dev/null 2>&1
   run_case distinct 'db.getSiblingDB("lim").many.distinct("n")'
   run_case listShards 'db.adminCommand({listShards: 1}).shards.length'
   run_case listShards.doc 'db.adminCommand({listShards: 1})'
   NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI/test" \
      --eval 'db.getSiblingDB("lim").deep.insertOne({_id: 1, a: {b: {c: {d: {e: {f: {g: {h: [1, {i: 2}]}}}}}}}})' \
      > /dev/null 2>&1
   run_case deep.find 'db.getSiblingDB("lim").deep.findOne({_id: 1})'
   sim_stop
fi
