#!/bin/sh
# passes: plain asan
# Passwords never reach the screen: --dry-run requests (pwd/password fields at any depth, user:password@ in any
# string, pretty and --json), error messages that echo a connection string (bad URI, unreachable server, a server's
# errmsg), the source line shown under an error, and the dashboard header when there is one. Every case uses a
# distinct secret and fails if it shows up anywhere in stdout or stderr.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1

# secret_absent NAME SECRET OUTPUT [MUST_CONTAIN]
secret_absent() {
   case "$3" in
   *"$2"*) fail "$1" "the password '$2' is shown: [$3]" ;;
   *) if [ -n "$4" ]; then check_contains "$1" "$4" "$3"; else pass "$1"; fi ;;
   esac
}

out=$("$SHARDSH" --dry-run --norc --eval 'db.adminCommand({createUser: "ann", pwd: "Pw-create-1", roles: []})' 2>&1)
secret_absent "secrets/dry-run createUser pwd" "Pw-create-1" "$out" '"pwd" : "****"'

out=$("$SHARDSH" --dry-run --norc --eval \
   'db.getSiblingDB("app").runCommand({updateUser: "ann", PassWord: "Pw-update-2", x: [{password: "Pw-nested-3"}]})' 2>&1)
secret_absent "secrets/dry-run updateUser password (any case)" "Pw-update-2" "$out" '"PassWord" : "****"'
secret_absent "secrets/dry-run password nested in an array" "Pw-nested-3" "$out" '[ { "password" : "****" } ]'

out=$("$SHARDSH" --dry-run --json --norc --eval 'db.adminCommand({createUser: "ann", pwd: "Pw-json-4", roles: []})' 2>&1)
secret_absent "secrets/dry-run --json pwd" "Pw-json-4" "$out" '"pwd" : "****"'

out=$("$SHARDSH" --dry-run --norc --eval 'db.adminCommand({addShard: "rs1/mongodb://bob:Pw-uri-5@h1:27018,h2:27018"})' \
   2>&1)
secret_absent "secrets/dry-run user:password@ in a string" "Pw-uri-5" "$out" 'mongodb://bob:****@h1:27018'

out=$("$SHARDSH" --dry-run --norc --eval 'sh.addShard("mongodb://bob:Pw,with;odd)chars-6@h1:27018")' 2>&1)
secret_absent "secrets/dry-run password with sub-delimiters" "chars-6" "$out" 'bob:****@h1'

# the source line under an error keeps its columns but not the password
# (a character no grammar takes: a bare unknown name is JavaScript now, and fails only when it runs)
out=$("$SHARDSH" --dry-run --norc --eval 'db.adminCommand({createUser: "ann", pwd: "Pw-caret-7", roles: @NOPE})' 2>&1)
rc=$?
check_eq "secrets/parse error still fails" "2" "$rc"
secret_absent "secrets/error source line masks pwd" "Pw-caret-7" "$out" 'pwd: "**********"'
caret_col=$(printf '%s\n' "$out" | awk '/\^/ { print index($0, "^") }')
name_col=$(printf '%s\n' "$out" | awk '/^  db\./ { print index($0, "@NOPE") }')
check_eq "secrets/caret still under the token after masking" "$name_col" "$caret_col"

out=$("$SHARDSH" --dry-run --norc --eval 'print("mongodb://carl:Pw-print-8@h:1/")' --eval 'x y' 2>&1)
secret_absent "secrets/error source line masks user:password@" "Pw-print-8" "$out"

# values shown on stdout: print, printjson, and the value of an --eval (a string, a document)
out=$("$SHARDSH" --dry-run --norc --eval 'const u = "mongodb://v:Pw-value-17@h:1"; print(u); u' \
   --eval 'printjson({user: "v", pwd: "Pw-value-18"}); ({pwd: "Pw-value-18"})' 2>&1)
