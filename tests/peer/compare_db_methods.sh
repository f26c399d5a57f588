#!/bin/sh
# passes: plain
# The mongosh comparison for the database and collection methods (issue 17): each statement runs through bin/shardsh
# and through mongosh 2.12 against shardsim (--log-commands, 4.4 and 8.0), and the command documents both
# clients sent must be equal: the same commands, databases, field order and BSON types, in the same order. Ignored as
# driver traffic, as in compare_sh_helpers.sh: handshake and monitoring hellos, mongosh's start-up queries, buildInfo
# (but db.version()'s own is compared: see below), endSessions, getMore, killCursors and the envelope (lsid,
# $clusterTime, txnNumber: shardsh's writes are not retryable writes). Inserted documents without an _id get a new
# ObjectId in each client: such an _id is replaced by a placeholder. Each client runs the cases on its own shardsim
# (two started alike per version), in order, so each sees the state its own earlier cases left; one mongosh runs the
# cases of both versions as a script, in the background while shardsh runs them (tests/peer/lib.sh,
# peer_mongosh_cases). COMPARE_ONLY=<text> runs only the cases whose name contains it.
# Adding a case: one line NAME|shardsh code|mongosh code in CASES below (mongosh code empty: the same). mongosh
# prints the code's value with print() (a cursor by its first batch, as --eval does); of several statements joined
# by "; " the last one's value is printed. The name: no spaces, slashes or "|".
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh
. tests/peer/lib.sh

if ! command -v jq > /dev/null 2>&1; then
   echo "SKIP compare-db: jq is not installed (apt-get install jq)"
   exit 0
fi
ensure_mongosh compare-db || exit 0


# compare_case VERSION NAME: the commands of the case's two slices (D/VERSION/NAME.ours.cmds, .theirs.cmds)
compare_case() {
   _b="$D/$1/$2"
   if [ ! -s "$_b.theirs.cmds" ]; then
      fail "compare-db.$1.$2" "mongosh sent nothing: $(head -c 300 "$_b.out" 2> /dev/null)"
   elif cmp -s "$_b.ours.cmds" "$_b.theirs.cmds"; then
      pass "compare-db.$1.$2"
   else
      fail "compare-db.$1.$2" "$(diff "$_b.theirs.cmds" "$_b.ours.cmds" | head -8 | cut -c1-400 | tr '\n' '|')"
   fi
}

