// Walk config.shards with an explicit cursor: hasNext/next, as older runbooks do.
var cur = db.getSiblingDB("config").shards.find().sort({ _id: 1 });
var n = 0;
while (cur.hasNext()) {
  var s = cur.next();
  n++;
  print(s._id + "\t" + s.host + "\tstate=" + s.state + (s.draining ? "\tDRAINING" : ""));
}
print(n + " shards");
