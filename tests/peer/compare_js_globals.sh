#!/bin/sh
# passes: plain
# Peer check of mongosh's globals and values in shardsh's engine (issue 29): the prelude's list of mongosh's shell API
# is the installed mongosh 2.12's own (its shell-api signatures), and one script using load, console, EJSON,
# bsonsize, version, every rs.* method through a mongos (mostly mongos's errors), db.isMaster/serverCmdLineOpts and Long/UUID/MinKey values,
# Node's require("fs"/"path"/"os"/"util") with fs's errors, require of a module file and a JSON file, process, Buffer, ObjectId/Timestamp as js-bson 6 has them,
# print(db.getMongo()) and a new Mongo that fails when made, prints the same
# through mongosh and shardsh against one shardsim (one mongosh process); a script reading two shardsims through
# two Mongo objects and connect() prints the same through both.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh

ensure_mongosh js-globals-peer || exit 0

# the list: mongosh's signatures against the prelude's MONGOSH_API (the globals row may hold more: the shell's own)
api_dir="$(dirname "$(readlink -f "$MONGOSH")")/../.."
[ -d "$api_dir/@mongosh/shell-api" ] || api_dir="$(dirname "$MONGOSH")/.."
NODE_PATH="$api_dir" node -e '
const s = require("@mongosh/shell-api").signatures;
const m = { ShellApi: "", Database: "db", Collection: "db.collection", Cursor: "cursor", Mongo: "db.getMongo()", ReplicaSet: "rs", Shard: "sh" };
for (const c of Object.keys(m)) console.log(m[c] + "\t" + Object.keys(s[c].attributes).sort().join(" "));
' > "$TMPD/api.mongosh" 2> "$TMPD/api.err" || { fail "js-globals-peer/mongosh's signatures read" "$(head -3 "$TMPD/api.err")"; exit 0; }
"$SHARDSH" --norc --quiet --dry-run --eval '__shardshApi().forEach(([w, n]) => {
  const sig = "use show exit quit Mongo connect it version load enableTelemetry disableTelemetry passwordPrompt sleep print printjson convertShardKeyToHashed cls isInteractive".split(" ");
  print(w + "\t" + n.map((x) => x[0]).filter((x) => w || sig.includes(x)).sort().join(" "));
})' > "$TMPD/api.shardsh" 2>&1
sort "$TMPD/api.mongosh" > "$TMPD/a.m"
sort "$TMPD/api.shardsh" > "$TMPD/a.s"
if cmp -s "$TMPD/a.m" "$TMPD/a.s"; then
   pass "js-globals-peer/the prelude's list is mongosh's shell API"
else
   fail "js-globals-peer/the prelude's list is mongosh's shell API" "$(diff "$TMPD/a.m" "$TMPD/a.s" | head -6 | tr '\n' '|')"
fi

