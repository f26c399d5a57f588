sh.moveCollection("app.logs")
