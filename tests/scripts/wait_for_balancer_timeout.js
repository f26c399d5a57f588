// a wait never outlives its timeout: no balancer round finishes on a static cluster, so this gives up after 500 ms
sh.waitForBalancer(true, 500)
