// Nightly upsert of daily totals with the legacy Bulk API (find().upsert().updateOne() in an unordered batch, then
// execute() and the counts of its result), and the same work again with bulkWrite's operation documents.
var stats = db.getSiblingDB("reports").daily;
var bulk = stats.initializeUnorderedBulkOp();
["c001", "c002", "c003"].forEach(function (cust, i) {
  bulk.find({ _id: cust }).upsert().updateOne({ $set: { lastRun: "2026-01-02" }, $inc: { runs: 1, total: i * 10 } });
});
bulk.find({ _id: "c002" }).updateOne({ $set: { flagged: true } });
var res = bulk.execute();
print("upserted " + res.nUpserted + ", matched " + res.nMatched + ", modified " + res.nModified);
var r2 = stats.bulkWrite([
  { updateOne: { filter: { _id: "c001" }, update: { $inc: { runs: 1 } } } },
  { insertOne: { document: { _id: "c004", runs: 1 } } },
  { deleteOne: { filter: { _id: "c003" } } },
  { replaceOne: { filter: { _id: "c002" }, replacement: { runs: 9 }, upsert: true } },
], { ordered: true });
print("acknowledged " + r2.acknowledged + ": inserted " + r2.insertedCount + ", modified " + r2.modifiedCount +
  ", deleted " + r2.deletedCount);
stats.find().sort({ _id: 1 }).forEach(function (d) { print(JSON.stringify(d)); });
