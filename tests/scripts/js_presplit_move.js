// Pre-splitting over String.fromCharCode prefixes (the manual's loop), then moving chunks over an array of shards.
sh.shardCollection("myapp.users", {email: 1});
for (let x = 97; x < 100; x++) {
  for (let y = 97; y < 123; y += 13) {
    const prefix = String.fromCharCode(x) + String.fromCharCode(y);
    db.adminCommand({split: "myapp.users", middle: {email: prefix}});
  }
}
const shards = db.getSiblingDB("config").shards.find().sort({_id: 1}).toArray().map(s => s._id);
const bounds = ["ab", "ba", "ca"];
bounds.forEach((b, i) => sh.moveChunk("myapp.users", {email: b}, shards[(i + 1) % shards.length]));
const coll = db.getSiblingDB("config").collections.findOne({_id: "myapp.users"});
const chunks = db.getSiblingDB("config").chunks.find({uuid: coll.uuid}).sort({min: 1});
chunks.forEach(c => print(`${c.min.email} -> ${c.max.email}: ${c.shard}`));
