// Keep a log of maintenance runs with the legacy insert(), then read it back.
var ops = db.getSiblingDB("ops");
var r = ops.runlog.insert({ job: "rebalance", step: 1, when: new Date(0) });
print("inserted: " + r.nInserted);
ops.runlog.insert([{ job: "rebalance", step: 2 }, { job: "rebalance", step: 3 }]);
ops.runlog.find({ job: "rebalance" }, { _id: 0 }).sort({ step: 1 }).forEach(printjson);
var u = ops.runlog.update({ step: 3 }, { $set: { done: true } });
print("updated: " + u.nModified);
print("removed: " + ops.runlog.remove({ step: 1 }).nRemoved);
print("left: " + ops.runlog.count());
