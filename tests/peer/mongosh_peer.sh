#!/bin/sh
# passes: plain
# Peer check: the real mongosh 2.12.0 (a client nobody here wrote) against shardsim's demo cluster, for 4.4, 8.0, 8.3
# and 9.0.
# Asserts what mongosh prints for sh.status(), sh.status(true) and getShardDistribution(), and that the sh.* helpers
# succeed (no MongoServerError). Installs mongosh into the repo-local .cache/ when missing (MONGOSH overrides the path).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh
. tests/peer/lib.sh

ensure_mongosh mongosh-peer || exit 0

HELPERS='
function t(name, f) {
  try {
    const r = f();
    print("OK " + name + " " + EJSON.stringify(r === undefined ? null : r, { relaxed: true }));
  } catch (e) {
    print("ERR " + name + ": " + e.name + ": " + e.message);
  }
}
t("getBalancerState", () => sh.getBalancerState());
t("isBalancerRunning", () => sh.isBalancerRunning().mode);
t("addShardToZone", () => sh.addShardToZone("shard03", "CHI").ok);
t("updateZoneKeyRange", () => sh.updateZoneKeyRange("app.stores", { zipcode: "60601" }, { zipcode: "60700" }, "CHI").ok);
t("removeRangeFromZone", () => sh.removeRangeFromZone("app.stores", { zipcode: "60601" }, { zipcode: "60700" }).ok);
t("splitAt", () => sh.splitAt("app.orders", { customer: "c030", ts: MinKey() }).ok);
t("moveChunk", () => sh.moveChunk("app.orders", { customer: "c031", ts: new Date(0) }, "shard03").ok);
t("shardCollection", () => sh.shardCollection("app.peer", { k: 1 }).collectionsharded);
t("enableBalancing", () => sh.enableBalancing("app.events").acknowledged);
t("disableBalancing", () => sh.disableBalancing("app.events").modifiedCount);
t("stopBalancer", () => sh.stopBalancer().ok);
t("getBalancerStateAfterStop", () => sh.getBalancerState());
t("startBalancer", () => sh.startBalancer().ok);
t("orderChunksOnShard03", () => db.getSiblingDB("config").chunks.countDocuments({ shard: "shard03", min: { customer: "c030", ts: MinKey() } }));
'

# one mongosh for every version (tests/peer/lib.sh's mongosh_batches), each version's batch against its own shardsim:
# each line's value as --eval prints it, in order; the helpers' script is one line, its own prints in its part
: > "$TMPD/batches"
for v in 4.4 8.0 8.3 9.0; do
   if ! sim_start --scenario demo --version "$v"; then
      fail "mongosh-peer.$v.start" "shardsim did not start"
      continue
   fi
   sim_keep
   rm -rf "$TMPD/ms.$v" && mkdir -p "$TMPD/ms.$v"
   {
      echo 'sh.status()'
      echo 'sh.status(true)'
      echo 'db.getSiblingDB("app").users.getShardDistribution()'
      echo "(() => { $(printf '%s' "$HELPERS" | tr '\n' ' ') })()"
      echo 'sh.status()'
   } > "$TMPD/ms.$v/stmts"
   echo "$SIM_URI/test $TMPD/ms.$v/stmts $TMPD/ms.$v" >> "$TMPD/batches"
done
mongosh_batches "$TMPD/batches"
sims_stop