mkdir -p "$TMPD/g/sub"
printf 'var libValue = 7;\nfunction twice(x) { return x * 2; }\nprint("loaded", __filename.split("/").slice(-2).join("/"));\n' > "$TMPD/g/sub/lib.js"
cat > "$TMPD/g/main.js" <<'JS'
print(load("sub/lib.js"), libValue, twice(21), __filename.split("/").pop(), __filename === __dirname + "/main.js");
print(NumberLong("42") + 1, typeof (NumberLong("42") + 1), NumberLong("42") * 2, NumberLong("42") == 42);
print(JSON.stringify(NumberLong("-5")), JSON.stringify(Timestamp({t: 1, i: 2})), JSON.stringify(MinKey()));
print(NumberInt(5) + 1, Double(2.5) + 1, NumberDecimal("1.5") + 1);
print(UUID("41424344-4546-4748-494a-4b4c4d4e4f50").toString(), UUID("41424344-4546-4748-494a-4b4c4d4e4f50").toString("hex"));
print(MinKey);
print(MaxKey());
print(typeof EJSON, typeof bsonsize, typeof console, typeof version, typeof load, typeof rs, typeof db.getMongo, typeof Mongo);
print(version());
print(bsonsize({a: 1}), bsonsize({s: "héllo", d: new Date(0), o: ObjectId("0123456789abcdef01234567"), n: [1, 2.5, NumberLong("3")]}));
print(EJSON.stringify({a: NumberLong("5"), b: 1, c: 2.5, d: new Date(0), e: ObjectId("0123456789abcdef01234567")}));
print(EJSON.stringify({a: NumberLong("5"), b: 1, c: 2.5, d: new Date(0)}, {relaxed: false}));
print(EJSON.stringify({a: NumberLong("5")}, null, 2, {relaxed: false}));
printjson(EJSON.serialize({a: NumberLong("5"), b: 1}));
printjson(EJSON.deserialize({a: {$numberLong: "5"}, b: {$numberInt: "1"}}));
printjson(EJSON.parse('{"a": {"$numberLong": "5"}, "b": 1, "c": {"$date": "1970-01-01T00:00:00Z"}}'));
console.log("log", 1, {a: 1}); console.error("err"); console.warn("warn"); console.info("info");
try { print('rs.status()', "->", rs.status()); } catch (e) { print('rs.status()', "ERR", e.name, e.code, e.codeName, e.message); }
try { print('rs.conf()', "->", rs.conf()); } catch (e) { print('rs.conf()', "ERR", e.name, e.code, e.codeName, e.message); }
try { print('rs.config()', "->", rs.config()); } catch (e) { print('rs.config()', "ERR", e.name, e.code, e.codeName, e.message); }
try { print('rs.initiate()', "->", rs.initiate()); } catch (e) { print('rs.initiate()', "ERR", e.name, e.code, e.codeName, e.message); }
try { print("rs.initiate({_id: 'x'})", "->", rs.initiate({_id: 'x'})); } catch (e) { print("rs.initiate({_id: 'x'})", "ERR", e.name, e.code, e.codeName, e.message); }
try { print('rs.stepDown()', "->", rs.stepDown()); } catch (e) { print('rs.stepDown()', "ERR", e.name, e.code, e.codeName, e.message); }
try { print('rs.stepDown(10, 5)', "->", rs.stepDown(10, 5)); } catch (e) { print('rs.stepDown(10, 5)', "ERR", e.name, e.code, e.codeName, e.message); }
try { print('rs.freeze(5)', "->", rs.freeze(5)); } catch (e) { print('rs.freeze(5)', "ERR", e.name, e.code, e.codeName, e.message); }
try { print("rs.syncFrom('a:1')", "->", rs.syncFrom('a:1')); } catch (e) { print("rs.syncFrom('a:1')", "ERR", e.name, e.code, e.codeName, e.message); }
try { print("rs.add('x:1')", "->", rs.add('x:1')); } catch (e) { print("rs.add('x:1')", "ERR", e.name, e.code, e.codeName, e.message); }
try { print("rs.addArb('x:1')", "->", rs.addArb('x:1')); } catch (e) { print("rs.addArb('x:1')", "ERR", e.name, e.code, e.codeName, e.message); }
try { print("rs.remove('x:1')", "->", rs.remove('x:1')); } catch (e) { print("rs.remove('x:1')", "ERR", e.name, e.code, e.codeName, e.message); }
try { print('rs.reconfig({})', "->", rs.reconfig({})); } catch (e) { print('rs.reconfig({})', "ERR", e.name, e.code, e.codeName, e.message); }
try { print('rs.printReplicationInfo()', "->", rs.printReplicationInfo()); } catch (e) { print('rs.printReplicationInfo()', "ERR", e.name, e.code, e.codeName, e.message); }
try { print('rs.printSecondaryReplicationInfo()', "->", rs.printSecondaryReplicationInfo()); } catch (e) { print('rs.printSecondaryReplicationInfo()', "ERR", e.name, e.code, e.codeName, e.message); }
try { print('rs.printSlaveReplicationInfo()', "->", rs.printSlaveReplicationInfo()); } catch (e) { print('rs.printSlaveReplicationInfo()', "ERR", e.name, e.code, e.codeName, e.message); }
try { print('db.printReplicationInfo()', "->", db.printReplicationInfo()); } catch (e) { print('db.printReplicationInfo()', "ERR", e.name, e.code, e.codeName, e.message); }
try { print('db.getReplicationInfo()', "->", db.getReplicationInfo()); } catch (e) { print('db.getReplicationInfo()', "ERR", e.name, e.code, e.codeName, e.message); }
try { print('db.printSecondaryReplicationInfo()', "->", db.printSecondaryReplicationInfo()); } catch (e) { print('db.printSecondaryReplicationInfo()', "ERR", e.name, e.code, e.codeName, e.message); }
try { print('db.printSlaveReplicationInfo()', "->", db.printSlaveReplicationInfo()); } catch (e) { print('db.printSlaveReplicationInfo()', "ERR", e.name, e.code, e.codeName, e.message); }
try { print('db.hostInfo().system.numCores', "->", db.hostInfo().system.numCores); } catch (e) { print('db.hostInfo().system.numCores', "ERR", e.name, e.code, e.codeName, e.message); }
print(db.isMaster().isWritablePrimary, db.isMaster().msg, rs.hello().msg, rs.isMaster().ismaster);
printjson(db.serverCmdLineOpts().parsed.sharding);
print(db.getMongo().getDB("app").getName(), db.getMongo().getCollection("app.users").getFullName());
const fs = require("fs"), path = require("node:path"), os = require("os"), util = require("util");
fs.writeFileSync("out.txt", "h\u00e9llo\n"); fs.appendFileSync("out.txt", "more"); fs.appendFileSync("out.txt", Buffer.from("!"));
print(fs.readFileSync("out.txt", "utf8"), fs.readFileSync("out.txt").length, fs.readFileSync("out.txt"), fs.existsSync("out.txt"), fs.existsSync("nope"));
print(JSON.parse(fs.readFileSync(path.join(__dirname, "sub", "conf.json"))).zones, fs.readFileSync("sub/conf.json", {encoding: "hex"}).slice(0, 6));
print(JSON.stringify(fs.readdirSync("sub")), fs.mkdirSync("d1/d2", {recursive: true}), fs.mkdirSync("d3"), fs.mkdirSync("d3", {recursive: true}),
  fs.mkdirSync(path.join(__dirname, "d4/d5/"), {recursive: true}) === path.join(__dirname, "d4"), fs.readdirSync(".").join(","));
