db.users.find().maxTimeMS(-5)
