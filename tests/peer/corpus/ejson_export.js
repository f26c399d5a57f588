// Export sharding metadata as Extended JSON lines (canonical and relaxed).
var config = db.getSiblingDB("config");
config.collections.find({}, { _id: 1, key: 1, unique: 1 }).sort({ _id: 1 }).forEach(function (c) {
  print(EJSON.stringify(c));
});
var doc = { n: NumberLong("9007199254740993"), i: NumberInt(7), d: new Date(0), m: MinKey() };
print(EJSON.stringify(doc, { relaxed: false }));
print(EJSON.stringify(doc, { relaxed: true }));
var back = EJSON.parse('{"x": {"$numberLong": "5"}, "when": {"$date": "2024-01-02T03:04:05Z"}}');
print(typeof back.x, back.when.toISOString());
