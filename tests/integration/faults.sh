#!/bin/sh
# passes: plain asan
# Faults injected by shardsim (docs/shardsim.md, "Faults"): an error reply with a given code, replies slower than the
# socket timeout, a router that stops answering, a connection dropped mid-command, refused connections, a router that
# stops and comes back, garbled replies (a body that is not BSON, a header length out of range, a header that claims
# more than is sent) and a connection closed in the middle of a cursor (the getMore never answered). A script stops at
# the failing statement with exit status 1, file:line: and one clear line, within the URI's timeouts plus a margin, and
# no sanitizer report; the REPL (through tmux) reports the same, gives the prompt back and runs the next command once
# the fault is over; Ctrl-C abandons a reply that never comes (default timeouts) and the shell lives; a connection
# string's socketTimeoutMS bounds a hung reply, and without one a slow reply (6 s) is waited for; the dashboard's
# --once --json during a hang answers within its bound, stale. See docs/reliability.md, "Faults". The parts run at
# once (tests/lib.sh group), each on its own shardsim: the test lasts as long as its longest part.
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
   # one error line: the message, then only the statement and its caret (no driver text); the run's summary line
   # and the status line of each statement (issue 18: "NAME.js:N ok ..." / "NAME.js:N error ...") name the
   # statements too and are not counted
   n=$(printf '%s\n' "$OUT" | grep "$1.js:" | grep -v -E "$1\.js:[0-9]+ (ok|error)[ :]" | grep -vc '^summary:')
   check_eq "faults/$1/one_error_line" 1 "$n"
   check_not_contains "faults/$1/no_driver_wording" "Failed to send" "$OUT"
   check_not_contains "faults/$1/no_sanitizer_report" "Sanitizer" "$OUT"
   check_not_contains "faults/$1/no_ub_report" "runtime error" "$OUT"
   if [ "$MS" -lt "$BOUND_MS" ]; then pass "faults/$1/bounded"; else fail "faults/$1/bounded" "took ${MS} ms"; fi
}

# ---------------------------------------------------------------- scripts
faults_basic() {
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
}

# a router that hangs from the start: the handshake's hello times out inside server selection
faults_start() {
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
}

