// Count jumbo chunks per collection with the legacy cursor count().
var config = db.getSiblingDB("config");
config.chunks.updateOne({ shard: "shard02" }, { $set: { jumbo: true } });
var n = config.chunks.find({ jumbo: true }).count();
print("jumbo chunks: " + n);
config.chunks.find({ jumbo: true }).forEach(function (c) {
  var coll = config.collections.findOne({ uuid: c.uuid });
  print("  " + coll._id + " on " + c.shard + " " + JSON.stringify(c.min));
});
