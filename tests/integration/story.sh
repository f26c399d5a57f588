#!/bin/sh
# passes: plain
# The cluster's story, live against shardsim: timed resharding, moveCollection and unshardCollection as shardsim
# models them ($currentOp donor and recipient rows, config.reshardingOperations, the commit at the end), then
# sh.progress() during a reshardCollection and a drain, sh.explainBalance on collections kept imbalanced by
# noBalance, a jumbo chunk and a draining shard, and sh.migrationHistory (docs/story.md). The parts run at once
# (tests/lib.sh group), each on its own shardsim; checks of a timed operation wait for its phase, and the drain
# moves in balancer rounds the test runs, so nothing depends on how loaded the machine is.
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
   run 'db.adminCommand({aggregate: 1, pipeline: [{$currentOp: {allUsers: true, idleConnections: true}}, {$match: {desc: /^Resharding/}}], cursor: {}})' |
      jq -c '.cursor.firstBatch[]'
}

# wait_rows JQ: reshard_rows once a RecipientService row passes the jq condition JQ (polled every 0.1 s, at most
# 10 s): the checks of a timed resharding's phase wait for that phase rather than for a fixed time
wait_rows() {
   _i=0
   while :; do
      _rows=$(reshard_rows)
      if echo "$_rows" | grep RecipientService | jq -s -e "map(select($1)) | length > 0" > /dev/null 2>&1 || [ "$_i" -ge 100 ]; then
         break
      fi
      sleep 0.1
      _i=$((_i + 1))
   done
   echo "$_rows"
}

# ---- the dry-run golden is what goes on the wire: tests/scripts/dryrun_story.case live against shardsim (minus the
# endless watch, and explainBalance, whose follow-up reads depend on the cluster) ----
story_wire() {
case_part tests/scripts/dryrun_story.case js | grep -v -E '^//|watch|explainBalance' > "$TMPD/story_dry.js"
NO_COLOR=1 "$SHARDSH" --norc --quiet --dry-run --json -f "$TMPD/story_dry.js" 2> /dev/null |
   jq -c 'select(.dryRun) | {db: .db, cmd: .command}' > "$TMPD/story_expected"
if sim_start --scenario demo --version 8.0 --log-commands "$TMPD/story_sim.log"; then
   NO_COLOR=1 "$SHARDSH" --norc --quiet -f "$TMPD/story_dry.js" "$SIM_URI/test" > /dev/null 2>&1
   sim_stop
   jq -c 'select(.op == "OP_MSG") | .cmd as $c | ($c | keys_unsorted[0]) as $name
      | select(($name | IN("hello", "isMaster", "ismaster", "buildInfo", "getMore", "killCursors", "endSessions")) | not)
      | { db: .db, cmd: ($c | del(.lsid, ."$clusterTime", ."$db", ."$readPreference")) }' "$TMPD/story_sim.log" \
      > "$TMPD/story_actual"
   if [ -s "$TMPD/story_expected" ] && cmp -s "$TMPD/story_expected" "$TMPD/story_actual"; then
      pass "story.wire shardsim receives exactly the dry-run documents ($(wc -l < "$TMPD/story_expected") requests)"
   else
      fail "story.wire shardsim receives exactly the dry-run documents" \
         "$(diff "$TMPD/story_expected" "$TMPD/story_actual" | head -6 | cut -c1-200)"
   fi
else
   fail "story.wire" "shardsim did not start"
fi
}