# garbled replies and a cursor cut after its first batch (300 documents: the first batch has 101, then getMore)
faults_garbage() {
if sim_start --scenario demo --load app.big:ascending:300 --fault-bad-reply find:length:2; then
   # the header claims 2^31-1 bytes; times 2, so the driver's retry of the read gets the same
   run_script badlength "$SIM_URI/?$OPTS" 'sh.getBalancerState()\nprint("not reached")\n'
   check_script badlength 1 "error: invalid reply to find: its header claims 2147483647 bytes, outside 16-48000000"

   # a well-framed reply whose body is not BSON (libmongoc 1.23 alone would take it for a success); times 2: the read
   # is retried
   run_script badbson "$SIM_URI/?$OPTS" \
      'sh.getBalancerState()\ndb.adminCommand({simFault: "badReply", command: "balancerStatus", kind: "bson", times: 2})\nsh.isBalancerRunning()\nprint("not reached")\n'
   check_script badbson 3 "error: invalid reply to balancerStatus: not a BSON document"

   # framed right at every level with ok: 1, but a string is not UTF-8 and the element after it is broken (libbson
   # 1.23's bson_validate passes it: it stops looking after the string)
   run_script badutf8 "$SIM_URI/?$OPTS" \
      'sh.getBalancerState()\ndb.adminCommand({simFault: "badReply", command: "balancerStatus", kind: "utf8", times: 2})\nsh.isBalancerRunning()\nprint("not reached")\n'
   check_script badutf8 3 "error: invalid reply to balancerStatus: not a BSON document"

   # ... and on a write path (not retried)
   run_script badbsonw "$SIM_URI/?$OPTS" \
      'db.adminCommand({simFault: "badReply", command: "balancerStop", kind: "bson"})\nsh.stopBalancer()\nprint("not reached")\n'
   check_script badbsonw 2 "error: invalid reply to balancerStop: not a BSON document"

   # the header claims 64 bytes more than come: the read waits socketTimeoutMS (twice: the retried read too)
   run_script truncated "$SIM_URI/?$OPTS" \
      'db.adminCommand({simFault: "badReply", command: "find", kind: "truncated", times: 2})\nsh.getBalancerState()\nprint("not reached")\n'
   check_script truncated 2 "error: no reply to find: the connection was closed or the reply took longer than socketTimeoutMS (1000 ms)"

   # the connection closes instead of answering the getMore
   run_script midcursor "$SIM_URI/?$OPTS" \
      'db.adminCommand({simFault: "closeOn", command: "getMore"})\ndb.getSiblingDB("app").big.find().limit(150).itcount()\nprint("not reached")\n'
   check_script midcursor 2 "error: no reply to getMore: the connection was closed"

   # a getMore answered with garbage
   run_script badgetmore "$SIM_URI/?$OPTS" \
      'db.adminCommand({simFault: "badReply", command: "getMore", kind: "bson"})\ndb.getSiblingDB("app").big.find().limit(150).itcount()\nprint("not reached")\n'
   check_script badgetmore 2 "error: invalid reply to getMore: not a BSON document"

   # well-formed replies of the wrong shape, refused at the edge before libmongoc's cursor code reads them (it
   # aborted on each: a cursor ns that is not a string, has no dot or no collection; a failure with code 0)
   for k in ns-type ns-nodot ns-nocoll ok0-code0; do
      run_script "shape_$k" "$SIM_URI/?$OPTS" \
         "db.adminCommand({simFault: \"badReply\", command: \"find\", kind: \"$k\", times: 2})\nsh.status()\nprint(\"not reached\")\n"
      check_script "shape_$k" 2 "error: invalid reply to find: "
   done
   run_script shape_getmore "$SIM_URI/?$OPTS" \
      'db.adminCommand({simFault: "badReply", command: "getMore", kind: "ok0-code0"})\ndb.getSiblingDB("app").big.find().limit(150).itcount()\nprint("not reached")\n'
   check_script shape_getmore 2 "error: invalid reply to getMore: a failure with code 0"

   # without faults the same read returns its 150 documents (the faults above are what failed)
   "$SHARDSH" --norc --quiet --json "$SIM_URI/?$OPTS" --eval 'db.getSiblingDB("app").big.find().limit(150)' > "$TMPD/big.json" 2>&1
   check_eq "faults/midcursor/control_reads_150" 150 "$(grep -c '"_id"' "$TMPD/big.json")"
   sim_stop
else
   fail "faults/garbage" "shardsim did not start"
fi
}

# a connection string's socketTimeoutMS bounds a reply that never comes; without one, a slow reply is waited for
faults_sockettimeout() {
if sim_start --scenario demo; then
   run_script sockettimeout "$SIM_URI/?socketTimeoutMS=2000" \
      'sh.getBalancerState()\ndb.adminCommand({simFault: "hang", ms: 30000})\nsh.getBalancerState()\nprint("not reached")\n'
   BOUND_MS=8000
   check_script sockettimeout 3 "error: no reply to find: the connection was closed or the reply took longer than socketTimeoutMS (2000 ms)"
   # a read changes nothing: its lost reply is not said to be maybe applied (a write's is, write_once.sh)
   check_not_contains "faults/sockettimeout/read_not_maybe_applied" "may have been applied" "$OUT"
   BOUND_MS=5000
   if [ "$MS" -ge 1900 ]; then pass "faults/sockettimeout/waits_the_timeout"; else
      fail "faults/sockettimeout/waits_the_timeout" "gave up after ${MS} ms"
   fi
   sim_stop
else
   fail "faults/sockettimeout" "shardsim did not start"
fi
}
faults_slowok() {
if sim_start --scenario demo; then
   # 6 s: more than the 5 s serverSelectionTimeoutMS and connectTimeoutMS defaults, far less than libmongoc's 300 s
   # socketTimeoutMS, which the shell keeps (a long moveChunk or analyzeShardKey is legitimate)
   run_script slowok "$SIM_URI" \
      'sh.getBalancerState()\ndb.adminCommand({simFault: "delay", ms: 6000, forMs: 5000})\nsh.getBalancerState()\nprint("reached")\n'
   check_eq "faults/slowok/exit_0" 0 "$RC"
   check_contains "faults/slowok/prints_the_reply" "reached" "$OUT"
   # a -f script shows what it prints; both reads were answered: no error line, and a read has no status line
   # (issue 30: status lines for writes and failures only)
   check_eq "faults/slowok/two_answers" 0 "$(printf '%s\n' "$OUT" | grep -c 'slowok\.js:[13] \(ok\|error\)')"
   if [ "$MS" -ge 5900 ]; then pass "faults/slowok/waited"; else fail "faults/slowok/waited" "took ${MS} ms"; fi
   sim_stop
else
   fail "faults/slowok" "shardsim did not start"
fi
}

