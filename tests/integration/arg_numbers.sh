#!/bin/sh
# passes: plain asan
# Every user number that becomes an integer is range-checked before anything is sent: NaN, the infinities, negatives
# and values past int32/int64 end in an argument error at the argument (file:line:col and a caret), exit 2, and
# shardsim's command log shows that nothing at all was sent (each bad call follows a valid write in its script).
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

if ! sim_start --scenario demo --log-commands "$TMPD/cmdlog"; then
   fail "arg_numbers/shardsim" "did not start"
   exit 1
fi

n=0
# statement | what the error names | the value it echoes
while IFS='|' read -r stmt what got; do
   [ -n "$stmt" ] || continue
   n=$((n + 1))
   f="$TMPD/case$n.js"
   printf 'sh.addShardToZone("shard01", "NYC")\n%s\n' "$stmt" > "$f"
   err=$(NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI" -f "$f" 2>&1 > /dev/null < /dev/null)
   rc=$?
   label="arg_numbers/$stmt"
   check_eq "$label exit" 2 "$rc"
   check_contains "$label position" "case$n.js:2:" "$err"
   check_contains "$label names $what" "$what" "$err"
   check_contains "$label echoes $got" "got $got" "$err"
   check_contains "$label caret" "^" "$err"
done << 'CASES'
sh.waitForBalancer(true, 1e308)|sh.waitForBalancer: timeout (ms) must be a number from 0 to 2147483647|1e+308
sh.waitForBalancer(false, 2147483648)|timeout (ms)|2147483648
sh.waitForBalancerOff(NaN)|sh.waitForBalancerOff: timeout (ms)|NaN
sh.waitForBalancerOff(-1)|timeout (ms)|-1
sleep(-1)|sleep: ms must be a number from 0 to 2147483647|-1
sleep(Infinity)|sleep: ms|Infinity
sh.startBalancer(Infinity)|sh.startBalancer: timeout (maxTimeMS)|Infinity
sh.stopBalancer(-Infinity)|sh.stopBalancer: timeout (maxTimeMS)|-Infinity
sh.stopBalancer(1e10)|sh.stopBalancer: timeout (maxTimeMS)|10000000000
sh.shardCollection("a.b", {k: 1}, false, {numInitialChunks: 1e20})|numInitialChunks must be a number from 0 to 2147483647|100000000000000000000
sh.shardCollection("a.b", {k: 1}, {numInitialChunks: -1})|sh.shardCollection: numInitialChunks|-1
sh.shardCollection("a.b", {k: "hashed"}, false, {numInitialChunks: NaN})|numInitialChunks|NaN
sh.reshardCollection("a.b", {k: 1}, {numInitialChunks: 3e9})|sh.reshardCollection: numInitialChunks|3000000000
sh.shardAndDistributeCollection("a.b", {k: 1}, false, {numInitialChunks: -Infinity})|numInitialChunks|-Infinity
sh.configureCollectionBalancing("a.b", {chunkSize: 2.5e10})|chunkSize|25000000000
sh.configureCollectionBalancing("a.b", {chunkSize: -64})|chunkSize|-64
db.c.analyzeShardKey({k: 1}, {sampleSize: 1e19})|db.collection.analyzeShardKey: sampleSize|10000000000000000000
db.c.analyzeShardKey({k: 1}, {sampleSize: -5})|sampleSize|-5
db.killOp(2147483648)|db.killOp: opid must be a number from -2147483648 to 2147483647|2147483648
db.killOp(NaN)|db.killOp: opid|NaN
db.stats(Infinity)|db.stats: scale must be a number from 1 to 2147483647|Infinity
db.stats({scale: 0})|db.stats: scale|0
db.c.createIndex({k: 1}, {expireAfterSeconds: -1})|db.collection.createIndex: expireAfterSeconds|-1
db.c.createIndexes([{k: 1}], {expireAfterSeconds: 1e10})|db.collection.createIndexes: expireAfterSeconds|10000000000
db.c.count({}, {limit: Infinity})|db.collection.count: limit|Infinity
db.c.count({}, {skip: -1})|db.collection.count: skip|-1
db.c.estimatedDocumentCount({maxTimeMS: 1e10})|db.collection.estimatedDocumentCount: maxTimeMS|10000000000
db.c.aggregate([], {maxTimeMS: -1})|db.collection.aggregate: maxTimeMS|-1
db.c.aggregate([], {batchSize: NaN})|db.collection.aggregate: batchSize|NaN
db.createCollection("x", {capped: true, size: 1e300})|db.createCollection: size|1e+300
db.createCollection("x", {capped: true, size: 4096, max: 2147483647})|db.createCollection: max|2147483647
CASES

# cursor modifiers and the advisor's options have their own messages
for stmt in 'db.c.find().limit(1e400)' 'db.c.find().skip(-1)' 'db.c.find().limit(NaN)' \
   'db.c.find().maxTimeMS(NaN)' 'db.c.find().maxTimeMS(-1)' 'db.c.find().maxTimeMS(1e10)' \
   'sh.adviseShardKey("a.b", [{k: 1}], {sampleSize: 1e308})' 'sh.adviseShardKey("a.b", [{k: 1}], {lowCardinality: NaN})'; do
   n=$((n + 1))
   f="$TMPD/case$n.js"
   printf 'sh.addShardToZone("shard01", "NYC")\n%s\n' "$stmt" > "$f"
   err=$(NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI" -f "$f" 2>&1 > /dev/null < /dev/null)
   rc=$?
   check_eq "arg_numbers/$stmt exit" 2 "$rc"
   check_contains "arg_numbers/$stmt position" "case$n.js:2:" "$err"
done

# nothing reached the simulated cluster: not the valid write on line 1, not even a handshake
if [ -s "$TMPD/cmdlog" ]; then
   fail "arg_numbers/nothing sent" "shardsim logged: $(head -c 300 "$TMPD/cmdlog")"
else
   pass "arg_numbers/nothing sent"
fi

# the largest accepted values still run (as requests in --dry-run)
for stmt in 'sh.waitForBalancer(true, 2147483647)' 'sh.stopBalancer(0)' \
   'sh.shardCollection("a.b", {k: 1}, false, {numInitialChunks: 2147483647})' 'sleep(0)' 'sleep(1.5)'; do
   out=$("$SHARDSH" --norc --quiet --dry-run --eval "$stmt" 2>&1)
   check_eq "arg_numbers/accepts $stmt" 0 "$?"
done
out=$("$SHARDSH" --norc --quiet --dry-run --json --eval 'sh.shardCollection("a.b", {k: 1}, false, {numInitialChunks: 2147483647})' 2>&1)
check_contains "arg_numbers/numInitialChunks sent unchanged" '"numInitialChunks" : { "$numberInt" : "2147483647" }' "$out"

# the dashboard's numeric options
for opt in '--interval nan' '--interval inf' '--interval 1e308' '--interval 0' '-n 99999999999999999999' '-n 0'; do
   # shellcheck disable=SC2086
   out=$("$SHARDSH" --norc --dashboard --once $opt "$SIM_URI" 2>&1 < /dev/null)
   check_eq "arg_numbers/option $opt exit" 2 "$?"
done
