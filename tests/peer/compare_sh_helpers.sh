#!/bin/sh
# passes: plain
# The mongosh comparison: every helper runs through bin/shardsh and through mongosh 2.12 against shardsim
# (--log-commands), and the command documents each client sent must be equal: the same commands, databases, field
# order and BSON types, in the same order (as a multiset for sh.status and getShardDistribution, whose queries mongosh
# runs concurrently). Ignored, as driver traffic rather than helper traffic: the handshake and monitoring hellos,
# mongosh's start-up queries (buildInfo, the atlascli aggregate, getParameter, atlasVersion), endSessions, getMore and
# killCursors, and the envelope fields lsid, $clusterTime and txnNumber (shardsh sends config.* updates as commands,
# so they are not retryable writes and carry no txnNumber). Two dates depend on the moment a client runs and are
# replaced by placeholders: the changelog window ("yesterday") and sh.status's mongos window (newest ping - 60 s,
# which moves because the simulated mongos keeps pinging). shardsh's version gate also sends a buildInfo, ignored like mongosh's.
# Each client runs the cases on its own shardsim (two started alike per version), in order; one mongosh runs the
# cases of every version as a script, in the background while shardsh runs them (tests/peer/lib.sh,
# peer_mongosh_cases). COMPARE_ONLY=<text> runs only the cases whose name contains it. Needs jq; mongosh comes from
# MONGOSH or is installed into .cache/mongosh as tests/peer/mongosh_peer.sh does.
# Adding a case: one line VERSIONS|NAME|MODE|shardsh code|mongosh code in CASES below (mongosh code empty: the
# same). mongosh prints the code's value with print() (a cursor by its first batch); of several statements joined
# by "; " the last one's value is printed. The name: no spaces, slashes or "|".
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh
. tests/peer/lib.sh

if ! command -v jq > /dev/null 2>&1; then
   echo "SKIP compare-sh: jq is not installed (apt-get install jq)"
   exit 0
fi
ensure_mongosh compare-sh || exit 0


# compare_case VERSION NAME MODE: compares the case's two slices (D/VERSION/NAME.ours.cmds and .theirs.cmds). MODE is
# seq (same order), set (same multiset) or status (sh.status on 5.0+: one aggregate stands for mongosh's
# per-collection reads; the rest the same multiset).
compare_case() {
   v=$1 name=$2 mode=$3
   _b="$D/$v/$name"
   cp "$_b.ours.cmds" "$TMPD/ours.cmds"
   cp "$_b.theirs.cmds" "$TMPD/theirs.cmds"
   if [ "$mode" = status ]; then
      # sh.status on 5.0+ metadata: mongosh's three reads per collection are one aggregate over config.collections in
      # shardsh (the printed output is compared byte for byte in tests/integration/cmd_status.sh); every other read
      # must be the same
      per_coll='"(find":"(chunks|tags)"|aggregate":"chunks")'
      n_agg=$(grep -c '"aggregate":"collections"' "$TMPD/ours.cmds")
      n_theirs=$(grep -c -E "$per_coll" "$TMPD/theirs.cmds")
      n_ours=$(grep -c -E "$per_coll" "$TMPD/ours.cmds")
      if [ "$n_agg" != 1 ] || [ "$n_ours" != 0 ] || [ "$n_theirs" -lt 3 ]; then
         fail "compare-sh.$v.$name.one-aggregate" "shardsh: $n_agg collections aggregate(s), $n_ours per-collection reads; mongosh: $n_theirs"
      else
         pass "compare-sh.$v.$name.one-aggregate ($n_theirs mongosh reads in one)"
      fi
      grep -v '"aggregate":"collections"' "$TMPD/ours.cmds" > "$TMPD/ours.tmp"
      grep -v -E "$per_coll" "$TMPD/theirs.cmds" > "$TMPD/theirs.tmp"
      mv "$TMPD/ours.tmp" "$TMPD/ours.cmds"
      mv "$TMPD/theirs.tmp" "$TMPD/theirs.cmds"
   fi
   if [ "$mode" = set ] || [ "$mode" = status ]; then
      sort -o "$TMPD/ours.cmds" "$TMPD/ours.cmds"
      sort -o "$TMPD/theirs.cmds" "$TMPD/theirs.cmds"
   fi
   if [ ! -s "$TMPD/theirs.cmds" ]; then
      fail "compare-sh.$v.$name" "mongosh sent nothing: $(head -c 300 "$_b.out" 2> /dev/null)"
   elif cmp -s "$TMPD/ours.cmds" "$TMPD/theirs.cmds"; then
      pass "compare-sh.$v.$name"
   else
      fail "compare-sh.$v.$name" "$(diff "$TMPD/theirs.cmds" "$TMPD/ours.cmds" | head -8 | cut -c1-400 | tr '\n' '|')"
   fi
}

