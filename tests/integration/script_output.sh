#!/bin/sh
# passes: plain asan
# Script output an operator can read and a program can parse (issue 18, docs/plan.md "Script output"), on shardsim:
# a -f script's stdout carries only what it prints and stderr one line per statement; --verbose shows every result;
# --json gives one object per statement, errors included; --eval prints the value of its last statement; --dry-run
# names file:line per request in relaxed Extended JSON (canonical under --json). Standard input keeps the shell's
# output. Exact lines throughout.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1
ROOT=$(pwd)
SH="$ROOT/$SHARDSH"

cat > "$TMPD/notes.js" << 'JS'
// stdout: what the script prints; stderr: a line per statement that writes or fails
sh.stopBalancer()
print("inserting", 2)
db.getSiblingDB("app").notes.insertOne({_id: 1,
                                         text: "a"})
printjson({n: 1})
db.getSiblingDB("app").notes.findOne({_id: 1})
db.getSiblingDB("app").notes.insertOne({_id: 1})
sh.startBalancer()
JS

# --dry-run needs no cluster
cd "$TMPD" || exit 2
out=$("$SH" --norc --dry-run notes.js 2> dry.err)
check_eq "script_output/--dry-run names file:line, relaxed JSON" \
   '[dry-run] notes.js:2 admin { "balancerStop" : 1, "maxTimeMS" : 60000 }
inserting 2
[dry-run] notes.js:4 app { "insert" : "notes", "documents" : [ { "_id" : 1, "text" : "a" } ], "ordered" : true }
{
  n: 1
}
[dry-run] notes.js:7 app { "find" : "notes", "filter" : { "_id" : 1 }, "limit" : 1 }
[dry-run] notes.js:8 app { "insert" : "notes", "documents" : [ { "_id" : 1 } ], "ordered" : true }
[dry-run] notes.js:9 admin { "balancerStart" : 1, "maxTimeMS" : 60000 }' "$out"
check_eq "script_output/--dry-run: a line per statement that writes on stderr (prints and reads: none)" \
   'notes.js:2 ok sh.stopBalancer()
notes.js:4 ok db.getSiblingDB("app").notes.insertOne({_id: 1, text: "a"})
notes.js:8 ok db.getSiblingDB("app").notes.insertOne({_id: 1})
notes.js:9 ok sh.startBalancer()' "$(cat dry.err)"
out=$("$SH" --norc --dry-run --json notes.js 2>&1 | head -2)
check_eq "script_output/--dry-run --json: file and line, canonical command, then the statement" \
   '{"dryRun": true, "file": "notes.js", "line": 2, "db": "admin", "command": { "balancerStop" : { "$numberInt" : "1" }, "maxTimeMS" : { "$numberInt" : "60000" } }}
{ "file" : "notes.js", "line" : 2, "col" : 1, "statement" : "sh.stopBalancer()", "ok" : true, "code" : null, "codeName" : null, "errmsg" : null, "result" : null }' \
   "$out"
out=$("$SH" --norc --dry-run --eval 'sh.stopBalancer()' --eval 'sh.startBalancer(); sh.getBalancerState()' 2>&1)
check_eq "script_output/--dry-run --eval names <eval>:line" \
   '[dry-run] <eval>:1 admin { "balancerStop" : 1, "maxTimeMS" : 60000 }
[dry-run] <eval>:1 admin { "balancerStart" : 1, "maxTimeMS" : 60000 }
[dry-run] <eval>:1 config { "find" : "settings", "filter" : { "_id" : "balancer" }, "limit" : 1 }' \
   "$out"

# JavaScript (a loop the literal grammar does not take): every call it makes is located where the engine says it is,
# a status line per call that sends something, --dry-run requests with file:line, --json one object per call
cat > "$TMPD/zones.js" << 'JS'
// JavaScript: a loop the literal grammar does not take
const zones = ["NYC", "SFO"];
for (const z of zones) {
  sh.addShardToZone("shard01", z);
}
print("zones:", zones.length);
if (zones.length > 1) { sh.stopBalancer(); }
db.getSiblingDB("app").notes.insertOne({_id: 2, n: 1.5});
JS
out=$("$SH" --norc --dry-run zones.js 2> jsdry.err)
check_eq "script_output/JavaScript --dry-run: requests name file:line, relaxed JSON" \
   '[dry-run] zones.js:4 admin { "addShardToZone" : "shard01", "zone" : "NYC" }
[dry-run] zones.js:4 admin { "addShardToZone" : "shard01", "zone" : "SFO" }
zones: 2
[dry-run] zones.js:7 admin { "balancerStop" : 1, "maxTimeMS" : 60000 }
[dry-run] zones.js:8 app { "insert" : "notes", "documents" : [ { "_id" : 2, "n" : 1.5 } ], "ordered" : true }' "$out"
check_eq "script_output/JavaScript: a status line per call that sends something, with its arguments' values" \
   "zones.js:4 ok sh.addShardToZone('shard01', 'NYC')
