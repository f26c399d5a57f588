// try/catch around helpers that the server refuses: report and go on.
function tryIt(label, f) {
  try {
    var r = f();
    print(label + ": ok " + (r && r.ok));
  } catch (e) {
    print(label + ": failed: " + e.codeName + " (" + e.code + ")");
  }
}
tryIt("move to unknown shard", function () { return sh.moveChunk("app.events", { ts: 1 }, "shard09"); });
tryIt("shard unknown db collection", function () { return sh.splitAt("nodb.nocoll", { k: 1 }); });
tryIt("zone for unknown shard", function () { return sh.addShardToZone("shard42", "X"); });
tryIt("balancer status", function () { return db.adminCommand({ balancerStatus: 1 }); });
print("done");
