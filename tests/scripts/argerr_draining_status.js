sh.shardDrainingStatus(2)
