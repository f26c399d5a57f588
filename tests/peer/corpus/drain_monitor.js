// Remove a shard and watch the drain: removeShard in a loop with sleep, then cancel the drain.
var shard = "shard03";
var res = db.adminCommand({ removeShard: shard });
print("state: " + res.state + " msg: " + res.msg);
for (var i = 0; i < 3; i++) {
  sleep(200);
  res = db.adminCommand({ removeShard: shard });
  if (res.state === "completed") { print("drain completed"); break; }
  print("state: " + res.state + " chunks left: " + res.remaining.chunks + " dbs left: " + res.remaining.dbs);
  if (res.dbsToMove && res.dbsToMove.length) print("databases to move: " + res.dbsToMove.join(", "));
}
var d = db.getSiblingDB("config").shards.findOne({ _id: shard });
print(shard + " draining: " + d.draining);
