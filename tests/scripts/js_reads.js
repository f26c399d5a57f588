// Reading config.* from JavaScript: cursors, fields of results, template literals.
const config = db.getSiblingDB("config");
const ids = config.shards.find().toArray().map(s => s._id);
print(`shards: ${ids.join(", ")} (${ids.length})`);
config.runCommand({update: "chunks", updates: [{q: {shard: "shard02", "min.customer": {$exists: true}}, u: {$set: {jumbo: true}}}]});
config.chunks.find({jumbo: true}, {_id: 0, shard: 1, jumbo: 1}).forEach(printjson);
const events = config.collections.findOne({_id: "app.events"});
print("app.events key:", events.key, "noBalance:", events.noBalance === true);
const cur = config.shards.find().sort({_id: -1}).skip(1).limit(2);
print(cur.hasNext(), cur.next()._id, cur.hasNext(), cur.next()._id, cur.hasNext(), cur.next());
print(config.shards.find().itcount(), config.shards.find().size(), config.shards.find().limit(2).size());
printjson(config.shards.find({}, {host: 1}).sort({_id: 1}).projection({_id: 1}).map(s => s._id.toUpperCase()).toArray());
const perShard = {};
for (const c of config.chunks.find({}, {shard: 1})) perShard[c.shard] = (perShard[c.shard] || 0) + 1;
printjson(Object.keys(perShard).sort().map(s => [s, perShard[s] > 0]));
const agg = config.chunks.aggregate([{$group: {_id: "$shard", n: {$sum: 1}}}, {$sort: {_id: 1}}]).toArray();
print(agg.map(g => g._id).join(" "), JSON.stringify(agg.map(g => typeof g.n)));
