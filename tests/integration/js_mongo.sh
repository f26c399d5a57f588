#!/bin/sh
# passes: plain asan
# Second connections in JavaScript (issue 29): new Mongo(uri), Mongo(string), connect("host:port/db") against two shardsims
# (2 and 4 shards): each Mongo's databases, collections and cursors send on its own connection, the session's stays
# its own, a Mongo connects when made (an unreachable host or refused credentials fail at new Mongo, as in mongosh),
# print shows its connection string, a bad connection string is an error the script can catch.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh

if ! sim_start --shards 4; then
   fail "js-mongo/shardsim" "shardsim did not start"
   exit 0
fi
P2=$SIM_PORT
sim_keep
if ! sim_start --shards 2; then
   fail "js-mongo/shardsim" "shardsim did not start"
   exit 0
fi
cat > "$TMPD/two.js" <<JS
const a = new Mongo("$SIM_URI"), b = Mongo("127.0.0.1:$P2");
for (const m of [a, b]) print(m.getDB("admin").runCommand({listShards: 1}).shards.map((s) => s._id).join(","));
print(b.getDB("config").getSiblingDB("admin").adminCommand({listShards: 1}).shards.length);
print(b.getDB("config").shards.find().toArray().length, b.getDB("config").getCollection("shards").countDocuments({}));
print(b.getDB("config").shards.aggregate([{\$count: "n"}]).toArray()[0].n, b.getDB("config").shards.find().itcount());
const d = connect("127.0.0.1:$P2/config");
print(d.getName(), d.shards.find({}, {_id: 1}).sort({_id: -1}).limit(1).next()._id, d.getMongo().getURI());
print(db.adminCommand({listShards: 1}).shards.length, db.getMongo().getDB("admin").runCommand({listShards: 1}).shards.length);
try { new Mongo("mongodb://u:secret@127.0.0.1:$P2"); print("connected"); } catch (e) { print("refused at new Mongo:", e.message); }
try { Mongo("mongodb://"); } catch (e) { print("caught", e.name); }
try { new Mongo("127.0.0.1:1"); print("connected"); } catch (e) { print("unreachable at new Mongo:", e.message); }
print(db.getMongo()); printjson(a);
JS
"$SHARDSH" --norc --quiet "$SIM_URI" -f "$TMPD/two.js" > "$TMPD/out" 2> "$TMPD/err" < /dev/null
rc=$?
sim_stop
sims_stop
cat > "$TMPD/want" <<OUT
shard01,shard02
shard01,shard02,shard03,shard04
4
4 4
4 4
config shard04 mongodb://127.0.0.1:$P2/config?directConnection=true&serverSelectionTimeoutMS=2000
2 2
refused at new Mongo: authentication failed for user 'u' on database 'admin': no such command: 'saslStart'
caught MongoshError
unreachable at new Mongo: cannot reach 127.0.0.1:1: connection refused
$SIM_URI/?directConnection=true&serverSelectionTimeoutMS=5000&appName=shardsh
$SIM_URI/?directConnection=true&serverSelectionTimeoutMS=2000
OUT
if [ $rc -eq 0 ] && cmp -s "$TMPD/want" "$TMPD/out"; then
   pass "js-mongo/two clusters read through two Mongo objects"
else
   fail "js-mongo/two clusters read through two Mongo objects" \
      "rc=$rc $(diff "$TMPD/want" "$TMPD/out" | head -12 | tr '\n' '|') $(head -3 "$TMPD/err" | tr '\n' '|')"
fi
if grep -q secret "$TMPD/out" "$TMPD/err"; then
   fail "js-mongo/no password printed" "$(grep secret "$TMPD/out" "$TMPD/err" | head -2)"
else
   pass "js-mongo/no password printed"
fi
