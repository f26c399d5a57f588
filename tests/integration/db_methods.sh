#!/bin/sh
# passes: plain
# The weekly operator jobs of issue 17 against shardsim 4.4 and 8.0, through bin/shardsh, checked where it matters by
# mongosh 2.12 (the peer client): the manual's chunk-size change lands in config.settings where mongosh reads it;
# createIndex lets sh.shardCollection shard a non-empty collection (refused before it); a running migration shows in
# db.currentOp() and db.killOp() ends it (the chunk stays, the donor logs the abort); and the results of the write,
# index and catalog methods print exactly as mongosh prints them.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh
. tests/peer/lib.sh

if ! command -v jq > /dev/null 2>&1; then
   skip "db_methods" "jq is not installed"
   exit 0
fi
have_mongosh=yes
ensure_mongosh "db_methods.peer" || have_mongosh=no

# libmongoc's start-up notice about its shared-memory counters (when /dev/shm is short) and node's own deprecation
# warning for cursor.count() are environment noise, not results
noise='mongoc: Falling back to malloc for counters|^\(node:[0-9]*\) |^\(Use `node --trace-warnings'
hs() { NO_COLOR=1 "$SHARDSH" --norc --quiet --yes "$SIM_URI/test" "$@" 2>&1 < /dev/null | grep -v -E "$noise"; }
# the values of all of a version's mongosh statements, from one mongosh (tests/peer/lib.sh's mongosh_batch): first
# listed with ms_add, then run by ms_run, then read by number with ms N. The moment's cluster time in a reply
# (operationTime, $clusterTime) is masked on both sides: mongosh's batch runs before shardsh's statements
ms_add() { printf '%s\n' "$1" >> "$TMPD/ms.stmts"; }
ms_run() {
   rm -rf "$TMPD/ms" && mkdir -p "$TMPD/ms"
   mongosh_batch "$SIM_URI/test" "$TMPD/ms.stmts" "$TMPD/ms"
}
ms() { grep -v -E "$noise" "$TMPD/ms/$1.out" 2> /dev/null | sed "$ts"; }
ts='s/Timestamp({ t: [0-9]*, i: [0-9]* })/Timestamp(<now>)/'

