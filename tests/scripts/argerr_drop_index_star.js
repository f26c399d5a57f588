db.users.dropIndex("*")
