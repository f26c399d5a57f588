#!/bin/sh
# passes: plain asan
# MongoDB 8.3's drain in steps through shardsh, against shardsim's 8.3 personality (one shardsim): the commands go
# through db.adminCommand (mongosh 2.12 has no helpers for them), the pre-flight knows the shard a
# startShardDraining / stopShardDraining / commitShardRemoval names, --readonly lets shardDrainingStatus through and
# refuses the others, a paused drain (stopShardDraining) and a resumed one, and sh.removeShard's 8.3 deprecation
# warning (once a session; none on 8.2), sh.progress's last step of a drain, the run summary's drain warnings; help's list gives each helper's minimum server version.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh

run() { NO_COLOR=1 "$SHARDSH" --norc --quiet --yes "$SIM_URI/test" --eval "$1" 2>&1; }
runf() { NO_COLOR=1 "$SHARDSH" --norc --quiet --yes "$@" "$SIM_URI/test" "$TMPD/s.js" 2>&1; }

# help's list says the server version a helper needs
out=$(NO_COLOR=1 "$SHARDSH" --norc --quiet --eval 'sh.help()' 2>&1)
check_contains "drain_steps sh.help() shows a helper's minimum version" "Draining progress of a draining shard (without a shard the server answers 14: it needs one) (MongoDB 8.2+)" "$out"
check_contains "drain_steps sh.help() shows the 8.3 minimum" "(MongoDB 8.3+)" "$out"

