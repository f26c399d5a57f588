sh.setBalancerWindow("25:00", "06:00")
