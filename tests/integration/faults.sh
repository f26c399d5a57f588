#!/bin/sh
# Faults injected by shardsim (docs/shardsim.md, "Faults"): an error reply with a given code, replies slower than the
# socket timeout, a router that stops answering, a connection dropped mid-command, refused connections, and a router
# that stops and comes back. A script stops at the failing statement with exit status 1, file:line: and one clear
# line, within the URI's timeouts plus a margin; the REPL (through tmux) reports the same, gives the prompt back and
# runs the next command once the fault is over; the dashboard's --once --json during a hang answers within its bound,
# stale. See docs/reliability.md, "Faults".
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1

OPTS="socketTimeoutMS=1000&serverSelectionTimeoutMS=1000"
BOUND_MS=5000
now_ms() { date +%s%3N; }

# run_script NAME URI TEXT: runs TEXT as $TMPD/NAME.js; sets OUT (stdout+stderr), RC and MS (wall time)
run_script() {
   printf "$3" > "$TMPD/$1.js"
   _t0=$(now_ms)
   OUT=$("$SHARDSH" --norc "$2" -f "$TMPD/$1.js" 2>&1)
   RC=$?
   MS=$(($(now_ms) - _t0))
   echo "# $1: ${MS} ms" >&2
}

# check_script NAME LINE NEEDLE: the common assertions on the last run_script
check_script() {
   check_eq "faults/$1/exit_1" 1 "$RC"
   check_contains "faults/$1/file_line" "$1.js:$2:" "$OUT"
   check_contains "faults/$1/message" "$3" "$OUT"
   check_not_contains "faults/$1/stops_there" "not reached" "$OUT"
   # one error line: the message, then only the statement and its caret (no driver text)
   n=$(printf '%s\n' "$OUT" | grep -c "$1.js:")
   check_eq "faults/$1/one_error_line" 1 "$n"
   check_not_contains "faults/$1/no_driver_wording" "Failed to send" "$OUT"
   if [ "$MS" -lt "$BOUND_MS" ]; then pass "faults/$1/bounded"; else fail "faults/$1/bounded" "took ${MS} ms"; fi
}

# ---------------------------------------------------------------- scripts
if sim_start --scenario demo --fault-fail moveChunk:70; then
   run_script failcmd "$SIM_URI/?$OPTS" \
      'sh.getBalancerState()\nsh.moveChunk("app.events", {ts: 1}, "shard02")\nprint("not reached")\n'
   check_script failcmd 2 "MongoServerError[ShardNotFound]"
   check_contains "faults/failcmd/code" "(code 70)" "$OUT"
   sim_stop
else
   fail "faults/failcmd" "shardsim did not start"
fi

if sim_start --scenario demo; then
   # the statement earlier in the script sets the fault; the simFault reply itself is not delayed
   run_script delay "$SIM_URI/?$OPTS" \
      'sh.getBalancerState()\ndb.adminCommand({simFault: "delay", ms: 3000})\nsh.getBalancerState()\nprint("not reached")\n'
   check_script delay 3 "no reply to find"
   check_contains "faults/delay/names_timeout" "socketTimeoutMS (1000 ms)" "$OUT"
   sim_stop
else
   fail "faults/delay" "shardsim did not start"
fi

if sim_start --scenario demo; then

   run_script hang "$SIM_URI/?$OPTS" \
      'sh.getBalancerState()\ndb.adminCommand({simFault: "hang", ms: 4000})\nsh.getBalancerState()\nprint("not reached")\n'
   check_script hang 3 "no reply to find"
   sim_stop
else
   fail "faults/hang" "shardsim did not start"
fi

# a router that hangs from the start: the handshake's hello times out inside server selection
if sim_start --scenario demo --fault-hang-ms 4000; then
   run_script hangstart "$SIM_URI/?$OPTS" 'sh.getBalancerState()\nprint("not reached")\n'
   check_script hangstart 1 "cannot reach 127.0.0.1:$SIM_PORT: socket timeout"
   sim_stop
else
   fail "faults/hangstart" "shardsim did not start"
fi

# a connection dropped while the reply is delayed (the retried read fails too)
if sim_start --scenario demo; then
   run_script drop "$SIM_URI/?socketTimeoutMS=2000&serverSelectionTimeoutMS=1000" \
      'sh.getBalancerState()\ndb.adminCommand({simFault: "delay", ms: 800})\ndb.adminCommand({simFault: "dropEvery", ms: 300})\nsh.getBalancerState()\nprint("not reached")\n'
   check_script drop 4 "no reply to find: the connection was closed"
   sim_stop
else
   fail "faults/drop" "shardsim did not start"
fi

if sim_start --scenario demo --fault-refuse-ms 4000; then
   run_script refuse "$SIM_URI/?$OPTS" 'sh.getBalancerState()\nprint("not reached")\n'
   check_script refuse 1 "cannot reach 127.0.0.1:$SIM_PORT: connection refused"
   sim_stop
else
   fail "faults/refuse" "shardsim did not start"
