// load() a shared helper file, then use what it defines.
load("lib/corpus_helpers.js");
print("helpers loaded: " + HELPERS_LOADED);
print("shards: " + shardNames().join(" "));
["app.events", "app.orders", "logs.requests"].forEach(function (ns) {
  print(ns + ": " + chunkCount(ns) + " chunks");
});
