#!/bin/sh
# passes: plain
# The opt-in real-cluster tier's switching logic (tests/lib.sh): no real cluster here, so a shardsim started by hand
# stands in for one. With SHARDSH_TEST_URI pointing at it, the script goldens marked read-only (NAME.tier) and
# tests/integration/real_tier.sh run against it (their commands reach its log; no shardsim of their own is
# started), everything that needs shardsim-only features (faults, --log-commands, scenario data) says SKIP with the
# reason, writes run only with SHARDSH_TEST_WRITES=1, in the scratch database, which is dropped afterwards.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
# as tests/run.sh does: a stale /dev/shm/mongoc-<pid> would add a libmongoc warning to the goldens' stderr
MONGOC_DISABLE_SHM=1
export MONGOC_DISABLE_SHM

if ! sim_start --scenario demo --log-commands "$TMPD/hand.log"; then
   fail "tier_switch/start" "shardsim did not start"
   exit 0
fi
uri=$SIM_URI

# sim_start under the tier itself
out=$(SHARDSH_TEST_URI=$uri sh -c '. tests/lib.sh; SIM_TIER_OK=read; sim_start --scenario demo --version 4.4 &&
   echo "$SIM_TIER $SIM_URI $SIM_PORT pid=[$SIM_PID]"')
check_eq "tier_switch/sim_start starts nothing and takes the URI" "real $uri $SIM_PORT pid=[]" "$out"
out=$(SHARDSH_TEST_URI=$uri sh -c '. tests/lib.sh; SIM_TIER_OK=read; sim_start --scenario demo --fault-fail split:59 ||
   fail "x" "shardsim did not start"')
check_eq "tier_switch/a fault flag is a SKIP with the reason" \
   "SKIP x: real-cluster tier: needs shardsim's fault injection (--fault-fail)" "$out"
out=$(SHARDSH_TEST_URI=$uri sh -c '. tests/lib.sh; sim_start --scenario demo || fail "x" "shardsim did not start"')
check_contains "tier_switch/a test not marked for the tier is a SKIP" "SKIP x: real-cluster tier: this test needs shardsim" "$out"
out=$(SHARDSH_TEST_URI=$uri sh -c '. tests/lib.sh; SIM_TIER_OK=write; sim_start || fail "x" "shardsim did not start"')
check_contains "tier_switch/writes need SHARDSH_TEST_WRITES=1" "SKIP x: real-cluster tier: writes" "$out"
out=$(sh -c '. tests/lib.sh; SIM_TIER_OK=read; sim_start --scenario demo && echo "$SIM_TIER [$SIM_PID]"; sim_stop')
case "$out" in
"shardsim ["[0-9]*"]") pass "tier_switch/without SHARDSH_TEST_URI shardsim is started" ;;
*) fail "tier_switch/without SHARDSH_TEST_URI shardsim is started" "[$out]" ;;
esac

# the script goldens
SHARDSH_TEST_URI=$uri sh tests/scripts/run.sh > "$TMPD/scripts.out" 2>&1
check_eq "tier_switch/scripts: no failure" "" "$(grep '^FAIL' "$TMPD/scripts.out" | head -5)"
for n in parse_error_sends_nothing unknown_helper readonly_refuses js_syntax_error; do
   check_contains "tier_switch/scripts: $n runs (read)" "PASS script/$n" "$(cat "$TMPD/scripts.out")"
   check_contains "tier_switch/scripts: $n log check skipped" "SKIP script/$n/log: real-cluster tier" \
      "$(cat "$TMPD/scripts.out")"
done
check_contains "tier_switch/scripts: fault golden skipped" \
   "SKIP script/not_found_hint: real-cluster tier: needs shardsim's fault injection" "$(cat "$TMPD/scripts.out")"
check_contains "tier_switch/scripts: scenario-data golden skipped" "SKIP script/js_reads: real-cluster tier" \
   "$(cat "$TMPD/scripts.out")"
check_contains "tier_switch/scripts: goldens without a cluster still run" "PASS script/arg_error" \
   "$(cat "$TMPD/scripts.out")"

# the live command tests: read-only by default
: > "$TMPD/hand.log.mark"
before=$(wc -l < "$TMPD/hand.log")
SHARDSH_TEST_URI=$uri sh tests/integration/real_tier.sh > "$TMPD/live.out" 2>&1
check_eq "tier_switch/live: no failure" "" "$(grep '^FAIL' "$TMPD/live.out" | head -5)"
check_contains "tier_switch/live: read part ran" "PASS real_tier/listShards lists config.shards" "$(cat "$TMPD/live.out")"
check_contains "tier_switch/live: write part skipped by default" "SKIP real_tier/write: real-cluster tier: writes" \
   "$(cat "$TMPD/live.out")"
new=$(tail -n +"$((before + 1))" "$TMPD/hand.log")
check_contains "tier_switch/live: its commands reached the given cluster" '"balancerStatus"' "$new"
check_not_contains "tier_switch/live: nothing written by default" '"insert"' "$new"

# ... and with SHARDSH_TEST_WRITES=1, in the scratch database, dropped afterwards
before=$(wc -l < "$TMPD/hand.log")
SHARDSH_TEST_URI=$uri SHARDSH_TEST_WRITES=1 sh tests/integration/real_tier.sh > "$TMPD/live2.out" 2>&1
check_eq "tier_switch/writes: no failure" "" "$(grep '^FAIL' "$TMPD/live2.out" | head -5)"
check_contains "tier_switch/writes: write part ran" "PASS real_tier/scratch insert then count" "$(cat "$TMPD/live2.out")"
check_contains "tier_switch/writes: scratch database dropped" "PASS real_tier/scratch database dropped afterwards" \
   "$(cat "$TMPD/live2.out")"
new=$(tail -n +"$((before + 1))" "$TMPD/hand.log")
dbs=$(printf '%s\n' "$new" | grep '"insert"' | sed -n 's/.*"db": "\([^"]*\)".*/\1/p' | sort -u | tr '\n' ' ')
case "$dbs" in
"shardsh_test_"[0-9]*" ") pass "tier_switch/writes: only in shardsh_test_<pid>" ;;
*) fail "tier_switch/writes: only in shardsh_test_<pid>" "inserts went to [$dbs]" ;;
esac
check_contains "tier_switch/writes: dropDatabase sent" '"dropDatabase"' "$new"
sim_stop
