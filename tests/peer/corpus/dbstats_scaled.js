// Database sizes in megabytes as a capacity report prints them: dbStats with a scale, a padded table (padEnd,
// padStart) and a total line.
var MB = 1024 * 1024;
var names = db.adminCommand({ listDatabases: 1, nameOnly: true }).databases.map(function (d) { return d.name; })
  .filter(function (n) { return ["admin", "config", "local"].indexOf(n) < 0; }).sort();
var total = 0;
print("database".padEnd(12) + "collections".padStart(12) + "objects".padStart(10) + "dataMB".padStart(10));
names.forEach(function (n) {
  var s = db.getSiblingDB(n).stats(MB);
  var raw = db.getSiblingDB(n).runCommand({ dbStats: 1 });
  total += raw.dataSize;
  print(n.padEnd(12) + String(s.collections).padStart(12) + String(s.objects).padStart(10) +
    Number(s.dataSize).toFixed(3).padStart(10));
});
print("total bytes: " + total + " (" + (total / MB).toFixed(4) + " MB)");
