// Databases and their collections, with sharded or not, as inventory scripts print them.
var dbs = db.adminCommand({ listDatabases: 1 }).databases;
dbs.sort(function (a, b) { return a.name < b.name ? -1 : 1; });
dbs.forEach(function (d) {
  if (["admin", "config", "local"].indexOf(d.name) >= 0) return;
  var sdb = db.getSiblingDB(d.name);
  var colls = sdb.getCollectionNames().sort();
  print(d.name + " (" + colls.length + " collections)");
  colls.forEach(function (c) {
    var meta = db.getSiblingDB("config").collections.findOne({ _id: d.name + "." + c });
    print("  " + c + (meta ? " sharded on " + JSON.stringify(meta.key) : " unsharded"));
  });
});
