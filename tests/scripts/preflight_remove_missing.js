// Pre-flight: a removed range that matches no range exactly is a warning (the server says ok and removes nothing);
// --no-preflight on the next test turns the check off.
sh.removeRangeFromZone("app.stores", {zipcode: "10001"}, {zipcode: "10200"})
sh.getBalancerState()