for v in 4.4 8.0; do
   if ! sim_start --scenario demo --version "$v" --log-commands "$TMPD/db-$v.log"; then
      fail "db_methods.$v.start" "shardsim did not start"
      continue
   fi
   # the manual's chunk-size change
   out=$(hs --eval 'db.getSiblingDB("config").settings.updateOne({_id: "chunksize"}, {$set: {value: 64}}, {upsert: true})')
   check_contains "db_methods.$v chunksize updateOne prints an UpdateResult" "acknowledged: true" "$out"
   check_not_contains "db_methods.$v chunksize: config.settings needs no warning" "Warning" "$out"
   # run again, the document exists: matched, not inserted a second time (nor a duplicate key)
   out=$(hs --eval 'db.getSiblingDB("config").settings.updateOne({_id: "chunksize"}, {$set: {value: 128}}, {upsert: true})')
   check_contains "db_methods.$v chunksize updateOne again matches the document" "matchedCount: 1" "$out"
   check_contains "db_methods.$v chunksize updateOne again modifies it" "modifiedCount: 1" "$out"
   check_eq "db_methods.$v one chunksize document" "1" \
      "$(hs --eval 'db.getSiblingDB("config").settings.countDocuments({_id: "chunksize"})')"
   # the same entries from JavaScript (when the engine is built): results come back as values
   if [ -f "$BINDIR/shardsh-js.so" ]; then
      check_eq "db_methods.$v js: insertOne's insertedId" "1" \
         "$(hs --eval 'const r = db.getSiblingDB("app").jsw.insertOne({_id: 1}); r.insertedId')"
      check_eq "db_methods.$v js: updateOne's modifiedCount" "1" \
         "$(hs --eval 'db.getSiblingDB("app").jsw.updateOne({_id: 1}, {$set: {a: 1}}).modifiedCount')"
      check_eq "db_methods.$v js: createIndex's name" "a_1" "$(hs --eval 'db.getSiblingDB("app").jsw.createIndex({a: 1})')"
      check_eq "db_methods.$v js: currentOp's inprog" "true" "$(hs --eval 'db.currentOp().inprog.length > 0')"
      check_eq "db_methods.$v js: a loop of writes" "3" \
         "$(hs --eval 'for (let i = 2; i <= 3; i++) db.getSiblingDB("app").jsw.insertOne({_id: i}); db.getSiblingDB("app").jsw.countDocuments()')"
   else
      skip "db_methods.$v js" "no JavaScript engine in this build"
   fi
   # db.aggregate: $currentOp on admin; $listSessions only on config.system.sessions, as the server checks
   out=$(hs --eval 'db.getSiblingDB("admin").aggregate([{$currentOp: {allUsers: true}}, {$match: {active: true}}])')
   check_contains "db_methods.$v db.aggregate(\$currentOp) lists this operation" "aggregate: 1" "$out"
   out=$(hs --eval 'db.aggregate([{$listSessions: {}}])')
   check_contains "db_methods.$v db.aggregate(\$listSessions) is refused off config.system.sessions" "InvalidNamespace" "$out"
   # sharding a non-empty collection: refused without an index on the key, done after createIndex
   hs --eval 'db.getSiblingDB("app").fresh.insertMany([{_id: 1, k: 5}, {_id: 2, k: 7}, {_id: 3, k: 9}])' > /dev/null
   out=$(hs --eval 'sh.shardCollection("app.fresh", {k: 1})')
   check_contains "db_methods.$v shardCollection of a non-empty collection needs an index" "InvalidOptions" "$out"
   check_eq "db_methods.$v createIndex prints the index name" "k_1" "$(hs --eval 'db.getSiblingDB("app").fresh.createIndex({k: 1})')"
   NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI/test" --eval 'sh.shardCollection("app.fresh", {k: 1})' > /dev/null 2>&1
   check_eq "db_methods.$v shardCollection after createIndex succeeds" "0" "$?"
   key=$(hs --json --eval 'db.getSiblingDB("config").collections.findOne({_id: "app.fresh"})' | jq -c '.key')
   check_eq "db_methods.$v config.collections holds app.fresh sharded on k" '{"k":1}' "$key"
   # results print as mongosh prints them: the same statements on two collections, one per client; mongosh's all
   # first (one process), then shardsh's, each compared with mongosh's value of the same statement
   if [ "$have_mongosh" = yes ]; then
      cat > "$TMPD/stmts1" <<'JS'
insertOne({_id: 1, a: 1})
insertMany([{_id: 2}, {_id: 3, a: 2}])
insertOne({_id: 1})
updateOne({_id: 1}, {$set: {b: 1}})
updateMany({}, {$inc: {n: 1}})
replaceOne({_id: 9}, {c: 1}, {upsert: true})
updateOne({_id: 10}, {$set: {d: 1}}, {upsert: true})
deleteOne({_id: 2})
findOneAndUpdate({_id: 1}, {$inc: {n: 1}}, {returnDocument: "after"})
findOneAndUpdate({_id: 404}, {$set: {n: 1}})
createIndex({a: 1, n: -1})
createIndexes([{b: 1}, {c: "hashed"}], {sparse: true})
estimatedDocumentCount()
count({n: 2})
find({n: {$gte: 1}}, {_id: 1}).sort({_id: -1}).limit(2).hint({_id: 1}).maxTimeMS(1000)
find().skip(1).count()
find({n: 2}).itcount()
aggregate([{$sort: {_id: 1}}], {allowDiskUse: true})
stats()
stats(1024)
deleteMany({})
drop()
drop()
JS
      cat > "$TMPD/stmts2" <<'JS'
