sh.listShards("shard01")
