// Pre-flight: a non-empty collection needs an index that supports the shard key before sh.shardCollection; an index
// created earlier in the script would count (docs/plan.md).
sh.enableSharding("app")
sh.shardCollection("app.raw", {level: 1})
