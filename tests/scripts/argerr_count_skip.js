db.users.count({}, {skip: -1})
