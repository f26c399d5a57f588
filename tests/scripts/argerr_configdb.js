sh.status(false, db.getSiblingDB("config"))
sh.status(false, "config")
