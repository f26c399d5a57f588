// Look for running migrations with $currentOp through db.aggregate, then with db.currentOp().
var ops = db.getSiblingDB("admin").aggregate([
  { $currentOp: { allUsers: true, idleConnections: false } },
  { $match: { desc: /^MoveChunk|migrat/i } },
]).toArray();
print("migrations running: " + ops.length);
var legacy = db.currentOp({ desc: /^migrat/ });
print("currentOp inprog: " + legacy.inprog.length);