# ---- shardsim: timed reshardCollection, moveCollection, unshardCollection (8.0); 8 s each, so that the checks made
# while one runs still find it running on a loaded machine (tests/run.sh runs two tests at a time) ----
story_reshard() {
if sim_start --version 8.0 --reshard-ms 8000 --chunk-size-kb 64 --load app.big:ascending:3000 \
   --load app.logs:ascending:400:unsharded; then
   run 'sh.reshardCollection("app.big", {absent: 1})' > "$TMPD/reshard.out" &
   bg=$!
   rows=$(wait_rows '.recipientState == "cloning" and .bytesCopied > 0')
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
   sim_stop
else
   fail "story.sim" "shardsim did not start"
fi
}
# moveCollection and unshardCollection, each on its own shardsim started as story_reshard's (8 s each, at once)
story_move() {
if sim_start --version 8.0 --reshard-ms 8000 --chunk-size-kb 64 --load app.big:ascending:3000 \
   --load app.logs:ascending:400:unsharded; then
   run 'sh.moveCollection("app.logs", "shard02")' > "$TMPD/move.out" &
   bg=$!
   sleep 1
   check_eq "story.sim moveCollection runs as a resharding with provenance moveCollection" \
      '["moveCollection","shard02"]' \
      "$(reshard_rows | jq -s -c '[(.[0].provenance), ([.[] | select(.desc | test("Recipient")) | .shard] | .[0])]')"
   wait "$bg"
   out=$(run 'db.getSiblingDB("config").collections.findOne({_id: "app.logs"})' | jq -c '[.key, .unsplittable]')
   check_eq "story.sim moveCollection leaves a tracked unsplittable collection" '[{"_id":1},true]' "$out"
   sim_stop
else
   fail "story.sim" "shardsim did not start"
fi
}
story_unshard() {
if sim_start --version 8.0 --reshard-ms 8000 --chunk-size-kb 64 --load app.big:ascending:3000 \
   --load app.logs:ascending:400:unsharded; then
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
}

# ---- sh.progress during a reshardCollection and a drain; sh.explainBalance; sh.migrationHistory (8.0) ----
# app.nb and app.jb hold far more than three chunk sizes on shard01 (imbalanced for the 8.0 policy); app.nb is
# excluded from balancing, app.jb's only chunk is flagged jumbo; app.h (hashed, 30 chunks, 10 on shard03) is drained.
story_live() {
if sim_start --version 8.0 --reshard-ms 15000 --chunk-size-kb 1024 --load app.big:ascending:3000 \
   --load app.nb:ascending:20000 --load app.jb:lowcard:20000; then
   # 8.0 ignores numInitialChunks (one chunk per shard): about twenty chunks per shard come from splits instead
   run 'sh.shardCollection("app.h", {k: "hashed"}); for (let i = -29; i <= 29; i++) db.adminCommand({split: "app.h", middle: {k: NumberLong(String(i * 3) + "00000000000000000")}})' > /dev/null
   run 'sh.disableBalancing("app.nb")' > /dev/null
   run 'db.getSiblingDB("config").runCommand({update: "chunks", updates: [{q: {"min.level": MinKey}, u: {$set: {jumbo: true}}}]})' > /dev/null

   out=$(run 'sh.explainBalance("app.nb")' | jq -c '[.balanced, .verdict, .findings[0].cause, .findings[0].fix]')
   check_eq "story.explain noBalance is the cause, with its fix" \
      '[false,"chunksImbalance","noBalance","sh.enableBalancing(\"app.nb\")"]' "$out"
   out=$(run 'sh.explainBalance("app.jb")' | jq -c '[.balanced, .findings[0].cause]')
   check_eq "story.explain a jumbo chunk is the cause" '[false,"jumboChunks"]' "$out"
   out=$(run 'sh.explainBalance("app.jb")' | jq -r '.findings[0].fix')
   check_contains "story.explain the jumbo fix names clearJumboFlag" 'clearJumboFlag: "app.jb"' "$out"
   out=$(run 'sh.explainBalance("app.nope")')
   check_contains "story.explain an unsharded collection is the server's NamespaceNotSharded" "[NamespaceNotSharded]" "$out"
   out=$(run 'sh.progress()' | jq -c '.operations')
   check_eq "story.progress nothing running" '[]' "$out"

   run 'sh.removeShard("shard03")' > /dev/null
   run 'sh.reshardCollection("app.big", {uuid: 1})' > "$TMPD/reshard2.out" &
   bg=$!
   # the drain moves chunks in balancer rounds run here, one before each sh.progress (no live balancer: without a
   # migration time a round's migrations commit within it), so its percent rises between the two calls however
   # loaded the machine is; the resharding's copy rises with time during its cloning phase (10 % to 70 % of its
   # 15 s; then it is 100), so the first call is made once the copy has begun
   run 'db.adminCommand({simBalancer: "round"})' > /dev/null
   out=$(run 'sh.explainBalance("app.h")' | jq -c '[.balanced, .verdict, .findings[0].cause]')
   check_eq "story.explain a draining shard is the cause" '[false,"draining","drainingShard"]' "$out"
   i=0
   while :; do
      p1=$(run 'sh.progress()')
      pa=$(echo "$p1" | jq '[.operations[] | select(.type == "reshardCollection")][0].percent // 0')
      if [ "$(jq -n "$pa > 0")" = true ] || [ "$i" -ge 60 ]; then break; fi
      sleep 0.2
      i=$((i + 1))
   done
   run 'db.adminCommand({simBalancer: "round"})' > /dev/null
   sleep 0.5
   p2=$(run 'sh.progress()')
   for t in reshardCollection drain; do
      a=$(echo "$p1" | jq -c --arg t "$t" '[.operations[] | select(.type == $t)][0] | [.phase, .percent, .etaSec]')
      b=$(echo "$p2" | jq -c --arg t "$t" '[.operations[] | select(.type == $t)][0] | [.phase, .percent, .etaSec]')
      case "$b" in
      '["'*'",'[0-9]*','[0-9]*']') pass "story.progress $t listed with phase, percent and etaSec: $b" ;;
      *) fail "story.progress $t listed with phase, percent and etaSec" "first [$a] second [$b] in [$p2]" ;;
      esac
      pa=$(echo "$a" | jq '.[1] // -1')
      pb=$(echo "$b" | jq '.[1] // -1')
      if [ "$(jq -n "$pa < $pb")" = true ]; then
         pass "story.progress $t percent rises across two calls ($pa -> $pb)"
      else
         fail "story.progress $t percent rises across two calls" "$pa then $pb"
      fi
   done
   out=$(echo "$p2" | jq -r '[.operations[] | select(.type == "reshardCollection")][0].shard')
   check_eq "story.progress resharding summed over donors and recipients" "shard01 -> shard01, shard02" "$out"
   out=$(NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI/test" --eval 'sh.progress({watch: true, intervalSecs: 1, count: 2})' 2>&1)
   check_eq "story.progress watch refreshes (two tables)" 2 "$(echo "$out" | grep -c '^TYPE ')"
   wait "$bg"
   check_eq "story.progress the resharding committed" 1 "$(jq -r .ok < "$TMPD/reshard2.out")"
   out=$(run 'sh.migrationHistory({since: 1})' | jq -c '[(.succeeded > 0), (.byDonor | map(.shard) | index("shard03") != null), .failed]')
   check_eq "story.history the drain's migrations by donor" '[true,true,0]' "$out"
   sim_stop
else
   fail "story.live" "shardsim did not start"
fi
}

