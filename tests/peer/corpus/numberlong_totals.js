// Totals with NumberLong values, as reports that sum counts and sizes do.
var total = NumberLong(0);
var stats = db.getSiblingDB("app").runCommand({ count: "events" });
print("count is " + stats.n);
var big = NumberLong("42");
print("NumberLong(\"42\") + 1 = " + (big + 1));
print("big * 2 = " + big * 2);
print("toNumber: " + big.toNumber() + " toString: " + big.toString());
var sum = 0;
db.getSiblingDB("config").chunks.find({}, { shard: 1 }).forEach(function () { sum += 1; });
total = NumberLong(sum);
print("chunks: " + total);
printjson({ total: total, asNumber: Number(total) });