# NAME|shardsh code|mongosh code (empty: the same). Run in this order on each version (later cases see earlier
# changes). The statements use app, which the demo scenario fills.
CASES='settings.updateOne.chunksize|db.getSiblingDB("config").settings.updateOne({_id: "chunksize"}, {$set: {value: 64}}, {upsert: true})|
insertOne|db.getSiblingDB("app").notes.insertOne({_id: 1, text: "a"})|
insertOne.newId|db.getSiblingDB("app").notes.insertOne({text: "b"}, {writeConcern: {w: 1, wtimeout: 100}})|
insertOne.options|db.getSiblingDB("app").notes.insertOne({_id: 9, text: "c"}, {bypassDocumentValidation: true, comment: "x"})|
insertMany|db.getSiblingDB("app").notes.insertMany([{_id: 2}, {_id: 3, n: 1}, {n: 2}])|
insertMany.options|db.getSiblingDB("app").notes.insertMany([{_id: 4}], {ordered: false, writeConcern: {w: "majority"}})|
updateOne|db.getSiblingDB("app").notes.updateOne({_id: 1}, {$set: {text: "z"}})|
updateOne.options|db.getSiblingDB("app").notes.updateOne({_id: 7}, {$set: {n: 2}}, {upsert: true, arrayFilters: [{x: 1}], collation: {locale: "en"}, hint: {_id: 1}, writeConcern: {w: "majority"}})|
updateOne.pipeline|db.getSiblingDB("app").notes.updateOne({_id: 1}, [{$set: {m: 2}}])|
updateOne.command-options|db.getSiblingDB("app").notes.updateOne({_id: 1}, {$set: {a: 1}}, {bypassDocumentValidation: true, comment: "x", let: {x: 1}, writeConcern: {w: 1}})|
updateMany|db.getSiblingDB("app").notes.updateMany({n: {$gte: 1}}, {$inc: {n: 1}}, {upsert: false, collation: {locale: "en"}})|
replaceOne|db.getSiblingDB("app").notes.replaceOne({_id: 2}, {text: "r"}, {upsert: true})|
deleteOne|db.getSiblingDB("app").notes.deleteOne({_id: 3}, {collation: {locale: "en"}, hint: {_id: 1}})|
deleteMany|db.getSiblingDB("app").notes.deleteMany({n: {$gt: 100}}, {writeConcern: {w: 1}})|
findOneAndUpdate|db.getSiblingDB("app").notes.findOneAndUpdate({_id: 1}, {$inc: {n: 1}})|
findOneAndUpdate.options|db.getSiblingDB("app").notes.findOneAndUpdate({_id: 1}, {$inc: {n: 1}}, {upsert: true, returnDocument: "after", projection: {n: 1}, sort: {_id: 1}, maxTimeMS: 500, collation: {locale: "en"}})|
findOneAndDelete|db.getSiblingDB("app").notes.findOneAndDelete({_id: 9}, {sort: {_id: 1}, projection: {text: 1}, collation: {locale: "en"}, maxTimeMS: 100})|
findOneAndReplace|db.getSiblingDB("app").notes.findOneAndReplace({_id: 2}, {text: "rr"}, {upsert: true, returnDocument: "after", sort: {_id: -1}})|
coll.indexLists.exists|var c = db.getSiblingDB("app").users; [c.getIndexSpecs().length, c.getIndices().length, c.getIndexKeys()]; [c.exists().name, c.isCapped(), db.getSiblingDB("app").nothere.exists()]|
coll.runCommand|db.getSiblingDB("app").users.runCommand("collStats", {scale: 1024}); db.getSiblingDB("app").users.runCommand({count: "users", query: {uid: 1}})|
coll.latencyStats|db.getSiblingDB("app").users.latencyStats({histograms: true}); db.getSiblingDB("app").users.latencyStats()|
coll.reIndex|db.getSiblingDB("app").users.reIndex()|
findOneAndUpdate.returnNewDocument|db.getSiblingDB("app").notes.findOneAndUpdate({_id: 1}, {$set: {b: 1}}, {returnNewDocument: true})|
legacy.update.balancer|db.getSiblingDB("config").settings.update({_id: "balancer"}, {$set: {stopped: true}}, true)|
legacy.update.multi|db.getSiblingDB("app").notes.update({n: {$gte: 1}}, {$set: {m: 1}}, {multi: true, upsert: true, writeConcern: {w: 1}})|
legacy.insert|db.getSiblingDB("app").notes.insert({_id: 21, text: "l"})|
legacy.insert.array|db.getSiblingDB("app").notes.insert([{_id: 22}, {n: 5}], {ordered: false})|
legacy.findAndModify|db.getSiblingDB("app").notes.findAndModify({query: {_id: 1}, update: {$inc: {n: 1}}, new: true, fields: {n: 1}, sort: {_id: 1}})|
legacy.ensureIndex|db.getSiblingDB("app").notes.ensureIndex({legacy: 1}, {sparse: true})|
bulkWrite|db.getSiblingDB("app").notes.bulkWrite([{insertOne: {document: {_id: 51}}}, {updateOne: {filter: {_id: 51}, update: {$set: {a: 1}}, upsert: true, collation: {locale: "en"}}}, {updateMany: {filter: {a: 1}, update: {$set: {b: 1}}}}, {replaceOne: {filter: {_id: 52}, replacement: {r: 1}, upsert: true}}, {deleteOne: {filter: {_id: 51}}}, {insertOne: {document: {n: 1}}}, {deleteMany: {filter: {r: 1}}}])|
bulkWrite.unordered|db.getSiblingDB("app").notes.bulkWrite([{deleteOne: {filter: {_id: 61}, collation: {locale: "en"}, hint: {_id: 1}}}, {insertOne: {document: {_id: 61}}}, {updateOne: {filter: {_id: 61}, update: {$set: {a: 2}}, collation: {locale: "en"}, arrayFilters: [{x: 1}], hint: {_id: 1}}}], {ordered: false, writeConcern: {w: 1}})|
bulkWrite.unordered.failing|db.getSiblingDB("app").notes.bulkWrite([{insertOne: {document: {_id: 71}}}, {insertOne: {document: {_id: 71}}}, {updateOne: {filter: {_id: 71}, update: {$set: {u: 1}}}}, {deleteOne: {filter: {_id: 72}}}], {ordered: false})|
explain.write.update|db.getSiblingDB("app").users.explain().update({uid: 1}, {$set: {a: 1}}, {multi: true, upsert: true, collation: {locale: "en"}})|
explain.write.remove|db.getSiblingDB("app").users.explain("executionStats").remove({uid: {$gt: 190}}, true)|
explain.write.findAndModify|db.getSiblingDB("app").users.explain().findAndModify({query: {uid: 3}, update: {$inc: {n: 1}}, new: true, upsert: true, sort: {uid: 1}, fields: {n: 1}})|
explain.write.update.one|db.getSiblingDB("app").users.explain().update({uid: 1}, {$set: {a: 1}}, {multi: false, upsert: false, hint: {_id: 1}, arrayFilters: [{x: 1}], collation: {locale: "en"}})|
explain.write.findAndModify.options|db.getSiblingDB("app").users.explain().findAndModify({query: {uid: 2}, update: {$set: {a: 1}}, upsert: true, collation: {locale: "en"}, arrayFilters: [{x: 1}], hint: {_id: 1}, fields: {a: 1}, maxTimeMS: 100, bypassDocumentValidation: true})|
explain.findOneAndDelete|db.getSiblingDB("app").users.explain().findOneAndDelete({uid: 4}, {projection: {uid: 1}})|
explain.findOneAndReplace|db.getSiblingDB("app").users.explain().findOneAndReplace({uid: 4}, {b: 1}, {returnDocument: "after"})|
explain.aggregate-cursor.options|db.getSiblingDB("app").users.aggregate([{$match: {uid: 5}}], {batchSize: 5, maxTimeMS: 100, comment: "x", hint: {_id: 1}, let: {a: 1}, collation: {locale: "en"}, allowDiskUse: false}).explain()|
explain.aggregate.options|db.getSiblingDB("app").users.explain("executionStats").aggregate([{$match: {uid: 5}}], {maxTimeMS: 100, allowDiskUse: true, batchSize: 3})|
explain.aggregate-cursor|db.getSiblingDB("app").users.aggregate([{$match: {uid: 5}}], {allowDiskUse: true}).explain("executionStats")|
createIndex|db.getSiblingDB("app").notes.createIndex({text: 1})|
createIndex.options|db.getSiblingDB("app").notes.createIndex({n: 1, text: -1}, {unique: false, name: "n_text", expireAfterSeconds: 3600})|
createIndex.hashed|db.getSiblingDB("app").notes.createIndex({m: "hashed"}, {hidden: true})|
createIndex.commitQuorum|db.getSiblingDB("app").notes.createIndex({b: 1}, {}, "majority")|
createIndexes|db.getSiblingDB("app").notes.createIndexes([{x: 1}, {y: -1}], {sparse: true})|
hideIndex|db.getSiblingDB("app").notes.hideIndex("text_1")|
unhideIndex|db.getSiblingDB("app").notes.unhideIndex({text: 1})|
getIndexes|db.getSiblingDB("app").notes.getIndexes()|
dropIndex|db.getSiblingDB("app").notes.dropIndex("text_1")|
dropIndex.key|db.getSiblingDB("app").notes.dropIndex({n: 1, text: -1})|
dropIndexes.list|db.getSiblingDB("app").notes.dropIndexes(["x_1", "y_-1"])|
dropIndexes|db.getSiblingDB("app").notes.dropIndexes()|
find.modifiers|db.getSiblingDB("app").users.find({uid: {$gt: 5}}, {uid: 1}).sort({uid: 1}).skip(2).limit(3).hint({_id: 1}).maxTimeMS(500).collation({locale: "en"}).comment("c").allowDiskUse(true)|db.getSiblingDB("app").users.find({uid: {$gt: 5}}, {uid: 1}).sort({uid: 1}).skip(2).limit(3).hint({_id: 1}).maxTimeMS(500).collation({locale: "en"}).comment("c").allowDiskUse(true).toArray()
find.min-max|db.getSiblingDB("app").users.find().readConcern("majority").min({_id: 1}).max({_id: 5}).hint({_id: 1}).maxTimeMS(100).comment("m")|db.getSiblingDB("app").users.find().readConcern("majority").min({_id: 1}).max({_id: 5}).hint({_id: 1}).maxTimeMS(100).comment("m").toArray()
find.projection|db.getSiblingDB("app").users.find().projection({uid: 1}).limit(2)|db.getSiblingDB("app").users.find().projection({uid: 1}).limit(2).toArray()
find.count|db.getSiblingDB("app").users.find({uid: 1}).skip(1).limit(4).count()|
find.count-options|db.getSiblingDB("app").users.find({uid: 1}).limit(3).skip(1).hint({_id: 1}).maxTimeMS(500).collation({locale: "en"}).comment("c").count()|
find.count-true|db.getSiblingDB("app").users.find({uid: 1}).skip(1).limit(4).count(true)|
cursor.count-options|var c = db.getSiblingDB("app").users.find({uid: 1}).limit(3).skip(1).hint({_id: 1}).maxTimeMS(500).collation({locale: "en"}).comment("c"); c.count(); c.size()|
find.size|db.getSiblingDB("app").users.find({uid: {$gt: 3}}).limit(4).size()|
find.itcount|db.getSiblingDB("app").users.find({uid: 1}).itcount()|
cursor.options|var c = db.getSiblingDB("app").users.find({uid: {$gt: 1}}).hint({_id: 1}).comment("c").noCursorTimeout().returnKey(false).showRecordId().allowPartialResults().maxTimeMS(100).readConcern("local").collation({locale: "en"}).sort({uid: 1}).allowDiskUse(false).limit(2); c.toArray(); var c = db.getSiblingDB("app").users.find().addOption(8).addOption(128).min({_id: MinKey}).max({_id: MaxKey}).hint({_id: 1}).batchSize(3); c.hasNext(); c.objsLeftInBatch()|
aggregate.cursor-maxTimeMS|var c = db.getSiblingDB("app").users.aggregate([{$match: {}}], {comment: "x"}).maxTimeMS(250).batchSize(2); c.hasNext()|
aggregate.options|db.getSiblingDB("app").users.aggregate([{$match: {}}], {allowDiskUse: true, maxTimeMS: 100, comment: "x", hint: {_id: 1}, batchSize: 5})|
estimatedDocumentCount|db.getSiblingDB("app").users.estimatedDocumentCount({maxTimeMS: 1000})|
count|db.getSiblingDB("app").users.count({uid: {$gte: 0}}, {limit: 5, skip: 1})|
count.none|db.getSiblingDB("app").users.count()|
currentOp|db.currentOp()|
currentOp.true|db.currentOp(true)|
currentOp.filter|db.currentOp({"command.moveChunk": {$exists: true}})|
currentOp.all|db.currentOp({$all: true, $ownOps: true, active: true})|
killOp|db.killOp(12345)|
killOp.shard|db.killOp("shard01:12345")|
db.aggregate|db.getSiblingDB("admin").aggregate([{$currentOp: {allUsers: true}}, {$match: {active: true}}])|
db.aggregate.listSessions|db.aggregate([{$listSessions: {}}])|
coll.aggregate.listSessions|db.getSiblingDB("config").system.sessions.aggregate([{$listSessions: {allUsers: true}}])|
serverStatus|db.serverStatus()|
serverStatus.options|db.serverStatus({repl: 0, metrics: 0})|
stats|db.getSiblingDB("app").stats()|
stats.scale|db.getSiblingDB("app").stats(1024)|
stats.options|db.getSiblingDB("app").stats({scale: 1024, freeStorage: 1})|
hello|db.hello()|
hostInfo|db.hostInfo()|
serverCmdLineOpts|db.serverCmdLineOpts()|
rs.status|rs.status()|
rs.initiate|rs.initiate({_id: "rs0", members: [{_id: 0, host: "a:27017"}]})|
rs.stepDown|rs.stepDown()|
rs.stepDown.catchUp|rs.stepDown(120, 10)|
rs.freeze|rs.freeze(60)|
rs.syncFrom|rs.syncFrom("rs0-2.example.net:27017")|
rs.conf|rs.conf()|
coll.stats|db.getSiblingDB("app").users.stats()|
coll.stats.scale|db.getSiblingDB("app").users.stats(1024)|
coll.stats.options|db.getSiblingDB("app").events.stats({scale: 1000, indexDetails: true})|
coll.dataSize|db.getSiblingDB("app").users.dataSize()|
coll.storageSize|db.getSiblingDB("app").users.storageSize()|
coll.totalIndexSize|db.getSiblingDB("app").users.totalIndexSize()|
coll.totalSize|db.getSiblingDB("app").users.totalSize()|
getCollectionNames|db.getSiblingDB("app").getCollectionNames()|
getCollectionInfos|db.getSiblingDB("app").getCollectionInfos({name: "users"})|
listCommands|db.listCommands()|
db.getProfilingStatus|db.getSiblingDB("app").getProfilingStatus()|
db.setProfilingLevel|db.getSiblingDB("app").setProfilingLevel(0, {slowms: 200, sampleRate: 1})|
db.setProfilingLevel.slowms|db.getSiblingDB("app").setProfilingLevel(0, 150)|
db.setLogLevel|db.setLogLevel(1, "storage.journal")|
db.setLogLevel.top|db.setLogLevel(0)|
db.createView|db.getSiblingDB("scratch").createView("adults", "users", [{$match: {age: {$gte: 18}}}], {collation: {locale: "en"}})|
createCollection|db.getSiblingDB("scratch").createCollection("tmp")|
createCollection.capped|db.getSiblingDB("scratch").createCollection("capped", {capped: true, size: 4096, max: 10})|
renameCollection|db.getSiblingDB("scratch").tmp.renameCollection("tmp2")|
renameCollection.dropTarget|db.getSiblingDB("scratch").tmp2.renameCollection("capped", true)|
drop|db.getSiblingDB("scratch").capped.drop()|
drop.writeConcern|db.getSiblingDB("app").notes.drop({writeConcern: {w: 1}})|
dropDatabase|db.getSiblingDB("scratch").dropDatabase()|
dropDatabase.writeConcern|db.getSiblingDB("scratch2").dropDatabase({w: "majority"})|
auth.createUser|db.getSiblingDB("admin").createUser({user: "peerOps", pwd: "Pw-peer-1", roles: ["clusterMonitor"], customData: {team: "dba"}})|
auth.users|db.getSiblingDB("admin").getUser("peerOps", {showPrivileges: true, showCustomData: false}); db.getSiblingDB("admin").getUser("nobody"); db.getSiblingDB("admin").getUsers({filter: {user: "peerOps"}, showCredentials: true}); db.getSiblingDB("app").getUsers(); db.getSiblingDB("admin").grantRolesToUser("peerOps", ["clusterManager", {role: "read", db: "config"}], {w: 1}); db.getSiblingDB("admin").revokeRolesFromUser("peerOps", ["clusterManager"])|
auth.createRole|db.getSiblingDB("admin").createRole({role: "peerRole", privileges: [{resource: {cluster: true}, actions: ["balancerStart"]}], roles: [], authenticationRestrictions: []}, {w: "majority"})|
auth.roles|db.getSiblingDB("admin").updateRole("peerRole", {roles: ["clusterMonitor"]}, {w: 1}); db.getSiblingDB("admin").grantRolesToRole("peerRole", [{role: "read", db: "config"}]); db.getSiblingDB("admin").revokeRolesFromRole("peerRole", ["clusterMonitor"], {w: "majority"}); db.getSiblingDB("admin").grantPrivilegesToRole("peerRole", [{resource: {db: "config", collection: "settings"}, actions: ["find", "update"]}]); db.getSiblingDB("admin").revokePrivilegesFromRole("peerRole", [{resource: {db: "config", collection: "settings"}, actions: ["update"]}]); db.getSiblingDB("admin").getRole("peerRole", {showPrivileges: true}); db.getSiblingDB("admin").getRole("clusterManager"); db.getSiblingDB("admin").getRoles({showBuiltinRoles: true, showPrivileges: false})|
auth.show.users|show users|show("users")
auth.show.roles|show roles|show("roles")
auth.dropAll|db.getSiblingDB("scratch").dropAllRoles(); db.getSiblingDB("scratch").dropAllUsers({w: "majority"}); db.getSiblingDB("scratch").logout()|
auth.dropRole|db.getSiblingDB("admin").dropRole("peerRole", {w: 1})|
auth.dropUser|db.getSiblingDB("admin").dropUser("peerOps")|'

