db.users.count({}, {skip: 1.5})
