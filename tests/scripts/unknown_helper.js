sh.getBalancerState()
sh.moveChunck("app.events", {ts: 1}, "shard02")
