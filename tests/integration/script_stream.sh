#!/bin/sh
# passes: plain asan
# The statement path of a long -f script (issue 20), on shardsim: its status lines on a stderr that is not a terminal
# are batched, yet stdout and stderr sent to one file keep the order the statements ran in (a print's line before the
# next write's status line, every status line before the next print, the error and the run summary last); reads that
# work have no status line; a script longer than
# the validated-requests queue (4,096) sends every statement once, in order; results nobody sees are not printed.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1
ROOT=$(pwd)
SH="$ROOT/$SHARDSH"

if ! sim_start --scenario empty --log-commands "$TMPD/cmds.log"; then
   fail "script_stream/shardsim" "shardsim did not start"
   exit 0
fi
cd "$TMPD" || exit 2

cat > mix.js << 'JS'
db.getSiblingDB("app").mix.insertOne({_id: 1})
print("one")
db.getSiblingDB("app").mix.insertOne({_id: 2})
printjson({a: 1})
db.adminCommand({ping: 1})
db.getSiblingDB("app").mix.insertOne({_id: 3})
db.adminCommand({nosuchcmd: 1})
db.adminCommand({ping: 1})
JS
"$SH" --norc --yes "$SIM_URI" -f mix.js > mix.out 2>&1
check_eq "script_stream/2>&1: exit 1 on the failed statement" 1 "$?"
# status lines for the writes and for the read that failed (issue 30): prints and the read that worked have none
check_eq "script_stream/2>&1: prints, status lines, the error and the summary in the order they happened" \
   'mix.js:1 ok db.getSiblingDB("app").mix.insertOne({_id: 1})
one
mix.js:3 ok db.getSiblingDB("app").mix.insertOne({_id: 2})
{
  a: 1
}
mix.js:6 ok db.getSiblingDB("app").mix.insertOne({_id: 3})
mix.js:7 error 59 CommandNotFound: no such command: '\''nosuchcmd'\''
mix.js:7:4: MongoServerError[CommandNotFound]: no such command: '\''nosuchcmd'\'' (code 59)
  db.adminCommand({nosuchcmd: 1})
     ^
summary: ran mix.js:1, mix.js:2, mix.js:3, mix.js:4, mix.js:5, mix.js:6; failed mix.js:7; did not run: mix.js:8' \
   "$(cat mix.out)"

# 5,000 statements, each a different command document: more than the queue of validated requests holds
awk 'BEGIN { for (i = 1; i <= 5000; i++) printf "db.adminCommand({ping: 1, comment: \"s%d\"})\n", i }' > long.js
: > "$TMPD/cmds.log"
"$SH" --norc --yes "$SIM_URI" -f long.js > long.out 2> long.err
check_eq "script_stream/5,000 statements: exit 0" 0 "$?"
check_eq "script_stream/5,000 statements: nothing on stdout (results are not shown)" "" "$(cat long.out)"
# reads: no status line (issue 30: a report over 500 collections is not 1,000 lines on stderr)
check_eq "script_stream/5,000 statements: reads leave stderr empty" "" "$(cat long.err)"
check_eq "script_stream/5,000 statements: each command sent once, in order" \
   "$(awk 'BEGIN { for (i = 1; i <= 5000; i++) printf "s%d\n", i }')" \
   "$(grep -a -o '"ping" : { "$numberInt" : "1" }, "comment" : "s[0-9]*"' "$TMPD/cmds.log" | sed 's/.*"comment" : "//; s/"$//')"
cd "$ROOT" || exit 2
sim_stop
