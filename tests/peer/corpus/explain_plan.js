// Is the report query using the index? explain("executionStats") on a cursor and the explainable collection (explain().find(), explain().count()),
// reading the winning plan's stage and the sharded plan's shard list as tuning posts show.
var orders = db.getSiblingDB("app").orders;
var ex = orders.find({ customer: "c047" }).explain("executionStats");
var qp = ex.queryPlanner;
print("namespace: " + qp.namespace);
print("winning stage: " + qp.winningPlan.stage);
if (qp.winningPlan.shards) {
  print("shards: " + qp.winningPlan.shards.map(function (s) { return s.shardName; }).sort().join(","));
}
print("has executionStats: " + (ex.executionStats !== undefined));
var fx = orders.explain().find({ items: { $gt: 2 } }).finish();
print("explainable find ok: " + fx.ok);
var c = orders.explain("queryPlanner").count({ items: 1 });
print("count explain has queryPlanner: " + (c.queryPlanner !== undefined));
