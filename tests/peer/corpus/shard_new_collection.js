// Shard a new collection: enable sharding, create the index, shardCollection, check config.collections.
var dbName = "inventory", collName = "items";
sh.enableSharding(dbName);
var idx = db.getSiblingDB(dbName)[collName].createIndex({ sku: 1 });
print("index: " + idx);
var r = sh.shardCollection(dbName + "." + collName, { sku: 1 });
print("sharded: " + r.collectionsharded + " ok=" + r.ok);
var meta = db.getSiblingDB("config").collections.findOne({ _id: dbName + "." + collName });
print("key: " + JSON.stringify(meta.key) + " unique: " + meta.unique);
print("primary: " + db.getSiblingDB("config").databases.findOne({ _id: dbName }).primary);
