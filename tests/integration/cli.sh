#!/bin/sh
# passes: plain asan
# The three ways to run shardsh without a prompt (--eval, -f and positional *.js, standard input), their exit codes,
# --json, --continue-on-error and the rc file, mostly under --dry-run so no cluster is needed; the server-error
# cases run against shardsim.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1

out=$(echo 'sh.stopBalancer()' | "$SHARDSH" --dry-run --norc 2>&1)
check_eq "cli/stdin is a script when not a terminal" \
   '[dry-run] <stdin>:1 admin { "balancerStop" : 1, "maxTimeMS" : 60000 }' "$out"

out=$("$SHARDSH" --dry-run --norc --eval 'sh.startBalancer()' --eval 'sh.stopBalancer(5)' 2>&1)
check_eq "cli/--eval is repeatable and runs in order" \
   '[dry-run] <eval>:1 admin { "balancerStart" : 1, "maxTimeMS" : 60000 }
[dry-run] <eval>:1 admin { "balancerStop" : 1, "maxTimeMS" : 5 }' "$out"

printf 'sh.addShardToZone("shard01", "A")\n' > "$TMPD/one.js"
printf 'sh.addShardToZone("shard02", "B")\n' > "$TMPD/two.js"
out=$("$SHARDSH" --dry-run --norc "$TMPD/one.js" -f "$TMPD/two.js" 2> /dev/null | grep -c addShardToZone)
check_eq "cli/positional .js files and -f both run" "2" "$out"

out=$("$SHARDSH" --dry-run --json --norc --eval 'sh.moveChunk("a.b", {x: NumberLong(5)}, "s2")' 2>&1)
check_eq "cli/--json dry-run prints one JSON document, canonical" \
   '{"dryRun": true, "file": "<eval>", "line": 1, "db": "admin", "command": { "moveChunk" : "a.b", "find" : { "x" : { "$numberLong" : "5" } }, "to" : "s2" }}' "$out"

# a parse error in the second input stops everything before the first runs
printf 'sh.stopBalancer()\nsh.stopBalancer(\n' > "$TMPD/bad.js"
out=$("$SHARDSH" --dry-run --norc --eval 'sh.startBalancer()' -f "$TMPD/bad.js" 2>&1)
rc=$?
check_eq "cli/parse error exits 2" "2" "$rc"
check_not_contains "cli/parse error anywhere sends nothing" "balancerStart" "$out"
check_contains "cli/parse error names file:line:col" "bad.js:2:" "$out"

out=$("$SHARDSH" --bogus 2>&1)
rc=$?
check_eq "cli/unknown option exits 2" "2" "$rc"
check_contains "cli/unknown option is named" "unknown option '--bogus'" "$out"

mkdir -p "$HOME"
echo 'print("rc file ran")' > "$HOME/.shardshrc"
out=$(printf 'print("script ran")\n' | "$SHARDSH" --dry-run 2>&1)
check_eq "cli/rc file is not run for scripts" "script ran" "$out"
rm -f "$HOME/.shardshrc"

# against the simulated cluster: a failing statement stops the script with exit 1 and file:line: (--no-preflight, so
# the server's error is what stops it; the pre-flight's exit 2 for the same script is checked first)
if sim_start --scenario demo; then
   printf 'sh.getBalancerState()\nsh.moveChunk("app.nosuch", {x: 1}, "shard02")\nprint("after")\n' > "$TMPD/fail.js"
   out=$("$SHARDSH" --norc "$SIM_URI" -f "$TMPD/fail.js" 2>&1)
   rc=$?
   check_eq "cli/pre-flight refuses an unsharded namespace with exit 2" "2" "$rc"
   check_contains "cli/pre-flight names the namespace" "app.nosuch is not a sharded collection" "$out"
   out=$("$SHARDSH" --norc --no-preflight "$SIM_URI" -f "$TMPD/fail.js" 2>&1)
   rc=$?
   check_eq "cli/server error exits 1" "1" "$rc"
   check_contains "cli/server error names file:line:" "fail.js:2:" "$out"
   check_contains "cli/server error shows MongoServerError and codeName" "MongoServerError[" "$out"
   check_not_contains "cli/server error stops the script" "after" "$out"
   out=$("$SHARDSH" --norc --no-preflight --continue-on-error "$SIM_URI" -f "$TMPD/fail.js" 2>&1)
   rc=$?
   check_contains "cli/--continue-on-error runs the rest" "after" "$out"
   check_eq "cli/--continue-on-error still exits 1" "1" "$rc"
   sim_stop
else
   fail "cli/simulated cluster" "shardsim did not start"
fi

out=$("$SHARDSH" --norc --eval 'sh.getBalancerState()' 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300' 2>&1)
rc=$?
check_eq "cli/unreachable server exits 1" "1" "$rc"
check_contains "cli/unreachable server error says where" "<eval>:1:4" "$out"
