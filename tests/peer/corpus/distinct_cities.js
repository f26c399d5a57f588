// Distinct values and counts per value, the data-check habit before choosing a shard key: distinct() sorted, a
// countDocuments per value, estimatedDocumentCount, and the cardinality ratio with Math.round.
var users = db.getSiblingDB("app").users;
var cities = users.distinct("city").sort();
print(cities.length + " cities");
cities.forEach(function (c) {
  print("  " + c + ": " + users.countDocuments({ city: c }));
});
var total = users.estimatedDocumentCount();
print("documents: " + total);
print("cardinality ratio: " + Math.round(cities.length / total * 1000) / 1000);
print("distinct with a filter: " + users.distinct("city", { age: { $lt: 30 } }).length);
