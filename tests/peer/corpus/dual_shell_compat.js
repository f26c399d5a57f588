// A report meant for both the legacy shell and mongosh: it detects which shell runs it by typeof checks, picks a
// JSON printer (tojson when there is one, EJSON otherwise) and a sleep, and says which it found.
var isMongosh = typeof process !== "undefined" && typeof require === "function";
var toJson = typeof tojson === "function" ? tojson : function (x) { return EJSON.stringify(x, { relaxed: true }); };
var pause = typeof sleep === "function" ? sleep : function () {};
print("shell: " + (isMongosh ? "mongosh" : "legacy"));
print("has tojson: " + (typeof tojson === "function") + ", has assert: " + (typeof assert === "function") +
  ", has setTimeout: " + (typeof setTimeout === "function"));
print("it is a " + typeof it + ", DBQuery is a " + typeof DBQuery + ", DB is " + typeof DB);
pause(10);
db.getSiblingDB("config").shards.find({}, { _id: 1 }).sort({ _id: 1 }).forEach(function (s) { print(toJson(s)); });
