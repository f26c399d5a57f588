#!/bin/sh
# passes: plain
# Peer check of standard input read as mongosh 2.12.0 reads it (a heredoc, a pipe): the same lines go to mongosh and to
# shardsh, with --eval and --shell first, against one shardsim --scenario demo (8.0); then --nodb, an unreachable
# cluster, and --authenticationMechanism against shardsim --auth. What they write to
# stdout must be the same byte for byte (prompts, `use`, literal statements, JavaScript, multi-line entries, cursors of
# both kinds and `it`, Node's require and a Buffer shown, the empty line after an undefined value, the final prompt), and so must the exit status (0: a
# failed line does not stop the input). One difference is allowed: mongosh writes an error as "Uncaught ..." on stdout where shardsh writes it as
# <stdin>:LINE:COL on stderr (docs/javascript.md), so mongosh's "Uncaught" lines are taken out of its stdout.
# One mongosh process per run (starting one costs ~1.5 s of CPU).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh
. tests/peer/lib.sh

ensure_mongosh stdin-peer || exit 0

cat > "$TMPD/in.txt" << 'EOF'
x
use test
var n = 1
print(n)
n + 1
y.z
print("after")

// a comment
print(2); print(3)
sleep(1)
printjson({ a: 1 })
use app
db.stores.find().limit(1)
it
sh.getBalancerState()
db.adminCommand({ nope: 1 })
db.adminCommand({
  ping: 1
})
var doc = {
  a: 1,
  b: [1, 2]
}
doc
for (let i = 0; i < 2; i++) {
  print("i", i)
}
db.getName()
var c = db.users.find({}, { _id: 0 }).sort({ uid: 1 })
c
it
db.orders.find().sort({ _id: 1 }).limit(25)
it
require("path").join("a", "b")
Buffer.from("hi")
Timestamp({ t: 1, i: 2 }).getHighBits()
exit
print("not run")
EOF

# mongosh_norm FILE: mongosh's stdout without its "Uncaught ..." error lines (shardsh writes errors on stderr)
mongosh_norm() { perl -0pe 's/Uncaught[^\n]*\n//g' "$1"; }

if ! sim_start --scenario demo --version 8.0; then
   fail "stdin-peer/start" "shardsim did not start"
   exit 0
fi
# --eval as operators write it: several statements, a printjson, quotes of both kinds, then a value
EVAL='var x = 5; print("from eval"); printjson(db.adminCommand({ listShards: 1 }).shards.length); print("it'"'"'s \"quoted\""); x + 1'
"$MONGOSH" --norc --quiet "$SIM_URI/test" --eval "$EVAL" --shell < "$TMPD/in.txt" > "$TMPD/m.out" 2> "$TMPD/m.err"
echo $? > "$TMPD/m.rc"
NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI" --eval "$EVAL" --shell < "$TMPD/in.txt" > "$TMPD/s.out" 2> "$TMPD/s.err"
echo $? > "$TMPD/s.rc"
# --eval one-liners of operators' scripts and cron jobs, each as `shardsh URI --eval LINE` against what
# `mongosh URI --eval LINE` prints (one mongosh for all: tests/peer/lib.sh's mongosh_batch); an error as mongosh's
# message (shardsh adds the place), the connection count as a number (the clients open different numbers);
# sh.status() is left out: the batch's print() shows its result unlike --eval (a real --eval of each prints the same)
cat > "$TMPD/evals.txt" << 'EOF'
rs.status().ok
db.serverStatus().connections.current > 0
sh.getBalancerState() ? "balancer on" : "balancer off"
db.adminCommand({ listShards: 1 }).shards.map((s) => s._id).join(",")
db.getSiblingDB("config").shards.countDocuments({ draining: true }) === 0 ? "no shard draining" : "draining"
"it's " + 'a "quoted" ' + `${db.getName()}`
EOF
mkdir -p "$TMPD/evals.m"
mongosh_batch "$SIM_URI/test" "$TMPD/evals.txt" "$TMPD/evals.m"
n=0
while IFS= read -r line; do
   n=$((n + 1))
   NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI/test" --eval "$line" > "$TMPD/eval.$n.out" 2> "$TMPD/eval.$n.err" < /dev/null
   if grep -q '^[A-Za-z]*Error: ' "$TMPD/evals.m/$n.out"; then
      check_contains "stdin-peer/--eval '$line': fails as mongosh does" \
         "$(sed -n 's/^[A-Za-z]*Error: //p' "$TMPD/evals.m/$n.out" | head -n 1)" "$(cat "$TMPD/eval.$n.err")"
   else
      check_eq "stdin-peer/--eval '$line': prints what mongosh prints" "$(cat "$TMPD/evals.m/$n.out")" "$(cat "$TMPD/eval.$n.out")"
   fi
done < "$TMPD/evals.txt"
sim_stop
mongosh_norm "$TMPD/m.out" > "$TMPD/m.norm"
if cmp -s "$TMPD/m.norm" "$TMPD/s.out"; then
   pass "stdin-peer/--eval --shell then piped lines: stdout as mongosh's"
else
   fail "stdin-peer/--eval --shell then piped lines: stdout as mongosh's" \
      "$(diff "$TMPD/m.norm" "$TMPD/s.out" | head -n 20 | tr '\n' '|')"
