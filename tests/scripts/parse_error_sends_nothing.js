sh.addShardToZone("shard01", "NYC")
sh.addShardToZone("shard02", "SFO")
sh.updateZoneKeyRange("app.stores", {zipcode: "10001"} {zipcode: "10281"}, "NYC")
sh.stopBalancer()
