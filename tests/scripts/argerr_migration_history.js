sh.migrationHistory({since: 1e12})
