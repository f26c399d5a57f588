#!/bin/sh
# passes: plain
# Every helper through bin/shardsh against shardsim (9.0, 8.3, 8.0 and 4.4): the command documents shardsim logged must be
# exactly the documents --dry-run prints for the same script, which tests/scripts/dryrun_*.case pin to mongosh's
# (reference §2.1, §5). Ignored: the handshake and monitoring hellos, buildInfo (the version gate), getMore,
# killCursors, endSessions and the envelope (lsid, $clusterTime, $db, $readPreference); the mongos check's
# { hello: 1 } is kept and must come once per database (the scripts run on test, then `use app`, which in mongosh
# makes a new sh and so a new check). sh.printShardingSizes reads what config.collections lists, which a dry run
# does not have: its expected documents are built from the cluster's config.collections at the end.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh

if ! command -v jq > /dev/null 2>&1; then
   skip "cmd_helpers" "jq is not installed"
   exit 0
fi

# the helpers, minus those above 8.0 (shardDrainingStatus, getTransitionToDedicatedConfigServerStatus,
# getShardLocation: refused by the version gate) and the pollers (their request count depends on timing)
# db.hello() would count as a mongos check and db.version()'s buildInfo is dropped from the log as driver traffic
for c in dryrun_sh_commands dryrun_db_helpers dryrun_design_card dryrun_zone_range dryrun_db_methods; do
   case_part "tests/scripts/$c.case" js
done > "$TMPD/dryrun_all.js"
grep -v -h -E '^//|shardDrainingStatus|getTransitionToDedicated|getShardLocation|waitForBalancer|printShardingSizes|db\.hello\(|db\.version\(' \
   "$TMPD/dryrun_all.js" > "$TMPD/all.js"
# 8.3 and 9.0 (shardsim's newest personalities) take every helper, the three above included
grep -v -h -E '^//|waitForBalancer|printShardingSizes|db\.hello\(|db\.version\(' "$TMPD/dryrun_all.js" > "$TMPD/all83.js"
grep -v -E 'moveRange|reshard|Reshard|AutoMerger|checkMetadataConsistency|shardAndDistribute|moveCollection|MoveCollection|unshard|Unshard|isConfigShard|getShardedDataDistribution|configureCollectionBalancing|analyzeShardKey|configureQueryAnalyzer' \
   "$TMPD/all.js" > "$TMPD/all44.js"

normalise_log() {
   jq -c 'select(.op == "OP_MSG") | .cmd as $c | ($c | keys_unsorted[0]) as $name
      | select(($name | IN("isMaster", "ismaster", "buildInfo", "getMore", "killCursors", "endSessions")) | not)
      | select(($name == "hello" and ($c | has("helloOk") or has("topologyVersion") or has("client"))) | not)
      | { db: .db, cmd: ($c | del(.lsid, ."$clusterTime", ."$db", ."$readPreference")) }
      | if .cmd.aggregate == "changelog" then .cmd.pipeline[0]["$match"].time["$gt"] = "<date>" else . end' "$1"
}
# the requests of a --dry-run --json run (canonical Extended JSON, so types compare exactly; issue 18)
normalise_dry() {
   jq -c 'select(.dryRun) | {db: .db, cmd: .command}' "$1" |
      jq -c 'if .cmd.aggregate == "changelog" then .cmd.pipeline[0]["$match"].time["$gt"] = "<date>" else . end'
}

