// Schedule the balancing window, as the manual's "Manage Sharded Cluster Balancer" page shows, then remove it.
db = db.getSiblingDB("config");
db.settings.updateOne(
  { _id: "balancer" },
  { $set: { activeWindow: { start: "23:00", stop: "06:00" } } },
  { upsert: true }
);
var w = db.settings.findOne({ _id: "balancer" }).activeWindow;
print("window: " + w.start + " -> " + w.stop);
db.settings.updateOne({ _id: "balancer" }, { $unset: { activeWindow: true } });
print("window after unset: " + JSON.stringify(db.settings.findOne({ _id: "balancer" }).activeWindow));
