#!/bin/sh
# The cluster's story, live against shardsim: timed resharding, moveCollection and unshardCollection as shardsim
# models them ($currentOp donor and recipient rows, config.reshardingOperations, the commit at the end), then
# sh.progress() during a reshardCollection and a drain, sh.explainBalance on collections kept imbalanced by
# noBalance, a jumbo chunk and a draining shard, and sh.migrationHistory (docs/story.md).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh

if ! command -v jq > /dev/null 2>&1; then
   skip "story" "jq is not installed"
   exit 0
fi

run() { NO_COLOR=1 "$SHARDSH" --norc --quiet --yes --json "$SIM_URI/test" --eval "$1" 2>&1; }

# The resharding rows of $currentOp, one compact JSON line each.
reshard_rows() {
   run 'db.adminCommand({aggregate: 1, pipeline: [{$currentOp: {allUsers: true, idleConnections: true}}, {$match: {desc: /^ReshardingMetrics/}}], cursor: {}})' |
      jq -c '.cursor.firstBatch[]'
}

# ---- shardsim: timed reshardCollection, moveCollection, unshardCollection (8.0) ----
if sim_start --version 8.0 --reshard-ms 3000 --chunk-size-kb 64 --load app.big:ascending:3000 \
   --load app.logs:ascending:400:unsharded; then
   run 'sh.reshardCollection("app.big", {absent: 1})' > "$TMPD/reshard.out" &
   bg=$!
   sleep 1.2
   rows=$(reshard_rows)
   check_eq "story.sim donor and recipient rows during reshardCollection" "1 3" \
      "$(echo "$rows" | grep -c DonorService) $(echo "$rows" | grep -c RecipientService)"
   check_eq "story.sim recipients are cloning, with the 8.0 provenance" '["cloning","reshardCollection"]' \
      "$(echo "$rows" | grep RecipientService | head -1 | jq -c '[.recipientState, .provenance]')"
   # A key no document has: every document goes to one recipient; the others copy nothing though their
   # approxBytesToCopy is an even share, and they have no remaining-time estimate.
   check_eq "story.sim recipients without data report an even share and copy nothing" "2" \
      "$(echo "$rows" | grep RecipientService | jq -c 'select(.bytesCopied == 0 and .approxBytesToCopy > 0 and (has("remainingOperationTimeEstimatedSecs") | not))' | wc -l | tr -d ' ')"
   check_eq "story.sim the recipient with the data estimates its remaining time" "1" \
      "$(echo "$rows" | grep RecipientService | jq -c 'select(.bytesCopied > 0 and .remainingOperationTimeEstimatedSecs >= 0)' | wc -l | tr -d ' ')"
   out=$(run 'db.getSiblingDB("config").reshardingOperations.find({}, {_id: 0, ns: 1, state: 1, provenance: 1})' | jq -s -c '.[0]')
   check_eq "story.sim config.reshardingOperations holds the coordinator's state" \
      '{"ns":"app.big","provenance":"reshardCollection","state":"cloning"}' "$out"
   out=$(run 'sh.reshardCollection("app.big", {other: 1})')
   check_contains "story.sim a second resharding of the namespace is ReshardCollectionInProgress" \
      "[ReshardCollectionInProgress]" "$out"
   wait "$bg"
   check_eq "story.sim reshardCollection answers ok when it commits" 1 "$(jq -r .ok < "$TMPD/reshard.out")"
   check_eq "story.sim the new key is committed and the operation gone" '{"absent":1} 0' \
      "$(run 'db.getSiblingDB("config").collections.findOne({_id: "app.big"})' | jq -c .key) $(reshard_rows | wc -l | tr -d ' ')"
   run 'sh.moveCollection("app.logs", "shard02")' > "$TMPD/move.out" &
   bg=$!
   sleep 1
   check_eq "story.sim moveCollection runs as a resharding with provenance moveCollection" \
      '["moveCollection","shard02"]' \
      "$(reshard_rows | jq -s -c '[(.[0].provenance), ([.[] | select(.desc | test("Recipient")) | .shard] | .[0])]')"
   wait "$bg"
   out=$(run 'db.getSiblingDB("config").collections.findOne({_id: "app.logs"})' | jq -c '[.key, .unsplittable]')
   check_eq "story.sim moveCollection leaves a tracked unsplittable collection" '[{"_id":1},true]' "$out"
   out=$(run 'sh.unshardCollection("app.big", "shard03")' | jq -r .ok)
   check_eq "story.sim unshardCollection commits" 1 "$out"
   out=$(run 'db.getSiblingDB("config").collections.findOne({_id: "app.big"})' | jq -c '[.key, .unsplittable]')
   check_eq "story.sim unshardCollection leaves key _id, unsplittable" '[{"_id":1},true]' "$out"
   out=$(run 'sh.moveCollection("app.nope", "shard02")')
   check_contains "story.sim moveCollection of a missing collection is NamespaceNotFound" "[NamespaceNotFound]" "$out"
   sim_stop
else
   fail "story.sim" "shardsim did not start"
fi