fi
check_eq "stdin-peer/exit status as mongosh's" "$(cat "$TMPD/m.rc")" "$(cat "$TMPD/s.rc")"
check_contains "stdin-peer/mongosh reports the ReferenceError" "ReferenceError: y is not defined" "$(cat "$TMPD/m.out")"
check_contains "stdin-peer/shardsh reports it at its line of stdin" "<stdin>:6:1: error: ReferenceError: y is not defined" \
   "$(cat "$TMPD/s.err")"
check_contains "stdin-peer/shardsh reports the server error at its line" \
   "<stdin>:17:4: MongoServerError[CommandNotFound]: no such command: 'nope' (code 59)" "$(cat "$TMPD/s.err")"

# --nodb: JavaScript and print work, what needs a server fails, the prompt is "> "
# and a function or class declaration shows its value, as mongosh shows it ([Function: f], [class A], the last one),
# an Int32 or Double its kind
printf 'print(1)\n1 + 1\nsh.status()\ndb.foo.find()\nvar t = "a" + "b"\nt\n' > "$TMPD/nodb.txt"
cat >> "$TMPD/nodb.txt" << 'EOF'
function f(a) {
  return a }
async function g() {}
function h() {} 5
class A {}
function k() {} function k2() {}
var z = function () {}
function* gen() {}
function q() { return "}" } // a comment
var re = /}/; function r() {}
f
typeof it
NumberInt(3)
var q = Double(2.5)
q
EOF
"$MONGOSH" --norc --quiet --nodb < "$TMPD/nodb.txt" > "$TMPD/mn.out" 2> "$TMPD/mn.err"
echo $? > "$TMPD/mn.rc"
NO_COLOR=1 "$SHARDSH" --norc --quiet --nodb < "$TMPD/nodb.txt" > "$TMPD/sn.out" 2> "$TMPD/sn.err"
echo $? > "$TMPD/sn.rc"
mongosh_norm "$TMPD/mn.out" > "$TMPD/mn.norm"
if cmp -s "$TMPD/mn.norm" "$TMPD/sn.out"; then
   pass "stdin-peer/--nodb: stdout as mongosh's"
else
   fail "stdin-peer/--nodb: stdout as mongosh's" "$(diff "$TMPD/mn.norm" "$TMPD/sn.out" | head -n 20 | tr '\n' '|')"
fi
check_eq "stdin-peer/--nodb: exit status as mongosh's" "$(cat "$TMPD/mn.rc")" "$(cat "$TMPD/sn.rc")"
check_contains "stdin-peer/--nodb: mongosh has no database" "No connected database" "$(cat "$TMPD/mn.out")"
check_contains "stdin-peer/--nodb: nor has shardsh" \
   "<stdin>:3:4: error: no connected database: shardsh was started with --nodb" "$(cat "$TMPD/sn.err")"

# a cluster that cannot be reached: both end before the first line, exit 1
printf 'print("ran")\n' | "$MONGOSH" --norc --quiet "mongodb://127.0.0.1:1/test" > "$TMPD/mu.out" 2>&1
mrc=$?
printf 'print("ran")\n' | "$SHARDSH" --norc --quiet "mongodb://127.0.0.1:1" > "$TMPD/su.out" 2>&1
check_eq "stdin-peer/unreachable: exit status as mongosh's" "$mrc" "$?"
check_not_contains "stdin-peer/unreachable: mongosh runs nothing" "ran" "$(cat "$TMPD/mu.out")"
check_not_contains "stdin-peer/unreachable: nor does shardsh" "ran" "$(cat "$TMPD/su.out")"

# --authenticationMechanism: both clients authenticate with the mechanism asked for (the handshake's
# speculativeAuthenticate names it) and print the same
PW='Peer-mech-9x'
if ! sim_start --auth "ann:$PW" --log-commands "$TMPD/auth.log"; then
   fail "stdin-peer/auth start" "shardsim did not start"
   exit 0
fi
mechs() { jq -r 'select(.cmd.speculativeAuthenticate) | .cmd.speculativeAuthenticate.mechanism' | sort -u | tr '\n' ' '; }
printf 'sh.getBalancerState()\n' > "$TMPD/auth.txt"
"$MONGOSH" --norc --quiet -u ann -p "$PW" --authenticationMechanism SCRAM-SHA-1 "$SIM_URI" < "$TMPD/auth.txt" \
   > "$TMPD/ma.out" 2>&1
from=$(wc -l < "$TMPD/auth.log")
NO_COLOR=1 "$SHARDSH" --norc --quiet -u ann -p "$PW" --authenticationMechanism SCRAM-SHA-1 "$SIM_URI" \
   < "$TMPD/auth.txt" > "$TMPD/sa.out" 2>&1
sim_stop
check_eq "stdin-peer/--authenticationMechanism: the same output" "$(cat "$TMPD/ma.out")" "$(cat "$TMPD/sa.out")"
check_eq "stdin-peer/--authenticationMechanism: mongosh's mechanism" "SCRAM-SHA-1 " \
   "$(head -n "$from" "$TMPD/auth.log" | mechs)"
check_eq "stdin-peer/--authenticationMechanism: shardsh's, the same" "SCRAM-SHA-1 " \
   "$(tail -n +"$((from + 1))" "$TMPD/auth.log" | mechs)"
check_not_contains "stdin-peer/--authenticationMechanism: no password shown" "$PW" "$(cat "$TMPD/sa.out")"
