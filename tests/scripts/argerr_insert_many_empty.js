db.users.insertMany([])
