#!/bin/sh
# passes: plain asan
# How a script run ends (issue 30 items 6 and 7, docs/plan.md "How a run ends"), on one shardsim: a closed stdout
# (`| head -1`) after sh.stopBalancer() does not stop the script (its later sh.startBalancer() runs) and the summary
# goes to stderr; SIGINT and SIGTERM during a sleep stop at the statement boundary with the summary and exit 130 /
# 143; quit(n) exits n after the summary, and an out-of-range status is refused before anything runs; a write whose
# reply is lost (slower than socketTimeoutMS, applied by the server) is "unknown — check the cluster", never
# "failed"; JavaScript reads get no status line (a report over many collections), a caught error no error line;
# --quiet keeps only failures and --no-status drops every status line.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1
ROOT=$(pwd)
SH="$ROOT/$SHARDSH"

if ! sim_start --scenario demo; then
   fail "script_end/shardsim" "shardsim did not start"
   exit 0
fi
cd "$TMPD" || exit 2

balancer() { "$SH" --norc "$SIM_URI" --eval 'sh.getBalancerState()' 2> /dev/null; }

# wait_line FILE TEXT: waits (up to 10 s) until FILE holds TEXT
wait_line() {
   _i=0
   while [ $_i -lt 200 ] && ! grep -q "$2" "$1" 2> /dev/null; do
      sleep 0.05
      _i=$((_i + 1))
   done
}

# ---- a closed stdout: the script finishes (the balancer is started again), the summary is on stderr
cat > pipe.js << 'JS'
const was = sh.getBalancerState()
sh.stopBalancer()
for (let i = 0; i < 20000; i++) print("moving " + i)
sh.startBalancer()
print("done, balancer was " + was)
JS
first=$("$SH" --norc "$SIM_URI" -f pipe.js 2> pipe.err | head -1)
check_eq "script_end/SIGPIPE: head got the first line" "moving 0" "$first"
check_eq "script_end/SIGPIPE: the script's later line restored the balancer" "true" "$(balancer)"
check_contains "script_end/SIGPIPE: says stdout was closed and the script ran to its end" \
   "shardsh: stdout was closed: what the script printed after that was lost; the script ran to its end" \
   "$(cat pipe.err)"
check_contains "script_end/SIGPIPE: the summary on stderr" \
   "summary: ran pipe.js:1, pipe.js:2, pipe.js:4; failed nothing; did not run: nothing" "$(cat pipe.err)"

# ---- SIGINT during a JavaScript sleep: stops there, summary, 130, the balancer left stopped and said so
cat > int.js << 'JS'
const st = sh.getBalancerState()
sh.stopBalancer()
print("stopped " + st)
sleep(20000)
sh.startBalancer()
print("not reached")
JS
t0=$(date +%s)
"$SH" --norc "$SIM_URI" -f int.js > int.out 2> int.err &
pid=$!
wait_line int.out "stopped"
kill -INT $pid
wait $pid
rc=$?
check_eq "script_end/SIGINT: exit 130" 130 "$rc"
if [ $(($(date +%s) - t0)) -lt 10 ]; then pass "script_end/SIGINT: the sleep ended at once"; else
   fail "script_end/SIGINT: the sleep ended at once" "took $(($(date +%s) - t0)) s"
fi
check_eq "script_end/SIGINT: stderr" "pre-flight: followed to int.js:4 (a sleep: it may wait for what a held-back write does); the rest is checked as it runs
int.js:2 ok sh.stopBalancer()
shardsh: stopped by SIGINT at a statement boundary (exit 130)
summary: ran int.js:1, int.js:2; failed nothing; did not run: int.js after line 4
WARNING: the balancer is stopped: nothing balances until sh.startBalancer()" "$(cat int.err)"
check_not_contains "script_end/SIGINT: nothing after the sleep ran" "not reached" "$(cat int.out)"
check_eq "script_end/SIGINT: the balancer is still stopped" "false" "$(balancer)"

# ---- SIGTERM during a literal script's sleep: 143, the statements after it did not run
printf 'sh.startBalancer()\nprint("started")\nsleep(20000)\nsh.stopBalancer()\n' > term.js
"$SH" --norc "$SIM_URI" -f term.js > term.out 2> term.err &
pid=$!
wait_line term.out "started"
kill -TERM $pid
wait $pid
rc=$?
check_eq "script_end/SIGTERM: exit 143" 143 "$rc"
check_contains "script_end/SIGTERM: said" "shardsh: stopped by SIGTERM at a statement boundary (exit 143)" \
   "$(cat term.err)"
check_contains "script_end/SIGTERM: the summary" \
   "summary: ran term.js:1, term.js:2; failed nothing; did not run: term.js:3, term.js:4" "$(cat term.err)"
check_eq "script_end/SIGTERM: the write after the sleep was not sent" "true" "$(balancer)"

# ---- quit(n): the exit status, after the summary; in JavaScript and as a statement; out of range: refused (2)
cat > quit.js << 'JS'
const ok = sh.getBalancerState()
sh.disableBalancing("app.events")
if (ok) quit(3)
sh.enableBalancing("app.events")
JS
"$SH" --norc "$SIM_URI" -f quit.js > quit.out 2> quit.err
check_eq "script_end/quit(3) in JavaScript: exit 3" 3 "$?"
check_contains "script_end/quit(3): said" "shardsh: the script called quit(3)" "$(cat quit.err)"
check_contains "script_end/quit(3): the summary names what did not run" \
   "summary: ran quit.js:1, quit.js:2; failed nothing; did not run: quit.js after line 3" "$(cat quit.err)"
