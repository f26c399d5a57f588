// listShards through adminCommand, each shard printed with printjson.
var res = db.adminCommand({ listShards: 1 });
if (res.ok !== 1) {
  print("listShards failed");
} else {
  res.shards.forEach(printjson);
}