# ---- sh.migrationHistory and explainBalance on the demo's history: a failed migration and a failed round ----
story_demo() {
if sim_start --scenario demo --version 8.0; then
   out=$(run 'sh.migrationHistory()' | jq -c '[.failed, .byError[0].error, .failedBalancerRounds]')
   check_eq "story.history failures by error" '[1,"Data transfer error: recipient shard timed out",1]' "$out"
   out=$(run 'sh.explainBalance("app.users")' | jq -c '[.balanced, [.findings[].cause]]')
   # the demo's failed round names app.orders: it is not app.users' (issue 32)
   check_eq "story.explain a balanced collection still shows its failed migration, not another's round" \
      '[true,["failedMigration"]]' "$out"
   run 'sh.updateZoneKeyRange("app.orders", {customer: "c", ts: MinKey}, {customer: "d", ts: MinKey}, "SFO")' > /dev/null
   out=$(run 'sh.explainBalance("app.orders")' | jq -c '[.verdict, ([.findings[].cause] | index("zoneViolation") != null), ([.findings[].cause] | index("chunkStraddlesZone") != null)]')
   check_eq "story.explain zone violation and a chunk straddling the zone" '["zoneViolation",true,true]' "$out"
   if [ -f "$BINDIR/shardsh-js.so" ]; then
      out=$(run 'const r = sh.explainBalance("app.users"); [r.balanced, r.findings[0].cause, sh.progress().operations.length]' | jq -s -c .)
      check_eq "story.js the results are values in JavaScript" '[true,"failedMigration",0]' "$out"
   else
      skip "story.js" "no JavaScript plugin in this build"
   fi
   causes() { run "sh.explainBalance(\"$1\")" | jq -c '[.findings[].cause]'; }
   run 'sh.disableMigrations("app.events")' > /dev/null
   check_contains "story.explain migrations not allowed" '"migrationsNotAllowed"' "$(causes app.events)"
   run 'sh.configureCollectionBalancing("app.events", {defragmentCollection: true})' > /dev/null
   check_contains "story.explain a defragmentation" '"defragmenting"' "$(causes app.events)"
   start=$(date -d '+2 hour' +%H:%M)
   stop=$(date -d '+3 hour' +%H:%M)
   run "sh.setBalancerWindow(\"$start\", \"$stop\")" > /dev/null
   check_contains "story.explain outside the balancing window" '"outsideWindow"' "$(causes app.users)"
   run 'sh.stopBalancer()' > /dev/null
   out=$(causes app.users | jq -r '.[0]')
   check_eq "story.explain a stopped balancer comes first" balancerOff "$out"
   sim_stop
else
   fail "story.demo" "shardsim did not start"
fi
}

