// Collection sizes with the collection helpers size reports use (dataSize, storageSize, totalIndexSize).
["events", "orders", "users"].forEach(function (name) {
  var c = db.getSiblingDB("app").getCollection(name);
  print(name + ": docs=" + c.countDocuments({}) + " data=" + c.dataSize() + " storage=" + c.storageSize() +
    " indexes=" + c.totalIndexSize() + " total=" + c.totalSize());
});
