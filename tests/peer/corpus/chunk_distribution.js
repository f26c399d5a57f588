// Chunk distribution report over config.collections and config.chunks (chunks keyed by uuid since 5.0).
var config = db.getSiblingDB("config");
config.collections.find({ dropped: { $ne: true } }).sort({ _id: 1 }).forEach(function (coll) {
  var counts = config.chunks.aggregate([
    { $match: { uuid: coll.uuid } },
    { $group: { _id: "$shard", chunks: { $sum: 1 } } },
    { $sort: { _id: 1 } },
  ]).toArray();
  var total = counts.reduce(function (a, c) { return a + c.chunks; }, 0);
  print(coll._id + " (" + total + " chunks)");
  counts.forEach(function (c) {
    print("  " + c._id + ": " + c.chunks + " (" + (100 * c.chunks / total).toFixed(1) + "%)");
  });
});