zones.js:4 ok sh.addShardToZone('shard01', 'SFO')
zones.js:7 ok sh.stopBalancer()
zones.js:8 ok db.getSiblingDB('app').notes.insertOne({ _id: 2, n: 1.5 })" "$(cat jsdry.err)"
"$SH" --norc --dry-run --json zones.js > jsdry.json 2> jsdry.err
check_eq "script_output/JavaScript --json: one object per call (print's too), each after its requests" \
   'dry 4 null
4 3 sh.addShardToZone('"'shard01', 'NYC'"')
dry 4 null
4 3 sh.addShardToZone('"'shard01', 'SFO'"')
6 1 print('"'zones:', 2"')
dry 7 null
7 25 sh.stopBalancer()
dry 8 null
8 1 db.getSiblingDB('"'app'"').notes.insertOne({ _id: 2, n: 1.5 })' \
   "$(jq -r 'if .dryRun then "dry \(.line) \(.col)" else "\(.line) \(.col) \(.statement)" end' jsdry.json)"
check_eq "script_output/JavaScript --json: a print's object holds what it printed" "zones: 2" \
   "$(jq -r 'select(.line == 6) | .result' jsdry.json)"
check_eq "script_output/JavaScript --json: the dry-run command stays canonical" '{"$numberDouble":"1.5"}' \
   "$(jq -c 'select(.dryRun and .line == 8) | .command.documents[0].n' jsdry.json)"
check_eq "script_output/JavaScript --json: no status lines on stderr" "" "$(cat jsdry.err)"
out=$("$SH" --norc --dry-run --eval 'for (const s of ["shard01"]) sh.addShardToZone(s, "NYC")' 2>&1)
check_eq "script_output/JavaScript --eval names <eval>:line" \
   '[dry-run] <eval>:1 admin { "addShardToZone" : "shard01", "zone" : "NYC" }
{ ok: 1 }' "$out"

# an error of the JavaScript itself: file:line:col and a caret under it, exit 1, nothing after it runs
cat > "$TMPD/typo.js" << 'JS'
sh.stopBalancer();
for (const z of ["NYC"]) {
   sh.addShardToZone("shard01", zoen);
}
sh.startBalancer();
JS
out=$("$SH" --norc --dry-run typo.js 2>&1)
check_eq "script_output/JavaScript error: located at file:line:col with a caret, exit 1" \
   '[dry-run] typo.js:1 admin { "balancerStop" : 1, "maxTimeMS" : 60000 }
typo.js:1 ok sh.stopBalancer()
typo.js:3:4: error: ReferenceError: zoen is not defined
     sh.addShardToZone("shard01", zoen);
     ^
summary: ran typo.js:1; failed typo.js:3; did not run: typo.js after line 3
--dry-run: nothing was sent
exit 1' "$out
exit $("$SH" --norc --dry-run typo.js > /dev/null 2>&1; echo $?)"
out=$("$SH" --norc --dry-run --json typo.js 2> /dev/null | grep -v dryRun)
check_eq "script_output/JavaScript error under --json: an object of its own at its place" \
   '{ "file" : "typo.js", "line" : 1, "col" : 1, "statement" : "sh.stopBalancer()", "ok" : true, "code" : null, "codeName" : null, "errmsg" : null, "result" : { "ok" : 1 } }
{ "file" : "typo.js", "line" : 3, "col" : 4, "statement" : "sh.addShardToZone(\"shard01\", zoen);", "ok" : false, "code" : null, "codeName" : null, "errmsg" : "ReferenceError: zoen is not defined", "result" : null }' \
   "$out"
cd "$ROOT" || exit 2

if ! sim_start --scenario demo --version 7.0; then
   fail "script_output/shardsim" "shardsim did not start"
   exit 0
fi
cd "$TMPD" || exit 2

"$SH" --norc "$SIM_URI" notes.js > run.out 2> run.err
check_eq "script_output/-f: exit 1 on the failed statement" 1 "$?"
check_eq "script_output/-f: stdout carries only what the script prints" 'inserting 2
{
  n: 1
}' "$(cat run.out)"
check_eq "script_output/-f: stderr has a line per write, the error with its code and codeName" \
   'notes.js:2 ok sh.stopBalancer()
notes.js:4 ok db.getSiblingDB("app").notes.insertOne({_id: 1, text: "a"})
notes.js:8 error 11000 DuplicateKey: E11000 duplicate key error collection: app.notes index: _id_ dup key: { _id: 1 }
notes.js:8:30: MongoServerError[DuplicateKey]: E11000 duplicate key error collection: app.notes index: _id_ dup key: { _id: 1 } (code 11000)' \
   "$(head -4 run.err)"

