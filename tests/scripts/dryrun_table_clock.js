// Dry-run cases whose requests carry the current time (a changelog window): run for their exit code only.
sh.getRecentMigrations()
db.printShardingStatus()
