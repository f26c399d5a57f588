// A cron check: exit non-zero when the balancer is off.
sh.stopBalancer();
var ok = sh.getBalancerState();
print("balancer enabled: " + ok);
if (!ok) {
  print("CRITICAL: balancer is disabled");
  quit(2);
}
print("OK");
