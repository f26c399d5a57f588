// mongosh's argument folding for shardCollection (reference §3.1): no implicit unique, options spread in order,
// a document in the unique position is the options.
sh.shardCollection("app.users", {uid: 1}, true)
sh.shardCollection("app.users", {uid: 1}, false, {numInitialChunks: 5, collation: {locale: "simple"}})
sh.shardCollection("app.users", {uid: "hashed"}, {presplitHashedZones: true})
sh.shardCollection("app.users", {uid: 1}, undefined, {unique: false})
sh.shardCollection("app.users", {uid: 1}, null)
