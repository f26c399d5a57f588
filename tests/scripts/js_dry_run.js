// --dry-run under JavaScript: every request is printed, every reply is a synthetic { ok: 1 }, cursors are empty.
for (const zone of ["NYC", "SFO"]) {
  const r = sh.addShardToZone("shard01", zone);
  print(`${zone}: ok=${r.ok}`);
}
print(db.getSiblingDB("config").shards.find().toArray().length);
printjson(db.adminCommand({balancerStatus: 1}));
