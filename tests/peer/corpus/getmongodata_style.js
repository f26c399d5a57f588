// A support-tool style report: settings that `--eval "var _printJSON=false"` would set (defaulted with typeof), a
// printInfo(message, fn, section) wrapper that times each step and records errors instead of stopping, one JSON
// document printed at the end (the getMongoData / mongoWellnessChecker shape).
if (typeof _printJSON === "undefined") var _printJSON = true;
if (typeof _ref === "undefined") var _ref = null;
var _output = [];
function printInfo(message, command, section) {
  var result = null, err = null;
  var start = new Date();
  try {
    result = command();
  } catch (e) {
    err = e.message || String(e);
  }
  var took = new Date() - start;
  var entry = { section: section, subsection: message.toLowerCase().replace(/ /g, "_"), tookOk: took >= 0 };
  if (err) entry.error = err; else entry.output = result;
  if (_printJSON) _output.push(entry);
  else print("\n** " + message + ":" + (err ? " ERROR " + err : "\n" + JSON.stringify(result)));
}
printInfo("Is mongos", function () { return db.hello().msg === "isdbgrid"; }, "shard_info");
printInfo("Shards", function () {
  return db.getSiblingDB("config").shards.find({}, { _id: 1, tags: 1 }).sort({ _id: 1 }).toArray();
}, "shard_info");
printInfo("Sharded collections", function () {
  return db.getSiblingDB("config").collections.find({}, { _id: 1, key: 1 }).sort({ _id: 1 }).toArray()
    .map(function (c) { return c._id + " " + JSON.stringify(c.key); });
}, "shard_info");
printInfo("Replica set status", function () { return rs.status().set; }, "replicaset");
printInfo("Database names", function () { return db.getMongo().getDBNames().sort(); }, "server_info");
if (_printJSON) print(JSON.stringify({ ref: _ref, report: _output }, null, 2));
