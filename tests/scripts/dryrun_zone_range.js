// The done-when example of the shell core: the admin request, with its BSON types, and nothing sent.
sh.updateZoneKeyRange("test.users", {zipcode: "10001"}, {zipcode: MaxKey}, "NYC")