secret_absent "secrets/print and an --eval string value" "Pw-value-17" "$out" 'mongodb://v:***********@h:1'
secret_absent "secrets/printjson and an --eval document value" "Pw-value-18" "$out" "pwd: '****'"
out=$("$SHARDSH" --dry-run --norc --eval 'printjson([{password: "Pw-value-23"}], "mongodb://v:Pw-value-24@h:1")' 2>&1)
secret_absent "secrets/printjson of an array's document" "Pw-value-23" "$out" "password: '***********'"
secret_absent "secrets/printjson of a connection string" "Pw-value-24" "$out" 'mongodb://v:***********@h:1'
# an array value: its documents and strings are masked as a document's are
out=$("$SHARDSH" --dry-run --norc --eval '[{user: "w", pwd: "Pw-value-19"}, "mongodb://w:Pw-value-20@h:1"]' 2>&1)
secret_absent "secrets/an --eval array value's document" "Pw-value-19" "$out" "pwd: '****'"
secret_absent "secrets/an --eval array value's connection string" "Pw-value-20" "$out" 'mongodb://w:****@h:1'

# connection strings in error messages
out=$("$SHARDSH" --norc 'mongodb://dora:Pw-baduri-9@127.0.0.1:1/?serverSelectionTimeoutMS=zz' --eval 'sh.status()' 2>&1)
secret_absent "secrets/invalid connection string error" "Pw-baduri-9" "$out" 'mongodb://dora:****@'

out=$("$SHARDSH" --norc 'mongodb://erin:Pw-down-10@127.0.0.1:1/?serverSelectionTimeoutMS=300&connectTimeoutMS=300' \
   --eval 'sh.status()' 2>&1)
rc=$?
check_eq "secrets/unreachable server fails" "1" "$rc"
secret_absent "secrets/unreachable server error" "Pw-down-10" "$out"

out=$(SHARDSH_DEBUG=1 "$SHARDSH" --norc \
   'mongodb://ivy:Pw-log-16@127.0.0.1:1/?serverSelectionTimeoutMS=300&connectTimeoutMS=300&bogusOption=1' \
   --eval 'sh.status()' 2>&1)
secret_absent "secrets/driver log lines (SHARDSH_DEBUG=1)" "Pw-log-16" "$out"

out=$("$SHARDSH" --norc --username frank --password Pw-flag-11 \
   'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300&connectTimeoutMS=300' --eval 'sh.status()' 2>&1)
secret_absent "secrets/--password never printed" "Pw-flag-11" "$out"

out=$("$SHARDSH" --dry-run --norc --username frank --password Pw-flag-12 --eval 'sh.status()' 2>&1)
secret_absent "secrets/--password not in --dry-run output" "Pw-flag-12" "$out"

if ! sim_start --scenario demo; then
   skip "secrets/server errors" "shardsim did not start"
else
   # the second createUser of the same user fails at the server (51003): its source line is shown, masked
   out=$("$SHARDSH" --norc "$SIM_URI" --eval 'db.adminCommand({createUser: "ann", pwd: "Pw-server-13", roles: []})' \
      --eval 'db.adminCommand({createUser: "ann", pwd: "Pw-server-13", roles: []})' 2>&1)
   secret_absent "secrets/server error shows the source line masked" "Pw-server-13" "$out" 'pwd: "************"'
   out=$("$SHARDSH" --norc "$SIM_URI" --eval 'sh.addShard("rs9/mongodb://gus:Pw-addshard-14@127.0.0.1:1")' 2>&1)
   secret_absent "secrets/addShard error hides the password" "Pw-addshard-14" "$out"
   # user provisioning (issue 29): the passwords of createUser/updateUser/changeUserPassword in a script, run,
   # planned, dry-run and as --json, and the credentials usersInfo returns with showCredentials (salts and SCRAM keys
   # shown as ****; the value keeps them: its storedKey has its 44 characters)
   cat > "$TMPD/prov.js" << 'EOF2'
