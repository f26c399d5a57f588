// The auto-increment pattern of the manual's old "create an auto-incrementing sequence field" page: a counters
// collection and getNextSequence() with findAndModify (upsert, new), plus the findOneAndUpdate form.
var counters = db.getSiblingDB("app").counters;
function getNextSequence(name) {
  var ret = counters.findAndModify({
    query: { _id: name },
    update: { $inc: { seq: 1 } },
    new: true,
    upsert: true,
  });
  return ret.seq;
}
var ids = [];
for (var i = 0; i < 3; i++) ids.push(getNextSequence("invoice"));
print("invoice ids: " + ids.join(","));
var doc = counters.findOneAndUpdate({ _id: "ticket" }, { $inc: { seq: 5 } }, { upsert: true, returnDocument: "after" });
print("ticket: " + doc.seq);
var before = counters.findOneAndUpdate({ _id: "ticket" }, { $inc: { seq: 1 } });
print("ticket before: " + before.seq);
printjson(counters.find().sort({ _id: 1 }).toArray());
