#!/bin/sh
# passes: plain asan
# Version traps (issue 37, docs/traps.md), on shardsim 4.4, 8.2 and 8.3: each trap of the issue warns where it bites
# and not where it does not (config.chunks by ns from 5.0, the autosplit helpers and setting from 6.0.3, removeShard
# from 8.3, cleanupOrphaned deprecated from 8.0 and waiting an hour from 8.2, the isBalancerRunning wait loop on every
# version but not with .inBalancerRound); a warning names file:line:col, never changes the exit status, --plan lists
# it, --json carries it, a JavaScript loop warns once, and --no-preflight says nothing.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1

cat > "$TMPD/issue.js" << 'JS'
db.getSiblingDB("config").chunks.find({ns: "app.events"}).limit(1)
sh.disableAutoSplit()
db.getSiblingDB("config").settings.updateOne({_id: "autosplit"}, {$set: {enabled: false}}, {upsert: true})
db.adminCommand({removeShard: "shard03"})
db.adminCommand({cleanupOrphaned: "app.events"})
JS
cat > "$TMPD/wait.js" << 'JS'
// the manual's old wait loop
while (sh.isBalancerRunning()) { sleep(100) }
JS
cat > "$TMPD/fixed.js" << 'JS'
while (sh.isBalancerRunning().inBalancerRound) { sleep(100) }
print("balancer idle")
JS
cat > "$TMPD/report.js" << 'JS'
db.getSiblingDB("config").chunks.countDocuments({ns: "app.events"})
db.adminCommand({ping: 1})
JS
cat > "$TMPD/loop.js" << 'JS'
const shards = db.getSiblingDB("config").shards.find().toArray();
for (const s of shards) {
  const n = db.getSiblingDB("config").chunks.countDocuments({ns: "app.events", shard: s._id});
}
print("counted " + shards.length);
JS

# has NAME ID OUT / lacks NAME ID OUT: the --json output holds (or not) a trap object of that id
has() { check_contains "$1" "{ \"trap\" : { \"id\" : \"$2\"" "$3"; }
lacks() { check_not_contains "$1" "{ \"trap\" : { \"id\" : \"$2\"" "$3"; }

for v in 4.4 8.2 8.3; do
   if ! sim_start --version "$v"; then
      fail "traps/$v" "shardsim did not start"
      continue
   fi
   out=$("$SHARDSH" --norc --plan --json -f "$TMPD/issue.js" "$SIM_URI" 2> "$TMPD/err"); rc=$?
   check_eq "traps/$v: --plan --json of the issue's statements exits 0" 0 "$rc"
   case $v in
   4.4)
      lacks "traps/4.4: config.chunks by ns does not bite" chunks_by_ns "$out"
      lacks "traps/4.4: the autosplit helpers do not bite" autosplit_helpers "$out"
      lacks "traps/4.4: the autosplit setting does not bite" autosplit_setting "$out"
      lacks "traps/4.4: removeShard does not bite" remove_shard "$out"
      lacks "traps/4.4: cleanupOrphaned is not deprecated" cleanup_orphaned_deprecated "$out"
      lacks "traps/4.4: orphanCleanupDelaySecs is 900 s" orphan_cleanup_delay "$out"
      has "traps/4.4: cleanupOrphaned only waits (4.4 to 8.0)" cleanup_orphaned_waits "$out"
      ;;
   8.2)
      has "traps/8.2: config.chunks by ns bites" chunks_by_ns "$out"
      check_contains "traps/8.2: at the filter's file:line:col, with the version" \
         "\"file\" : \"$TMPD/issue.js\", \"line\" : 1, \"col\" : 39, \"version\" : \"8.2.1\"" "$out"
      has "traps/8.2: the autosplit helpers bite" autosplit_helpers "$out"
      has "traps/8.2: the autosplit setting bites" autosplit_setting "$out"
      lacks "traps/8.2: removeShard does not bite" remove_shard "$out"
      has "traps/8.2: cleanupOrphaned is deprecated" cleanup_orphaned_deprecated "$out"
      has "traps/8.2: cleanupOrphaned may wait an hour" orphan_cleanup_delay "$out"
      lacks "traps/8.2: the 4.4-8.0 cleanupOrphaned row does not bite" cleanup_orphaned_waits "$out"
      check_contains "traps/8.2: the plan line still closes the output" '{ "plan" : {' "$(echo "$out" | tail -1)"
      ;;
   8.3)
      has "traps/8.3: removeShard bites" remove_shard "$out"
      check_contains "traps/8.3: it says what to write instead" \
         'startShardDraining: \"shard03\"}), then poll db.adminCommand({shardDrainingStatus' "$out"
      check_contains "traps/8.3: stderr names file:line:col and the version" \
         "issue.js:4:4: warning: MongoDB 8.3.0: deprecated" "$(cat "$TMPD/err")"
      out=$("$SHARDSH" --norc --plan -f "$TMPD/issue.js" "$SIM_URI" 2> /dev/null)
      check_contains "traps/8.3: --plan lists it on stdout" "issue.js:4:4 trap remove_shard: deprecated" "$out"
      out=$("$SHARDSH" --norc --no-preflight --yes -f "$TMPD/issue.js" "$SIM_URI" 2>&1)
      check_not_contains "traps/8.3: nothing under --no-preflight" "[trap " "$out"
      ;;
   esac

   # the wait loop: found in the text on every version (run under --plan: it would never end)
   out=$("$SHARDSH" --norc --plan -f "$TMPD/wait.js" "$SIM_URI" 2>&1); rc=$?
   check_contains "traps/$v: while (sh.isBalancerRunning()) warns" \
      "wait.js:2:8: warning: MongoDB $v" "$out"
   check_contains "traps/$v: ... and says to read .inBalancerRound" \
      "write instead: while (sh.isBalancerRunning().inBalancerRound)" "$out"
   # (the loop never ends: the pre-flight stops following it, so --plan says it could not follow it all)
   check_eq "traps/$v: the wait loop's --plan exits 4 (followed in part)" 4 "$rc"
   out=$("$SHARDSH" --norc -f "$TMPD/fixed.js" "$SIM_URI" 2>&1); rc=$?
   check_not_contains "traps/$v: .inBalancerRound does not warn" "[trap " "$out"
   check_eq "traps/$v: the fixed loop ends" "0 balancer idle" "$rc $(echo "$out" | grep -o 'balancer idle')"

   # a read-only script really runs: the warning does not change the exit status
   out=$("$SHARDSH" --norc -f "$TMPD/report.js" "$SIM_URI" 2>&1); rc=$?
   check_eq "traps/$v: a script with a trap exits as without one" 0 "$rc"
   if [ "$v" = 4.4 ]; then
      check_not_contains "traps/4.4: no warning for the ns query" "[trap chunks_by_ns" "$out"
   else
      check_contains "traps/$v: the ns query warns before it runs" "report.js:1:49: warning: MongoDB $v" "$out"
   fi

   # JavaScript that only reads: each call is checked as it runs, once per place
   out=$("$SHARDSH" --norc -f "$TMPD/loop.js" "$SIM_URI" 2>&1); rc=$?
   n=$(printf '%s\n' "$out" | grep -c "\[trap chunks_by_ns")
   if [ "$v" = 4.4 ]; then
      check_eq "traps/4.4: a JavaScript loop of ns queries: no warning" "0 0" "$rc $n"
   else
      check_eq "traps/$v: a JavaScript loop of ns queries warns once, at its call" "0 1" "$rc $n"
   fi
   sim_stop
done