# Cases: VERSIONS|NAME|MODE|shardsh code|mongosh code (empty: the same). 8.2, 8.3 and 9.0 (shardsim's newest
# personalities) run the helpers that need them, and 8.3's drain steps through db.adminCommand. Helpers whose server minimum is above the simulated version are
# left out of that version (shardsh refuses them before sending; tests/scripts cover that).
CASES='4.4 8.0|enableSharding|seq|sh.enableSharding("newdb")|
4.4 8.0|enableSharding.primary|seq|sh.enableSharding("newdb2", "shard02")|
4.4 8.0|shardCollection|seq|sh.shardCollection("app.peer", {k: 1})|
4.4 8.0|shardCollection.options|seq|sh.shardCollection("app.peer2", {k: 1}, false, {numInitialChunks: 5, collation: {locale: "simple"}})|
4.4 8.0|shardCollection.unique-as-options|seq|sh.shardCollection("app.peer3", {k: "hashed"}, {presplitHashedZones: true})|
8.0|reshardCollection|seq|sh.reshardCollection("app.events", {ts: 1}, {numInitialChunks: 4, forceRedistribution: true})|
8.0|commitReshardCollection|seq|sh.commitReshardCollection("app.events")|
8.0|abortReshardCollection|seq|sh.abortReshardCollection("app.events")|
4.4|status|set|sh.status()|
8.0|status|status|sh.status()|
4.4 8.0|status.verbose|set|sh.status(true)|
4.4|printShardingStatus|set|db.printShardingStatus()|
8.0|printShardingStatus|status|db.printShardingStatus()|
4.4|status.configDB|set|sh.status(false, db.getSiblingDB("config"))|
8.0|status.configDB|status|sh.status(false, db.getSiblingDB("config"))|
4.4 8.0|status.configDB.current|set|use config; sh.status(true, db)|sh.status(true, db.getSiblingDB("config"))
4.4 8.0|addShard|seq|sh.addShard("shard09/127.0.0.1:27090")|
4.4 8.0|addShardToZone|seq|sh.addShardToZone("shard03", "CHI")|
4.4 8.0|addShardTag|seq|sh.addShardTag("shard03", "LAX")|
4.4 8.0|updateZoneKeyRange|seq|sh.updateZoneKeyRange("app.stores", {zipcode: "60601"}, {zipcode: "60700"}, "CHI")|
4.4 8.0|addTagRange|seq|sh.addTagRange("app.stores", {zipcode: "70000"}, {zipcode: "70100"}, "LAX")|
4.4 8.0|removeRangeFromZone|seq|sh.removeRangeFromZone("app.stores", {zipcode: "60601"}, {zipcode: "60700"})|
4.4 8.0|removeTagRange|seq|sh.removeTagRange("app.stores", {zipcode: "70000"}, {zipcode: "70100"})|
4.4 8.0|removeShardFromZone|seq|sh.removeShardFromZone("shard03", "CHI")|
4.4 8.0|removeShardTag|seq|sh.removeShardTag("shard03", "LAX")|
4.4 8.0|enableAutoSplit|seq|sh.enableAutoSplit()|
4.4 8.0|disableAutoSplit|seq|sh.disableAutoSplit()|
4.4 8.0|splitAt|seq|sh.splitAt("app.orders", {customer: "c030", ts: MinKey()})|
4.4 8.0|splitFind|seq|sh.splitFind("app.orders", {customer: "c040", ts: MinKey()})|
4.4 8.0|moveChunk|seq|sh.moveChunk("app.orders", {customer: "c031", ts: new Date(0)}, "shard03")|
8.0|moveRange|seq|sh.moveRange("app.orders", "shard02", {customer: "c030", ts: MinKey()})|
8.0|moveRange.nulls|seq|sh.moveRange("app.orders", "shard02")|
4.4 8.0|balancerCollectionStatus|seq|sh.balancerCollectionStatus("app.users")|
4.4 8.0|enableBalancing|seq|sh.enableBalancing("app.events")|
4.4 8.0|disableBalancing|seq|sh.disableBalancing("app.events")|
4.4 8.0|enableMigrations|seq|sh.enableMigrations("app.events")|
4.4 8.0|disableMigrations|seq|sh.disableMigrations("app.events")|
4.4 8.0|getBalancerState|seq|sh.getBalancerState()|
4.4 8.0|isBalancerRunning|seq|sh.isBalancerRunning()|
4.4 8.0|stopBalancer|seq|sh.stopBalancer()|
4.4 8.0|stopBalancer.timeout|seq|sh.stopBalancer(2147483647)|
4.4 8.0|startBalancer|seq|sh.startBalancer(1500.5)|
4.4 8.0|setBalancerState.false|seq|sh.setBalancerState(false)|
4.4 8.0|setBalancerState.true|seq|sh.setBalancerState(true)|
8.0|getShardedDataDistribution|seq|sh.getShardedDataDistribution()|
8.0|startAutoMerger|seq|sh.startAutoMerger()|
8.0|stopAutoMerger|seq|sh.stopAutoMerger()|
8.0|isAutoMergerEnabled|seq|sh.isAutoMergerEnabled()|
8.0|disableAutoMerger|seq|sh.disableAutoMerger("app.events")|
8.0|enableAutoMerger|seq|sh.enableAutoMerger("app.events")|
8.0|checkMetadataConsistency|seq|sh.checkMetadataConsistency({checkIndexes: true})|
8.0|shardAndDistributeCollection|seq|sh.shardAndDistributeCollection("app.peer4", {k: 1}, true, {numInitialChunks: 8, collation: {locale: "simple"}})|
8.0|moveCollection|seq|sh.moveCollection("logs.requests", "shard02")|
8.0|abortMoveCollection|seq|sh.abortMoveCollection("logs.requests")|
8.0|unshardCollection|seq|sh.unshardCollection("app.events", "shard01")|
8.0|abortUnshardCollection|seq|sh.abortUnshardCollection("app.events")|
4.4 8.0|listShards|seq|sh.listShards()|
4.4 8.0|listShards.filter|seq|sh.listShards({})|
8.0|isConfigShardEnabled|seq|sh.isConfigShardEnabled()|
4.4 8.0|getShardDistribution|set|db.getSiblingDB("app").users.getShardDistribution()|
8.0|analyzeShardKey|seq|db.getSiblingDB("app").users.analyzeShardKey({uid: 1}, {keyCharacteristics: true, readWriteDistribution: false, sampleRate: 0.5})|
8.0|configureQueryAnalyzer|seq|db.getSiblingDB("app").users.configureQueryAnalyzer({mode: "full", sampleRate: 1})|
4.4 8.0|getShardVersion|seq|db.getSiblingDB("app").users.getShardVersion()|
8.0|db.checkMetadataConsistency|seq|db.getSiblingDB("app").checkMetadataConsistency({checkIndexes: true})|
8.0|coll.checkMetadataConsistency|seq|db.getSiblingDB("app").users.checkMetadataConsistency()|
4.4 8.0|adminCommand|seq|db.adminCommand({refineCollectionShardKey: "app.orders", key: {customer: 1, ts: 1, region: 1}})|
4.4 8.0|runCommand|seq|db.getSiblingDB("app").runCommand({listCollections: 1, nameOnly: true})|
4.4 8.0|refineCollectionShardKey|seq|sh.refineCollectionShardKey("app.orders", {customer: 1, ts: 1, region: 1})|db.adminCommand({refineCollectionShardKey: "app.orders", key: {customer: 1, ts: 1, region: 1}})
4.4 8.0|removeShard|seq|sh.removeShard("shard03")|db.adminCommand({removeShard: "shard03"})
8.0|configureCollectionBalancing|seq|sh.configureCollectionBalancing("app.events", {chunkSize: 256})|db.adminCommand({configureCollectionBalancing: "app.events", chunkSize: 256})
4.4 8.0|getRecentFailedRounds|seq|sh.getRecentFailedRounds()|db.hello(); db.getSiblingDB("config").actionlog.find({what: "balancer.round"}).sort({time: -1}).limit(5).toArray()
8.2 8.3 9.0|status.newest|status|sh.status()|
8.2 8.3 9.0|shardDrainingStatus|seq|sh.shardDrainingStatus("shard03")|
8.2 8.3 9.0|shardDrainingStatus.no-id|seq|sh.shardDrainingStatus()|
8.3 9.0|getTransitionToDedicatedConfigServerStatus|seq|sh.getTransitionToDedicatedConfigServerStatus()|
8.3 9.0|listShards.draining|seq|sh.listShards({draining: true})|
8.2 8.3 9.0|getShardLocation|seq|db.getSiblingDB("app").users.getShardLocation()|
8.2 8.3 9.0|getShardLocation.missing|seq|db.getSiblingDB("app").nope.getShardLocation()|
8.3 9.0|startShardDraining|seq|db.adminCommand({startShardDraining: "shard03"})|
8.3 9.0|stopShardDraining|seq|db.adminCommand({stopShardDraining: "shard03"})|
8.3 9.0|commitShardRemoval|seq|db.adminCommand({commitShardRemoval: "shard03"})|
8.3 9.0|startTransitionToDedicatedConfigServer|seq|db.adminCommand({startTransitionToDedicatedConfigServer: 1})|
4.4 8.0|getActiveMigrations|seq|sh.getActiveMigrations()|db.hello(); db.getSiblingDB("config").locks.find({state: {$eq: 2}}).toArray()'

