#!/bin/sh
# passes: plain
# Safety around the command table against shardsim: --readonly refuses every helper that changes the cluster before
# anything is sent (and lets the reading ones through); helpers newer than the cluster are refused with the version
# they need; in a terminal the destructive helpers ask first (declining sends nothing), while --eval and --yes never
# ask.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh

# ---- --readonly ----
if sim_start --scenario demo --version 8.0 --log-commands "$TMPD/ro.log"; then
   for call in 'sh.stopBalancer()' 'sh.setBalancerState(false)' 'sh.enableBalancing("app.users")' \
      'sh.disableAutoSplit()' 'sh.startAutoMerger()' 'sh.moveChunk("app.users", {uid: 1}, "shard02")' \
      'sh.removeShard("shard03")' 'sh.setBalancerWindow("23:00", "06:00")' 'sh.addShardToZone("shard01", "X")' \
      'sh.shardAndDistributeCollection("app.x", {k: 1})' 'sh.configureCollectionBalancing("app.users", {chunkSize: 64})' \
      'sh.refineCollectionShardKey("app.users", {uid: 1, r: 1})' 'db.getSiblingDB("app").users.configureQueryAnalyzer({mode: "off"})' \
      'db.adminCommand({balancerStop: 1})'; do
      : > "$TMPD/ro.log"
      err=$(NO_COLOR=1 "$SHARDSH" --norc --quiet --readonly "$SIM_URI/test" --eval "$call" 2>&1)
      rc=$?
      check_contains "cmd_safety.readonly refuses $call" "refused by --readonly" "$err"
      check_eq "cmd_safety.readonly exit code $call" 2 "$rc"
      if [ -s "$TMPD/ro.log" ]; then
         fail "cmd_safety.readonly sends nothing $call" "$(head -c 300 "$TMPD/ro.log")"
      else
         pass "cmd_safety.readonly sends nothing $call"
      fi
   done
   for call in 'sh.status()' 'sh.getBalancerState()' 'sh.listShards()' 'sh.getBalancerWindow()' \
      'sh.getRecentMigrations()' 'db.getSiblingDB("app").users.getShardDistribution()' 'sh.waitForBalancer(false, 5000)'; do
      out=$(NO_COLOR=1 "$SHARDSH" --norc --quiet --readonly "$SIM_URI/test" --eval "$call" 2>&1)
      check_eq "cmd_safety.readonly allows $call" 0 "$?"
   done
   sim_stop
else
   fail "cmd_safety.readonly" "shardsim did not start"
fi

