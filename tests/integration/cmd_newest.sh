#!/bin/sh
# passes: plain
# The helpers that need MongoDB 8.0.10, 8.2 or 8.3, live against shardsim's 8.2 and 8.3 personalities: the replies
# shardsh shows (sh.shardDrainingStatus through a drain the simulated balancer finishes, getShardLocation,
# listShards' 8.3 filter, getTransitionToDedicatedConfigServerStatus), the server errors with code and codeName,
# and the version gate between 8.2 and 8.3. tests/peer/compare_sh_helpers.sh checks the same calls against mongosh.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh

if ! command -v jq > /dev/null 2>&1; then
   skip "cmd_newest" "jq is not installed"
   exit 0
fi

run() { NO_COLOR=1 "$SHARDSH" --norc --quiet --yes --json "$SIM_URI/test" --eval "$1" 2>&1; }

# ---- 8.2 ----
if sim_start --scenario demo --version 8.2 --balancer-interval-ms 200; then
   out=$(run 'sh.shardDrainingStatus("shard03")')
   check_contains "newest.8.2 not draining is IllegalOperation" "MongoServerError[IllegalOperation]: The shard shard03 isn't draining (code 20)" "$out"
   out=$(run 'sh.shardDrainingStatus("shard99")')
   check_contains "newest.8.2 unknown shard is ShardNotFound" "MongoServerError[ShardNotFound]: Shard shard99 not found (code 70)" "$out"
   out=$(run 'sh.shardDrainingStatus()')
   check_contains "newest.8.2 no shard id (mongosh sends 1) is TypeMismatch" "[TypeMismatch]" "$out"
   run 'sh.removeShard("shard03")' > /dev/null
   out=$(run 'sh.shardDrainingStatus("shard03")' | jq -c '[.state, (.remaining.chunks | type), (.remaining | has("estimatedRemainingBytes")), .msg]')
   case "$out" in
   '["ongoing","number",false,"draining ongoing"]' | '["drainingComplete","number",false,"draining completed successfully"]')
      pass "newest.8.2 draining shard reports its progress" ;;
   *) fail "newest.8.2 draining shard reports its progress" "$out" ;;
   esac
   state=""
   for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
      state=$(run 'sh.shardDrainingStatus("shard03")' | jq -r .state)
      [ "$state" = drainingComplete ] && break
      sleep 0.5
   done
   check_eq "newest.8.2 the balancer drains the shard to drainingComplete" drainingComplete "$state"
   out=$(run 'db.getSiblingDB("app").users.getShardLocation()' | jq -c .)
   check_eq "newest.8.2 getShardLocation of a sharded collection" '{"shards":["shard01","shard02"],"sharded":true}' "$out"
   out=$(run 'db.getSiblingDB("app").nope.getShardLocation()')
   check_contains "newest.8.2 getShardLocation of a missing collection" "[COMMON-10004] Error finding location information for app.nope" "$out"
   out=$(run 'sh.getTransitionToDedicatedConfigServerStatus()')
   check_contains "newest.8.2 version gate for an 8.3 helper" "sh.getTransitionToDedicatedConfigServerStatus needs MongoDB 8.3 and the cluster runs 8.2.1" "$out"
   sim_stop
else
   fail "newest.8.2" "shardsim did not start"
fi

# ---- 8.3 ----
if sim_start --scenario demo --version 8.3; then
   # shard01 and shard02 are each the only shard of a zone with ranges (163 from 6.0): shard03 drains
   run 'sh.removeShard("shard03")' > /dev/null
   out=$(run 'sh.shardDrainingStatus("shard03")' | jq -c '[.state, (.remaining | keys_unsorted), (.remaining.estimatedRemainingBytes > 0)]')
   check_eq "newest.8.3 progress carries estimatedRemainingBytes" \
      '["ongoing",["chunks","collectionsToMove","dbs","jumboChunks","estimatedRemainingBytes"],true]' "$out"
   out=$(run 'sh.listShards({draining: true})' | jq -s -c 'map(._id)')
   check_eq "newest.8.3 listShards({draining: true})" '["shard03"]' "$out"
   out=$(run 'sh.listShards({draining: false})' | jq -s -c 'map(._id)')
   check_eq "newest.8.3 listShards({draining: false})" '["shard01","shard02"]' "$out"
   out=$(run 'sh.listShards({draining: 1})')
   check_contains "newest.8.3 listShards filter type error" "[TypeMismatch]" "$out"
   out=$(run 'sh.getTransitionToDedicatedConfigServerStatus()')
   check_contains "newest.8.3 no config shard draining" "MongoServerError[IllegalOperation]: The shard config isn't draining (code 20)" "$out"
   out=$(run 'db.getSiblingDB("app").runCommand({aggregate: 1, pipeline: [{$listClusterCatalog: {}}], cursor: {}})' |
      jq -c '.cursor.firstBatch[0] | keys_unsorted')
   check_eq "newest.8.3 \$listClusterCatalog document fields" '["ns","db","type","options","info","idIndex","sharded","shardKey"]' "$out"
   sim_stop
else
   fail "newest.8.3" "shardsim did not start"
fi
