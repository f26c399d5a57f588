sh.progress()
sh.progress({watch: true, intervalSecs: 5})
