db.users.updateOne({_id: 1}, {plan: "free"})