for v in 4.4 8.0 8.3 9.0; do
   case $v in 4.4) full=4.4.29 ;; 8.0) full=8.0.4 ;; 8.3) full=8.3.0 ;; 9.0) full=9.0.0 ;; esac
   [ -f "$TMPD/ms.$v/stmts" ] || continue
   st=$(cat "$TMPD/ms.$v/1.out" 2> /dev/null)
   for needle in "shardingVersion" "_id: 'shard01'" "_id: 'shard02'" "_id: 'shard03'" "tags: [ 'NYC' ]" \
      "tags: [ 'SFO' ]" "active mongoses" "'$full': 1" "_id: 'app'" "_id: 'logs'" "'app.events'" "'app.users'" \
      "'app.orders'" "'app.stores'" "'logs.requests'" "'config.system.sessions'" "shardKey: { uid: 'hashed' }" \
      "shardKey: { customer: 1, ts: 1 }" "{ shard: 'shard01', nChunks: 2 }" "{ shard: 'shard03', nChunks: 2 }" \
      "tag: 'NYC'" "tag: 'SFO'" "'Migration Results for the last 24 hours'" "'Success'"; do
      check_contains "mongosh-peer.$v.status [$needle]" "$needle" "$st"
   done
   check_not_contains "mongosh-peer.$v.status no error" "MongoServerError" "$st"
   check_not_contains "mongosh-peer.$v.status is a mongos" "SHAPI-10003" "$st"
   case $v in
   4.4)
      check_contains "mongosh-peer.4.4.status failed rounds (errorOccured)" \
         "'Failed balancer rounds in last 5 attempts': 1" "$st"
      check_contains "mongosh-peer.4.4.status no \$shardedDataDistribution" "shardedDataDistribution
undefined" "$st"
      ;;
   8.0)
      check_contains "mongosh-peer.8.0.status shardedDataDistribution" "numOwnedDocuments" "$st"
      ;;
   esac

   stv=$(cat "$TMPD/ms.$v/2.out" 2> /dev/null)
   check_contains "mongosh-peer.$v.status(true) mongos documents" "mongoVersion: '$full'" "$stv"
   check_contains "mongosh-peer.$v.status(true) chunks" "'on shard': 'shard02'" "$stv"
   check_not_contains "mongosh-peer.$v.status(true) no error" "MongoServerError" "$stv"

   dist=$(cat "$TMPD/ms.$v/3.out" 2> /dev/null)
   check_contains "mongosh-peer.$v.getShardDistribution shard01" "Shard shard01 at shard01/127.0.0.1:27018" "$dist"
   check_contains "mongosh-peer.$v.getShardDistribution shard03" "Shard shard03 at shard03/" "$dist"
   # app.users' hashed initial chunks: 2 per shard up to 7.0, one per shard from 8.0 (docs/shardsim.md)
   per=2
   [ "$v" = 4.4 ] || per=1
   check_contains "mongosh-peer.$v.getShardDistribution chunks" "chunks: $per" "$dist"
   check_contains "mongosh-peer.$v.getShardDistribution totals" "docs: 200" "$dist"
   check_not_contains "mongosh-peer.$v.getShardDistribution no error" "Error" "$dist"

   out=$(cat "$TMPD/ms.$v/4.out" 2> /dev/null)
   for h in getBalancerState isBalancerRunning addShardToZone updateZoneKeyRange removeRangeFromZone splitAt moveChunk \
      shardCollection enableBalancing disableBalancing stopBalancer startBalancer; do
      line=$(echo "$out" | grep "^[A-Z]* $h[ :]")
      case "$line" in
      "OK $h"*) pass "mongosh-peer.$v.sh.$h" ;;
      *) fail "mongosh-peer.$v.sh.$h" "${line:-no output: $out}" ;;
      esac
   done
   check_contains "mongosh-peer.$v.getBalancerState true" "OK getBalancerState true" "$out"
   check_contains "mongosh-peer.$v.isBalancerRunning mode" "OK isBalancerRunning \"full\"" "$out"
   check_contains "mongosh-peer.$v.stopBalancer takes effect" "OK getBalancerStateAfterStop false" "$out"
   check_contains "mongosh-peer.$v.shardCollection reply" "OK shardCollection \"app.peer\"" "$out"
   check_contains "mongosh-peer.$v.disableBalancing modified" "OK disableBalancing 1" "$out"
   check_contains "mongosh-peer.$v.moveChunk moved the split chunk" "OK orderChunksOnShard03 1" "$out"

   after=$(cat "$TMPD/ms.$v/5.out" 2> /dev/null)
   check_contains "mongosh-peer.$v.status after shows app.peer" "'app.peer'" "$after"
   check_contains "mongosh-peer.$v.status after shows disabled balancing" "balancing: false" "$after"
   check_contains "mongosh-peer.$v.status after shows CHI zone" "'CHI'" "$after"
done
