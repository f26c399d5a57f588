#!/bin/sh
# passes: plain asan
# The statement path of a long -f script (issue 20), on shardsim: its status lines on a stderr that is not a terminal
# are batched, yet stdout and stderr sent to one file keep the order the statements ran in (a print's line before its
# status line, every status line before the next print, the error and the run summary last); a script longer than
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
db.adminCommand({ping: 1})
print("one")
db.adminCommand({ping: 1})
printjson({a: 1})
db.adminCommand({ping: 1})
db.adminCommand({nosuchcmd: 1})
db.adminCommand({ping: 1})
JS
"$SH" --norc --yes "$SIM_URI" -f mix.js > mix.out 2>&1
check_eq "script_stream/2>&1: exit 1 on the failed statement" 1 "$?"
check_eq "script_stream/2>&1: prints, status lines, the error and the summary in the order they happened" \
   'mix.js:1 ok db.adminCommand({ping: 1})
one
mix.js:2 ok print("one")
mix.js:3 ok db.adminCommand({ping: 1})
{
  a: 1
}
mix.js:4 ok printjson({a: 1})
mix.js:5 ok db.adminCommand({ping: 1})
mix.js:6 error 59 CommandNotFound: no such command: '\''nosuchcmd'\''
mix.js:6:4: MongoServerError[CommandNotFound]: no such command: '\''nosuchcmd'\'' (code 59)
  db.adminCommand({nosuchcmd: 1})
     ^
summary: ran mix.js:1, mix.js:2, mix.js:3, mix.js:4, mix.js:5; failed mix.js:6; did not run: mix.js:7' \
   "$(cat mix.out)"

# 5,000 statements, each a different command document: more than the queue of validated requests holds
awk 'BEGIN { for (i = 1; i <= 5000; i++) printf "db.adminCommand({ping: 1, comment: \"s%d\"})\n", i }' > long.js
: > "$TMPD/cmds.log"
"$SH" --norc --yes "$SIM_URI" -f long.js > long.out 2> long.err
check_eq "script_stream/5,000 statements: exit 0" 0 "$?"
check_eq "script_stream/5,000 statements: nothing on stdout (results are not shown)" "" "$(cat long.out)"
check_eq "script_stream/5,000 statements: a status line each, in order" \
   "$(awk 'BEGIN { for (i = 1; i <= 5000; i++) printf "long.js:%d ok db.adminCommand({ping: 1, comment: \"s%d\"})\n", i, i }')" \
   "$(cat long.err)"
check_eq "script_stream/5,000 statements: each command sent once, in order" \
   "$(awk 'BEGIN { for (i = 1; i <= 5000; i++) printf "s%d\n", i }')" \
   "$(grep -a -o '"ping" : { "$numberInt" : "1" }, "comment" : "s[0-9]*"' "$TMPD/cmds.log" | sed 's/.*"comment" : "//; s/"$//')"
cd "$ROOT" || exit 2
sim_stop
