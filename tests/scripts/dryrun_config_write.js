// A direct write to config.* other than config.settings warns (and, in a terminal, asks first); config.settings does not.
db.getSiblingDB("config").chunks.updateOne({_id: "x"}, {$set: {jumbo: false}})
db.getSiblingDB("config").settings.updateOne({_id: "balancer"}, {$set: {stopped: true}}, {upsert: true})