for (const f of [() => fs.readFileSync("nope.txt"), () => fs.readdirSync("nope"), () => fs.mkdirSync("sub"), () => fs.readFileSync("sub"), () => fs.writeFileSync("sub", "x"), () => fs.mkdirSync("out.txt/x", {recursive: true})])
  try { f(); } catch (e) { print(e.name, e.code, e.errno, e.syscall, e.path, e.message); }
print(path.join("a", "b", "../c", "d.json"), path.resolve("x") === process.cwd() + "/x", path.basename("/a/b.txt"), path.basename("/a/b.txt", ".txt"), path.dirname("/a/b/c"), path.extname("x.tar.gz"), path.relative("/a/b/c", "/a/d"), path.sep, path.isAbsolute("/x"), path.isAbsolute("x"));
print(os.EOL === "\n", os.platform(), os.homedir() === process.env.HOME, os.tmpdir() === (process.env.TMPDIR || "/tmp").replace(/(.)\/$/, "$1"), typeof os.hostname());
print(process.platform, process.env.PEER_SETTING, process.env.NOPE === undefined, typeof process.argv[0], process.cwd() === path.resolve("."), typeof process.exit);
process.stdout.write("no newline|"); process.stdout.write("end\n");
print(util.format("%s=%d %j %% %s", "a", 5, {x: 1}, "rest", 7, {y: [1]}), util.inspect({a: 1, b: "x", c: [1, 2], d: {e: {f: {g: 1}}}}), util.inspect("it's"), util.inspect(NumberLong("5")));
print(typeof process.hrtime()[0], typeof performance.now(), typeof require("path").posix.join, Buffer.from("hi").toString("base64"), Buffer.from("aGk=", "base64").toString());
print(ObjectId("0123456789abcdef01234567").str, ObjectId("0123456789abcdef01234567").getTimestamp(), ObjectId("0123456789abcdef01234567").toHexString());
const ts = Timestamp({t: 5, i: 7}), big = Timestamp({t: 4294967295, i: 1});
print(ts.t, ts.i, ts.getHighBits(), ts.getLowBits(), String(ts), ts.high, ts.low, big.t, big.getHighBits(), String(big));
print(db.getMongo());
printjson(db.getMongo());
try { new Mongo("127.0.0.1:1"); print("connected"); } catch (e) { print("new Mongo of an unreachable host fails at once"); }
const mod = require("./lib/mod");
print(mod.v, mod.dir, mod.file, mod.self, require("./lib/mod.js") === mod, require("./sub/conf.json").zones, require("./sub/conf") === require("./sub/conf.json"));
try { require("./nope"); } catch (e) { print(e.code, e.message.split("\n")[0]); }
JS
printf '{"zones": 3}\n' > "$TMPD/g/sub/conf.json"
mkdir -p "$TMPD/g/lib"
printf 'const o = require("./other");\nmodule.exports = { v: o.v + 1, dir: __dirname.split("/").pop(), file: __filename.split("/").pop(), self: this === exports };\n' > "$TMPD/g/lib/mod.js"
printf 'exports.v = 41;\n' > "$TMPD/g/lib/other.js"
if ! sim_start --scenario demo; then
   fail "js-globals-peer/shardsim" "shardsim did not start"
   exit 0
