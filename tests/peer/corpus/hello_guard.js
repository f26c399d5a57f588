// Refuse to run unless connected to a mongos: the guard support scripts start with.
var hello = db.hello ? db.hello() : db.isMaster();
if (hello.msg !== "isdbgrid") {
  print("ERROR: connect to a mongos");
  quit(1);
}
print("connected to a mongos, maxWireVersion >= 17: " + (hello.maxWireVersion >= 17));
print("isMaster agrees: " + (db.isMaster().msg === "isdbgrid"));
