// Maintenance window: stop the balancer, wait for the round to end, do the work, start it again.
print("Stopping the balancer before maintenance...");
sh.stopBalancer();
var tries = 0;
while (sh.isBalancerRunning().inBalancerRound) {
  print("  balancer round still running, waiting");
  sleep(1000);
  if (++tries > 30) { print("giving up"); break; }
}
print("balancer enabled: " + sh.getBalancerState());
// ... the maintenance work would go here ...
var chunks = db.getSiblingDB("config").chunks.countDocuments({});
print("chunks in the cluster: " + chunks);
sh.startBalancer();
print("balancer enabled: " + sh.getBalancerState());