const admin = db.getSiblingDB("admin");
admin.createUser({user: "prov", pwd: "Pw-prov-23", roles: ["clusterMonitor"]});
admin.updateUser("prov", {pwd: "Pw-prov-24", customData: {t: 1}});
admin.changeUserPassword("prov", "Pw-prov-25");
const u = admin.getUser("prov", {showCredentials: true});
print(u ? u.credentials["SCRAM-SHA-256"].storedKey.length : "no user");
printjson(u);
admin.getUsers({showCredentials: true});
admin.createUser({user: "prov", pwd: "Pw-prov-26", roles: []});
EOF2
   for mode in "" --json --plan --dry-run; do
      out=$("$SHARDSH" --norc $mode "$SIM_URI" -f "$TMPD/prov.js" 2>&1 < /dev/null)
      for pw in Pw-prov-23 Pw-prov-24 Pw-prov-25 Pw-prov-26; do
         secret_absent "secrets/provisioning ${mode:-run}: $pw" "$pw" "$out"
      done
      case "$out" in
      *"storedKey: '"[A-Za-z0-9+/]*"='"* | *'"storedKey" : "'[A-Za-z0-9+/]*'="'*) fail "secrets/provisioning ${mode:-run}: a SCRAM key is shown" "$out" ;;
      *) pass "secrets/provisioning ${mode:-run}: no SCRAM key shown" ;;
      esac
      "$SHARDSH" --norc --quiet "$SIM_URI" --eval 'db.getSiblingDB("admin").dropAllUsers()' > /dev/null 2>&1
   done
   out=$(SHARDSH_DEBUG=1 "$SHARDSH" --norc "$SIM_URI" -f "$TMPD/prov.js" 2>&1 < /dev/null)
   secret_absent "secrets/provisioning: driver log lines (SHARDSH_DEBUG=1)" "Pw-prov-2" "$out"
   "$SHARDSH" --norc --quiet "$SIM_URI" --eval 'db.getSiblingDB("admin").dropAllUsers()' > /dev/null 2>&1
   check_contains "secrets/provisioning: the value keeps the real key" "44" \
      "$("$SHARDSH" --norc --quiet "$SIM_URI" -f "$TMPD/prov.js" 2>&1 < /dev/null)"
   check_contains "secrets/provisioning: the key is shown as ****" "storedKey: '****'" \
      "$("$SHARDSH" --norc --quiet "$SIM_URI" --eval 'db.getSiblingDB("admin").getUser("prov", {showCredentials: true})' 2>&1)"
   if "$SHARDSH" --help 2>&1 | grep -q -- '--dashboard'; then
      uri_pw=$(echo "$SIM_URI" | sed 's|mongodb://|mongodb://hank:Pw-dash-15@|')
      out=$(TERM=xterm timeout 20 "$SHARDSH" --norc "$uri_pw/?authMechanism=PLAIN" --dashboard --once 2>&1)
      secret_absent "secrets/dashboard header" "Pw-dash-15" "$out"
   else
      skip "secrets/dashboard header" "no --dashboard in this build"
   fi
   sim_stop
fi

# a statement too long for its status line: its secrets are hidden before it is cut, so a connection string whose
# password the cut splits (its '@' beyond the cut) is still masked: literal and JavaScript status lines, --plan
pad=$(printf 'a%.0s' $(seq 1 446))
printf 'db.adminCommand({balancerStop: 1, x: "%s", y: "mongodb://u:Pw-cut-21-long-enough-to-be-cut@h:1"})\n' "$pad" > "$TMPD/cut.js"
printf 'const u = "%s"; db.adminCommand({balancerStop: 1, x: u, y: "mongodb://u:Pw-cut-21-long-enough-to-be-cut@h:1"})\n' "$pad" > "$TMPD/cutjs.js"
out=$("$SHARDSH" --dry-run --norc -f "$TMPD/cut.js" 2>&1)
secret_absent "secrets/a cut status line (literal)" "u:Pw" "$out" "cut.js:1 ok db.adminCommand"
out=$("$SHARDSH" --dry-run --norc -f "$TMPD/cutjs.js" 2>&1)
secret_absent "secrets/a cut status line (JavaScript call)" "u:Pw" "$out" "cutjs.js:1 ok db.adminCommand"

