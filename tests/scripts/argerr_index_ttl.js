db.users.createIndex({ts: 1}, {expireAfterSeconds: -1})
