db.killOp(2147483648)
