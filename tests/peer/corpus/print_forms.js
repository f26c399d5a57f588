// The ways scripts print values: print with several arguments, printjson, JSON.stringify, MinKey and MaxKey.
var s = db.getSiblingDB("config").shards.findOne({ _id: "shard01" }, { _id: 1, tags: 1 });
print(s);
print("shard", s._id, "tags", s.tags);
printjson(s);
print(JSON.stringify(s));
print(JSON.stringify(s, null, 2));
print([1, "two", { three: 3 }]);
print(null, undefined, true, 1.5);
printjson(MinKey);
print(MaxKey());
