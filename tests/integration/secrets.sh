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
   out=$("$SHARDSH" --norc "$SIM_URI" --eval 'db.adminCommand({createUser: "ann", pwd: "Pw-server-13", roles: []})' 2>&1)
   secret_absent "secrets/server error shows the source line masked" "Pw-server-13" "$out" 'pwd: "************"'
   out=$("$SHARDSH" --norc "$SIM_URI" --eval 'sh.addShard("rs9/mongodb://gus:Pw-addshard-14@127.0.0.1:1")' 2>&1)
   secret_absent "secrets/addShard error hides the password" "Pw-addshard-14" "$out"
   if "$SHARDSH" --help 2>&1 | grep -q -- '--dashboard'; then
      uri_pw=$(echo "$SIM_URI" | sed 's|mongodb://|mongodb://hank:Pw-dash-15@|')
      out=$(TERM=xterm timeout 20 "$SHARDSH" --norc "$uri_pw/?authMechanism=PLAIN" --dashboard --once 2>&1)
      secret_absent "secrets/dashboard header" "Pw-dash-15" "$out"
   else
      skip "secrets/dashboard header" "no --dashboard in this build"
   fi
   sim_stop
fi