# no wait outlives its timeout: sh.waitForBalancer against a balancer that never starts a round
faults_waitbal() {
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
}

# ---------------------------------------------------------------- the REPL
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
# clear: removes every fault, from another client (retried: the fault may drop it). Its socket timeout outlasts the
# delays the faults set (3 s at most): an attempt given up while its reply was delayed was still carried out by
# shardsim once the delay ended, clearing the next fault set (faults/repl/hang and drop then saw no error)
clear_faults() {
   for _i in 1 2 3 4 5 6 7 8; do
      "$SHARDSH" --norc --quiet "$SIM_URI/?socketTimeoutMS=8000&serverSelectionTimeoutMS=6000&connectTimeoutMS=6000" \
         --eval 'db.adminCommand({simFault: "clear"})' > /dev/null 2>&1 && return 0
      sleep 0.2
   done
   return 1
}

faults_repl() {
if sim_start --scenario demo --load app.big:ascending:300; then
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

   # connections dropped while a reply is delayed (6 s of delays: the window must still be open when the statement
   # comes, after the second fault's round trip, however loaded the machine is); libmongoc words the drop as a closed
   # connection or as a length header it could not read, depending on when the drop lands
   fault '"delay", ms: 800, forMs: 6000'
   DELAY0=$(now_ms)
   fault '"dropEvery", ms: 300'
   send 'sh.getBalancerState()'
   reported drop "error: (no reply to find: the connection was closed|cannot reach 127.0.0.1:$port: (Server closed connection|Failed to receive length header from server))" \
      'sh.getBalancerState()'
   # the delay's forMs: until then every new connection's hello waits 800 ms and is dropped
   left=$((6000 - ($(now_ms) - DELAY0)))
   [ "$left" -gt 0 ] && sleep "$(((left + 999) / 1000))"
   clear_faults || fail "faults/repl/drop/clear" "simFault clear did not get through"
   works drop

   # new connections refused (the open one dropped, so the shell must reconnect)
   fault '"refuseConnections", ms: 2500'
   fault '"dropConnections"'
   send 'sh.getBalancerState()'
   reported refuse "error: (cannot reach 127.0.0.1:$port: connection refused|no reply to find)" 'sh.getBalancerState()'
   sleep 2.5
   works refuse

   # a reply whose body is not BSON
   fault '"badReply", command: "balancerStatus", kind: "bson", times: 2'
   send 'sh.isBalancerRunning()'
   reported badbson "error: invalid reply to balancerStatus: not a BSON document" 'sh.isBalancerRunning()'
   works badbson

   # a header length out of range, for the read and its retry
   fault '"badReply", command: "find", kind: "length", times: 2'
   send 'sh.getBalancerState()'
   reported badlength "error: invalid reply to find: its header claims 2147483647 bytes" 'sh.getBalancerState()'
   works badlength

   # the connection closed in the middle of a cursor
   fault '"closeOn", command: "getMore"'
   send 'db.getSiblingDB("app").big.find().limit(150).itcount()'
   reported midcursor "error: no reply to getMore: the connection was closed" 'db.getSiblingDB("app").big.find().limit(150).itcount()'
   works midcursor

   # the router stops and comes back on the same port
   sim_stop
   send 'sh.getBalancerState()'
   reported stopped "error: (cannot reach 127.0.0.1:$port: connection refused|no reply to find)" 'sh.getBalancerState()'
   "$SHARDSIM" --port "$port" --scenario demo --load app.big:ascending:300 > "$TMPD/sim2.out" 2> "$TMPD/sim2.err" &
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
}

