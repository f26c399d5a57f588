// console.log / console.error, as scripts written by Node.js developers use instead of print.
const shards = db.getSiblingDB("config").shards.find().sort({ _id: 1 }).toArray();
console.log("found", shards.length, "shards");
for (const s of shards) {
  console.log(`${s._id}:`, { tags: s.tags || [] });
}
console.log({ balancer: sh.getBalancerState() });
console.error("this goes to stderr");
