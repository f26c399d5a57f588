db.users.replaceOne({_id: 1}, {$set: {plan: "free"}})
