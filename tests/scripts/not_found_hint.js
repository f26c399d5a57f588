// mongosh appends a hint to CommandNotFound for these helpers (reference §1.6); shardsim fails each command with 59
sh.enableSharding("app")
