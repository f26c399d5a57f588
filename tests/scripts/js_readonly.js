// --readonly under JavaScript: reads run, a write is refused where it is called (exit 1; nothing of it is sent).
print(`balancer on: ${sh.getBalancerState()}`);
if (sh.getBalancerState()) sh.stopBalancer();
print("not reached");
