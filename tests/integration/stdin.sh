#!/bin/sh
# passes: plain asan
# Standard input that is not a terminal, read as mongosh reads it (a heredoc, a pipe): entry by entry with the
# prompts, `use`, literal statements without the engine, errors at <stdin>:LINE:COL and the next line run, no
# confirmation asked, no history written; `-f -` keeps the whole-script path. Then --shell, --nodb and
# --authenticationMechanism (against shardsim --auth). tests/peer/compare_stdin.sh compares the output with mongosh's.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

if ! sim_start --scenario demo --version 8.0 --log-commands "$TMPD/cmds.log"; then
   fail "stdin/start" "shardsim did not start"
   exit 0
fi
P='[direct: mongos] test> '

# the issue's example: a `use` line before JavaScript
out=$(printf 'use test\nvar n = 1\nprint(n)\n' | "$SHARDSH" --quiet --norc "$SIM_URI" 2>&1)
check_eq "stdin/use then JavaScript, as mongosh prints it" \
   "${P}already on db test
${P}
${P}1

${P}" "$out"

# use of the current database from --eval too (commands/meta.c's use, not the REPL's), as mongosh prints it
out=$("$SHARDSH" --quiet --norc "$SIM_URI" --eval 'use test' 2>&1)
check_eq "stdin/--eval use of the current database" "already on db test" "$out"
# show collections sorted as mongosh sorts them (localeCompare, system.* last), show dbs padded to the longest name
out=$(printf 'use config\nshow collections\nshow dbs\n' | "$SHARDSH" --quiet --norc "$SIM_URI" 2>&1)
check_eq "stdin/show collections and dbs as mongosh prints them" "${P}switched to db config
[direct: mongos] config> actionlog
changelog
chunks
collections
databases
lockpings
locks
migrations
mongos
settings
shards
tags
version
system.sessions
[direct: mongos] config> admin    40.00 KiB
config   77.25 KiB
app     112.00 KiB
logs     32.00 KiB
[direct: mongos] config> " "$out"

# literal db.isMaster() and rs.conf() as mongosh answers them (commands/server_info.c, not the prelude): the
# reply with isWritablePrimary, and rs.conf's fallback to local.system.replset, which a mongos refuses
out=$(printf 'db.isMaster()\n' | SHARDSH_JS_PLUGIN=/nonexistent/shardsh-js.so "$SHARDSH" --quiet --norc "$SIM_URI" 2>&1)
case $out in
*"isWritablePrimary: true"*) pass "stdin/literal db.isMaster() has isWritablePrimary" ;;
*) fail "stdin/literal db.isMaster() has isWritablePrimary" "$out" ;;
esac
out=$(SHARDSH_JS_PLUGIN=/nonexistent/shardsh-js.so "$SHARDSH" --quiet --norc "$SIM_URI" --eval 'rs.conf()' 2>&1)
case $out in
*"MongoServerError[IllegalOperation]: Can't use 'local' database through mongos (code 20)"*)
   pass "stdin/literal rs.conf() fails as mongosh's (IllegalOperation)" ;;
*) fail "stdin/literal rs.conf() fails as mongosh's (IllegalOperation)" "$out" ;;
esac

# literal lines never start the engine; a JavaScript line without it fails alone and the input goes on (exit 0)
out=$(printf 'sh.getBalancerState()\nvar k = 1\nuse app\ndb.getName()\n' |
   SHARDSH_JS_PLUGIN=/nonexistent/shardsh-js.so "$SHARDSH" --quiet --norc "$SIM_URI" 2> "$TMPD/err")
rc=$?
check_eq "stdin/literal lines without the engine" "${P}true
${P}${P}switched to db app
[direct: mongos] app> app
[direct: mongos] app> " "$out"
check_eq "stdin/a failed line does not change the exit status (as mongosh)" "0" "$rc"
check_contains "stdin/the JavaScript line's error names its line" "<stdin>:2:" "$(cat "$TMPD/err")"

# quit(n) ends the run with n and nothing after it runs, as mongosh's process.exit(n); a bare quit: 0
out=$(printf 'print("before")\nquit(3)\nprint("after")\n' | "$SHARDSH" --quiet --norc "$SIM_URI" 2> "$TMPD/err")
rc=$?
check_eq "stdin/quit(3) exits 3" "3" "$rc"
check_not_contains "stdin/nothing runs after quit(3)" "after" "$out"
printf 'quit\n' | "$SHARDSH" --quiet --norc "$SIM_URI" > /dev/null 2>&1
check_eq "stdin/a bare quit exits 0" "0" "$?"

