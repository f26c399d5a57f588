// The manual's legacy way to disable the balancer: an upsert into config.settings with the old update().
var conf = db.getSiblingDB("config");
var res = conf.settings.update({ _id: "balancer" }, { $set: { stopped: true } }, true);
printjson(res);
var s = conf.settings.findOne({ _id: "balancer" });
print("stopped = " + (s && s.stopped));
conf.settings.update({ _id: "balancer" }, { $set: { stopped: false } }, true);
print("stopped = " + conf.settings.findOne({ _id: "balancer" }).stopped);
