db.killOp("shard01")
