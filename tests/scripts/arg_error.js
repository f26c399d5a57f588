sh.addShardToZone("shard01")
