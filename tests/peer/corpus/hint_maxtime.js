// Bounded report queries, as operators write them against production: hint() to pin an index, maxTimeMS to cap the
// run, projection, sort, skip and limit chained on the cursor, then toArray.
var app = db.getSiblingDB("app");
var docs = app.orders.find({ total: { $gt: 100 } }, { _id: 0, customer: 1, total: 1 })
  .hint({ customer: 1, ts: 1 })
  .maxTimeMS(5000)
  .sort({ total: -1 })
  .skip(2)
  .limit(5)
  .toArray();
docs.forEach(function (d) { print(d.customer + "\t" + d.total.toFixed(2)); });
var n = app.users.find({ city: "Seattle" }).maxTimeMS(1000).batchSize(10).comment("nightly report").count();
print("seattle users: " + n);
try {
  app.orders.find({}).hint({ no_such_field: 1 }).limit(1).toArray();
  print("hint on a missing index: no error");
} catch (e) {
  print("hint on a missing index: " + e.codeName);
}