# Ctrl-C abandons a reply that never comes: default timeouts (libmongoc's socketTimeoutMS is 300 s), a router that
# holds every request for 7 s; Ctrl-C 1 s into the wait must end it at once, drop the rest of the typed line, and the
# shell must go on. A second Ctrl-C cuts the new connection's handshake (held too). Once the hang is over, the next
# command works on a new connection.
faults_repl_ctrl_c() {
if sim_start --scenario demo; then
   new_server
   $T new-session -d -s repl -x 160 -y 50 "NO_COLOR=1 $SH_ABS --norc --quiet '$SIM_URI'; echo EXITED=\$?; sleep 30"
   $T set-option -t repl history-limit 5000 > /dev/null 2>&1
   NTRUE=0
   NERR=0
   NFAULT=0
   wait_count 'test>' 1 || fail "faults/repl_ctrl_c/start" "$(screen | grep -v '^$' | tail -n 3)"
   works ctrl_c_reply/start
   fault '"hang", ms: 7000'
   HANG0=$(now_ms)
   $T send-keys -t repl 'sh.getBalancerState(); print("after-ctrl-c")' Enter
   sleep 1
   T0=$(now_ms)
   $T send-keys -t repl C-c
   if wait_count 'error: interrupted: stopped waiting for the reply to find' 1 30; then
      ms=$(($(now_ms) - T0))
      echo "# repl ctrl-c reply: ${ms} ms" >&2
      if [ "$ms" -lt 1000 ]; then pass "faults/repl/ctrl_c_reply/abandons_at_once"; else
         fail "faults/repl/ctrl_c_reply/abandons_at_once" "took ${ms} ms"
      fi
   else
      fail "faults/repl/ctrl_c_reply/abandons_at_once" "$(screen | grep -v '^$' | tail -n 4)"
   fi
   if prompt_back; then pass "faults/repl/ctrl_c_reply/prompt_back"; else
      fail "faults/repl/ctrl_c_reply/prompt_back" "$(screen | grep -v '^$' | tail -n 3)"
   fi
   check_not_contains "faults/repl/ctrl_c_reply/rest_of_line_dropped" "after-ctrl-c
" "$(screen | grep -v 'print(')
"
   # the next statement connects again; the router still holds the handshake's hello
   $T send-keys -t repl 'sh.getBalancerState()' Enter
   sleep 1
   T0=$(now_ms)
   $T send-keys -t repl C-c
   if wait_count 'error: interrupted' 2 30; then
      ms=$(($(now_ms) - T0))
      echo "# repl ctrl-c handshake: ${ms} ms" >&2
      if [ "$ms" -lt 1000 ]; then pass "faults/repl/ctrl_c_handshake/abandons_at_once"; else
         fail "faults/repl/ctrl_c_handshake/abandons_at_once" "took ${ms} ms"
      fi
   else
      fail "faults/repl/ctrl_c_handshake/abandons_at_once" "$(screen | grep -v '^$' | tail -n 4)"
   fi
   left=$((7000 - ($(now_ms) - HANG0)))
   if [ "$left" -gt 2000 ]; then pass "faults/repl/ctrl_c_reply/before_the_hang_ends"; else
      fail "faults/repl/ctrl_c_reply/before_the_hang_ends" "only ${left} ms of the hang were left"
   fi
   [ "$left" -gt 0 ] && sleep "$(((left + 999) / 1000))"
   works ctrl_c_reply
   $T send-keys -t repl 'exit' Enter
   wait_count 'EXITED=0' 1 && pass "faults/repl/ctrl_c_reply/exits_0" ||
      fail "faults/repl/ctrl_c_reply/exits_0" "$(screen | grep -v '^$' | tail -n 3)"
   $T kill-server 2> /dev/null
   sim_stop
else
   fail "faults/repl_ctrl_c" "shardsim did not start"
fi
}

# the parts at once, each with its own shardsim (and terminal): they mostly wait out timeouts and hangs, so the test
# takes as long as its longest part rather than their sum
group basic faults_basic
group start faults_start
group garbage faults_garbage
group sockettimeout faults_sockettimeout
group slowok faults_slowok
group waitbal faults_waitbal
if command -v tmux > /dev/null 2>&1; then
   group repl faults_repl
   group repl_ctrl_c faults_repl_ctrl_c
else
   skip "faults/repl" "tmux is not installed"
fi
groups_wait
