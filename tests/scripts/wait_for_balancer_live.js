// sh.waitForBalancer() returns once no round is in progress; sh.waitForBalancerOff() once the balancer is off and idle
sh.waitForBalancer(false, 5000)
sh.stopBalancer()
sh.waitForBalancerOff(5000)
print("done waiting")
