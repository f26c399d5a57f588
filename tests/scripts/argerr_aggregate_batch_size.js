db.users.aggregate([], {batchSize: 1e12})