# an error names its line of stdin, also inside a multi-line entry; the next entry runs
out=$(printf 'print(1)\nfunction f() {\n  return undefinedName\n}\nf()\nprint("next")\n' |
   "$SHARDSH" --quiet --norc "$SIM_URI" 2>&1 > /dev/null)
check_contains "stdin/error inside a multi-line entry at its stdin line" "<stdin>:3:" "$out"
out=$(printf 'f()\nprint("next")\n' | "$SHARDSH" --quiet --norc "$SIM_URI" 2> /dev/null)
check_contains "stdin/the line after an error runs" "next" "$out"

# a NUL byte would cut the line short: the line is refused, at its place, and the input goes on
out=$(printf 'print(\000"x")\nprint(2)\n' | "$SHARDSH" --quiet --norc "$SIM_URI" 2>&1)
check_contains "stdin/a NUL byte: the line is refused at its place" "<stdin>:1:7: error: a NUL byte" "$out"
check_contains "stdin/a NUL byte: the next line runs" "${P}2" "$out"

# an entry still open at the end of the input is dropped without a word, as mongosh drops it
out=$(printf 'print(1)\nfunction g() {\n' | "$SHARDSH" --quiet --norc "$SIM_URI" 2>&1)
rc=$?
check_eq "stdin/an open entry at the end: dropped" "${P}1

${P}... " "$out"
check_eq "stdin/an open entry at the end: exit 0" "0" "$rc"

# connected before the first prompt, as mongosh: a cluster that cannot be reached ends the run before any line, exit 1
out=$(printf 'print("ran")\n' | "$SHARDSH" --quiet --norc "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=2000" 2>&1)
rc=$?
check_eq "stdin/unreachable cluster: exit 1" "1" "$rc"
check_eq "stdin/unreachable cluster: said, nothing run" "error: cannot reach 127.0.0.1:1: connection refused" "$out"

# nobody at a terminal: nothing asks for a confirmation (stdin holds the script), and no history is written
out=$(printf 'sh.stopBalancer()\nsh.getBalancerState()\n' | "$SHARDSH" --quiet --norc "$SIM_URI" 2>&1)
check_not_contains "stdin/no confirmation asked" "Proceed" "$out"
check_contains "stdin/the balancer stopped" "${P}false" "$out"
check_contains "stdin/balancerStop sent" '"balancerStop"' "$(cat "$TMPD/cmds.log")"
[ ! -s "$SHARDSH_HISTFILE" ] && pass "stdin/no history written" || fail "stdin/no history written" "$(cat "$SHARDSH_HISTFILE")"

# Ctrl-C ends a pipe's run as it ends a script's, also inside a JavaScript loop (the REPL's handler is for a terminal)
printf 'while (true) {}\n' | timeout -k 3 -s INT 1 env --default-signal=INT "$SHARDSH" --quiet --norc --nodb > /dev/null 2>&1
check_eq "stdin/Ctrl-C ends a loop read from a pipe (124: ended by the INT, not killed after it)" "124" "$?"

# -f - reads standard input as a script: checked whole (a syntax error sends nothing, exit 2)
out=$(printf 'sh.startBalancer()\nsh.getBalancerState(\n' | "$SHARDSH" --quiet --norc "$SIM_URI" -f - 2>&1)
rc=$?
check_eq "stdin/-f - is a script: a parse error, exit 2" "2" "$rc"
check_not_contains "stdin/-f - is a script: no prompt" "test>" "$out"

# --shell: the scripts, then the shell reading standard input; a failed script ends there (exit 1), as mongosh
printf 'print("from file")\nvar fromFile = 7\n' > "$TMPD/pre.js"
out=$(printf 'fromFile * 2\n' | "$SHARDSH" --quiet --norc "$SIM_URI" -f "$TMPD/pre.js" --shell 2>&1)
check_eq "stdin/--shell after -f" "from file
${P}14
${P}" "$out"
out=$(printf 'print("shell ran")\n' | "$SHARDSH" --quiet --norc "$SIM_URI" --eval 'throw new Error("stop")' --shell 2>&1)
rc=$?
check_eq "stdin/--shell after a failed --eval: exit 1" "1" "$rc"
check_not_contains "stdin/--shell after a failed --eval: no shell" "shell ran" "$out"
sim_stop

