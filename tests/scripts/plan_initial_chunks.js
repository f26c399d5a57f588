// --plan: initial chunks per shard of sh.shardCollection (hashed default, numInitialChunks, ranged, presplitHashedZones).
sh.shardCollection("app.h1", {k: "hashed"})
sh.shardCollection("app.h2", {k: "hashed"}, false, {numInitialChunks: 7})
sh.shardCollection("app.r1", {k: 1})
sh.updateZoneKeyRange("app.h3", {k: MinKey}, {k: NumberLong(0)}, "NYC")
sh.updateZoneKeyRange("app.h3", {k: NumberLong(0)}, {k: MaxKey}, "SFO")
sh.shardCollection("app.h3", {k: "hashed"}, false, {presplitHashedZones: true})