# --json: one object per statement, the error's included; results are the helpers' values
"$SH" --norc --json --continue-on-error "$SIM_URI" notes.js > json.out 2> json.err
check_eq "script_output/--json: one object per statement" 7 "$(wc -l < json.out | tr -d ' ')"
check_eq "script_output/--json: a print's object" \
   '{ "file" : "notes.js", "line" : 3, "col" : 1, "statement" : "print(\"inserting\", 2)", "ok" : true, "code" : null, "codeName" : null, "errmsg" : null, "result" : "inserting 2" }' \
   "$(sed -n 2p json.out)"
check_eq "script_output/--json: a failed statement's object" \
   '{ "file" : "notes.js", "line" : 4, "col" : 1, "statement" : "db.getSiblingDB(\"app\").notes.insertOne({_id: 1, text: \"a\"})", "ok" : false, "code" : 11000, "codeName" : "DuplicateKey", "errmsg" : "E11000 duplicate key error collection: app.notes index: _id_ dup key: { _id: 1 }", "result" : null }' \
   "$(sed -n 3p json.out)"
check_eq "script_output/--json: a result matched to its line" '7 {"_id":1,"text":"a"}' \
   "$(jq -c 'select(.line == 7) | "\(.line) \(.result | tojson)"' -r json.out)"
check_eq "script_output/--json: every statement's keys" \
   'file,line,col,statement,ok,code,codeName,errmsg,result' "$(head -1 json.out | jq -r 'keys_unsorted | join(",")')"
check_eq "script_output/--json: no status lines on stderr" "" "$(grep -E '^notes\.js:[0-9]+ (ok|error)' json.err)"

# --verbose: every result, as the interactive shell shows it
"$SH" --norc --verbose --continue-on-error "$SIM_URI" -f notes.js > verbose.out 2> /dev/null
check_contains "script_output/--verbose shows results" '{ _id: 1, text: '"'a'"' }' "$(cat verbose.out)"
check_contains "script_output/--verbose shows full server replies" 'operationTime: Timestamp(' "$(cat verbose.out)"

# --eval: the value of its last statement; prints on the way
out=$("$SH" --norc "$SIM_URI" \
   --eval 'print("counting"); db.getSiblingDB("app").notes.countDocuments({}); db.getSiblingDB("app").notes.findOne({_id: 1}, {_id: 0})' 2>&1)
check_eq "script_output/--eval prints its last statement's value" "counting
{ text: 'a' }" "$out"

# standard input is read as the shell reads it (as mongosh reads a pipe: prompts, then every result)
out=$(printf 'db.getSiblingDB("app").notes.countDocuments({})\ndb.getSiblingDB("app").notes.findOne({_id: 1}, {_id: 0})\n' |
   "$SH" --quiet --norc "$SIM_URI" 2>&1)
check_eq "script_output/standard input shows every result" "[direct: mongos] test> 1
[direct: mongos] test> { text: 'a' }
[direct: mongos] test> " "$out"
# standard input as a script (-f -) keeps the shell's output: every result (without -f it is read line by line with
# mongosh's prompts, tests/integration/stdin.sh)
out=$(printf 'db.getSiblingDB("app").notes.countDocuments({})\ndb.getSiblingDB("app").notes.findOne({_id: 1}, {_id: 0})\n' |
   "$SH" --norc "$SIM_URI" -f - 2>&1)
check_eq "script_output/standard input (-f -) shows every result" "1
{ text: 'a' }" "$out"

# JavaScript: a run-time failure after sh.stopBalancer() leaves the summary and the warnings (--no-preflight: the
# pre-flight would find the missing zone before anything runs, tests/integration/script_js_plan.sh)
cat > "$TMPD/jsfail.js" << 'JS'
sh.stopBalancer();
for (const z of ["NYC"]) {
  sh.addShardToZone("shard01", z);
}
sh.updateZoneKeyRange("app.notes", {_id: MinKey}, {_id: 5}, "NOPE");
print("not reached");
JS
"$SH" --norc --no-preflight "$SIM_URI" jsfail.js > jsfail.out 2> jsfail.err
check_eq "script_output/JavaScript run-time failure: exit 1" 1 "$?"
check_eq "script_output/JavaScript run-time failure: nothing after it ran" "" "$(cat jsfail.out)"
check_eq "script_output/JavaScript run-time failure: status lines, the error at the call, the summary, the warnings" \
   "jsfail.js:1 ok sh.stopBalancer()
jsfail.js:3 ok sh.addShardToZone('shard01', 'NYC')
jsfail.js:5:4: MongoServerError[ZoneNotFound]: zone NOPE does not exist (code 177)
  sh.updateZoneKeyRange(\"app.notes\", {_id: MinKey}, {_id: 5}, \"NOPE\");
     ^
summary: ran jsfail.js:1, jsfail.js:3; failed jsfail.js:5; did not run: jsfail.js after line 5
WARNING: the balancer is stopped: nothing balances until sh.startBalancer()
WARNING: zone NYC has shards but no ranges" "$(cat jsfail.err)"
cd "$ROOT" || exit 2
sim_stop
