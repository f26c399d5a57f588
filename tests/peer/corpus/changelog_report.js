// What happened lately: config.changelog grouped by event, and the last failed migrations.
var config = db.getSiblingDB("config");
config.changelog.aggregate([
  { $group: { _id: "$what", n: { $sum: 1 } } },
  { $sort: { _id: 1 } },
]).forEach(function (g) {
  print(g._id + ": " + g.n);
});
var failed = config.changelog.find({ what: "moveChunk.from", "details.errmsg": { $exists: true } }).toArray();
print("failed migrations: " + failed.length);
failed.forEach(function (f) { print("  " + f.ns + ": " + f.details.errmsg); });
