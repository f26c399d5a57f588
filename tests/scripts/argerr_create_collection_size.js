db.createCollection("c", {capped: true, size: 0})