# ---- every output channel, one known password (issue 31) ----
# shardsim --auth knows user ann with the password PW; every channel shardsh writes to runs statements that carry PW
# in each form a password takes (db.auth positional and document, changeUserPassword, createUser's pwd, a field of a
# raw command, a connection string whose password holds '/' and ':') and must not show it: stdout, stderr, -f status
# lines, --json, --plan, --dry-run, the history file, the dashboard's --once --json, the process title (ps) while a
# dashboard runs; and the process gives no core dump.
PW='Pw-known-31'
if ! sim_start --auth "ann:$PW"; then
   skip "secrets/channels" "shardsim --auth did not start"
   exit 0
fi
HP="127.0.0.1:$SIM_PORT"
cat > "$TMPD/pw.js" << EOF2
db.getSiblingDB("admin").auth("ann", "$PW")
db.getSiblingDB("admin").auth({user: "ann", pwd: "$PW", mechanism: "SCRAM-SHA-256"})
db.adminCommand({ping: 1, pwd: "$PW"})
print("mongodb://ann:$PW@$HP/admin")
sh.getBalancerState()
db.getSiblingDB("admin").changeUserPassword("ann", "$PW")
EOF2
all=""
# -f: stdout (print, results) and stderr (status lines)
out=$("$SHARDSH" --norc "mongodb://$HP/?serverSelectionTimeoutMS=3000" -f "$TMPD/pw.js" 2>&1 < /dev/null)
all="$all$out"
# (reads and db.auth have no status line: the write at the end has, once the reads before it ran)
check_contains "secrets/channels: db.auth really authenticates (the reads and the write after it run)" \
   'pw.js:6 ok db.getSiblingDB("admin").changeUserPassword(' "$out"
secret_absent "secrets/channels: -f stdout and status lines" "$PW" "$out" \
   'pw.js:6 ok db.getSiblingDB("admin").changeUserPassword("ann", "***********")'
out=$("$SHARDSH" --norc --json "mongodb://$HP/?serverSelectionTimeoutMS=3000" -f "$TMPD/pw.js" 2>&1 < /dev/null)
all="$all$out"
secret_absent "secrets/channels: --json statement, errmsg and result fields" "$PW" "$out" '"statement" : "db.adminCommand({ping: 1, pwd: \"***********\"})"'
out=$("$SHARDSH" --norc --plan "mongodb://ann:$PW@$HP/?serverSelectionTimeoutMS=3000" -f "$TMPD/pw.js" 2>&1 < /dev/null)
all="$all$out"
secret_absent "secrets/channels: --plan lines" "$PW" "$out" 'pw.js:6 db.getSiblingDB("admin").changeUserPassword("ann", "***********")'
pad=$(printf 'a%.0s' $(seq 1 410))
printf 'db.getSiblingDB("config").settings.updateOne({_id: "zz"}, {$set: {x: "%s", y: "mongodb://u:Pw-cut-22-long-enough-to-be-cut@h:1"}}, {upsert: true})\n' \
   "$pad" > "$TMPD/cutplan.js"
out=$("$SHARDSH" --norc --plan "mongodb://ann:$PW@$HP/?serverSelectionTimeoutMS=3000" -f "$TMPD/cutplan.js" 2>&1 < /dev/null)
secret_absent "secrets/channels: a cut --plan line" "u:Pw" "$out" 'cutplan.js:1'
out=$("$SHARDSH" --norc --dry-run -u ann -p "$PW" -f "$TMPD/pw.js" 2>&1 < /dev/null)
all="$all$out"
secret_absent "secrets/channels: --dry-run requests and status lines" "$PW" "$out" '"pwd" : "****"'
out=$("$SHARDSH" --norc "mongodb://$HP/?serverSelectionTimeoutMS=3000" --eval "db.getSiblingDB(\"admin\").auth(\"ann\", \"$PW\")" \
   --eval 'sh.getBalancerState()' 2>&1 < /dev/null)
