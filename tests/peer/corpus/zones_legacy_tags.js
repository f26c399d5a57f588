// Zones set up with the tag-era helper names the older manual used (sh.addShardTag, sh.addTagRange,
// sh.removeTagRange), then checked in config.shards and config.tags.
sh.addShardTag("shard03", "LAX");
var r = sh.addTagRange("app.stores", { zipcode: "90001" }, { zipcode: "90099" }, "LAX");
print("addTagRange ok: " + r.ok);
db.getSiblingDB("config").shards.find({}, { _id: 1, tags: 1 }).sort({ _id: 1 }).forEach(function (s) {
  print(s._id + ": " + (s.tags || []).join(","));
});
db.getSiblingDB("config").tags.find({ ns: "app.stores" }).sort({ min: 1 }).forEach(function (t) {
  print(t.tag + " [" + t.min.zipcode + ", " + t.max.zipcode + ")");
});
sh.removeTagRange("app.stores", { zipcode: "90001" }, { zipcode: "90099" }, "LAX");
sh.removeShardTag("shard03", "LAX");
print("tags left: " + db.getSiblingDB("config").tags.countDocuments({ ns: "app.stores" }));