# ---- failed migrations and failed rounds on demand (simFailure), as the helpers see them ----
story_fail() {
if sim_start --version 8.0; then
   run 'sh.shardCollection("app.h", {k: "hashed"}, false, {numInitialChunks: 30})' > /dev/null
   run 'sh.removeShard("shard03")' > /dev/null
   run 'db.adminCommand({simFailure: "migrations", times: 2, errmsg: "Data transfer error: recipient shard timed out"})' > /dev/null
   run 'db.adminCommand({simFailure: "rounds", times: 1})' > /dev/null
   run 'db.adminCommand({simBalancer: "live", intervalMs: 100, migrationMs: 100})' > /dev/null
   sleep 2.5
   out=$(run 'db.getSiblingDB("config").changelog.countDocuments({what: "moveChunk.error", ns: "app.h"})')
   check_eq "story.fail two migrations failed with moveChunk.error" 2 "$out"
   out=$(run 'sh.migrationHistory({since: 1, ns: "app.h"})' | jq -c '[.failed, .byError[0].error, .byError[0].count, .failedBalancerRounds, (.succeeded > 0)]')
   check_eq "story.fail migrationHistory counts them by error, with the failed round" \
      '[2,"Data transfer error: recipient shard timed out",2,1,true]' "$out"
   # explainBalance looks at the last five rounds: make them all fail
   run 'db.adminCommand({simFailure: "rounds", times: -1})' > /dev/null
   sleep 1
   out=$(run 'sh.explainBalance("app.h")' | jq -c '[.findings[] | select(.cause == "failedMigration" or .cause == "failedBalancerRounds") | .cause] | unique')
   check_eq "story.fail explainBalance lists the failed migrations and the failed round" \
      '["failedBalancerRounds","failedMigration"]' "$out"
   run 'db.adminCommand({simFailure: "clear"})' > /dev/null
   out=$(run 'db.getSiblingDB("config").actionlog.find({"details.errorOccurred": true}, {_id: 0, "details.errmsg": 1})' | jq -s -c '.[0].details.errmsg')
   check_eq "story.fail the failed round's actionlog entry" '"Failed to acquire the collection lock to migrate chunks: LockBusy"' "$out"
   sim_stop
else
   fail "story.fail" "shardsim did not start"
fi
}

# ---- older personalities: 5.0 resharding rows (no provenance, -1 without an estimate), 4.4 migrations and drains ----
story_old() {
# (10 s: its first second, before the copy, leaves time to see the rows without an estimate on a loaded machine)
if sim_start --version 5.0 --reshard-ms 10000 --chunk-size-kb 64 --load app.big:ascending:2000; then
   run 'sh.reshardCollection("app.big", {uuid: 1})' > /dev/null &
   bg=$!
   out=$(wait_rows true | grep RecipientService | head -1 | jq -c '[has("provenance"), .remainingOperationTimeEstimatedSecs]')
   check_eq "story.5.0 recipient rows: no provenance, -1 before any estimate" '[false,-1]' "$out"
   i=0
   while :; do
      out=$(run 'sh.progress()' | jq -c '[.operations[0].type, .operations[0].phase, (.operations[0].percent > 0)]')
      if [ "$out" = '["reshardCollection","cloning",true]' ] || [ "$i" -ge 100 ]; then break; fi
      sleep 0.1
      i=$((i + 1))
   done
   check_eq "story.5.0 sh.progress lists the resharding" '["reshardCollection","cloning",true]' "$out"
   wait "$bg"
   sim_stop
else
   fail "story.5.0" "shardsim did not start"
fi
if sim_start --scenario demo --version 4.4; then
   run 'sh.removeShard("shard03")' > /dev/null
   # a migration longer than the test: the first round's stays in flight however late sh.progress runs
   run 'db.adminCommand({simBalancer: "live", intervalMs: 100, migrationMs: 600000})' > /dev/null
   sleep 0.8
   out=$(run 'sh.progress()' | jq -c '[.operations[] | .type] | unique')
   check_eq "story.4.4 a migration (command.moveChunk) and the drain" '["drain","migration"]' "$out"
   out=$(run 'db.adminCommand({reshardCollection: "app.events", key: {uuid: 1}})')
   check_contains "story.4.4 no resharding before 5.0" "[CommandNotFound]" "$out"
   sim_stop
else
   fail "story.4.4" "shardsim did not start"
fi
}

