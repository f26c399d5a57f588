// Settings from the environment and a JSON file read with Node's fs, as mongosh's "write scripts" page suggests.
const fs = require("fs");
const path = require("path");
const ranges = JSON.parse(fs.readFileSync(path.join("lib", "zones.json"), "utf8"));
const timeoutMs = parseInt(process.env.CORPUS_BALANCER_TIMEOUT || "60000", 10);
print("timeout " + timeoutMs + ", " + ranges.length + " range(s)");
for (const r of ranges) {
  sh.addShardToZone(r.shard, r.zone);
  const res = sh.updateZoneKeyRange("app.stores", { zipcode: r.min }, { zipcode: r.max }, r.zone);
  print(r.zone + ": ok=" + res.ok);
}
