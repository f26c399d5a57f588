#!/bin/sh
# passes: plain asan
# A write is sent once (issue 30; docs/reliability.md, "Writes are sent once"): shardsim applies balancerStart and
# holds its reply past socketTimeoutMS (simFault delay for a window shorter than the timeout). libmongoc's read
# helper used to send it a second time on a new connection (retryReads), which then succeeded; now shardsim logs it
# once, the statement is reported as "unknown — check the cluster" (its error line: "it may have been applied") and
# the script stops with exit 1; the same from JavaScript. A read (the hello of the mongos check before
# sh.getBalancerState) may still be retried by the driver: the statement succeeds with two hellos logged.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1

URI_OPTS="socketTimeoutMS=1000&serverSelectionTimeoutMS=1000"
LOG="$TMPD/commands.log"

# count CMD: how many times shardsim logged a command named CMD
count() { grep -c "\"cmd\": { \"$1\"" "$LOG"; }
# count_after_fault CMD: the same, after the last simFault
count_after_fault() { awk '/"cmd": \{ "simFault"/ { n = 0 } index($0, "\"cmd\": { \"'"$1"'\"") { n++ } END { print n + 0 }' "$LOG"; }

# run NAME TEXT: runs TEXT as $TMPD/NAME.js; sets OUT (stdout+stderr) and RC
run() {
   printf "$2" > "$TMPD/$1.js"
   OUT=$("$SHARDSH" --norc "$SIM_URI/?$URI_OPTS" -f "$TMPD/$1.js" 2>&1)
   RC=$?
}

if ! sim_start --scenario demo --log-commands "$LOG"; then
   fail "write_once" "shardsim did not start"
   exit 0
fi

# the reply to balancerStart (mongosh's read path) is lost: sent once, reported unknown
run start 'sh.stopBalancer()\ndb.adminCommand({simFault: "delay", ms: 3000, forMs: 700})\nsh.startBalancer()\nprint("not reached")\n'
check_eq "write_once/balancerStart_sent_once" 1 "$(count balancerStart)"
check_eq "write_once/balancerStart_exit_1" 1 "$RC"
check_contains "write_once/balancerStart_unknown" "unknown — check the cluster: $TMPD/start.js:3;" "$OUT"
check_not_contains "write_once/balancerStart_stops" "not reached" "$OUT"
# its error line says so too: the server may have applied the write (not just "no reply")
check_contains "write_once/balancerStart_error_may_have_applied" \
   "start.js:3 error: no reply to balancerStart: the connection was closed or the reply took longer than socketTimeoutMS (1000 ms); it may have been applied: check the cluster" \
   "$OUT"

# the same on the admin path (balancerStop): sent once
run stop 'sh.getBalancerState()\ndb.adminCommand({simFault: "delay", ms: 3000, forMs: 700})\nsh.stopBalancer()\n'
check_eq "write_once/balancerStop_sent_once" 2 "$(count balancerStop)" # 1 from the first script
check_contains "write_once/balancerStop_unknown" "unknown — check the cluster: $TMPD/stop.js:3;" "$OUT"

# the same write called from JavaScript: sent once, unknown
run js 'sh.stopBalancer()\ndb.adminCommand({simFault: "delay", ms: 3000, forMs: 700})\nfor (const i of [1]) { sh.startBalancer() }\n'
check_eq "write_once/js_balancerStart_sent_once" 1 "$(count_after_fault balancerStart)"
check_eq "write_once/js_exit_1" 1 "$RC"
check_contains "write_once/js_unknown" "unknown — check the cluster: $TMPD/js.js:3;" "$OUT"
check_contains "write_once/js_error_may_have_applied" \
   "no reply to balancerStart: the connection was closed or the reply took longer than socketTimeoutMS (1000 ms); it may have been applied: check the cluster" \
   "$OUT"

# a read whose reply is lost is sent again by the driver (retryReads) and the statement succeeds
run read 'db.adminCommand({simFault: "delay", ms: 3000, forMs: 700})\nsh.getBalancerState()\n'
check_eq "write_once/read_retried_exit_0" 0 "$RC"
check_eq "write_once/read_retried_twice" 2 "$(count_after_fault hello)"
sim_stop