db.getSiblingDB("app").getCollectionNames()
db.getSiblingDB("app").getCollectionInfos({name: "users"})
db.listCommands()
db.version()
db.getSiblingDB("app").stats()
db.getSiblingDB("app").stats(1024)
db.getSiblingDB("app").users.getName()
db.getSiblingDB("app").users.getFullName()
db.getSiblingDB("app").users.getIndexes()
db.getSiblingDB("nodb").dropDatabase()
db.getSiblingDB("app").users.find({}, {_id: 0, uid: 1}).sort({uid: 1}).limit(3).comment("x")
JS
      : > "$TMPD/ms.stmts"
      # the manual's chunk-size change (set to 64, then 128 above) is what mongosh reads
      ms_add 'db.getSiblingDB("config").settings.findOne({_id: "chunksize"}).value'
      while IFS= read -r stmt; do ms_add "db.getSiblingDB(\"app\").pb.$stmt"; done < "$TMPD/stmts1"
      cat "$TMPD/stmts2" >> "$TMPD/ms.stmts"
      ms_run
      check_eq "db_methods.$v chunksize visible to mongosh" "128" "$(ms 1)"
      n=1
      while IFS= read -r stmt; do
         n=$((n + 1))
         ours=$(hs --eval "db.getSiblingDB(\"app\").pa.$stmt" | sed 's/\bpa\b/COLL/g' | sed "$ts")
         theirs=$(ms $n | sed 's/\bpb\b/COLL/g')
         case "$theirs" in
         MongoServerError*) # both fail: shardsh renders errors its own way (position, code and codeName)
            first=$(printf '%s\n' "$theirs" | head -1 | sed 's/^MongoServerError: //')
            check_contains "db_methods.$v prints $stmt" "$first" "$ours" ;;
         *) check_eq "db_methods.$v prints $stmt" "$theirs" "$ours" ;;
         esac
      done < "$TMPD/stmts1"
      while IFS= read -r stmt; do
         n=$((n + 1))
         check_eq "db_methods.$v prints $stmt" "$(ms $n)" "$(hs --eval "$stmt" | sed "$ts")"
      done < "$TMPD/stmts2"
   fi
   sim_stop
   # a running migration: currentOp shows it, killOp ends it. Before 6.0 the donor runs moveChunk; from 6.0 the
   # config server's balancer sends the donor _shardsvrMoveRange, which is what a 6.0+ currentOp shows
   if [ "$v" = 4.4 ]; then field=command.moveChunk; else field=command._shardsvrMoveRange; fi
   if ! sim_start --scenario empty --version "$v" --chunk-size-kb 4 --balancer-interval-ms 100 --migration-ms 60000 \
      --load app.ev:ascending:3000 --log-commands "$TMPD/mig-$v.log"; then
      fail "db_methods.$v.migration.start" "shardsim did not start"
      continue
   fi
   opid=""
   i=0
   while [ -z "$opid" ] && [ $i -lt 50 ]; do
      opid=$(hs --json --eval "db.currentOp({\"$field\": {\$exists: true}})" | jq -r '.inprog[0].opid // empty')
      [ -n "$opid" ] || sleep 0.1
      i=$((i + 1))
   done
   if [ -z "$opid" ]; then
      fail "db_methods.$v currentOp shows the running migration" "none within 5 s"
      sim_stop
      continue
   fi
   pass "db_methods.$v currentOp({\"$field\": {\$exists: true}}) shows the running migration ($opid)"
   out=$(hs --eval "db.currentOp({\"$field\": {\$exists: true}})")
   check_contains "db_methods.$v currentOp prints inprog with the namespace" "ns: 'admin.\$cmd'" "$out"
   check_contains "db_methods.$v currentOp prints the migrated collection" "'app.ev'" "$out"
   out=$(hs --eval "db.killOp(\"$opid\")")
   check_contains "db_methods.$v killOp names the shard" "shard: '${opid%%:*}'" "$out"
   n=$(hs --json --eval "db.currentOp({\"$field\": {\$exists: true}})" | jq '.inprog | length')
   # the balancer may start the next migration at once: it must not be the killed one
   still=$(hs --json --eval "db.currentOp({\"$field\": {\$exists: true}})" | jq -r --arg o "$opid" '[.inprog[] | select(.opid == $o)] | length')
   check_eq "db_methods.$v killOp ended the migration ($n running after)" "0" "$still"
   aborted=$(hs --json --eval 'db.getSiblingDB("config").changelog.countDocuments({what: "moveChunk.from", "details.errmsg": "operation was interrupted"})')
   check_eq "db_methods.$v the donor logged the interrupted migration" "1" "$aborted"
   grep -q '"killOp"' "$TMPD/mig-$v.log" && pass "db_methods.$v killOp reached the cluster" ||
      fail "db_methods.$v killOp reached the cluster" "no killOp in the command log"
   sim_stop
done
