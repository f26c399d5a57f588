#!/bin/sh
# passes: plain asan
# Plan before apply (issue 18, docs/plan.md), on shardsim with data, 7.0 and 4.4: a script whose last line names a
# missing zone, a range overlapping an existing one, or a 6.0-only helper on 4.4 exits 2 and the cluster receives no
# write; --plan on a script that adds a zone range predicts the chunks, documents and bytes the balancer then moves
# (compared with config.changelog's moveChunk.commit counts after running it and letting the balancer settle);
# --plan for removeShard gives the chunks and bytes to drain, again compared with what the drain then moves; a
# run-time failure after sh.stopBalancer() prints the summary and the warning.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1

WRITES='"cmd": { "(balancerStop|balancerStart|addShardToZone|removeShardFromZone|updateZoneKeyRange|moveChunk|moveRange|removeShard|update|insert|delete|shardCollection|split|mergeChunks)"'

# no_write NAME LOG: the command log holds no write command
no_write() {
   if grep -E -q "$WRITES" "$2"; then
      fail "$1" "the cluster received a write: $(grep -E -o "$WRITES" "$2" | head -3 | tr '\n' ' ')"
   else
      pass "$1"
   fi
}

cat > "$TMPD/missing_zone.js" << 'JS'
sh.stopBalancer()
sh.addShardToZone("shard03", "LON")
sh.updateZoneKeyRange("app.events", {ts: MinKey}, {ts: 0}, "LON")
sh.updateZoneKeyRange("app.stores", {zipcode: "30000"}, {zipcode: "30100"}, "APCA")
JS
cat > "$TMPD/overlap.js" << 'JS'
sh.addShardToZone("shard03", "NYC")
sh.updateZoneKeyRange("app.stores", {zipcode: "10200"}, {zipcode: "10300"}, "SFO")
JS
cat > "$TMPD/moverange.js" << 'JS'
sh.addShardToZone("shard02", "NYC")
sh.moveRange("app.events", "shard02", {ts: 0})
JS

for v in 7.0 4.4; do
   for case in missing_zone overlap moverange; do
      [ "$case" = moverange ] && [ "$v" != 4.4 ] && continue
      log="$TMPD/$case.$v.log"
      if ! sim_start --scenario demo --version "$v" --log-commands "$log"; then
         fail "plan/$v/$case" "shardsim did not start"
         continue
      fi
      out=$("$SHARDSH" --norc --quiet "$SIM_URI" -f "$TMPD/$case.js" 2>&1)
      rc=$?
      sim_stop
      check_eq "plan/$v/$case exits 2" 2 "$rc"
      no_write "plan/$v/$case sends no write" "$log"
      case $case in
      missing_zone) check_contains "plan/$v/$case names the zones" "zone APCA does not exist; zones: NYC, SFO, LON" "$out"
                    check_contains "plan/$v/$case at file:line:col" "missing_zone.js:4:77:" "$out" ;;
      overlap) check_contains "plan/$v/$case RangeOverlapConflict" "RangeOverlapConflict" "$out" ;;
      moverange) check_contains "plan/$v/$case version gate" "sh.moveRange needs MongoDB 6.0 and the cluster runs 4.4" "$out" ;;
      esac
   done
done

# json_field NAME TEXT: the number after "NAME" : in TEXT (the first one)
json_field() { printf '%s\n' "$2" | sed -n "s/.*\"$1\" : \([0-9]*\).*/\1/p" | head -1; }

# moved NS FROM: "docs bytes" of the moveChunk.commit entries of NS (from shard FROM when given)
moved() {
   m="what: \"moveChunk.commit\", ns: \"$1\""
   [ -n "$2" ] && m="$m, \"details.from\": \"$2\""
   o=$("$SHARDSH" --norc --quiet --json "$SIM_URI" --eval "db.getSiblingDB(\"config\").changelog.aggregate([{\$match: {$m}}, {\$group: {_id: null, docs: {\$sum: \"\$details.counts.cloned\"}, bytes: {\$sum: \"\$details.counts.clonedBytes\"}}}])" 2>&1)
   echo "$(json_field docs "$o") $(json_field bytes "$o")"
}

# wait_moved NS FROM WANT_DOCS: polls (up to 15 s) until the moved documents reach WANT_DOCS; echoes "docs bytes"
wait_moved() {
   i=0
   while [ $i -lt 150 ]; do
      r=$(moved "$1" "$2")
      [ "${r%% *}" = "$3" ] && break
      sleep 0.1
      i=$((i + 1))
   done
   echo "$r"
}

