// Pre-flight: the version gate of line 2 (sh.moveRange needs 6.0) is known before line 1 runs.
sh.addShardToZone("shard02", "NYC")
sh.moveRange("app.events", "shard02", {ts: 0})
