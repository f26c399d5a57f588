// Preconditions checked with assert before a maintenance step (the habit operators bring from the server's jstests:
// assert(cond, msg), assert.ok, assert.strictEqual), a failed assertion caught to report it, then the step.
var st = db.adminCommand({ balancerStatus: 1 });
assert(st.ok === 1, "balancerStatus failed");
assert.strictEqual(typeof st.mode, "string", "mode is a string");
print("balancer mode: " + st.mode);
var shards = db.getSiblingDB("config").shards.countDocuments({});
assert.ok(shards >= 3, "expected at least 3 shards, found " + shards);
try {
  assert.strictEqual(shards, 4, "expected 4 shards");
  print("4 shards");
} catch (e) {
  print("precondition failed: " + e.message);
}
try {
  assert(db.getSiblingDB("app").orders.countDocuments({ customer: "nobody" }) > 0, "no orders for nobody");
} catch (e) {
  print("caught: " + e.message);
}
print("step runs: " + sh.getBalancerState());
