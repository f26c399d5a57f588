use app
db.users.analyzeShardKey()
