// A schema migration run once by an operator: updateMany with $set/$rename/$unset and the counts it reports, a
// legacy update with multi and its WriteResult, a pipeline update, then a check that nothing was left behind.
var users = db.getSiblingDB("app").users;
var r1 = users.updateMany({ city: "Seattle" }, { $set: { region: "us-west" } });
print("matched " + r1.matchedCount + ", modified " + r1.modifiedCount);
var r2 = users.updateMany({ region: "us-west" }, { $rename: { name: "username" } });
print("renamed in " + r2.modifiedCount);
var r3 = users.update({ region: "us-west" }, { $unset: { region: "" } }, { multi: true });
print("legacy update nMatched=" + r3.nMatched + " nModified=" + r3.nModified);
var r4 = users.updateMany({ age: { $gte: 60 } }, [{ $set: { senior: true, ageGroup: { $concat: ["6", "0+"] } } }]);
print("pipeline update modified " + r4.modifiedCount);
print("left with region: " + users.countDocuments({ region: { $exists: true } }));
print("with username: " + users.countDocuments({ username: { $exists: true } }));