# convertShardKeyToHashed: shardsh computes locally (sends nothing), mongosh asks the server; the values agree (4.4, 8.0)
HASHED='42
"hello"
{a: 1}
NumberLong("-5")
1.5
ObjectId("65f000000000000000000001")'

# Per version: two shardsims started alike (tests/peer/lib.sh); the cases in D/VERSION/cases for mongosh, which runs
# those of every version in the background while shardsh runs them on its own shardsim, one process a case.
D="$TMPD/csh"
VERSIONS="4.4 8.0 8.2 8.3 9.0"
: > "$TMPD/csh.list"
for v in $VERSIONS; do
   mkdir -p "$D/$v"
   if ! sim_start --scenario demo --version "$v" --log-commands "$D/$v/theirs.log"; then
      fail "compare-sh.$v.start" "shardsim did not start"
      continue
   fi
   sim_keep
   printf '%s\n' "$CASES" | awk -F '|' -v v="$v" -v only="${COMPARE_ONLY:-}" \
      'index(" " $1 " ", " " v " ") && index($2, only) { print $2 "\t" ($5 != "" ? $5 : $4) }' > "$D/$v/cases"
   case $v in
   4.4 | 8.0)
      printf '%s\n' "$HASHED" | awk '{ print "hashed" NR "\tconvertShardKeyToHashed(" $0 ")" }' >> "$D/$v/cases" ;;
   esac
   echo "$SIM_URI/test $D/$v/theirs.log $D/$v/cases $D/$v" >> "$TMPD/csh.list"
