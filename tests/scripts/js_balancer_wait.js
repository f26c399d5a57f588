// The balancer wait loop and the backup check operators copy from the manual: JavaScript, run by the engine.
sh.stopBalancer();
let waits = 0;
while (sh.isBalancerRunning().inBalancerRound) {
  print("waiting...");
  sleep(100);
  if (++waits > 100) throw new Error("the balancer round did not end");
}
if (!sh.getBalancerState() && !sh.isBalancerRunning().inBalancerRound) {
  print("balancer off and idle: safe to back up");
} else {
  print("not safe to back up");
}
print(`mode: ${db.adminCommand({balancerStatus: 1}).mode}`);
sh.startBalancer();
const state = sh.getBalancerState();
print(typeof state, state, !sh.getBalancerState() && !sh.isBalancerRunning().inBalancerRound);
