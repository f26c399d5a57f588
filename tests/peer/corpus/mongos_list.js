// Which routers are alive: config.mongos with the age of each ping in seconds (Date subtraction), the version each
// runs, and a warning when one has not pinged for a minute.
var now = new Date();
var routers = db.getSiblingDB("config").mongos.find().sort({ _id: 1 }).toArray();
print(routers.length + " mongos router(s)");
routers.forEach(function (m) {
  var age = Math.round((now - m.ping) / 1000);
  var state = age < 60 ? "alive" : "STALE";
  print("  " + (m.mongoVersion ? "v" + m.mongoVersion.split(".").slice(0, 2).join(".") : "v?") + " " + state +
    " up=" + (typeof m.up));
});