all="$all$out"
check_contains "secrets/channels: --eval db.auth answers { ok: 1 }" "{ ok: 1 }" "$out"
# a writing script's db.auth runs before its pre-flight reads: a wrong password stops it there, at its line
printf 'db.getSiblingDB("admin").auth("ann", "Pw-wrong-34")\nsh.stopBalancer()\n' > "$TMPD/badauth.js"
out=$("$SHARDSH" --norc "mongodb://$HP/?serverSelectionTimeoutMS=3000" -f "$TMPD/badauth.js" 2>&1 < /dev/null)
check_contains "secrets/channels: a wrong db.auth stops the script before its pre-flight, at its line" \
   "badauth.js:1:26: MongoServerError[AuthenticationFailed]" "$out"
secret_absent "secrets/channels: the wrong password is not shown" "Pw-wrong-34" "$out"
# createUser and changeUserPassword really change what the cluster accepts; db.auth then authenticates as that user
out=$("$SHARDSH" --norc "mongodb://ann:$PW@$HP/?serverSelectionTimeoutMS=3000" \
   --eval 'db.getSiblingDB("admin").createUser({user: "cu", pwd: "Pw-created-32", roles: ["root"]})' \
   --eval 'db.getSiblingDB("admin").changeUserPassword("cu", "Pw-changed-33")' \
   --eval 'db.getSiblingDB("admin").auth("cu", "Pw-changed-33")' --eval 'db.adminCommand({connectionStatus: 1})' 2>&1)
check_contains "secrets/channels: auth as the user createUser made, with changeUserPassword's password" "user: 'cu'" \
   "$out"
secret_absent "secrets/channels: createUser's password" "Pw-created-32" "$out"
secret_absent "secrets/channels: changeUserPassword's password" "Pw-changed-33" "$out"
# a password left out, with no terminal to ask on: said so, nothing sent, nothing shown
out=$(setsid "$SHARDSH" --norc "mongodb://$HP/?serverSelectionTimeoutMS=3000" --eval 'db.getSiblingDB("admin").auth("ann")' \
   2>&1 < /dev/null)
check_contains "secrets/channels: db.auth(user) without a terminal says so" "no terminal to ask for it" "$out"
# a connection string whose password holds '/' and ':' (invalid unless escaped): refused before anything runs, the
# dashboard's included (a usage error on stderr, as any other)
out=$("$SHARDSH" --norc "mongodb://ann:Pw/sl:ash-31@$HP/?serverSelectionTimeoutMS=300" --eval 'sh.status()' 2>&1)
secret_absent "secrets/channels: invalid connection string, '/' and ':' in the password" "sl:ash" "$out" 'ann:****@'
out=$("$SHARDSH" --norc "mongodb://ann:Pw/sl:ash-31@$HP/?serverSelectionTimeoutMS=300" --dashboard --once --json 2>&1)
secret_absent "secrets/channels: dashboard --once --json error" "sl:ash" "$out" "invalid connection string 'mongodb://ann:****@"
out=$("$SHARDSH" --norc "mongodb://ann:$PW@$HP/?serverSelectionTimeoutMS=3000" --dashboard --once --json 2>&1)
all="$all$out"
secret_absent "secrets/channels: dashboard --once --json" "$PW" "$out" '"cluster"'
# the process title while a dashboard runs, and no core dump
"$SHARDSH" --norc -u ann -p "$PW" "mongodb://ann:$PW@$HP/?serverSelectionTimeoutMS=3000" --dashboard -d 1 -n 30 \
   > /dev/null 2>&1 < /dev/null &
