// One dry-run case for each table entry the other dry-run scripts do not call (tests/unit/test_commands_doc.c checks
// that every entry of commands/table.def has one). Entries whose requests carry the time are in dryrun_table_clock.js.
sh.enableSharding("app", "shard01")
sh.reshardCollection("app.users", {region: 1, _id: 1})
sh.addShardTag("shard01", "EU")
sh.removeShardFromZone("shard01", "EU")
sh.removeShardTag("shard01", "EU")
sh.addTagRange("app.users", {region: "EU"}, {region: "EV"}, "EU")
sh.removeRangeFromZone("app.users", {region: "EU"}, {region: "EV"})
sh.removeTagRange("app.users", {region: "EU"}, {region: "EV"})
sh.splitAt("app.users", {_id: 100})
sh.splitFind("app.users", {_id: 100})
sh.moveRange("app.users", "shard02", {_id: 0}, {_id: 100})
sh.setBalancerState(true)
sh.getBalancerState()
sh.isBalancerRunning()
sh.adviseShardKey("app.users", {region: 1})
sh.help()
db.getName()
db.serverBuildInfo()
db.users.getShardDistribution()
db.users.findOne({_id: 1})
db.users.countDocuments({plan: "free"})
db.users.distinct("plan")
db.users.getIndexes()
show dbs
help sh.moveChunk
sleep(1)
exit
