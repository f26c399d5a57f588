db.killOp(12.5)
