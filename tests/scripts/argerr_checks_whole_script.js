sh.enableAutoSplit()
sh.disableMigrations(null)
