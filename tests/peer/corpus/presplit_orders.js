// Pre-split a collection at a list of points before a bulk load, then count its chunks.
var points = ["c010", "c020", "c040", "c060"];
for (var i = 0; i < points.length; i++) {
  var r = sh.splitAt("app.orders", { customer: points[i], ts: MinKey });
  print("split at " + points[i] + ": " + (r.ok === 1 ? "ok" : r.errmsg));
}
var uuid = db.getSiblingDB("config").collections.findOne({ _id: "app.orders" }).uuid;
print("app.orders chunks: " + db.getSiblingDB("config").chunks.countDocuments({ uuid: uuid }));
