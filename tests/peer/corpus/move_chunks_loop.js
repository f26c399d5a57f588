// Empty a shard of one collection's chunks: moveChunk with bounds for each chunk found on it.
var config = db.getSiblingDB("config");
var coll = config.collections.findOne({ _id: "app.events" });
var from = "shard03", to = "shard02";
var moved = 0;
config.chunks.find({ uuid: coll.uuid, shard: from }).sort({ min: 1 }).toArray().forEach(function (c) {
  var r = db.adminCommand({ moveChunk: "app.events", bounds: [c.min, c.max], to: to });
  print("move " + JSON.stringify(c.min) + " -> " + to + ": " + (r.ok ? "ok" : r.errmsg));
  if (r.ok) moved++;
});
print("moved " + moved + " chunk(s); left on " + from + ": " +
  config.chunks.countDocuments({ uuid: coll.uuid, shard: from }));
