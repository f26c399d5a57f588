// Documents per shard of every collection through the raw aggregate command and its cursor.firstBatch, Long counts turned
// into numbers, JSON.stringify of a Long cursor id, and indexed loops with globals (the habit of the support
// snippets that read $indexStats this way; shardsim answers $collStats, not $indexStats).
var ldb = db.adminCommand({ listDatabases: 1 });
ldb.databases.sort(function (a, b) { return a.name < b.name ? -1 : 1; });

for (i = 0; i < ldb.databases.length; i++) {
  var name = ldb.databases[i].name;
  if (name == 'admin' || name == 'config' || name == 'local') continue;
  print('DATABASE ', name);
  print("+++++++++++++++++++++++++++++++++++++++++");
  var sdb = db.getSiblingDB(name);
  var cpd = sdb.getCollectionNames().sort();
  for (j = 0; j < cpd.length; j++) {
    var res = sdb.runCommand({ aggregate: cpd[j], pipeline: [{ $collStats: { count: {} } }], cursor: { batchSize: 100 } });
    var perShard = res.cursor.firstBatch.map(function (d) { return { shard: d.shard, count: Number(d.count) }; });
    if (j == 0) print("as JSON: " + JSON.stringify(res.cursor.firstBatch[0].count));
    perShard.sort(function (a, b) { return a.shard < b.shard ? -1 : 1; });
    var line = [];
    for (k = 0; k < perShard.length; k++) line.push(perShard[k].shard + "=" + perShard[k].count);
    print("COLL :" + cpd[j] + "  " + line.join(" ") + "  ok=" + res.ok + " id=" + JSON.stringify(res.cursor.id));
  }
  print("\n");
}
