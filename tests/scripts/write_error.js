// A write error is the statement's error, with the code and its name (servers send write errors without codeName).
db.getSiblingDB("app").notes.insertOne({_id: 1})
db.getSiblingDB("app").notes.insertOne({_id: 1})