fi

# no wait outlives its timeout: sh.waitForBalancer against a balancer that never starts a round
if sim_start --scenario demo; then
   run_script waitbal "$SIM_URI/?$OPTS" 'sh.waitForBalancer(true, 1500)\nprint("not reached")\n'
   if [ "$MS" -lt 4000 ]; then pass "faults/waitbal/bounded"; else fail "faults/waitbal/bounded" "took ${MS} ms"; fi
   check_not_contains "faults/waitbal/ends_the_wait" "not reached" "$OUT"
   check_contains "faults/waitbal/file_line" "waitbal.js:1:" "$OUT"

   # ------------------------------------------------------------ dashboard during a hang
   if "$SHARDSH" --help | grep -q -- '--dashboard'; then
      # the statement that sets the hang is itself answered; the client's endSessions at exit is held (1 s)
      "$SHARDSH" --norc --quiet "$SIM_URI/?$OPTS" --eval 'db.adminCommand({simFault: "hang", ms: 4000})' > /dev/null 2>&1
      t0=$(now_ms)
      # no timeouts in the URI: the dashboard's own, 0.45 x the interval
      out=$("$SHARDSH" --dashboard --once --json --interval 1 "$SIM_URI" 2> "$TMPD/dash.err")
      rc=$?
      ms=$(($(now_ms) - t0))
      echo "# dashboard hang: ${ms} ms" >&2
      check_eq "faults/dash_hang/exit_1" 1 "$rc"
      check_contains "faults/dash_hang/stale" '"stale": true' "$out"
      check_contains "faults/dash_hang/says_why" '"error": "cannot reach 127.0.0.1:'"$SIM_PORT"': socket timeout"' "$out"
      if [ "$ms" -lt 2000 ]; then pass "faults/dash_hang/within_two_intervals"; else
         fail "faults/dash_hang/within_two_intervals" "took ${ms} ms"
      fi
   else
      skip "faults/dash_hang" "this build has no dashboard"
   fi
   sim_stop
else
   fail "faults/waitbal" "shardsim did not start"
fi

# ---------------------------------------------------------------- the REPL
if ! command -v tmux > /dev/null 2>&1; then
   skip "faults/repl" "tmux is not installed"
   exit 0