# --plan for zone ranges agrees with what the balancer then moves
if sim_start --version 7.0 --load app.ev:location:2000 --balancer-interval-ms 50 --log-commands "$TMPD/zones.log"; then
   printf 'sh.addShardToZone("shard02", "EU")\nsh.updateZoneKeyRange("app.ev", {ip: "056."}, {ip: "057."}, "EU")\nsh.addShardToZone("shard03", "US")\nsh.updateZoneKeyRange("app.ev", {ip: "017."}, {ip: "018."}, "US")\n' > "$TMPD/zones.js"
   plan=$("$SHARDSH" --norc --quiet --plan --json "$SIM_URI" -f "$TMPD/zones.js" 2>&1)
   no_write "plan/zones --plan sends no write" "$TMPD/zones.log"
   last=$(printf '%s\n' "$plan" | tail -1)
   check_contains "plan/zones --plan --json ends with the plan line" '{ "plan" : { "moves" : [' "$last"
   pchunks=$(printf '%s\n' "$last" | sed -n 's/.*"chunks" : \([0-9]*\), "docs" : \([0-9]*\), "bytes" : \([0-9]*\) } }$/\1 \2 \3/p')
   check_eq "plan/zones predicts two chunks" 2 "${pchunks%% *}"
   "$SHARDSH" --norc --quiet "$SIM_URI" -f "$TMPD/zones.js" > /dev/null 2>&1
   pdocs=$(echo "$pchunks" | cut -d' ' -f2)
   pbytes=$(echo "$pchunks" | cut -d' ' -f3)
   got=$(wait_moved app.ev "" "$pdocs")
   check_eq "plan/zones predicted docs and bytes moved ($pdocs, $pbytes)" "$pdocs $pbytes" "$got"
   [ "${pdocs:-0}" -gt 0 ] && pass "plan/zones predicts documents to move" || fail "plan/zones predicts documents to move" "$plan"
   sim_stop
else
   fail "plan/zones" "shardsim did not start"
fi

# --plan for removeShard gives the chunks and bytes to drain, and the drain moves that much
if sim_start --version 7.0 --load app.ev:location:2000 --balancer-interval-ms 50 --log-commands "$TMPD/drain.log"; then
   printf 'sh.moveRange("app.ev", "shard03", {ip: "100."}, {ip: "150."})\n' > "$TMPD/prep.js"
   "$SHARDSH" --norc --quiet "$SIM_URI" -f "$TMPD/prep.js" > /dev/null 2>&1
   printf 'sh.removeShard("shard03")\n' > "$TMPD/drain.js"
   : > "$TMPD/drain.log"
   plan=$("$SHARDSH" --norc --quiet --plan "$SIM_URI" -f "$TMPD/drain.js" 2>&1)
   no_write "plan/removeShard --plan sends no write" "$TMPD/drain.log"
   check_contains "plan/removeShard names what drains" "shard shard03 drains: 1 chunks, " "$plan"
   json=$("$SHARDSH" --norc --quiet --plan --json "$SIM_URI" -f "$TMPD/drain.js" 2>&1 | tail -1)
   ddocs=$(printf '%s\n' "$json" | sed -n 's/.*"docs" : \([0-9]*\), "bytes" : \([0-9]*\) } }$/\1 \2/p')
   "$SHARDSH" --norc --quiet "$SIM_URI" -f "$TMPD/drain.js" > /dev/null 2>&1
   got=$(wait_moved app.ev shard03 "${ddocs%% *}")
   check_eq "plan/removeShard predicted docs and bytes drained" "$ddocs" "$got"
   sim_stop
else
   fail "plan/removeShard" "shardsim did not start"
fi

# a run-time failure after sh.stopBalancer(): the summary and the warning, exit 1
if sim_start --scenario demo --version 7.0; then
   printf 'sh.stopBalancer()\ndb.getSiblingDB("app").notes.insertOne({_id: 1})\ndb.getSiblingDB("app").notes.insertOne({_id: 1})\nsh.startBalancer()\n' > "$TMPD/stop.js"
   out=$("$SHARDSH" --norc --quiet "$SIM_URI" -f "$TMPD/stop.js" 2>&1)
   rc=$?
   check_eq "plan/summary exits 1" 1 "$rc"
   check_contains "plan/summary lists what ran" "summary: ran $TMPD/stop.js:1, $TMPD/stop.js:2; failed $TMPD/stop.js:3; did not run: $TMPD/stop.js:4" "$out"
   check_contains "plan/summary warns the balancer is stopped" "WARNING: the balancer is stopped" "$out"
   # db.adminCommand with a string names the command: "ping" changes nothing, "balancerStop" stops the balancer
   # (a string argument once sent the summary reading an unset document: a crash)
   printf 'sh.startBalancer()\ndb.adminCommand("ping")\ndb.adminCommand("balancerStop")\ndb.getSiblingDB("app").notes.insertOne({_id: 1})\n' > "$TMPD/str.js"
   out=$("$SHARDSH" --norc --quiet "$SIM_URI" --continue-on-error -f "$TMPD/str.js" 2>&1)
   rc=$?
   check_eq "plan/summary after string adminCommands exits 1" 1 "$rc"
   check_contains "plan/summary of string adminCommands" "summary: ran $TMPD/str.js:1, $TMPD/str.js:2, $TMPD/str.js:3; failed $TMPD/str.js:4" "$out"
   check_contains "plan/summary: adminCommand(\"balancerStop\") stopped the balancer" "WARNING: the balancer is stopped" "$out"
   sim_stop
