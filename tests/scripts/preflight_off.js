// --no-preflight: the statement is sent and the server's own error stops the script after line 2 ran.
sh.addShardToZone("shard03", "LON")
sh.updateZoneKeyRange("app.stores", {zipcode: "30000"}, {zipcode: "30100"}, "APCA")
