// The per-collection distribution report of the sharding manual: getShardDistribution() for each sharded collection
// of a database, after a check that the collection is sharded.
var appdb = db.getSiblingDB("app");
["events", "orders"].forEach(function (name) {
  var coll = appdb.getCollection(name);
  var meta = db.getSiblingDB("config").collections.findOne({ _id: coll.getFullName() });
  if (!meta) {
    print(name + " is not sharded");
    return;
  }
  print("== " + coll.getFullName() + " key " + JSON.stringify(meta.key));
  // in mongosh the helper returns its report (the legacy shell printed it): scripts print what it returns
  var dist = coll.getShardDistribution();
  printjson(dist);
});