# The cases whose one request is a buildInfo, which the filter drops as driver traffic: compared with it kept, after
# the others (mongosh's start-up buildInfo is not in a case's slice). db.version(), and db.serverBits() (whose
# sibling db.getLogComponents() sends a getParameter, dropped as start-up traffic: tests/scripts checks its value).
KEEPBI_CASES='version|db.version(); db.version()
db.serverBits|db.serverBits(); db.serverBits()'

# ours_case VERSION NAME CODE [OPTION]: shardsh runs CODE on its shardsim; the case's slice of its command log is
# recorded in D/VERSION/ours.ranges
ours_case() {
   _n0=$(wc -c < "$D/$1/ours.log")
   NO_COLOR=1 "$SHARDSH" --norc --quiet --yes $4 "$SIM_URI/test" --eval "$3" > "$D/$1/$2.ours.out" 2>&1
   echo "$D/$1/$2 $_n0 $(wc -c < "$D/$1/ours.log")" >> "$D/$1/ours.ranges"
}

# Per version: two shardsims started alike (tests/peer/lib.sh); the cases in D/VERSION/cases for mongosh, which
# runs them all (both versions) in the background while shardsh runs them on its own shardsim, one process a case.
D="$TMPD/cdb"
: > "$TMPD/cdb.list"
for v in 4.4 8.0; do
   mkdir -p "$D/$v"
   if ! sim_start --scenario demo --version "$v" --log-commands "$D/$v/theirs.log"; then
      fail "compare-db.$v.start" "shardsim did not start"
      continue
   fi
   sim_keep
   # user and role management is the same on every version: compared on 8.0 only (CI time)
   printf '%s\n' "$CASES" | awk -F '|' -v only="${COMPARE_ONLY:-}" -v v="$v" \
      'index($1, only) && !(v == "4.4" && $1 ~ /^auth\./) { print $1 "\t" ($3 != "" ? $3 : $2) }' > "$D/$v/cases"
   printf '%s\n' "$KEEPBI_CASES" | awk -F '|' -v only="${COMPARE_ONLY:-}" 'index($1, only) { print $1 "\t" $2 }' \
      >> "$D/$v/cases"
   echo "$SIM_URI/test $D/$v/theirs.log $D/$v/cases $D/$v" >> "$TMPD/cdb.list"