done
peer_mongosh_cases "$TMPD/csh.list" &
mpid=$!
for v in $VERSIONS; do
   [ -s "$D/$v/cases" ] || continue
   if ! sim_start --scenario demo --version "$v" --log-commands "$D/$v/ours.log"; then
      fail "compare-sh.$v.start" "shardsim did not start"
      continue
   fi
   : > "$D/$v/ours.log"
   : > "$D/$v/ours.ranges"
   printf '%s\n' "$CASES" | while IFS='|' read -r versions name mode ours theirs; do
      case " $versions " in *" $v "*) ;; *) continue ;; esac
      case "$name" in *"${COMPARE_ONLY:-}"*) ;; *) continue ;; esac
      n0=$(wc -c < "$D/$v/ours.log")
      NO_COLOR=1 "$SHARDSH" --norc --quiet --yes "$SIM_URI/test" --eval "$ours" > "$D/$v/$name.ours.out" 2>&1
      echo "$D/$v/$name $n0 $(wc -c < "$D/$v/ours.log") $mode" >> "$D/$v/ours.ranges"
   done
   case $v in
   4.4 | 8.0)
      n=0
      printf '%s\n' "$HASHED" | while IFS= read -r value; do
         n=$((n + 1))
         NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI/test" --eval "convertShardKeyToHashed($value)" \
            > "$D/$v/hashed$n.ours.out" 2>&1
      done ;;
   esac
   sim_stop
done
wait "$mpid" || echo "# mongosh exited with status $? (see $TMPD/csh.list.out)" >&2
sims_stop
for v in $VERSIONS; do
   [ -s "$D/$v/cases" ] || continue
   peer_slice "$D/$v/ours.log" "$D/$v/ours.ranges" ours
   peer_slice "$D/$v/theirs.log" "$D/$v/ranges" theirs
   # shellcheck disable=SC2046 # one file per case, names without spaces
   peer_normalise cmds $(awk '{ print $1 ".ours"; print $1 ".theirs" }' "$D/$v/ours.ranges")
   while read -r base n0 n1 mode; do
      compare_case "$v" "${base##*/}" "$mode"
   done < "$D/$v/ours.ranges"
   case $v in
   4.4 | 8.0)
      n=0
      printf '%s\n' "$HASHED" | while IFS= read -r value; do
         n=$((n + 1))
         check_eq "compare-sh.$v.convertShardKeyToHashed($value)" "$(sed '/^$/d' "$D/$v/hashed$n.out" 2> /dev/null)" \
            "$(cat "$D/$v/hashed$n.ours.out")"
      done ;;
   esac
done
