// A script from the legacy mongo shell's days: tojson() is not a mongosh global, so it stops there.
var s = db.getSiblingDB("config").shards.findOne({ _id: "shard02" });
print("shard02 host set: " + s.host.split("/")[0]);
print("tags: " + tojson(s.tags));
print("not reached");
