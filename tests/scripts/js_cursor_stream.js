// Streaming cursors over 1,200 chunks: documents come in batches on demand (find, then getMore with the batchSize),
// and a cursor left half-read is killed when the script ends, as mongosh's driver does.
const chunks = db.getSiblingDB("config").chunks;
const total = chunks.countDocuments({});
print("chunks:", total > 1000);
const c = chunks.find({}, {_id: 0, shard: 1}).sort({_id: 1}).batchSize(5);
let n = 0;
while (n < 12 && c.hasNext()) {
   c.next();
   n++;
}
print("read", n, "more:", c.hasNext(), "exhausted:", c.isExhausted());
print("toArray gets everything:", chunks.find({}, {_id: 1}).batchSize(500).toArray().length === total);
print("itcount:", chunks.find().batchSize(400).itcount() === total);
const firsts = chunks.find({}, {_id: 0, shard: 1}).sort({_id: 1}).limit(7).batchSize(7).map(d => d.shard).toArray();
print(firsts.length, typeof firsts[0]);
const a = chunks.aggregate([{$project: {_id: 0, shard: 1}}]).batchSize(4);
print(a.next() !== null, a.hasNext());
let seen = 0;
chunks.find({}, {_id: 1}).limit(30).batchSize(10).forEach(() => seen++);
print("forEach:", seen);
print("aggregate's batchSize option:", chunks.aggregate([{$project: {_id: 1}}], {batchSize: 300}).toArray().length === total);
