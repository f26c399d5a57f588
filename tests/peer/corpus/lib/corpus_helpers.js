// Helper file loaded by load_helper.js: functions a team keeps in a shared file.
function shardNames() {
  return db.getSiblingDB("config").shards.find().sort({ _id: 1 }).toArray().map(function (s) { return s._id; });
}
function chunkCount(ns) {
  var c = db.getSiblingDB("config").collections.findOne({ _id: ns });
  return db.getSiblingDB("config").chunks.countDocuments({ uuid: c.uuid });
}
var HELPERS_LOADED = true;
