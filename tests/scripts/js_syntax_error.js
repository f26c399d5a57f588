sh.stopBalancer();
for (const s of ["shard01", "shard02"]) {
  sh.addShardToZone(s, "NYC")
  if (s === ) print(s);
}
