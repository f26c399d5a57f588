sh.progress({intervalSecs: 0})
