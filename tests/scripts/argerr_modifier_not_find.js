db.users.aggregate([]).hint({_id: 1})
