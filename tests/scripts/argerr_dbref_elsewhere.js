sh.moveChunk("app.users", {uid: 1}, "shard02")
sh.moveChunk(db, {uid: 1}, "shard02")