fi
# the same files for both runs (main.js writes some); each side's own connection options (the timeout its session
# uses, its appName) compared as one word
cp -R "$TMPD/g" "$TMPD/g2"
(cd "$TMPD/g" && PEER_SETTING=from-env NO_COLOR=1 "$ROOT/$SHARDSH" --norc --quiet "$SIM_URI/test" main.js > ../g.shardsh 2> ../g.shardsh.err < /dev/null)
(cd "$TMPD/g2" && PEER_SETTING=from-env "$MONGOSH" --norc --quiet "$SIM_URI/test" main.js 2>&1 > ../g.mongosh < /dev/null | grep -v '^Warning: NumberLong' > ../g.mongosh.err)
sed -i 's/serverSelectionTimeoutMS=[0-9]*&appName=[^&]*$/OPTIONS/' "$TMPD/g.shardsh" "$TMPD/g.mongosh"
sim_stop
if cmp -s "$TMPD/g.mongosh" "$TMPD/g.shardsh"; then
   pass "js-globals-peer/the globals script prints what mongosh prints"
else
   fail "js-globals-peer/the globals script prints what mongosh prints" \
      "$(diff "$TMPD/g.mongosh" "$TMPD/g.shardsh" | head -20 | tr '\n' '|')"
fi

# second connections: one script reads two clusters (2 and 4 shards) through two Mongo objects and connect()
if ! sim_start --shards 4; then
   fail "js-globals-peer/shardsim" "shardsim did not start"
   exit 0
fi
P2=$SIM_PORT
sim_keep
if ! sim_start --shards 2; then
   fail "js-globals-peer/shardsim" "shardsim did not start"
   exit 0
fi
cat > "$TMPD/two.js" <<JS
const a = new Mongo("$SIM_URI"), b = Mongo("127.0.0.1:$P2");
for (const m of [a, b]) print(m.getDB("admin").runCommand({listShards: 1}).shards.map((s) => s._id).join(","));
print(b.getDB("config").getSiblingDB("admin").adminCommand({listShards: 1}).shards.length, typeof Mongo, typeof connect);
print(b.getDB("config").shards.find().toArray().length, b.getDB("config").getCollection("shards").countDocuments({}));
print(b.getDB("config").shards.aggregate([{\$count: "n"}]).toArray()[0].n, b.getDB("config").shards.find().itcount());
const d = connect("127.0.0.1:$P2/config");
print(d.getName(), d.shards.find({}, {_id: 1}).sort({_id: -1}).limit(1).next()._id);
print(b.getURI(), d.getMongo().getURI(), String(b), new Mongo("mongodb://127.0.0.1:$P2/admin?appName=x").getURI());
print(db.adminCommand({listShards: 1}).shards.length, db.getMongo().getDB("admin").runCommand({listShards: 1}).shards.length);
JS
NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI" "$TMPD/two.js" > "$TMPD/two.shardsh" 2>&1 < /dev/null
"$MONGOSH" --norc --quiet "$SIM_URI/test" "$TMPD/two.js" > "$TMPD/two.mongosh" 2>&1 < /dev/null
sim_stop
sims_stop
if cmp -s "$TMPD/two.mongosh" "$TMPD/two.shardsh"; then
   pass "js-globals-peer/two clusters read through two Mongo objects as in mongosh"
else
   fail "js-globals-peer/two clusters read through two Mongo objects as in mongosh" \
      "$(diff "$TMPD/two.mongosh" "$TMPD/two.shardsh" | head -12 | tr '\n' '|')"
fi
