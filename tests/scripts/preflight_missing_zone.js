// Pre-flight (issue 18): the zone on the last line does not exist, so nothing runs, not even line 2's stopBalancer.
sh.stopBalancer()
sh.addShardToZone("shard03", "LON")
sh.updateZoneKeyRange("app.events", {ts: MinKey}, {ts: 0}, "LON")
sh.updateZoneKeyRange("app.stores", {zipcode: "30000"}, {zipcode: "30100"}, "APCA")
