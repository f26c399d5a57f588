// Pre-flight: a zone added on line 2 exists for the range on line 3; an unknown shard on line 4 lists the shards.
sh.addShardToZone("shard03", "LON")
sh.updateZoneKeyRange("app.events", {ts: MinKey}, {ts: 0}, "LON")
sh.moveChunk("app.events", {ts: 50}, "shard09")
