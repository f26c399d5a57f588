// the tag aliases name the command they alias when the server lacks it (reference §1.6)
sh.addShardTag("shard01", "NYC")
