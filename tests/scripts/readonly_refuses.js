sh.getBalancerState()
sh.stopBalancer()
