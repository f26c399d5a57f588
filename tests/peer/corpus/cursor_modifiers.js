// Cursor helpers of the legacy shell that reports still use: size() after limit, count(true), readPref, noCursorTimeout,
// projection(), and a cursor walked with hasNext/next plus objsLeftInBatch.
var users = db.getSiblingDB("app").users;
var c = users.find({ age: { $gte: 30 } }).sort({ uid: 1 }).limit(7);
print("count: " + c.count() + ", size: " + c.size() + ", count(true): " + c.count(true));
var c2 = users.find({}).projection({ _id: 0, uid: 1, name: 1 }).sort({ uid: 1 }).limit(3).readPref("primary")
  .noCursorTimeout();
while (c2.hasNext()) {
  var d = c2.next();
  print(d.uid + " " + d.name);
}
var c3 = users.find({}).batchSize(5);
c3.next();
print("left in batch: " + c3.objsLeftInBatch());
c3.close();
print("closed: " + c3.isClosed());