if sim_start --scenario demo --version 8.3; then
   # the pre-flight: an unknown shard is found before anything is sent
   printf 'db.adminCommand({startShardDraining: "shard03"})\ndb.adminCommand({startShardDraining: "shard09"})\n' > "$TMPD/s.js"
   out=$(runf)
   rc=$?
   check_eq "drain_steps pre-flight exit 2" 2 "$rc"
   check_contains "drain_steps pre-flight names the unknown shard" "s.js:2:17: error: shard shard09 does not exist; shards: shard01, shard02, shard03" "$out"
   out=$(run 'db.getSiblingDB("config").shards.countDocuments({draining: true})')
   check_eq "drain_steps pre-flight: nothing was written" 0 "$out"
   # commitShardRemoval of a shard the cluster does not know is removed already: the server answers ok
   printf 'printjson(db.adminCommand({commitShardRemoval: "nope"}))\n' > "$TMPD/s.js"
   out=$(runf)
   check_contains "drain_steps commitShardRemoval unknown shard: ok (removed already)" "ok: 1" "$out"
   check_not_contains "drain_steps pre-flight lets commitShardRemoval of an unknown shard through" "error:" "$out"
   # the pre-flight: a commit of a shard not draining is 117, the config server is refused (20), nothing sent
   printf 'db.adminCommand({commitShardRemoval: "shard03"})\n' > "$TMPD/s.js"
   out=$(runf)
   rc=$?
   check_eq "drain_steps pre-flight commitShardRemoval not draining exit 2" 2 "$rc"
   check_contains "drain_steps pre-flight commitShardRemoval not draining 117" "s.js:1:17: error: Shard shard03 is not currently draining" "$out"
   printf 'db.adminCommand({startShardDraining: "config"})\n' > "$TMPD/s.js"
   check_contains "drain_steps pre-flight startShardDraining of the config server" "error: startShardDraining cannot take the config server: use startTransitionToDedicatedConfigServer" "$(runf)"
   # --plan: a stop after a start says the drain is paused
   printf 'db.adminCommand({startShardDraining: "shard03"})\ndb.adminCommand({stopShardDraining: "shard03"})\n' > "$TMPD/s.js"
   check_contains "drain_steps --plan stopShardDraining says the drain pauses" "drain of shard03 paused: the balancer leaves shard03 alone" "$(runf --plan)"
   # ... and its totals leave out the moves the drain planned (a paused drain moves nothing), text and JSON
   out=$(runf --plan)
   check_contains "drain_steps --plan paused drain: the total leaves its moves out" "total: 0 chunks, 0 docs, 0B would move" "$out"
   check_contains "drain_steps --plan paused drain: says how many it left out" "the total leaves out the 6 moves planned off it above" "$out"
   out=$(runf --plan --json)
   check_contains "drain_steps --plan --json paused drain: no moves" '"moves" : [  ]' "$out"
   check_contains "drain_steps --plan --json paused drain: totals 0" '"by" : { "command" : 0, "balancer" : 0, "notWhileBalancerStopped" : 0, "notWhileBalancingDisabled" : 0 }, "chunks" : 0, "docs" : 0, "bytes" : 0' "$out"
   # resumed: the chunks are back on the shard in the model and drain again, counted once
   printf 'db.adminCommand({startShardDraining: "shard03"})\ndb.adminCommand({stopShardDraining: "shard03"})\ndb.adminCommand({startShardDraining: "shard03"})\n' > "$TMPD/s.js"
   out=$(runf --plan)
   check_eq "drain_steps --plan resumed drain plans its chunks again" 2 "$(printf '%s\n' "$out" | grep -c 'shard shard03 drains: 6 chunks, 187 docs')"
   check_contains "drain_steps --plan resumed drain: total counts them once" "total: 6 chunks, 187 docs, 12KiB would move: 6 when the balancer runs" "$out"
   # a move for a zone (not for the drain) stays in the total; a chunk stuck only by the drain leaves the STUCK list
   printf 'sh.updateZoneKeyRange("app.stores", {zipcode: "10281"}, {zipcode: "94102"}, "NYC")\ndb.adminCommand({startShardDraining: "shard03"})\ndb.adminCommand({stopShardDraining: "shard03"})\n' > "$TMPD/s.js"
   check_contains "drain_steps --plan paused drain keeps a zone's move" "total: 1 chunks, 18 docs, 1KiB would move: 1 when the balancer runs" "$(runf --plan)"
   printf 'sh.addShardToZone("shard03", "LON")\nsh.updateZoneKeyRange("app.stores", {zipcode: "94188"}, {zipcode: MaxKey()}, "LON")\ndb.adminCommand({startShardDraining: "shard03"})\ndb.adminCommand({stopShardDraining: "shard03"})\n' > "$TMPD/s.js"
   out=$(runf --plan --json)
   rc=$?
   check_eq "drain_steps --plan paused drain: a chunk stuck by it no longer exits 3" 0 "$rc"
   check_contains "drain_steps --plan --json paused drain: willNotMove empty" '"willNotMove" : [  ]' "$out"
   # --readonly: the status is a read, the steps are writes
   printf 'db.adminCommand({stopShardDraining: "shard03"})\n' > "$TMPD/s.js"
   check_contains "drain_steps --readonly refuses stopShardDraining" "refused by --readonly" "$(runf --readonly)"
   out=$(NO_COLOR=1 "$SHARDSH" --norc --quiet --readonly "$SIM_URI/test" --eval 'db.adminCommand({shardDrainingStatus: "shard03"})' 2>&1)
   check_contains "drain_steps --readonly lets shardDrainingStatus through (the server answers)" "MongoServerError[IllegalOperation]: The shard shard03 isn't draining (code 20)" "$out"
   # --plan: startShardDraining drains the shard in the model as removeShard does
   printf 'db.adminCommand({startShardDraining: "shard03"})\n' > "$TMPD/s.js"
   check_contains "drain_steps --plan startShardDraining shows the drain" "shard shard03 drains: 6 chunks" "$(runf --plan)"
   # start, pause, resume
   out=$(run 'db.adminCommand({startShardDraining: "shard03"})')
   check_contains "drain_steps startShardDraining ok" "ok: 1" "$out"
   check_contains "drain_steps status ongoing" "state: 'ongoing'" "$(run 'db.adminCommand({shardDrainingStatus: "shard03"})')"
   run 'db.adminCommand({stopShardDraining: "shard03"})' > /dev/null
   check_contains "drain_steps paused: the status says it is not draining" "isn't draining (code 20)" "$(run 'db.adminCommand({shardDrainingStatus: "shard03"})')"
   check_contains "drain_steps commitShardRemoval of a paused drain 117" "[ConflictingOperationInProgress]: Shard shard03 is not currently draining (code 117)" "$(run 'db.adminCommand({commitShardRemoval: "shard03"})')"
   # sh.progress and the dashboard show the paused drain as paused (not gone, not stuck)
   out=$(run 'sh.progress()')
   check_contains "drain_steps sh.progress shows the paused drain" "paused: 6 chunks left" "$out"
   check_contains "drain_steps sh.progress paused drain: PAUSED as its time left" "PAUSED" "$out"
   check_contains "drain_steps sh.progress paused drain: how to resume" 'db.adminCommand({startShardDraining: "shard03"}) resumes it' "$out"
   check_not_contains "drain_steps sh.progress paused drain is not stuck" "STUCK" "$out"
   # sh.explainBalance names the paused drain and how to resume it
   out=$(run 'sh.explainBalance("app.users")')
   check_contains "drain_steps explainBalance names the paused drain" "pausedDrain: the drain of shard shard03 is paused (stopShardDraining)" "$out"
   check_contains "drain_steps explainBalance paused drain: the fix resumes it" 'fix: db.adminCommand({startShardDraining: "shard03"}) resumes the drain' "$out"
   # a watch keeps the previous reading (paused drains included) and frees it at the next one
   out=$(NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI/test" --eval 'sh.progress({watch: true, intervalSecs: 1, count: 3})' 2>&1)
   check_eq "drain_steps sh.progress watch with a paused drain: three tables" 3 "$(printf '%s\n' "$out" | grep -c '^TYPE ')"
   out=$(NO_COLOR=1 "$SHARDSH" --dashboard --once "$SIM_URI" 2>&1)
   check_contains "drain_steps dashboard --once shows the paused drain" "drain shard03 paused: 6 chunks left" "$out"
   check_contains "drain_steps dashboard --once paused drain: PAUSED" "PAUSED" "$out"
   run 'db.adminCommand({startShardDraining: "shard03"})' > /dev/null
   check_not_contains "drain_steps sh.progress resumed drain is no longer paused" "paused:" "$(run 'sh.progress()')"
   check_not_contains "drain_steps explainBalance resumed drain is no longer paused" "pausedDrain" "$(run 'sh.explainBalance("app.users")')"
   check_contains "drain_steps commitShardRemoval with chunks left 20" "isn't completely drained" "$(run 'db.adminCommand({commitShardRemoval: "shard03"})')"
   # sh.removeShard on 8.3: the deprecation, once
   out=$(run 'sh.removeShard("shard03"); sh.removeShard("shard03")')
   check_contains "drain_steps sh.removeShard 8.3 deprecation" "DeprecationWarning: 'removeShard' command is deprecated. Please use the new shard removal API (startShardDraining, shardDrainingStatus, commitShardRemoval) instead!" "$out"
   check_eq "drain_steps sh.removeShard deprecation once a session" 1 "$(printf '%s\n' "$out" | grep -c DeprecationWarning)"
   sim_stop
else
   fail "drain_steps.8.3" "shardsim did not start"
fi

# sh.progress on a drained shard names the step that finishes it: commitShardRemoval from 8.3
if sim_start --version 9.0 --shards 3; then
   out=$(run 'db.adminCommand({startShardDraining: "shard03"}); sh.progress()')
   check_contains "drain_steps sh.progress drained shard: commitShardRemoval finishes it (9.0)" "drained: run commitShardRemoval to finish" "$out"
   # the summary after a failed statement: a drain started twice warned once, a paused one not at all
   printf 'db.adminCommand({startShardDraining: "shard02"})\ndb.adminCommand({startShardDraining: "shard02"})\ndb.adminCommand({stopShardDraining: "shard03"})\ndb.adminCommand({stopShardDraining: "shard09"})\n' > "$TMPD/s.js"
   out=$(runf --no-preflight)
   check_eq "drain_steps summary warns once per draining shard" 1 "$(printf '%s\n' "$out" | grep -c 'WARNING: shard shard02 is draining')"
   check_not_contains "drain_steps summary: no warning for a paused drain" "shard shard03 is draining" "$out"
   sim_stop
else
   fail "drain_steps.9.0" "shardsim did not start"
fi

if sim_start --scenario demo --version 8.2; then
   check_not_contains "drain_steps sh.removeShard 8.2 no deprecation" "DeprecationWarning" "$(run 'sh.removeShard("shard03")')"
   sim_stop
else
   fail "drain_steps.8.2" "shardsim did not start"
fi