for v in 9.0 8.3 8.0 4.4; do
   js="$TMPD/all.js"
   [ "$v" = 4.4 ] && js="$TMPD/all44.js"
   [ "$v" = 8.3 ] || [ "$v" = 9.0 ] && js="$TMPD/all83.js"
   NO_COLOR=1 "$SHARDSH" --norc --quiet --dry-run --json "$js" > "$TMPD/dry.out" 2> /dev/null
   normalise_dry "$TMPD/dry.out" > "$TMPD/expected"
   if ! sim_start --scenario demo --version "$v" --log-commands "$TMPD/sim-$v.log"; then
      fail "cmd_helpers.$v" "shardsim did not start"
      continue
   fi
   # --no-preflight: every helper is sent even where the cluster would refuse it (issue 18 pre-flight), so the log holds
   # exactly the documents compared below
   NO_COLOR=1 "$SHARDSH" --norc --quiet --yes --continue-on-error --no-preflight "$SIM_URI/test" "$js" > "$TMPD/run.out" 2>&1
   sim_stop
   # the mongos check: one { hello: 1 } on test and one on app
   normalise_log "$TMPD/sim-$v.log" > "$TMPD/actual.all"
   hellos=$(grep -c '"hello":1\|"hello":{"$numberInt":"1"}' "$TMPD/actual.all")
   check_eq "cmd_helpers.$v one mongos check per database" 2 "$hellos"
   grep -v '"cmd":{"hello"' "$TMPD/actual.all" > "$TMPD/actual"
   n=$(wc -l < "$TMPD/expected")
   if cmp -s "$TMPD/expected" "$TMPD/actual"; then
      pass "cmd_helpers.$v all $n documents as --dry-run prints them"
   else
      fail "cmd_helpers.$v documents" "$(diff "$TMPD/expected" "$TMPD/actual" | head -10 | cut -c1-300 | tr '\n' '|')"
   fi
   # every helper got an answer: no driver or parse errors (server errors from the simulated cluster are fine)
   check_not_contains "cmd_helpers.$v no network errors" "could not reach" "$(cat "$TMPD/run.out")"
done

# sh.printShardingSizes: its reads follow config.collections, so the expected documents come from the cluster: the
# find on config.collections, then one $collStats aggregate per sharded collection on its database, in _id order
if sim_start --scenario demo --version 8.0 --log-commands "$TMPD/sizes.log"; then
   NO_COLOR=1 "$SHARDSH" --norc --quiet --json "$SIM_URI/test" \
      --eval 'db.getSiblingDB("config").collections.find({dropped: {$ne: true}, unsplittable: {$ne: true}}).sort({_id: 1})' \
      > "$TMPD/colls.json" 2>&1
   : > "$TMPD/sizes.log"
   NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI/test" --eval 'sh.printShardingSizes()' > "$TMPD/sizes.out" 2>&1
   sim_stop
   {
      echo '{"db":"config","cmd":{"find":"collections","filter":{"dropped":{"$ne":true},"unsplittable":{"$ne":true}},"sort":{"_id":{"$numberInt":"1"}}}}'
      jq -c '._id | capture("^(?<db>[^.]*)[.](?<coll>.*)$")
             | {db: .db, cmd: {aggregate: .coll, pipeline: [{"$collStats": {storageStats: {}}}], cursor: {}}}' "$TMPD/colls.json"
   } > "$TMPD/sizes.expected"
   normalise_log "$TMPD/sizes.log" | grep -v '"cmd":{"hello"' > "$TMPD/sizes.actual"
   n=$(wc -l < "$TMPD/sizes.expected")
   if [ "$n" -gt 2 ] && cmp -s "$TMPD/sizes.expected" "$TMPD/sizes.actual"; then
      pass "cmd_helpers.printShardingSizes sends the find and $((n - 1)) \$collStats aggregates"
   else
      fail "cmd_helpers.printShardingSizes documents" "$(diff "$TMPD/sizes.expected" "$TMPD/sizes.actual" | head -6 | cut -c1-300 | tr '\n' '|')"
   fi
   first=$(jq -r '._id' "$TMPD/colls.json" | head -1)
   check_contains "cmd_helpers.printShardingSizes names each collection" "$first" "$(cat "$TMPD/sizes.out")"
   check_contains "cmd_helpers.printShardingSizes shows per-shard documents" "docs:" "$(cat "$TMPD/sizes.out")"
else
   fail "cmd_helpers.printShardingSizes" "shardsim did not start"
fi
