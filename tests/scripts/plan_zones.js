// --plan (issue 18): what each statement changes and what the balancer would then move, with a closing total; nothing
// that writes is sent (tests/integration/plan.sh compares the figures with what shardsim then moves).
sh.addShardToZone("shard02", "EU")
sh.updateZoneKeyRange("app.ev", {ip: "056."}, {ip: "057."}, "EU")
sh.moveRange("app.ev", "shard03", {ip: "100."}, {ip: "150."})
sh.removeShard("shard03")