# --nodb: JavaScript works, a helper that needs a server says why; no connection string goes with it
out=$("$SHARDSH" --norc --quiet --nodb --eval 'print(6 * 7); sh.status()' 2>&1)
rc=$?
check_contains "stdin/--nodb: JavaScript runs" "42" "$out"
check_contains "stdin/--nodb: a helper says there is no database" \
   "<eval>:1:18: error: no connected database: shardsh was started with --nodb" "$out"
check_eq "stdin/--nodb: the failed helper's exit status" "1" "$rc"
# a declaration entered shows its value as mongosh's REPL does; an Int32 or Double made shows its kind
out=$(printf 'function f(a) {\n  return a }\nclass A {}\nfunction g() {} 5\nvar re = /}/; async function h() {}\nNumberInt(3)\n' |
   "$SHARDSH" --norc --quiet --nodb 2>&1)
check_eq "stdin/--nodb: declarations and Int32 shown as mongosh shows them" \
   "$(printf '> ... [Function: f]\n> [class A]\n> 5\n> [AsyncFunction: h]\n> Int32(3)\n> ')" "$out"
out=$("$SHARDSH" --norc --nodb mongodb://127.0.0.1:1 --eval 1 2>&1)
check_eq "stdin/--nodb with a connection string: usage error" \
   "error: --nodb starts no connection: it cannot be combined with a connection string" "$out"
"$SHARDSH" --norc --nodb --dashboard > /dev/null 2>&1
check_eq "stdin/--nodb with --dashboard: exit 2" "2" "$?"

# --authenticationMechanism: the connection's authMechanism, the password never shown
PW='Mech-pw-7q'
if ! sim_start --auth "ann:$PW" --log-commands "$TMPD/auth.log"; then
   fail "stdin/auth start" "shardsim did not start"
   exit 0
fi
out=$("$SHARDSH" --norc --quiet -u ann -p "$PW" --authenticationMechanism SCRAM-SHA-1 "127.0.0.1:$SIM_PORT" \
   --eval 'sh.getBalancerState()' 2>&1)
check_eq "stdin/--authenticationMechanism SCRAM-SHA-1 authenticates" "true" "$out"
mech=$(jq -r 'select(.cmd.speculativeAuthenticate) | .cmd.speculativeAuthenticate.mechanism' "$TMPD/auth.log" | sort -u)
check_eq "stdin/--authenticationMechanism reaches the handshake" "SCRAM-SHA-1" "$mech"
out=$(printf 'print("ran")\n' | "$SHARDSH" --norc --quiet -u ann -p Wrong-pw-3 "127.0.0.1:$SIM_PORT" 2>&1)
rc=$?
check_eq "stdin/refused credentials: exit 1 before any line" "1" "$rc"
check_not_contains "stdin/refused credentials: nothing run" "ran" "$out"
check_not_contains "stdin/refused credentials: password not shown" "Wrong-pw-3" "$out"
out=$("$SHARDSH" --norc --quiet -u ann -p "$PW" --authenticationMechanism PLAIN "127.0.0.1:$SIM_PORT" \
   --eval 'sh.getBalancerState()' 2>&1)
check_contains "stdin/--authenticationMechanism PLAIN: the server's refusal" "mechanism PLAIN which is not enabled" "$out"
check_not_contains "stdin/--authenticationMechanism PLAIN: password not shown" "$PW" "$out"
out=$("$SHARDSH" --norc -u ann -p "$PW" --authenticationMechanism SCRAM-SHA-3 "127.0.0.1:$SIM_PORT" --eval 1 2>&1)
rc=$?
check_eq "stdin/--authenticationMechanism unknown: exit 2" "2" "$rc"
check_contains "stdin/--authenticationMechanism unknown: names the choices" "needs one of SCRAM-SHA-1, SCRAM-SHA-256" "$out"
check_not_contains "stdin/--authenticationMechanism unknown: password not shown" "$PW" "$out"
sim_stop
