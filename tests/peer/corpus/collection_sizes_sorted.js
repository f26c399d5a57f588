// Collections of a database by size, largest first, with a human-readable size (the do/while unit loop and toFixed of
// the "list all collections by size" snippets).
function readableSize(bytes) {
  var i = -1;
  var units = [' kB', ' MB', ' GB', ' TB'];
  do {
    bytes = bytes / 1024;
    i++;
  } while (bytes > 1024);
  return Math.max(bytes, 0.1).toFixed(1) + units[i];
}

db = db.getSiblingDB("app");
var collectionNames = db.getCollectionNames(), stats = [];
collectionNames.forEach(function (n) { stats.push(db.getCollection(n).stats()); });
stats = stats.sort(function (a, b) { return b['size'] - a['size'] || (a.ns < b.ns ? -1 : 1); });
for (var c in stats) {
  print(stats[c]['ns'] + ": " + readableSize(stats[c]['size']) + " (" + stats[c]['count'] + " docs, sharded: " +
    stats[c]['sharded'] + ")");
}
