db.stats(0)