fi
NSOCK=0
T="tmux -S $TMPD/tmux.0.sock"
new_server() { NSOCK=$((NSOCK + 1)); T="tmux -S $TMPD/tmux.$NSOCK.sock"; }
case "$SHARDSH" in /*) SH_ABS=$SHARDSH ;; *) SH_ABS="$(pwd)/$SHARDSH" ;; esac
# the whole pane with its scrollback
screen() { $T capture-pane -t repl -p -S - 2>/dev/null; }
# wait_count ERE N [TENTHS]: waits until ERE matches N lines of the screen (default 5 s)
wait_count() {
   _i=0
   while [ $_i -lt "${3:-50}" ]; do
      [ "$(screen | grep -c -E -- "$1")" -ge "$2" ] && return 0
      sleep 0.1
      _i=$((_i + 1))
   done
   return 1
}
# prompt_back: the last non-empty line is the prompt (tmux drops its trailing space)
prompt_back() {
   _i=0
   while [ $_i -lt 30 ]; do
      screen | grep -v '^$' | tail -n 1 | grep -q 'test> *$' && return 0
      sleep 0.1
      _i=$((_i + 1))
   done
   return 1
}
NTRUE=0
# works NAME: the next command works (its "true" is the NTRUE-th on the screen)
works() {
   NTRUE=$((NTRUE + 1))
   $T send-keys -t repl 'sh.getBalancerState()' Enter
   if wait_count '^true$' "$NTRUE" 60; then pass "faults/repl/$1/next_command_works"; else
      fail "faults/repl/$1/next_command_works" "$(screen | grep -v '^$' | tail -n 4)"
      NTRUE=$(screen | grep -c '^true$')
   fi
}
ERR='MongoServerError\[|error: '
NERR=0
# reported NAME ERE: the fault's error line (the NERR-th on the screen) matches ERE, comes within BOUND_MS of the
# statement, is one line (the next is the echoed statement), and the prompt comes back
reported() {
   NERR=$((NERR + 1))
   if wait_count "$ERR" "$NERR" 60; then
      ms=$(($(now_ms) - T0))
      echo "# repl $1: ${ms} ms" >&2
      line=$(screen | grep -E "$ERR" | sed -n "${NERR}p")
      if printf '%s\n' "$line" | grep -q -E -- "$2"; then pass "faults/repl/$1/message"; else
         fail "faults/repl/$1/message" "[$line] does not match [$2]"
      fi
      next=$(screen | grep -E -A 1 "$ERR" | grep -v -E "$ERR|^--" | sed -n "${NERR}p")
      check_contains "faults/repl/$1/one_line" "$3" "$next"
      if [ "$ms" -lt "$BOUND_MS" ]; then pass "faults/repl/$1/bounded"; else fail "faults/repl/$1/bounded" "took ${ms} ms"; fi
   else
      fail "faults/repl/$1/message" "no error after 6 s: $(screen | grep -v '^$' | tail -n 4)"
      NERR=$(screen | grep -c -E "$ERR")
   fi
   if prompt_back; then pass "faults/repl/$1/prompt_back"; else
      fail "faults/repl/$1/prompt_back" "$(screen | grep -v '^$' | tail -n 3)"
   fi
}
# send JS: types a statement and notes the time
send() { T0=$(now_ms); $T send-keys -t repl "$1" Enter; }
# fault JS: a simFault statement typed into the REPL; waits for its reply
NFAULT=0
fault() {
   NFAULT=$((NFAULT + 1))
   $T send-keys -t repl "db.adminCommand({simFault: $1})" Enter
   wait_count 'failCommands:' "$NFAULT" 30 || fail "faults/repl/inject" "$1: $(screen | grep -v '^$' | tail -n 3)"
}
# clear: removes every fault, from another client (retried: the fault may drop it)
clear_faults() {
   for _i in 1 2 3 4 5 6 7 8; do
      "$SHARDSH" --norc --quiet "$SIM_URI/?socketTimeoutMS=1000&serverSelectionTimeoutMS=6000&connectTimeoutMS=6000" \
         --eval 'db.adminCommand({simFault: "clear"})' > /dev/null 2>&1 && return 0
      sleep 0.2
   done
   return 1
}

if sim_start --scenario demo; then
   port=$SIM_PORT
   new_server
   $T new-session -d -s repl -x 160 -y 50 \
      "NO_COLOR=1 $SH_ABS --norc --quiet '$SIM_URI/?$OPTS'; echo EXITED=\$?; sleep 30"
   $T set-option -t repl history-limit 5000 > /dev/null 2>&1
   wait_count 'test>' 1 || fail "faults/repl/start" "$(screen | grep -v '^$' | tail -n 3)"
   works start

   # an error reply with a code
   fault '"failCommand", command: "balancerStatus", code: 70'
   send 'sh.isBalancerRunning()'
   reported failcmd "MongoServerError\[ShardNotFound\]: Failing command via 'simFault' failpoint \(code 70\)" \
      'sh.isBalancerRunning()'
   works failcmd

   # replies slower than socketTimeoutMS
   fault '"delay", ms: 3000, forMs: 4000'
   send 'sh.getBalancerState()'
   reported delay "error: no reply to find: .*socketTimeoutMS \(1000 ms\)" 'sh.getBalancerState()'
   clear_faults || fail "faults/repl/delay/clear" "simFault clear did not get through"
   works delay

   # the router stops answering for 3 s, then comes back
   fault '"hang", ms: 3000'
   send 'sh.getBalancerState()'
   reported hang "error: no reply to find" 'sh.getBalancerState()'
   sleep 1.2
   works hang

   # connections dropped while a reply is delayed
   fault '"delay", ms: 800, forMs: 2500'
   fault '"dropEvery", ms: 300'
   send 'sh.getBalancerState()'
   reported drop "error: (no reply to find: the connection was closed|cannot reach 127.0.0.1:$port: Server closed connection)" \
      'sh.getBalancerState()'
   sleep 2 # the delay's forMs: until then every new connection's hello waits 800 ms and is dropped
   clear_faults || fail "faults/repl/drop/clear" "simFault clear did not get through"
   works drop

   # new connections refused (the open one dropped, so the shell must reconnect)
   fault '"refuseConnections", ms: 2500'
   fault '"dropConnections"'
   send 'sh.getBalancerState()'
   reported refuse "error: (cannot reach 127.0.0.1:$port: connection refused|no reply to find)" 'sh.getBalancerState()'
   sleep 2.5
   works refuse

   # the router stops and comes back on the same port
   sim_stop
   send 'sh.getBalancerState()'
   reported stopped "error: (cannot reach 127.0.0.1:$port: connection refused|no reply to find)" 'sh.getBalancerState()'
   "$SHARDSIM" --port "$port" --scenario demo > "$TMPD/sim2.out" 2> "$TMPD/sim2.err" &
   SIM_PID=$!
   sleep 0.5
   works restarted

   # Ctrl-C abandons a wait, the shell lives
   send 'sh.waitForBalancer(true, 60000)'
   sleep 1
   $T send-keys -t repl C-c
   wait_count 'interrupted' 1 && pass "faults/repl/ctrl_c/abandons_wait" ||
      fail "faults/repl/ctrl_c/abandons_wait" "$(screen | grep -v '^$' | tail -n 3)"
   works ctrl_c

   $T send-keys -t repl 'exit' Enter
   wait_count 'EXITED=0' 1 && pass "faults/repl/exits_0" || fail "faults/repl/exits_0" "$(screen | grep -v '^$' | tail -n 3)"
   $T kill-server 2> /dev/null
   sim_stop
else
   fail "faults/repl" "shardsim did not start"
fi