dash=$!
i=0
while [ $i -lt 50 ] && ! grep -q 'dashboard' "/proc/$dash/cmdline" 2> /dev/null; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
title=$(ps -o args= -p "$dash" 2> /dev/null)
cmdline=$(tr '\0' ' ' < "/proc/$dash/cmdline" 2> /dev/null)
core=$(awk '/Max core file size/ { print $5 }' "/proc/$dash/limits" 2> /dev/null)
kill "$dash" 2> /dev/null
wait "$dash" 2> /dev/null
secret_absent "secrets/channels: ps never shows -p or the connection string's password" "$PW" "$title" '-p ***********'
secret_absent "secrets/channels: /proc/PID/cmdline neither" "$PW" "$cmdline" "mongodb://ann:***********@"
check_eq "secrets/channels: no core dump (RLIMIT_CORE 0)" "0" "$core"
# ---- second connections, piped standard input, --eval (issue 40) ----
# the password in Mongo("mongodb://u:pw@…"), connect(uri) and connect(uri, user, pwd), updateUser and createUser of
# a script, in each mode (plain, --json, --plan, --dry-run); then the same forms failing (an unreachable host, an
# invalid option libmongoc warns about, a wrong password, a server error) in piped input, which goes on after each
# error, with the driver's log lines on (SHARDSH_DEBUG=1) and a history file named (piped input keeps none)
cat > "$TMPD/conn2.js" << EOF2
const m = new Mongo("mongodb://ann:$PW@$HP/admin?serverSelectionTimeoutMS=3000");
print(m.getURI());
printjson(m.getDB("admin").runCommand({connectionStatus: 1}).authInfo.authenticatedUsers)
m.getDB("config").settings.updateOne({_id: "h40s"}, {\$set: {v: 1}}, {upsert: true})
const d2 = connect("mongodb://ann:$PW@$HP/admin?serverSelectionTimeoutMS=3000");
d2.getSiblingDB("config").settings.updateOne({_id: "h40s"}, {\$set: {v: 2, note: "mongodb://ann:$PW@$HP"}})
const d3 = connect("$HP/admin", "ann", "$PW"); d3.runCommand({ping: 1})
print("d3 users:", JSON.stringify(d3.runCommand({connectionStatus: 1}).authInfo.authenticatedUsers))
db.getSiblingDB("admin").updateUser("ann", {pwd: "$PW"})
db.getSiblingDB("admin").createUser({user: "cu40", pwd: "$PW", roles: []})
EOF2
for mode in "" --json --plan --dry-run; do
   out=$("$SHARDSH" --norc $mode "mongodb://ann:$PW@$HP/?serverSelectionTimeoutMS=3000" -f "$TMPD/conn2.js" 2>&1 < /dev/null)
   all="$all$out"
   [ -z "$mode" ] && plain=$out
   secret_absent "secrets/second connections: Mongo(), connect(), updateUser, createUser (${mode:-plain})" "$PW" \
      "$out" 'mongodb://ann:****@'
done
check_contains "secrets/second connections: Mongo() with a password authenticates" "user: 'ann'" "$plain"
check_contains "secrets/second connections: connect(uri, user, pwd) authenticates as user" \
   'd3 users: [{"user":"ann","db":"admin"}]' "$plain"
check_contains "secrets/second connections: the script ran to its end" "conn2.js:10 ok db.getSiblingDB('admin').createUser(" \
   "$plain"
cat > "$TMPD/piped.txt" << EOF2
connect("127.0.0.1:1/admin?serverSelectionTimeoutMS=200", "ann", "$PW").runCommand({ping: 1})
Mongo("mongodb://ann:$PW@127.0.0.1:1/admin?serverSelectionTimeoutMS=200").getDB("admin").runCommand({ping: 1})
Mongo("mongodb://ann:$PW@$HP/admin?serverSelectionTimeoutMS=zz&bogusOption=1")
Mongo("mongodb://ann:$PW-x@$HP/admin").getDB("admin").runCommand({connectionStatus: 1})
db.getSiblingDB("admin").auth("ann", "$PW")
db.getSiblingDB("admin").createUser({user: "ann", pwd: "$PW", roles: []})
db.getSiblingDB("admin").changeUserPassword("ann", "$PW")
print("piped input ran to its end")
EOF2
out=$(SHARDSH_DEBUG=1 SHARDSH_HISTFILE="$TMPD/piped.hist" "$SHARDSH" --norc "mongodb://$HP/?serverSelectionTimeoutMS=3000" \
   < "$TMPD/piped.txt" 2>&1)
