// A run-time failure after sh.stopBalancer() leaves a summary and a warning (the pre-flight cannot know line 4 fails:
// the document exists only in the server).
sh.stopBalancer()
sh.addShardToZone("shard03", "LON")
db.getSiblingDB("app").notes.insertOne({_id: 1})
db.getSiblingDB("app").notes.insertOne({_id: 1})
sh.startBalancer()
