// Indexes declared in a release's config array and built in a loop, options copied field by field from each entry
// (so a missing field is passed as undefined, which the driver leaves out), then the index list checked.
var specs = [
  { coll: "orders", key: { customer: 1, items: 1 }, name: "customer_items" },
  { coll: "stores", key: { open: 1 } },
  { coll: "users", key: { city: 1, age: 1 }, unique: false },
];
var app = db.getSiblingDB("app");
specs.forEach(function (s) {
  var name = app.getCollection(s.coll).createIndex(s.key, { name: s.name, unique: s.unique, sparse: s.sparse });
  print(s.coll + ": " + name);
});
specs.forEach(function (s) {
  var names = app.getCollection(s.coll).getIndexes().map(function (ix) { return ix.name; }).sort();
  print(s.coll + " indexes: " + names.join(" "));
});
