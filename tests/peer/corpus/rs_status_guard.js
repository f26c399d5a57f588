// Health check that works on a replica set and on a router: rs.status() guarded by try/catch (on a mongos it fails),
// then the hello() fields that tell what we are connected to, and a cron-friendly exit code.
var problems = 0;
var hello = db.hello();
var kind = hello.msg === "isdbgrid" ? "mongos" : (hello.setName ? "replica set " + hello.setName : "standalone");
print("connected to: " + kind);
print("writable primary: " + hello.isWritablePrimary);
try {
  var st = rs.status();
  st.members.forEach(function (m) {
    if (m.health !== 1) problems++;
    print(m.name + " " + m.stateStr);
  });
} catch (e) {
  print("rs.status() unavailable: " + (e.codeName || e.message));
}
var opts = db.serverCmdLineOpts();
print("cmdline ok: " + opts.ok + ", argv is array: " + Array.isArray(opts.argv));
print("problems: " + problems);
if (problems > 0) quit(2);
