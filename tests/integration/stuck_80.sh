#!/bin/sh
# passes: plain asan
# One balance truth on 8.0 (issue 32): a collection with a chunk straddling a zone boundary judged alike by
# balancerCollectionStatus, sh.explainBalance, the dashboard and --plan, with the cluster's own chunk size (issue 36);
# then a drain held by a jumbo chunk, and by a balancing window that is closed; and Ctrl-C on a blocking moveCollection
# says the operation goes on on the server and how to follow or abort it; explainBalance names the hot range the
# dashboard flags.
# (8.0 refuses to drain the only shard of a zone with ranges, so the zone case is tests/integration/stuck_44.sh's.)
# sh.progress(), sh.explainBalance() and the dashboard must say STUCK, why and the same fix (commands/stuck.h), with
# no time left. One shardsim (8.0 demo), driven round by round with {simBalancer: "round"}.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh

if ! command -v jq > /dev/null 2>&1; then
   skip "stuck_80" "jq is not installed"
   exit 0
fi

run() { NO_COLOR=1 "$SHARDSH" --norc --quiet --yes --json "$SIM_URI/test" --eval "$1" 2>&1; }
rounds() { for _i in $(seq "$1"); do run 'db.adminCommand({simBalancer: "round"})' > /dev/null; done; }

if ! sim_start --scenario demo --version 8.0 --chunk-size-kb 1024 --reshard-ms 4000; then
   fail "stuck_80.start" "shardsim did not start"
   exit 0
fi

# ---- the cluster's chunk size: the dashboard judges with what balancerCollectionStatus reports ----
dash=$(NO_COLOR=1 "$SHARDSH" --norc --quiet --dashboard --once --json "$SIM_URI" 2> /dev/null)
check_eq "stuck_80.chunksize the dashboard's chunk size is the cluster's" \
   "$(run 'db.adminCommand({balancerCollectionStatus: "app.orders"})' | jq '.chunkSize * 1048576 | floor')" \
   "$(echo "$dash" | jq .balancer.chunkSizeBytes)"
check_contains "stuck_80.chunksize the verdict says so" "3 x range 1.0 MB" \
   "$(echo "$dash" | jq -r '.collections[] | select(.ns == "app.orders") | .balanceWhy')"

# ---- a zone range whose bound falls inside a chunk: every view says it is not balanced ----
echo 'sh.updateZoneKeyRange("app.orders", {customer: "c030", ts: MinKey}, {customer: "c040", ts: MinKey}, "SFO")' \
   > "$TMPD/zone.js"
out=$(NO_COLOR=1 "$SHARDSH" --norc --quiet --plan -f "$TMPD/zone.js" "$SIM_URI/test" 2>&1)
check_contains "stuck_80.straddle --plan splits at the bound and moves the piece into the zone" \
   "move app.orders [{ customer: 'c030', ts: MinKey() }," "$out"
NO_COLOR=1 "$SHARDSH" --norc --quiet -f "$TMPD/zone.js" "$SIM_URI/test" > /dev/null 2>&1
check_eq "stuck_80.straddle balancerCollectionStatus says zoneViolation" '[false,"zoneViolation"]' \
   "$(run 'db.adminCommand({balancerCollectionStatus: "app.orders"})' | jq -c '[.balancerCompliant, .firstComplianceViolation]')"
check_eq "stuck_80.straddle explainBalance agrees" '[false,"zoneViolation",true]' \
   "$(run 'sh.explainBalance("app.orders")' | jq -c '[.balanced, .verdict, ([.findings[].cause] | index("chunkStraddlesZone") != null)]')"
check_eq "stuck_80.straddle the dashboard agrees" '["imbalanced","2 chunks straddle a zone boundary"]' \
   "$(NO_COLOR=1 "$SHARDSH" --norc --quiet --dashboard --once --json "$SIM_URI" 2> /dev/null |
      jq -c '.collections[] | select(.ns == "app.orders") | [.balance, .balanceWhy]')"

# ---- a jumbo chunk on the draining shard: everything else leaves, it stays ----
run 'db.getSiblingDB("config").chunks.updateOne({shard: "shard03"}, {$set: {jumbo: true}})' > /dev/null
run 'sh.removeShard("shard03")' > /dev/null
rounds 8
prog=$(run 'sh.progress()' | jq -c '.operations[] | select(.type == "drain")')
check_contains "stuck_80.progress the drain is stuck on a jumbo chunk" "1 jumbo chunk on draining shard03" \
   "$(echo "$prog" | jq -r .stuck)"
