#!/bin/sh
# passes: plain
# The shell under valgrind (memcheck): a --dry-run script, a script against shardsim --scenario demo, and the
# dashboard for two frames when this build has one. Any invalid read/write, use of uninitialised memory or a
# definitely/indirectly lost block fails the case. Skipped when valgrind is absent or the binaries are ASan builds
# (make asan), which valgrind cannot run.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1

if ! command -v valgrind >/dev/null 2>&1; then
   skip "valgrind" "valgrind is not installed (make deps installs it)"
   exit 0
fi
if [ -n "${SHARDSH_SAN:-}" ]; then
   skip "valgrind" "sanitizer build: valgrind runs on the plain build (make test, make valgrind)"
   exit 0
fi

VG="valgrind --quiet --leak-check=full --error-exitcode=3 --errors-for-leak-kinds=definite,indirect"
VG="$VG --show-leak-kinds=definite,indirect --track-origins=yes --num-callers=30"

# vg_run NAME LOG -- command...: passes when valgrind found nothing (exit status other than 3, empty report)
vg_run() {
   name=$1
   log=$2
   shift 3
   $VG --log-file="$log" "$@" > "$log.out" 2>&1
   rc=$?
   if [ "$rc" -eq 3 ] || grep -q -E 'Invalid (read|write|free)|uninitialised|definitely lost|indirectly lost' "$log"; then
      fail "$name" "valgrind reported errors (exit $rc): $(grep -m 5 -E 'Invalid|uninitialised|definitely|indirectly|Mismatched' "$log" | tr '\n' ' ')"
      sed 's/^/    /' "$log" | head -60
   else
      pass "$name"
   fi
}

cat > "$TMPD/dry.js" <<'JS'
sh.status()
sh.moveChunk("app.events", {ts: NumberLong(1000)}, "shard02")
sh.updateZoneKeyRange("test.users", {zipcode: "10001"}, {zipcode: MaxKey}, "NYC")
db.adminCommand({createUser: "ann", pwd: "secret", roles: [{role: "read", db: "app"}]})
db.getSiblingDB("config").shards.find({}).sort({_id: 1}).limit(3)
use config
show shards
printjson({a: [1, 2.5, "x", ObjectId("64b7f0c2a1b2c3d4e5f60718"), ISODate("2024-01-02T03:04:05Z")], b: {c: null}})
JS
vg_run "valgrind/--dry-run script: no errors, no leaks" "$TMPD/vg-dry.log" -- "$SHARDSH" --norc --dry-run "$TMPD/dry.js"
cat > "$TMPD/engine.js" <<'JS'
const zones = ["NYC", "SFO"].map((z, i) => ({ zone: z, shard: `shard0${i + 1}` }));
for (const { zone, shard } of zones) {
  const r = sh.addShardToZone(shard, zone);
  print(`${zone}: ${r.ok}`, NumberLong("5"), ObjectId(), ISODate("2024-01-01T00:00:00Z"), Timestamp(1, 2));
}
printjson(db.getSiblingDB("config").shards.find().sort({ _id: 1 }).toArray());
JS
vg_run "valgrind/JavaScript script (the engine plugin): no errors, no leaks" "$TMPD/vg-engine.log" -- \
   "$SHARDSH" --norc --dry-run "$TMPD/engine.js"
vg_run "valgrind/parse error path: no errors, no leaks" "$TMPD/vg-parse.log" -- \
   "$SHARDSH" --norc --dry-run --eval 'sh.status(' --eval 'db.x.find({a: 1'

if ! sim_start --scenario demo; then
   fail "valgrind/shardsim" "shardsim did not start"
   exit 0
fi
cat > "$TMPD/live.js" <<'JS'
sh.status()
sh.listShards()
sh.getBalancerState()
sh.isBalancerRunning()
db.adminCommand({listShards: 1})
show dbs
db.getSiblingDB("config").chunks.find({}).limit(5)
sh.getRecentMigrations()
db.adminCommand({noSuchCommand: 1})
JS
vg_run "valgrind/script against shardsim: no errors, no leaks" "$TMPD/vg-live.log" -- \
   "$SHARDSH" --norc --continue-on-error "$SIM_URI" "$TMPD/live.js"
# the database and collection methods, their results and their server errors (duplicate key, missing index)
cat > "$TMPD/methods.js" <<'JS'
db.getSiblingDB("config").settings.updateOne({_id: "chunksize"}, {$set: {value: 64}}, {upsert: true})
use app
db.vg.insertOne({a: 1})
db.vg.insertMany([{_id: 1}, {_id: 2, n: 1}])
db.vg.insertOne({_id: 1})
db.vg.updateMany({}, {$inc: {n: 1}}, {upsert: true})
db.vg.replaceOne({_id: 9}, {r: 1}, {upsert: true})
db.vg.findOneAndUpdate({_id: 1}, {$set: {b: 1}}, {returnDocument: "after", projection: {b: 1}})
db.vg.deleteOne({_id: 2})
db.vg.createIndexes([{n: 1}, {b: "hashed"}], {sparse: true})
db.vg.hideIndex("n_1")
db.vg.dropIndex("nope")
db.vg.find({n: {$gte: 0}}).sort({_id: 1}).hint({_id: 1}).maxTimeMS(100).limit(2)
db.vg.find().count()
db.vg.find().itcount()
db.vg.stats(1024)
db.users.stats({indexDetails: true})
db.stats()
db.currentOp(true)
db.killOp("shard01:1")
db.getCollectionNames()
db.getCollectionInfos({name: "vg"})
db.listCommands()
db.version()
db.vg.renameCollection("vg2")
db.vg2.drop()
db.getSiblingDB("scratch").createCollection("t")
db.getSiblingDB("scratch").dropDatabase()
JS
vg_run "valgrind/database and collection methods against shardsim: no errors, no leaks" "$TMPD/vg-methods.log" -- \
   "$SHARDSH" --norc --yes --continue-on-error "$SIM_URI" "$TMPD/methods.js"
vg_run "valgrind/--json script against shardsim: no errors, no leaks" "$TMPD/vg-json.log" -- \
   "$SHARDSH" --norc --json "$SIM_URI" --eval 'sh.status()' --eval 'db.adminCommand({balancerStatus: 1})'

if "$SHARDSH" --help 2>&1 | grep -q -- '--dashboard'; then
   vg_run "valgrind/--dashboard -n 2: no errors, no leaks" "$TMPD/vg-dash.log" -- \
      env TERM=xterm "$SHARDSH" --norc "$SIM_URI" --dashboard -n 2 --interval 0.2
   # under valgrind a 0.2 s refresh gives up before the first sample lands: a slower one renders real data too
   vg_run "valgrind/--dashboard -n 2 --interval 2 (sampled): no errors, no leaks" "$TMPD/vg-dash2.log" -- \
      env TERM=xterm "$SHARDSH" --norc "$SIM_URI" --dashboard -n 2 --interval 2
else
   skip "valgrind/--dashboard -n 2" "no --dashboard in this build"
fi
sim_stop
