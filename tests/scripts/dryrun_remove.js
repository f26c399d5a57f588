// db.collection.remove (deprecated in mongosh): deleteMany's request, or deleteOne's with justOne (a boolean or an
// option), and mongosh's deprecation warning
db.getSiblingDB("app").notes.remove({text: "done"})
db.getSiblingDB("app").notes.remove({text: "done"}, true)
db.getSiblingDB("app").notes.remove({text: "done"}, {justOne: true, writeConcern: {w: "majority"}})