done
peer_mongosh_cases "$TMPD/cdb.list" &
mpid=$!
for v in 4.4 8.0; do
   [ -s "$D/$v/cases" ] || continue
   if ! sim_start --scenario demo --version "$v" --log-commands "$D/$v/ours.log"; then
      fail "compare-db.$v.start" "shardsim did not start"
      continue
   fi
   : > "$D/$v/ours.log"
   : > "$D/$v/ours.ranges"
   printf '%s\n' "$CASES" | while IFS='|' read -r name ours theirs; do
      case "$name" in *"${COMPARE_ONLY:-}"*) ;; *) continue ;; esac
      case "$v.$name" in 4.4.auth.*) continue ;; esac
      # --no-preflight for the cases that run several statements as JavaScript (shardsh's pre-flight reads of config
      # before a script's first write are its own checks, not what the statements send), and for an explain of a write
      # (explain().update/remove/findAndModify/findOneAnd… names a write, so the pre-flight would send the explain, a
      # read it follows, once more)
      case "$name" in auth.users | auth.roles | auth.dropAll | explain.write.* | explain.findOneAnd*) pf=--no-preflight ;; *) pf="" ;; esac
      ours_case "$v" "$name" "$ours" $pf
   done
   printf '%s\n' "$KEEPBI_CASES" | while IFS='|' read -r name code; do
      case "$name" in *"${COMPARE_ONLY:-}"*) ours_case "$v" "$name" "$code" ;; esac
   done
   sim_stop
done
wait "$mpid" || echo "# mongosh exited with status $? (see $TMPD/cdb.list.out)" >&2
sims_stop
for v in 4.4 8.0; do
   [ -s "$D/$v/cases" ] || continue
   peer_slice "$D/$v/ours.log" "$D/$v/ours.ranges" ours
   peer_slice "$D/$v/theirs.log" "$D/$v/ranges" theirs
   # shellcheck disable=SC2046 # one file per case, names without spaces
   peer_normalise cmds $(awk '$1 !~ /\/(version|db\.serverBits)$/ { print $1 ".ours"; print $1 ".theirs" }' "$D/$v/ours.ranges")
   # shellcheck disable=SC2046
   KEEP_BUILDINFO=1 peer_normalise cmds $(awk '$1 ~ /\/(version|db\.serverBits)$/ { print $1 ".ours"; print $1 ".theirs" }' "$D/$v/ours.ranges")
   awk '{ n = $1; sub(".*/", "", n); print n }' "$D/$v/ours.ranges" | while read -r name; do compare_case "$v" "$name"; done
done
