// Find and kill long-running queries, sparing internal and replication work: a global function assigned without var,
// for..in over currentOp().inprog (the string index turned into a number with -0), as support snippets do it.
killLongRunningOps = function (maxSecsRunning) {
  currOp = db.currentOp();
  var killed = 0;
  for (oper in currOp.inprog) {
    op = currOp.inprog[oper - 0];
    if (op.secs_running > maxSecsRunning && op.op == "query" && op.ns && !op.ns.startsWith("local")) {
      print("Killing opId: " + op.opid + " running for over secs: " + op.secs_running);
      db.killOp(op.opid);
      killed++;
    }
  }
  return killed;
};

var n = killLongRunningOps(86400);
print("killed " + n + " operation(s)");
print("inprog is an array: " + Array.isArray(db.currentOp().inprog));
print(typeof killLongRunningOps);