all="$all$out"
check_contains "secrets/piped input: each failing form is reported" "AuthenticationFailed" "$out"
secret_absent "secrets/piped input: failing Mongo()/connect(), driver log, server errors" "$PW" "$out" \
   'connect("127.0.0.1:1/admin?serverSelectionTimeoutMS=200", "ann", "***********")'
secret_absent "secrets/piped input: no history holds it" "$PW" "$(cat "$TMPD/piped.hist" 2> /dev/null)"
# the REPL: the password asked for is not echoed; the history file never holds any form of it
if command -v tmux > /dev/null 2>&1; then
   tui_server
   TUI_PANE=s TUI_TENTHS=150
   HIST="$TMPD/history"
   $TM new-session -d -s s -x 150 -y 40 "SHARDSH_HISTFILE=$HIST NO_COLOR=1 $(pwd)/$SHARDSH --norc mongodb://$HP/?serverSelectionTimeoutMS=3000; echo EXITED=\$?; sleep 30"
   wait_for 'test>' || fail "secrets/channels: REPL starts" "$(screen | tail -3)"
   $TM send-keys -t s 'db.getSiblingDB("admin").auth("ann")' Enter
   if wait_for 'Enter password:'; then
      pass "secrets/channels: db.auth(user) asks for the password in a terminal"
   else
      fail "secrets/channels: db.auth(user) asks for the password in a terminal" "$(screen | tail -3)"
   fi
   $TM send-keys -t s "$PW" Enter
   wait_for '{ ok: 1 }' || fail "secrets/channels: the asked password authenticates" "$(screen | tail -3)"
   $TM send-keys -t s 'sh.getBalancerState()' Enter
   wait_for 'true' || fail "secrets/channels: the authenticated session reads" "$(screen | tail -3)"
   $TM send-keys -t s "db.getSiblingDB(\"admin\").auth(\"ann\", \"$PW\")" Enter
   $TM send-keys -t s "db.getSiblingDB(\"admin\").changeUserPassword(\"ann\", \"$PW\")" Enter
   $TM send-keys -t s "db.adminCommand({ping: 1, pwd: \"$PW\"})" Enter
   $TM send-keys -t s 'sh.isBalancerRunning()' Enter
   wait_for 'inBalancerRound' || fail "secrets/channels: REPL statements ran" "$(screen | tail -3)"
   $TM send-keys -t s 'exit' Enter
   wait_for 'EXITED=0' || fail "secrets/channels: REPL exits" "$(screen | tail -3)"
   shown=$(TUI_CAPTURE="-S -200" screen)
   $TM kill-server 2> /dev/null
   # the typed lines echo as typed (the terminal's own echo): only the asked password and the history are checked
   case "$shown" in
   *"Enter password: $PW"* | *"password:$PW"*) fail "secrets/channels: the asked password is not echoed" "$shown" ;;
   *) pass "secrets/channels: the asked password is not echoed" ;;
   esac
   secret_absent "secrets/channels: history file" "$PW" "$(cat "$HIST" 2> /dev/null)" 'sh.isBalancerRunning()'
   check_not_contains "secrets/channels: history leaves out every auth( line" 'auth(' "$(cat "$HIST" 2> /dev/null)"
else
   skip "secrets/channels: REPL" "tmux is not installed"
fi
secret_absent "secrets/channels: nothing above shows it" "$PW" "$all"
sim_stop