else
   fail "plan/summary" "shardsim did not start"
fi

# in a terminal the confirmation names the effect the plan knows, and y runs it
if command -v tmux > /dev/null 2>&1; then
   if sim_start --version 7.0 --load app.ev:location:2000 --log-commands "$TMPD/confirm.log"; then
      SOCK="$TMPD/tmux.sock"
      T="tmux -S $SOCK"
      SH_ABS="$(pwd)/$SHARDSH"
      screen() { $T capture-pane -t c -p; }
      wait_for() {
         i=0
         while [ $i -lt 150 ]; do
            screen | grep -q -F -- "$1" && return 0
            sleep 0.1
            i=$((i + 1))
         done
         return 1
      }
      $T new-session -d -s c -x 200 -y 40 "NO_COLOR=1 $SH_ABS --norc $SIM_URI/test; sleep 30"
      wait_for 'test>' || fail "plan/confirm start" "$(screen | tail -3)"
      $T send-keys -t c 'sh.moveRange("app.ev", "shard03", {ip: "100."}, {ip: "150."})' Enter
      if wait_for "Type 'yes' to run it [y/N]"; then
         check_contains "plan/confirm names the move" "move app.ev [{ ip: '100.' }, { ip: '150.' }) 173 docs, 33KiB shard01 -> shard03" "$(screen)"
      else
         fail "plan/confirm asks" "$(screen | tail -3)"
      fi
      $T send-keys -t c 'y' Enter
      i=0
      while [ $i -lt 100 ] && ! grep -q '"moveRange"' "$TMPD/confirm.log"; do sleep 0.1; i=$((i + 1)); done
      check_contains "plan/confirm y runs it" '"moveRange"' "$(cat "$TMPD/confirm.log")"
      $T kill-server 2> /dev/null
      sim_stop
   else
      fail "plan/confirm" "shardsim did not start"
   fi
else
   skip "plan/confirm" "tmux not installed"
fi

# --plan's initial chunks of a hashed sh.shardCollection agree with the chunks it then creates
if sim_start --scenario demo --version 7.0; then
   printf 'sh.shardCollection("app.h2", {k: "hashed"}, false, {numInitialChunks: 7})\n' > "$TMPD/ic.js"
   plan=$("$SHARDSH" --norc --quiet --plan "$SIM_URI" -f "$TMPD/ic.js" 2>&1)
   check_contains "plan/initial chunks predicted" "initial chunks of app.h2: 7 (shard01 3, shard02 2, shard03 2)" "$plan"
   "$SHARDSH" --norc --quiet "$SIM_URI" -f "$TMPD/ic.js" > /dev/null 2>&1
   got=$("$SHARDSH" --norc --quiet --json "$SIM_URI" --eval 'db.getSiblingDB("config").chunks.aggregate([{$lookup: {from: "collections", localField: "uuid", foreignField: "uuid", as: "c"}}, {$match: {"c._id": "app.h2"}}, {$group: {_id: "$shard", n: {$sum: 1}}}, {$sort: {_id: 1}}])' 2> /dev/null | tr -d '\n')
   check_eq "plan/initial chunks created as predicted" '{ "_id" : "shard01", "n" : 3 }{ "_id" : "shard02", "n" : 2 }{ "_id" : "shard03", "n" : 2 }' "$got"
   sim_stop
else
   fail "plan/initial chunks" "shardsim did not start"
fi

# --plan needs the cluster: with --dry-run it is a usage error (exit 2)
out=$("$SHARDSH" --norc --plan --dry-run -f "$TMPD/zones.js" 2>&1)
check_eq "plan/--plan --dry-run exits 2" 2 "$?"
check_contains "plan/--plan --dry-run says why" "--plan reads the cluster: it cannot be combined with --dry-run" "$out"
