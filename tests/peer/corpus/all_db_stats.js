// Inventory of every database: collections, document counts and their indexes, reassigning the global db as the
// script walks the databases (the habit of old `mongo --quiet` inventory scripts).
db = db.getSiblingDB('admin');

var dbs = db.adminCommand('listDatabases');

dbs.databases.sort(function (a, b) { return a.name < b.name ? -1 : 1; }).forEach(function (database) {
  if (database.name == 'config' || database.name == 'admin') return;
  print("Database: " + database.name);
  print("-----");

  db = db.getSiblingDB(database.name);

  db.getCollectionNames().sort().forEach(function (collection) {
    var indexes = db[collection].getIndexes();
    print("Collection '" + collection + "' documents: " + db[collection].count());
    print("Indexes for " + collection + ":");
    printjson(indexes.map(function (ix) { return ix.key; }));
  });

  print("");
});
