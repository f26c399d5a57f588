// $shardedDataDistribution: owned documents per shard for each sharded collection.
db.getSiblingDB("admin").aggregate([{ $shardedDataDistribution: {} }, { $match: { ns: /^app\./ } }, { $sort: { ns: 1 } }]).forEach(function (d) {
  var parts = d.shards.map(function (s) { return s.shardName + "=" + s.numOwnedDocuments; }).sort();
  print(d.ns + ": " + parts.join(" "));
});