check_eq "stuck_80.progress no time left" "null" "$(echo "$prog" | jq -c .etaSec)"
prog_fix=$(echo "$prog" | jq -r .fix)
check_contains "stuck_80.progress the fix moves it with forceJumbo (the namespace read through its uuid)" \
   'moveChunk: "app.events"' "$prog_fix"
expl=$(run 'sh.explainBalance("app.events")' | jq -c '[.findings[] | select(.stuck != null)][0]')
check_eq "stuck_80.explain the jumbo finding is stuck" "jumboChunks" "$(echo "$expl" | jq -r .cause)"
check_eq "stuck_80.explain no drainingShard finding besides it" "null" \
   "$(run 'sh.explainBalance("app.events")' | jq -c '[.findings[].cause] | index("drainingShard")')"
dash=$(NO_COLOR=1 "$SHARDSH" --norc --quiet --dashboard --once --json "$SIM_URI" 2> /dev/null |
   jq -c '.shards[] | select(.shard == "shard03") | .drain')
check_eq "stuck_80.agree progress, explainBalance and the dashboard give the same fix" \
   "$prog_fix|$prog_fix|$prog_fix" "$prog_fix|$(echo "$expl" | jq -r .fix)|$(echo "$dash" | jq -r .fix)"
check_eq "stuck_80.dashboard no time left" "null" "$(echo "$dash" | jq -c .etaSec)"

# ---- a closed balancing window: nothing moves until it opens ----
start=$(date -d '+2 hours' +%H:00)
stop=$(date -d '+3 hours' +%H:00)
run "sh.setBalancerWindow(\"$start\", \"$stop\")" > /dev/null
prog=$(run 'sh.progress()' | jq -c '.operations[] | select(.type == "drain")')
check_contains "stuck_80.window outside the window is why nothing moves" "outside the balancing window $start-$stop" \
   "$(echo "$prog" | jq -r .stuck)"
check_contains "stuck_80.window the fix widens it" "sh.setBalancerWindow(" "$(echo "$prog" | jq -r .fix)"

# ---- Ctrl-C on a blocking moveCollection: the shell stops waiting, the server goes on ----
if command -v tmux > /dev/null 2>&1; then
   T="tmux -S $TMPD/stuck-tmux.sock"
   $T new-session -d -s st -x 160 -y 40 "NO_COLOR=1 $(pwd)/$SHARDSH --norc --yes $SIM_URI/test; sleep 30"
   sleep 1
   $T send-keys -t st 'sh.moveCollection("logs.archive", "shard01")' Enter
   sleep 1.5
   $T send-keys -t st C-c
   sleep 1
   screen=$($T capture-pane -t st -p -J 2> /dev/null)
   check_contains "stuck_80.interrupt Ctrl-C says the moveCollection goes on on the server" \
      "the moveCollection goes on on the server: follow it with sh.progress()" "$screen"
   check_contains "stuck_80.interrupt and how to abort it" 'sh.abortMoveCollection("logs.archive")' "$screen"
   check_eq "stuck_80.interrupt the operation is still running" "moveCollection" \
      "$(run 'sh.progress()' | jq -r '[.operations[] | select(.type == "moveCollection")][0].type')"
   $T kill-server 2> /dev/null
else
   skip "stuck_80.interrupt" "tmux is not installed"
fi
# ---- a hot range: explainBalance names the one the dashboard flags (inserts at the top of an ascending key) ----
run 'db.adminCommand({simWorkload: "start", ns: "app.hot", kind: "ascending", rate: 300})' > /dev/null
sleep 2
expl=$(run 'sh.explainBalance("app.hot")' | jq -c '[.findings[] | select(.cause == "hotRange")][0]')
dash=$(NO_COLOR=1 "$SHARDSH" --norc --quiet --dashboard --once --json "$SIM_URI" 2> /dev/null |
   jq -r '.collections[] | select(.ns == "app.hot") | .hotRange.shard')
check_contains "stuck_80.hot explainBalance names the hot range" "the chunk whose max is MaxKey, on ${dash:-(no hot range on the dashboard)}," \
   "$(echo "$expl" | jq -r .detail)"
check_contains "stuck_80.hot its fix" 'sh.adviseShardKey("app.hot")' "$(echo "$expl" | jq -r .fix)"
run 'db.adminCommand({simWorkload: "stop"})' > /dev/null
sim_stop
