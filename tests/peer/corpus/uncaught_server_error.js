// A script that stops on a server error half way: what it printed before, then exit 1.
print("step 1: balancer state " + sh.getBalancerState());
db.adminCommand({ moveChunk: "app.events", find: { ts: 1 }, to: "nowhere" });
print("step 2: not reached");
