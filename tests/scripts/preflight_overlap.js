// Pre-flight: a new range overlapping an existing one (mongosh's RangeOverlapConflict) is found before sending.
sh.addShardToZone("shard03", "NYC")
sh.updateZoneKeyRange("app.stores", {zipcode: "10200"}, {zipcode: "10300"}, "SFO")
