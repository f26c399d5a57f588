// Branch on the server version, as scripts that must work across releases do.
var v = db.version();
var major = parseInt(v.split(".")[0], 10);
print("server major version >= 5: " + (major >= 5));
var bi = db.adminCommand({ buildInfo: 1 });
print("versionArray length: " + bi.versionArray.length);
if (major >= 7) {
  print("using $shardedDataDistribution");
} else {
  print("using collStats");
}