# ---- sh.progress({watch: true}) refreshes until Ctrl-C, and the shell goes on ----
story_watch() {
if ! command -v tmux > /dev/null 2>&1; then
   skip "story.watch" "tmux is not installed"
elif sim_start --scenario demo --version 8.0; then
   T="tmux -S $TMPD/story-tmux.sock"
   screen() { $T capture-pane -t story -p 2> /dev/null; }
   wait_for() {
      i=0
      while [ $i -lt 50 ]; do
         screen | grep -q -- "$1" && return 0
         sleep 0.1
         i=$((i + 1))
      done
      return 1
   }
   $T new-session -d -s story -x 120 -y 40 "NO_COLOR=1 $(pwd)/$SHARDSH --norc $SIM_URI/test; echo EXITED=\$?; sleep 30"
   wait_for 'test>'
   $T send-keys -t story 'sh.progress({watch: true, intervalSecs: 1})' Enter
   sleep 2.5
   n=$(screen | grep -c 'no long operation is running')
   $T send-keys -t story C-c
   sleep 0.5
   $T send-keys -t story 'print("after the watch")' Enter
   if wait_for '^after the watch'; then
      pass "story.watch Ctrl-C ends the watch and the shell goes on ($n refreshes seen)"
   else
      fail "story.watch Ctrl-C ends the watch and the shell goes on" "$(screen | tail -5)"
   fi
   [ "$n" -ge 2 ] && pass "story.watch refreshes every interval" || fail "story.watch refreshes every interval" "$n tables"
   $T kill-server 2> /dev/null
   sim_stop
else
   fail "story.watch" "shardsim did not start"
fi
}

# ---- a failover during a resharding (estimates lost) and an abort ----
story_failover() {
if sim_start --version 8.0 --reshard-ms 6000 --chunk-size-kb 64 --load app.r:ascending:2000; then
   run 'sh.reshardCollection("app.r", {uuid: 1})' > "$TMPD/abort.out" &
   bg=$!
   sleep 1.5
   run 'db.adminCommand({simReshard: "stepDown", ns: "app.r"})' > /dev/null
   out=$(run 'sh.progress()' | jq -c '.operations[0] | [.type, .etaSec, (.caveat | test("lost after a failover"))]')
   check_eq "story.failover no time estimate after a failover, and the caveat says why" '["reshardCollection",null,true]' "$out"
   out=$(reshard_rows | grep RecipientService | jq -c 'has("remainingOperationTimeEstimatedSecs")' | sort -u)
   check_eq "story.failover recipients report no estimate" false "$out"
   out=$(run 'sh.abortReshardCollection("app.r")' | jq -r .ok)
   check_eq "story.abort abortReshardCollection answers ok" 1 "$out"
   wait "$bg"
   check_contains "story.abort the resharding fails with ReshardCollectionAborted" "[ReshardCollectionAborted]" "$(cat "$TMPD/abort.out")"
   out=$(run 'db.getSiblingDB("config").collections.findOne({_id: "app.r"})' | jq -c .key)
   check_eq "story.abort the key is unchanged" '{"ts":1}' "$out"
   out=$(run 'sh.abortReshardCollection("app.r")')
   check_contains "story.abort nothing to abort is NoSuchReshardCollection" "[NoSuchReshardCollection]" "$out"
   sim_stop
else
   fail "story.failover" "shardsim did not start"
fi
}

# the parts at once (each waits on its own shardsim's timed operations): as long as the longest, not their sum
group live story_live
group reshard story_reshard
group move story_move
group unshard story_unshard
group failover story_failover
group old story_old
group wire story_wire
group demo story_demo
group fail story_fail
group watch story_watch
groups_wait
