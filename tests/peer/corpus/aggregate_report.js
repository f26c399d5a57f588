// Top customers by spend: an aggregation with $group/$sum/$avg, $sort and $limit, allowDiskUse as an option, the
// cursor walked with forEach and the money formatted with toFixed and padStart.
var pipeline = [
  { $group: { _id: "$customer", spent: { $sum: "$total" }, orders: { $sum: 1 }, avgItems: { $avg: "$items" } } },
  { $sort: { spent: -1, _id: 1 } },
  { $limit: 5 },
];
var rank = 0;
db.getSiblingDB("app").orders.aggregate(pipeline, { allowDiskUse: true }).forEach(function (r) {
  rank++;
  print(rank + ". " + r._id + " " + r.spent.toFixed(2).padStart(9) + "  orders=" + r.orders + "  avgItems=" +
    r.avgItems.toFixed(1));
});
var byType = db.getSiblingDB("app").events.aggregate([{ $sortByCount: "$type" }]).toArray();
printjson(byType);
