// The story helpers (docs/story.md): the requests each sends first; what follows depends on the replies
sh.progress()
sh.progress({watch: true, intervalSecs: 5})
sh.explainBalance("app.events")
sh.migrationHistory({since: ISODate("2026-01-01T00:00:00Z")})
sh.migrationHistory({since: ISODate("2026-01-01T00:00:00Z"), ns: "app.events"})
