// Turn balancing off for one collection during a batch job, then back on.
var ns = "app.events";
sh.disableBalancing(ns);
print(ns + " noBalance: " + db.getSiblingDB("config").collections.findOne({ _id: ns }).noBalance);
print("balancer state for " + ns + ": " + JSON.stringify(sh.balancerCollectionStatus(ns).balancerCompliant));
sh.enableBalancing(ns);
print(ns + " noBalance: " + db.getSiblingDB("config").collections.findOne({ _id: ns }).noBalance);