check_contains "script_end/quit(3): the state it left" "WARNING: noBalance is set on app.events" "$(cat quit.err)"
printf 'sh.enableBalancing("app.events")\nquit(4)\nsh.stopBalancer()\n' > quitlit.js
"$SH" --norc "$SIM_URI" -f quitlit.js > /dev/null 2> quitlit.err
check_eq "script_end/quit(4) as a statement: exit 4" 4 "$?"
check_contains "script_end/quit(4): the summary" \
   "summary: ran quitlit.js:1, quitlit.js:2; failed nothing; did not run: quitlit.js:3" "$(cat quitlit.err)"
"$SH" --norc "$SIM_URI" --eval 'print("x"); exit(0)' > /dev/null 2> quit0.err
check_eq "script_end/exit(0): exit 0" 0 "$?"
check_eq "script_end/exit(0): no summary" "" "$(cat quit0.err)"
printf 'sh.stopBalancer()\nquit(256)\n' > quitbad.js
"$SH" --norc "$SIM_URI" -f quitbad.js > /dev/null 2> quitbad.err
check_eq "script_end/quit(256): refused before anything runs (exit 2)" 2 "$?"
check_contains "script_end/quit(256): why, at its place" \
   "quitbad.js:2:6: error: exit: the exit status must be a number from 0 to 255, got 256" "$(cat quitbad.err)"
check_eq "script_end/quit(256): nothing was sent" "true" "$(balancer)"
"$SH" --norc "$SIM_URI" --eval 'const n = 2.5; quit(n)' > /dev/null 2> quitjs.err
check_eq "script_end/quit(2.5) in JavaScript: an error, exit 1" 1 "$?"

# ---- a write whose reply is lost: unknown, not failed (the server applied it). The delay outlasts the socket timeout
# twice: the driver retries a command once after a network error
cat > lost.js << 'JS'
const before = sh.getBalancerState()
db.adminCommand({simFault: "delay", ms: 3000, forMs: 2500})
sh.stopBalancer()
sh.startBalancer()
JS
"$SH" --norc "$SIM_URI/?socketTimeoutMS=1000" -f lost.js > /dev/null 2> lost.err
check_eq "script_end/lost reply: exit 1" 1 "$?"
check_contains "script_end/lost reply: unknown, check the cluster" \
   "summary: ran lost.js:1, lost.js:2; failed nothing; unknown — check the cluster: lost.js:3; did not run: lost.js after line 3" \
   "$(cat lost.err)"
sleep 1.5
check_eq "script_end/lost reply: the server did apply it" "false" "$(balancer)"
# (the literal path's unknown is checked in tests/unit/test_runsum.c, without the wait)

# ---- status lines: none for JavaScript reads (a report over many collections), none for a caught error
cat > report.js << 'JS'
const colls = db.getSiblingDB("config").collections.find().toArray()
let n = 0
for (let i = 0; i < 100; i++) {
  for (const c of colls) n += db.getSiblingDB("config").chunks.countDocuments({uuid: c.uuid})
}
try { db.adminCommand({noSuchCommand: 1}) } catch (e) { print("caught") }
sh.startBalancer()
print("read " + colls.length + " collections 100 times")
JS
"$SH" --norc --no-preflight "$SIM_URI" -f report.js > report.out 2> report.err
check_eq "script_end/report: exit 0 (the error was caught)" 0 "$?"
check_contains "script_end/report: ran" "caught" "$(cat report.out)"
check_eq "script_end/report: one status line, for the write" "report.js:7 ok sh.startBalancer()" "$(cat report.err)"
"$SH" --norc --quiet --no-preflight "$SIM_URI" -f report.js > /dev/null 2> quiet.err
check_eq "script_end/--quiet: no ok lines" "" "$(cat quiet.err)"
printf 'sh.startBalancer()\ndb.adminCommand({noSuchCommand: 1})\n' > fail.js
"$SH" --norc --quiet "$SIM_URI" -f fail.js > /dev/null 2> quietfail.err
check_not_contains "script_end/--quiet: no ok line (literal)" "fail.js:1 ok" "$(cat quietfail.err)"
check_contains "script_end/--quiet: the failure's line stays" "fail.js:2 error 59 CommandNotFound" \
   "$(cat quietfail.err)"
"$SH" --norc --no-status "$SIM_URI" -f fail.js > /dev/null 2> nostatus.err
check_eq "script_end/--no-status: exit 1" 1 "$?"
check_not_contains "script_end/--no-status: no status lines" "fail.js:2 error 59" "$(cat nostatus.err)"
check_contains "script_end/--no-status: the error stays" "fail.js:2:4:" "$(cat nostatus.err)"
check_contains "script_end/--no-status: the summary stays" "summary: ran fail.js:1; failed fail.js:2" \
   "$(cat nostatus.err)"

cd "$ROOT" || exit 2
sim_stop
