// A legacy-shell helper file that first does its work, then extends DB.prototype (the mongo-snippets habit): mongosh
// has no DB constructor, so the script fails there, after the lines before it have run and written.
print("recording the run");
db.getSiblingDB("ops").runs.insertOne({ _id: "nightly", step: 1 });
print("runs recorded: " + db.getSiblingDB("ops").runs.countDocuments({}));
DB.prototype.chunkCount = function (coll) {
  var meta = this.getSiblingDB("config").collections.findOne({ _id: this.getName() + "." + coll });
  return this.getSiblingDB("config").chunks.countDocuments({ uuid: meta.uuid });
};
print("events chunks: " + db.getSiblingDB("app").chunkCount("events"));
