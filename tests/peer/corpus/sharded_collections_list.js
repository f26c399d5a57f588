// Every sharded collection with its key, uniqueness, balancing flag and chunk count per shard, from config.collections
// and an aggregation over config.chunks ($group by shard, $sort), printed as an aligned list.
var cfg = db.getSiblingDB("config");
cfg.collections.find({ dropped: { $ne: true } }).sort({ _id: 1 }).forEach(function (c) {
  if (c._id.indexOf("config.") === 0) return;
  var perShard = cfg.chunks.aggregate([
    { $match: { uuid: c.uuid } },
    { $group: { _id: "$shard", n: { $sum: 1 } } },
    { $sort: { _id: 1 } },
  ]).toArray();
  var keyDesc = Object.keys(c.key).map(function (k) { return k + ":" + c.key[k]; }).join(",");
  print(c._id.padEnd(14) + " key {" + keyDesc + "} unique=" + !!c.unique + " balancing=" + !c.noBalance);
  print("    " + perShard.map(function (s) { return s._id + "=" + s.n; }).join(" "));
});