# ---- version gating ----
for case in '4.4|sh.moveRange("app.events", "shard02")|sh.moveRange needs MongoDB 6.0 and the cluster runs 4.4.' \
   '5.0|sh.moveRange("app.events", "shard02")|sh.moveRange needs MongoDB 6.0 and the cluster runs 5.0.' \
   '4.4|sh.startAutoMerger()|sh.startAutoMerger needs MongoDB 7.0 and the cluster runs 4.4.' \
   '6.0|sh.moveCollection("logs.requests", "shard02")|sh.moveCollection needs MongoDB 8.0 and the cluster runs 6.0.' \
   '8.0|sh.shardDrainingStatus("shard03")|sh.shardDrainingStatus needs MongoDB 8.2 and the cluster runs 8.0.'; do
   v=${case%%|*}
   rest=${case#*|}
   call=${rest%%|*}
   want=${rest#*|}
   if ! sim_start --scenario demo --version "$v" --log-commands "$TMPD/gate.log"; then
      fail "cmd_safety.gate.$v" "shardsim did not start"
      continue
   fi
   err=$(NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI/test" --eval "$call" 2>&1)
   check_eq "cmd_safety.gate.$v exit code $call" 1 "$?"
   check_contains "cmd_safety.gate.$v message $call" "$want" "$err"
   name=${call%%(*}
   name=${name#sh.}
   if grep -q "\"$name\"" "$TMPD/gate.log"; then
      fail "cmd_safety.gate.$v sends nothing $call" "$(grep "\"$name\"" "$TMPD/gate.log" | head -c 300)"
   else
      pass "cmd_safety.gate.$v sends nothing $call"
   fi
   sim_stop
done

# ---- confirmation ----
if sim_start --scenario demo --version 8.0 --log-commands "$TMPD/confirm.log"; then
   # --eval never asks, even for a destructive helper
   NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI/test" --eval 'sh.stopBalancer()' > "$TMPD/eval.out" 2>&1 < /dev/null
   check_eq "cmd_safety.eval does not ask" 0 "$?"
   check_contains "cmd_safety.eval sends balancerStop" '"balancerStop"' "$(cat "$TMPD/confirm.log")"
   if command -v tmux > /dev/null 2>&1; then
      tui_server
      TUI_PANE=c TUI_GREP=1 TUI_TENTHS=150
      SH_ABS="$ROOT/$SHARDSH"
      : > "$TMPD/confirm.log"
      $TM new-session -d -s c -x 150 -y 40 "NO_COLOR=1 $SH_ABS --norc $SIM_URI/test; sleep 30"
      wait_for 'test>' || fail "cmd_safety.confirm.start" "$(screen | tail -3)"
      for call in 'sh.stopBalancer()' 'sh.setBalancerState(false)' 'sh.moveChunk("app.orders", {customer: "c031", ts: new Date(0)}, "shard03")' \
         'sh.removeShard("shard03")' 'sh.unshardCollection("app.events", "shard01")' \
         'db.getSiblingDB("config").chunks.updateOne({ns: "app.users"}, {$set: {jumbo: true}})' \
         'db.getSiblingDB("app").dropDatabase()' 'db.getSiblingDB("app").users.drop()' 'db.killOp("shard01:1")' \
         'db.adminCommand({balancerStop: 1})' 'db.getSiblingDB("app").runCommand({drop: "users"})' \
         'db.getSiblingDB("app").runCommand({dropDatabase: 1})' 'db.adminCommand({removeShard: "shard03"})' \
         'db.getSiblingDB("app").users.deleteMany({})' 'db.getSiblingDB("app").users.remove({})' \
         'db.getSiblingDB("app").runCommand({delete: "users", deletes: [{q: {}, limit: 0}]})' \
         'const c = "users"; db.getSiblingDB("app").runCommand({drop: c})'; do
         $TM send-keys -t c "$call" Enter
         if wait_for "Type 'yes' to run it"; then
            pass "cmd_safety.confirm asks for $call"
         else
            fail "cmd_safety.confirm asks for $call" "$(screen | tail -3)"
         fi
         # the question names the effect, whichever way the statement is written
         case "$call" in
         *drop\(\)* | *'{drop: "users"}'* | *'{drop: c}'*) check_contains "cmd_safety.confirm names the drop: $call" \
            "drops collection app.users. Type" "$(screen)" ;;
         *ropDatabase*) check_contains "cmd_safety.confirm names the database drop: $call" "drops database app " \
            "$(screen)" ;;
         *alancerStop* | *setBalancerState*) check_contains "cmd_safety.confirm names the stop: $call" \
            "stops the balancer. Type" "$(screen)" ;;
         *emoveShard*) check_contains "cmd_safety.confirm names the removal: $call" "removes shard shard03" "$(screen)" ;;
         *deleteMany* | *deletes:* | *remove\(\{\}\)*) check_contains "cmd_safety.confirm names the delete: $call" \
            "deletes every document of app.users" "$(screen)" ;;
         esac
         $TM send-keys -t c 'no' Enter
         wait_for 'not run: not confirmed' ||
            fail "cmd_safety.confirm declined $call" "$(screen | tail -3) [tmux: $($TM list-panes -F '#{pane_dead} #{pane_current_command}' 2>&1)]"
         # a clean screen before the next call, so no wait can match the previous question
         $TM send-keys -t c C-l
         $TM clear-history -t c
         i=0
         while [ $i -lt 150 ] && screen | grep -q "Type 'yes'"; do sleep 0.1; i=$((i + 1)); done
      done
      sleep 0.3
      if grep -q -E '"(balancerStop|moveChunk|removeShard|unshardCollection|update|dropDatabase|drop|killOp|delete)"' "$TMPD/confirm.log"; then
         fail "cmd_safety.confirm declined sends nothing" "$(grep -E 'balancerStop|moveChunk' "$TMPD/confirm.log" | head -c 300)"
      else
         pass "cmd_safety.confirm declined sends nothing"
      fi
      $TM send-keys -t c 'sh.setBalancerState(false)' Enter
      wait_for "Type 'yes' to run it"
      $TM send-keys -t c 'yes' Enter
      i=0
      while [ $i -lt 150 ] && ! grep -q '"balancerStop"' "$TMPD/confirm.log"; do sleep 0.1; i=$((i + 1)); done
      check_contains "cmd_safety.confirm yes runs it" '"balancerStop"' "$(cat "$TMPD/confirm.log")"
      $TM send-keys -t c 'sh.setBalancerState(true)' Enter
      sleep 0.5
      check_not_contains "cmd_safety.confirm start does not ask" "startBalancer not run" "$(screen)"
      # config.settings is the collection the manual tells operators to edit: no question, no warning
      $TM send-keys -t c C-l
      i=0
      while [ $i -lt 50 ] && screen | grep -q "Type 'yes' to run it"; do sleep 0.1; i=$((i + 1)); done
      $TM send-keys -t c 'db.getSiblingDB("config").settings.updateOne({_id: "chunksize"}, {$set: {value: 64}}, {upsert: true})' Enter
      wait_for 'upsertedCount' || fail "cmd_safety.confirm config.settings runs" "$(screen | tail -3)"
      check_not_contains "cmd_safety.confirm config.settings does not ask" "Type 'yes'" "$(screen)"
      # polling a drain already under way does not ask again (config.shards says draining: true; shard03, which holds
      # no zone alone: from 6.0 a shard that does is refused with ZoneStillInUse)
      NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI/test" --eval 'db.adminCommand({removeShard: "shard03"})' \
         > /dev/null 2>&1 < /dev/null
      $TM send-keys -t c C-l
      $TM clear-history -t c
      $TM send-keys -t c 'sh.removeShard("shard03")' Enter
      wait_for 'ongoing' || fail "cmd_safety.confirm drain poll runs" "$(screen | tail -3)"
      check_not_contains "cmd_safety.confirm drain poll does not ask again" "Type 'yes'" "$(screen)"
      $TM kill-server 2> /dev/null
      # --yes: no question in a terminal either
      : > "$TMPD/confirm.log"
      tui_server # a fresh server: the first one may still be shutting down
      $TM new-session -d -s c -x 150 -y 40 "NO_COLOR=1 $SH_ABS --norc --yes $SIM_URI/test; sleep 30"
      wait_for 'test>' || fail "cmd_safety.confirm --yes start" "$(screen | tail -3)"
      $TM send-keys -t c 'sh.stopBalancer()' Enter
      i=0
      while [ $i -lt 150 ] && ! grep -q '"balancerStop"' "$TMPD/confirm.log"; do sleep 0.1; i=$((i + 1)); done
      check_not_contains "cmd_safety.confirm --yes does not ask" "Type 'yes'" "$(screen)"
      check_contains "cmd_safety.confirm --yes runs it" '"balancerStop"' "$(cat "$TMPD/confirm.log")"
      $TM kill-server 2> /dev/null
   else
      skip "cmd_safety.confirm" "tmux is not installed"
   fi
   sim_stop
else
   fail "cmd_safety.confirm" "shardsim did not start"
fi
