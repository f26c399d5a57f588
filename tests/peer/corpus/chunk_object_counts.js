// Count the documents of each chunk of a collection with range filters built from the shard key and each chunk's
// bounds, then print the chunks busiest first with a hint on how to split the first (the mongo-snippets helper; it
// was a DB.prototype method in the legacy shell, a plain function taking the database here).
function getObjectCounts(database, collectionName) {
  var coll = database.getCollection(collectionName);
  if (coll.findOne() == null) {
    print("'" + coll + "' is empty");
    return;
  }
  var cfg = database.getSiblingDB("config");
  var meta = cfg.collections.findOne({ _id: coll.getFullName() });
  var chunks = cfg.chunks.find({ uuid: meta.uuid }, { _id: 0, min: 1, max: 1, shard: 1 }).sort({ min: 1 }).toArray();
  chunks.forEach(function (chunk) {
    var filter = {};
    for (var key in meta.key) {
      var interval = {};
      interval["$gte"] = chunk.min[key];
      interval["$lt"] = chunk.max[key];
      filter[key] = interval;
    }
    chunk.count = coll.countDocuments(filter);
  });
  chunks.sort(function (a, b) { return b.count - a.count; });
  chunks.forEach(function (chunk) {
    print(chunk.count + "\t" + chunk.shard + "\t" + EJSON.stringify(chunk.min) + " -->> " + EJSON.stringify(chunk.max));
  });
  print("\tto split the busiest chunk:");
  print("\tdb.adminCommand({ split: \"" + coll.getFullName() + "\", find: " + EJSON.stringify(chunks[0].min) + " })");
}
getObjectCounts(db.getSiblingDB("app"), "stores");
getObjectCounts(db.getSiblingDB("app"), "nothing_here");
