// Index maintenance on a running cluster: build the indexes a release needs (createIndex with a name and options,
// createIndexes with several), list them, drop an obsolete one, and the legacy ensureIndex some scripts still call.
var app = db.getSiblingDB("app");
var wanted = [
  { key: { customer: 1, total: -1 }, options: { name: "customer_total" } },
  { key: { items: 1 }, options: { name: "items_1", background: true } },
];
wanted.forEach(function (w) {
  var name = app.orders.createIndex(w.key, w.options);
  print("created " + name);
});
printjson(app.users.createIndexes([{ city: 1 }, { age: -1, city: 1 }]));
print(app.orders.getIndexes().map(function (ix) { return ix.name; }).join(", "));
var res = app.orders.dropIndex("items_1");
print("dropIndex ok: " + res.ok);
try {
  app.orders.dropIndex("no_such_index");
} catch (e) {
  print("dropIndex: " + e.codeName);
}
app.stores.ensureIndex({ name: 1 }, { unique: true });
print(app.stores.getIndexes().length + " indexes on stores");
