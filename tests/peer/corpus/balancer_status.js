// The balancer's state as a monitoring script prints it.
var st = db.adminCommand({ balancerStatus: 1 });
print("mode: " + st.mode + ", in round: " + st.inBalancerRound + ", rounds counted: " + (st.numBalancerRounds >= 0));
printjson(sh.getBalancerState());
var running = sh.isBalancerRunning();
printjson({ mode: running.mode, inBalancerRound: running.inBalancerRound });
var settings = db.getSiblingDB("config").settings.find().sort({ _id: 1 }).toArray();
print("settings documents: " + settings.map(function (s) { return s._id; }).join(", "));
