#!/bin/sh
# passes: plain asan
# How far the pre-flight follows a JavaScript script (issue 30, docs/plan.md "How far it is followed"), on one
# shardsim 7.0: a wait or poll after a held-back write ends the following at once (the pre-flight of a 5-second wait
# takes well under a second, line 1 of a `while (true) { …; sleep(100) }` runs, a poll loop sends a few reads, not
# thousands); a held-back write the cluster would refuse is thrown into the script, which may catch it; a plain bug
# after the first writes refuses the script with nothing written; several -f files are one program; --plan exits 4
# when it could not follow the whole script.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1
case $SHARDSH in /*) ROOT_SH=$SHARDSH ;; *) ROOT_SH="$(pwd)/$SHARDSH" ;; esac

WRITES='"cmd": { "(balancerStop|balancerStart|addShardToZone|removeShardFromZone|updateZoneKeyRange|moveChunk|moveRange)"'
LOG="$TMPD/follow.log"

# ms: milliseconds since the epoch
ms() { echo $(($(date +%s%N) / 1000000)); }

# run NAME ARGS...: runs shardsh in $TMPD with ARGS against the simulator, the log emptied first; sets rc, out, err
# (stderr) and took (milliseconds)
run() {
   name=$1
   shift
   : > "$LOG"
   t0=$(ms)
   out=$(cd "$TMPD" && "$ROOT_SH" --norc "$SIM_URI" "$@" 2> "$TMPD/$name.err" < /dev/null)
   rc=$?
   took=$(($(ms) - t0))
   err=$(cat "$TMPD/$name.err")
}

# count NAME: how many NAME commands the log holds
count() { grep -c "\"cmd\": { \"$1\"" "$LOG"; }

if ! sim_start --scenario demo --version 7.0 --log-commands "$LOG"; then
   fail "follow" "shardsim did not start"
   exit 0
fi

# 1. waits and polls. A 5-second wait after a held-back write: --plan (the pre-flight alone) ends at the sleep
cat > "$TMPD/wait5.js" << 'JS'
sh.stopBalancer();
const t0 = Date.now();
while (Date.now() - t0 < 5000) sleep(100);
sh.startBalancer();
JS
run wait5 --plan -f wait5.js
check_eq "follow/wait: --plan exits 4 (could not follow the whole script)" 4 "$rc"
[ "$took" -lt 1000 ] && pass "follow/wait: the pre-flight of a 5-second wait took ${took} ms" ||
   fail "follow/wait: the pre-flight of a 5-second wait took ${took} ms" "expected well under a second"
check_contains "follow/wait: says how far it followed" \
   "pre-flight: followed to wait5.js:3 (a sleep: it may wait for what a held-back write does); the rest is checked as it runs" "$err"
check_contains "follow/wait: the plan says it is partial" "the script was followed in part only" "$out"

# the same wait before any write: the sleep is not waited, the loop is seen as one (the same call again)
printf 'const t0 = Date.now();\nwhile (Date.now() - t0 < 5000) sleep(100);\nsh.stopBalancer();\n' > "$TMPD/wait5b.js"
run wait5b --plan -f wait5b.js
check_eq "follow/wait before a write: --plan exits 4" 4 "$rc"
[ "$took" -lt 1000 ] && pass "follow/wait before a write: the pre-flight took ${took} ms" ||
   fail "follow/wait before a write: the pre-flight took ${took} ms" "expected well under a second"

# a poll without a sleep sends a few reads in the pre-flight, not thousands (the balancer runs: nothing stopped it yet)
cat > "$TMPD/poll.js" << 'JS'
sh.stopBalancer();
let n = 0;
while ((db.getSiblingDB("config").settings.findOne({_id: "balancer"}) || {}).stopped !== true && n < 5000) n++;
print("polled", n);
JS
run poll -f poll.js
check_eq "follow/poll: runs (exit 0)" 0 "$rc"
check_eq "follow/poll: its output (the run reads the write's effect)" "polled 0" "$out"
reads=$(grep -c '"find" : "settings"' "$LOG")
[ "$reads" -le 5 ] && pass "follow/poll: $reads reads of config.settings in all" ||
   fail "follow/poll: $reads reads of config.settings" "expected a few"
check_contains "follow/poll: says where it stopped" \
   "pre-flight: followed to poll.js:3 (the same call again: a loop waiting for the cluster to change)" "$err"

# line 1 of a loop that waits for its own write runs: the pre-flight stops following at the sleep (it used to run
# the loop 10,000 times against the held-back write)
cat > "$TMPD/forever.js" << 'JS'
sh.stopBalancer();
const t0 = Date.now();
while (true) {
  if (!sh.getBalancerState() && Date.now() - t0 > 300) break;
  sleep(100);
}
print("balancer stopped");
JS
run forever -f forever.js
check_eq "follow/while-true: runs (exit 0)" 0 "$rc"
check_eq "follow/while-true: its output" "balancer stopped" "$out"
check_eq "follow/while-true: line 1 ran once" 1 "$(count balancerStop)"
reads=$(grep -c '"find" : "settings"' "$LOG")
[ "$reads" -le 20 ] && pass "follow/while-true: $reads reads of the balancer's state in all" ||
   fail "follow/while-true: $reads reads of the balancer's state" "expected a few"

# the budget counts reads, not writes: 1,500 writes from a loop are followed to the end (the bad zone after them is
# found), 1,100 different reads after a held-back write are not
printf 'for (let i = 0; i < 1500; i++) sh.addShardToZone("shard01", "Z" + i);\nsh.updateZoneKeyRange("app.stores", {zipcode: "1"}, {zipcode: "2"}, "NOPE");\n' \
   > "$TMPD/many_writes.js"
run many_writes -f many_writes.js
check_eq "follow/1,500 writes: followed to the end, the bad zone refused (exit 2)" 2 "$rc"
check_contains "follow/1,500 writes: the zone" "many_writes.js:2:4: error: zone NOPE does not exist" "$err"
check_eq "follow/1,500 writes: nothing written" 0 "$(grep -E -c "$WRITES" "$LOG")"
printf 'sh.stopBalancer();\nfor (let i = 0; i < 1100; i++) db.getSiblingDB("config").shards.findOne({_id: "x" + i});\nsh.startBalancer();\n' \
   > "$TMPD/many_reads.js"
run many_reads -f many_reads.js
check_eq "follow/1,100 reads: runs (exit 0)" 0 "$rc"
check_contains "follow/1,100 reads: stops following at the budget" \
   "pre-flight: followed to many_reads.js:2 (its budget: 1000 calls that read or 5000 ms)" "$err"

# 2. a refused write the script catches: thrown as the server would, and the script runs to its end
cat > "$TMPD/catch.js" << 'JS'
sh.stopBalancer();
try { sh.moveChunk("app.events", {ts: 5}, "nope") } catch (e) { print("caught", e.code, e.codeName) }
sh.startBalancer();
JS
run catch -f catch.js
check_eq "follow/try-catch: runs to exit 0" 0 "$rc"
check_eq "follow/try-catch: the server's error, caught" "caught 70 ShardNotFound" "$out"
check_eq "follow/try-catch: the writes ran" "1 1" "$(count balancerStop) $(count balancerStart)"
# not caught: refused before its first write, at the model's message
printf 'sh.stopBalancer();\nconst to = "nope";\nsh.moveChunk("app.events", {ts: 5}, to);\n' > "$TMPD/uncaught.js"
run uncaught -f uncaught.js
check_eq "follow/uncaught refused write: exit 2" 2 "$rc"
check_contains "follow/uncaught refused write: located" "uncaught.js:3:4: error: shard nope does not exist" "$err"
check_eq "follow/uncaught refused write: nothing written" 0 "$(grep -E -c "$WRITES" "$LOG")"

# 3. a plain bug after the first writes: refused before anything is written; --plan fails too
cat > "$TMPD/foreach.js" << 'JS'
sh.addShardToZone("shard01", "EU");
sh.addShardToZone("shard02", "EU");
const ranges = [["90000", "90100"]];
ranges.forEch(([lo, hi]) => sh.updateZoneKeyRange("app.stores", {zipcode: lo}, {zipcode: hi}, "EU"));
JS
run foreach -f foreach.js
check_eq "follow/forEch: exit 2" 2 "$rc"
check_contains "follow/forEch: located" "foreach.js:4:8: error: TypeError: ranges.forEch is not a function" "$err"
check_eq "follow/forEch: nothing written" 0 "$(grep -E -c "$WRITES" "$LOG")"
run foreach_plan --plan -f foreach.js
[ "$rc" -ne 0 ] && pass "follow/forEch: --plan exits non-zero ($rc)" || fail "follow/forEch: --plan exits 0" "$err"

# 4. several files are one program: a read-only library's functions are there for the script after it
cat > "$TMPD/lib.js" << 'JS'
function zoneAll(shards, zone) {
  for (const s of shards) sh.addShardToZone(s, zone);
  return shards.length;
}
JS
printf 'print("zoned", zoneAll(["shard01", "shard02"], "EU"));\n' > "$TMPD/main.js"
run lib -f lib.js -f main.js
check_eq "follow/library: runs (exit 0)" 0 "$rc"
check_eq "follow/library: its output" "zoned 2" "$out"
check_eq "follow/library: each write sent once" 2 "$(count addShardToZone)"
check_eq "follow/library: status lines name the library's file and line" \
   "lib.js:2 ok sh.addShardToZone('shard01', 'EU')
lib.js:2 ok sh.addShardToZone('shard02', 'EU')" "$err"
# a file load()ed is part of the program too: its calls are at their place in that file
printf 'load("lib.js");\nprint("zoned", zoneAll(["shard01", "shard02"], "EU"));\n' > "$TMPD/main_load.js"
run lib_load -f main_load.js
check_eq "follow/load: runs (exit 0)" 0 "$rc"
check_eq "follow/load: each write sent once" 2 "$(count addShardToZone)"
check_eq "follow/load: status lines name the loaded file's line" \
   "lib.js:2 ok sh.addShardToZone('shard01', 'EU')
lib.js:2 ok sh.addShardToZone('shard02', 'EU')" "$err"
# a bug after the library's writes refuses the whole program
printf 'zoneAll(["shard01"], "EU");\nzoneAll(["shard02"], "EU").toFixed(-1);\n' > "$TMPD/main2.js"
run lib2 -f lib.js -f main2.js
check_eq "follow/library bug: exit 2" 2 "$rc"
check_eq "follow/library bug: nothing written" 0 "$(grep -E -c "$WRITES" "$LOG")"
# an error inside a library function, after its writes: refused, at the library's file and line
cat > "$TMPD/lib3.js" << 'JS'
function zoneAll(shards, zone) {
  for (const s of shards) sh.addShardToZone(s, zone);
  return shards.lenght.toFixed();
}
function moveTo(to) {
  sh.moveChunk("app.events", {ts: 5}, to);
}
JS
printf 'zoneAll(["shard01"], "EU");
' > "$TMPD/main3.js"
run lib3 -f lib3.js -f main3.js
check_eq "follow/library function's bug: exit 2" 2 "$rc"
check_contains "follow/library function's bug: at the library's line, with its source" \
   "lib3.js:3:3: error: TypeError: shards.lenght is undefined
    return shards.lenght.toFixed();" "$err"
check_eq "follow/library function's bug: nothing written" 0 "$(grep -E -c "$WRITES" "$LOG")"
printf 'sh.stopBalancer();\nmoveTo("nope");\n' > "$TMPD/main4.js"
run lib4 -f lib3.js -f main4.js
check_contains "follow/library function's refused write: at the library's line" \
   "lib3.js:6:6: error: shard nope does not exist" "$err"
# the run (no pre-flight) names it the same
run lib5 --no-preflight -f lib3.js -f main3.js
check_contains "follow/library function's bug in the run: at the library's line" \
   "lib3.js:3:3: error: TypeError: shards.lenght is undefined" "$err"
check_contains "follow/library function's bug in the run: the summary's place" "failed lib3.js:3" "$err"
sim_stop
