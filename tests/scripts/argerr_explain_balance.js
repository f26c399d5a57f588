sh.explainBalance()
