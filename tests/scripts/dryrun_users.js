// Users and authentication under --dry-run: the documents mongosh sends, passwords shown as ****; db.auth sends
// nothing and answers { ok: 1 } (no one is authenticated when nothing is sent)
db.getSiblingDB("admin").createUser({user: "ops", pwd: "s3cret", roles: ["clusterManager"], passwordDigestor: "server"}, {w: "majority"})
db.getSiblingDB("admin").updateUser("ops", {roles: ["clusterMonitor"], customData: {team: "dba"}})
db.getSiblingDB("admin").changeUserPassword("ops", "n3w-s3cret", {w: 1})
db.getSiblingDB("admin").auth("ops", "s3cret")
db.getSiblingDB("admin").auth({user: "ops", pwd: "s3cret", mechanism: "SCRAM-SHA-256"})
