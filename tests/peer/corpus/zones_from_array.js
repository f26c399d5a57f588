// Zone setup from arrays: shards to zones, then key ranges, with forEach, then a listing of config.tags.
var zones = [
  { shard: "shard03", zone: "CHI" },
  { shard: "shard03", zone: "DAL" },
];
var ranges = [
  { min: { zipcode: "60601" }, max: { zipcode: "60700" }, zone: "CHI" },
  { min: { zipcode: "75201" }, max: { zipcode: "75399" }, zone: "DAL" },
];
sh.stopBalancer();
zones.forEach(function (z) {
  var r = sh.addShardToZone(z.shard, z.zone);
  print("addShardToZone " + z.shard + " " + z.zone + " ok=" + r.ok);
});
ranges.forEach(function (r) {
  var res = sh.updateZoneKeyRange("app.stores", r.min, r.max, r.zone);
  print("updateZoneKeyRange " + r.zone + " ok=" + res.ok);
});
sh.startBalancer();
db.getSiblingDB("config").tags.find({ ns: "app.stores" }).sort({ min: 1 }).forEach(function (t) {
  print(t.tag + "\t" + JSON.stringify(t.min) + " -> " + JSON.stringify(t.max));
});
db.getSiblingDB("config").shards.find({}, { _id: 1, tags: 1 }).sort({ _id: 1 }).forEach(function (s) {
  print(s._id + ": " + (s.tags || []).join(","));
});
