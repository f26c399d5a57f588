#!/bin/sh
# passes: plain
# Live command tests that hold on any sharded cluster, so that they run against shardsim (the default) and, under the
# opt-in real-cluster tier (SHARDSH_TEST_URI, tests/lib.sh), against the real cluster: the read-only part always,
# the write part only with SHARDSH_TEST_WRITES=1 and only in the scratch database $SIM_SCRATCH_DB
# (shardsh_test_<pid>), dropped by sim_stop.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1

ev() { "$SHARDSH" --norc --quiet "$SIM_URI" --eval "$1" 2>&1; }

# ---- read-only: nothing here changes the cluster ----
SIM_TIER_OK=read
if sim_start --scenario demo; then
   out=$(ev 'sh.getBalancerState()')
   rc=$?
   case "$out" in
   true | false) check_eq "real_tier/getBalancerState is a boolean (exit 0)" 0 "$rc" ;;
   *) fail "real_tier/getBalancerState is a boolean (exit 0)" "[$out] exit $rc" ;;
   esac
   check_eq "real_tier/hello from a mongos says isdbgrid" isdbgrid "$(ev 'db.adminCommand({hello: 1}).msg')"
   check_eq "real_tier/listShards lists config.shards" true \
      "$(ev 'db.adminCommand({listShards: 1}).shards.length === db.getSiblingDB("config").shards.countDocuments({})')"
   out=$(ev 'db.adminCommand({balancerStatus: 1}).mode')
   case "$out" in
   full | off | autoSplitOnly) pass "real_tier/balancerStatus mode is one the server knows" ;;
   *) fail "real_tier/balancerStatus mode is one the server knows" "[$out]" ;;
   esac
   out=$(ev 'sh.status()')
   rc=$?
   check_eq "real_tier/sh.status exits 0" 0 "$rc"
   check_contains "real_tier/sh.status lists the shards" "shards" "$out"
   out=$(ev "db.adminCommand({balancerCollectionStatus: \"$SIM_SCRATCH_DB.none\"})")
   rc=$?
   check_eq "real_tier/balancerCollectionStatus of a missing collection fails (exit 1)" 1 "$rc"
   check_contains "real_tier/balancerCollectionStatus of a missing collection is NamespaceNotSharded" \
      "NamespaceNotSharded" "$out"
   sim_stop
else
   fail "real_tier/read" "shardsim did not start"
fi

# ---- writes, in the scratch database only ----
SIM_TIER_OK=write
if sim_start --scenario demo; then
   db="db.getSiblingDB(\"$SIM_SCRATCH_DB\")"
   ev "$db.t.insertOne({_id: 1, k: 1})" > /dev/null
   check_eq "real_tier/scratch insert then count" 1 "$(ev "$db.t.countDocuments({})")"
   out=$(ev "$db.t.insertOne({_id: 1})")
   rc=$?
   check_eq "real_tier/duplicate key exits 1" 1 "$rc"
   check_contains "real_tier/duplicate key is E11000" "E11000" "$out"
   sim_stop
   if [ "$SIM_TIER" = real ]; then
      # sim_stop dropped the scratch database
      SIM_TIER_OK=read
      sim_start > /dev/null
      check_eq "real_tier/scratch database dropped afterwards" false \
         "$(ev "db.adminCommand({listDatabases: 1, nameOnly: true}).databases.some(d => d.name === \"$SIM_SCRATCH_DB\")")"
      SIM_TIER_OK=""
   fi
else
   fail "real_tier/write" "shardsim did not start"
fi
