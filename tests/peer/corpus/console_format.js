// console.log and print as Node-minded script authors use them: printf-like format strings, several arguments,
// objects and arrays inline, console.table-free tabular lines, and print() with no arguments for a blank line.
var shards = db.getSiblingDB("config").shards.find().sort({ _id: 1 }).toArray();
console.log("%d shards found", shards.length);
console.log("first shard: %s", shards[0]._id);
console.log("shards:", shards.map(function (s) { return s._id; }));
console.log({ count: shards.length, ok: true });
print();
console.info("info line");
print("tab\tseparated", 42, true, null);
print([1, 2, 3]);
print({ a: 1, b: "two" });
