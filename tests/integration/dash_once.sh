#!/bin/sh
# passes: plain
# The dashboard's batch modes against shardsim: --once --json agrees with config.chunks counted directly; an
# ascending workload makes the shard holding the MaxKey chunk hot and names that chunk's range; a hashed workload
# makes no shard hot; the round trips of a refresh grow with neither chunks nor shards nor collections; plain --once
# and -n work without a terminal; a dead router gives a stale snapshot and exit status 1, not a hang; the second
# sample of --once is incremental.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1

dash_require "dash_once"

# json_shard_chunks JSON SHARD: the "chunks" of SHARD in the --once --json output
json_shard_chunks() {
   printf '%s' "$1" | grep -o "\"shard\": \"$2\", \"draining\": [a-z]*, \"zones\": \"[^\"]*\", \"chunks\": [0-9]*" |
      sed 's/.*"chunks": //'
}
# json_coll JSON NS: that collection's object (up to the next collection)
json_coll() {
   printf '%s' "$1" | sed 's/{"ns": /\n&/g' | grep "^{\"ns\": \"$2\""
}

for v in 5.0 7.0; do
   if ! sim_start --scenario demo --version "$v"; then
      fail "dash_once/$v/start" "shardsim did not start"
      continue
   fi
   out=$("$SHARDSH" --dashboard --once --json --interval 0.3 "$SIM_URI" 2> "$TMPD/err")
   rc=$?
   check_eq "dash_once/$v/exit" 0 "$rc"
   counts=$("$SHARDSH" --quiet --norc --json "$SIM_URI" --eval \
      'db.getSiblingDB("config").chunks.aggregate([{$group: {_id: "$shard", n: {$sum: 1}}}, {$sort: {_id: 1}}])')
   n=0
   for line in $(printf '%s\n' "$counts" | sed 's/.*"_id" : "\([^"]*\)", "n" : \([0-9]*\).*/\1=\2/'); do
      shard=${line%%=*}
      want=${line#*=}
      check_eq "dash_once/$v/chunks_$shard" "$want" "$(json_shard_chunks "$out" "$shard")"
      n=$((n + 1))
   done
   [ "$n" -gt 0 ] || fail "dash_once/$v/direct_count" "no chunk counts from config.chunks: $counts"
   check_contains "dash_once/$v/sampled_at" '"sampledAt": "' "$out"
   check_contains "dash_once/$v/balancer" '"balancer": {"mode": ' "$out"
   check_contains "dash_once/$v/key" '"key": { "ts" : 1 }' "$out"
   # the second sample of --once reads only what changed: nothing here, so no collection is counted again
   check_contains "dash_once/$v/second_sample_incremental" '"incremental": true, "collectionsRecounted": 0' "$out"
   sim_stop
done

# Hot spots from live workloads (shardsim --workload): ascending -> the MaxKey chunk's shard, hashed -> nobody.
if sim_start --scenario demo --version 7.0 --workload app.events:ascending:60 --workload app.users:hashed:60; then
   out=$("$SHARDSH" --dashboard --once --json --interval 1 "$SIM_URI" 2> "$TMPD/err")
   top=$("$SHARDSH" --quiet --norc --json "$SIM_URI" --eval \
      'db.getSiblingDB("config").chunks.find({"max.ts": MaxKey(), "min.customer": {$exists: false}}, {shard: 1, _id: 0})')
   top_shard=$(printf '%s' "$top" | sed -n 's/.*"shard" : "\([^"]*\)".*/\1/p' | head -1)
   events=$(json_coll "$out" app.events)
   users=$(json_coll "$out" app.users)
   check_contains "dash_once/ascending_hot_shard" "\"hotShards\": [\"$top_shard\"]" "$events"
   check_contains "dash_once/ascending_hot_range" "\"hotRange\": {\"shard\": \"$top_shard\", \"min\": { \"ts\" : " "$events"
   check_contains "dash_once/ascending_hot_range_maxkey" '"max": { "ts" : { "$maxKey" : 1 } }, "end": "MaxKey"' "$events"
   check_contains "dash_once/hashed_not_hot" '"hotShards": [], "hotRange": null' "$users"
   check_contains "dash_once/shard_hot_flag" "\"shard\": \"$top_shard\"" "$(printf '%s' "$out" | grep -o '"shard": "[^"]*", [^}]*"hot": true')"
   sim_stop
else
   fail "dash_once/workload_start" "shardsim did not start with workloads"
fi

# What the server reports, against --once --json (jq reads both). Events: balancer rounds keep their own share while
# migrations run; in-flight migrations are the server's (config.migrations before 6.0, the donors' moveChunk /
# _shardsvrMoveRange in $currentOp from 6.0), 0 when idle; per-collection data size and the totals are
# $shardedDataDistribution's; a draining shard's figures fall over time.
if command -v jq > /dev/null 2>&1; then
   # in_flight_server VERSION: the migrations the server has in flight, counted the way each version records them
   in_flight_server() {
      case "$1" in
      4.* | 5.*) q='db.getSiblingDB("config").migrations.countDocuments({})' ;;
      *)
         "$SHARDSH" --quiet --norc --json "$SIM_URI" --eval 'db.adminCommand({aggregate: 1, pipeline: [{$currentOp: {allUsers: true}}, {$match: {$or: [{"command._shardsvrMoveRange": {$exists: true}}, {"command.moveChunk": {$exists: true}}]}}], cursor: {}})' 2> /dev/null |
            jq '.cursor.firstBatch | length'
         return
         ;;
      esac
      "$SHARDSH" --quiet --norc "$SIM_URI" --eval "$q" 2> /dev/null | tail -n 1
   }
   for v in 4.4 7.0; do
      # idle: no live balancer, nothing moving
      if sim_start --scenario demo --version "$v"; then
         out=$("$SHARDSH" --dashboard --once --json --interval 0.3 "$SIM_URI" 2> "$TMPD/err")
         check_eq "dash_once/$v/in_flight_idle_server" 0 "$(in_flight_server "$v")"
         check_eq "dash_once/$v/in_flight_idle" 0 "$(printf '%s' "$out" | jq '.balancer.migrationsInFlight')"
         sim_stop
      fi
      # busy: ascending, hashed and zoned workloads, rounds every 300 ms, each migration held for a minute, shard03
      # draining
      if sim_start --scenario demo --version "$v" --workload app.events:ascending:40 --workload app.users:hashed:40 \
         --workload app.stores:random:10 --balancer-interval-ms 300 --migration-ms 60000; then
         # a draining shard gives the balancer work on every version (6.0+ balances by data size, not chunk count);
         # 40 splits make the changelog longer than the events list, as on a busy cluster
         "$SHARDSH" --quiet --norc "$SIM_URI" --eval 'db.adminCommand({removeShard: "shard03"})' > /dev/null 2>&1
         i=1
         while [ $i -le 40 ]; do
            echo "sh.splitAt(\"logs.requests\", {_id: NumberLong(\"$((i * 1000003))\")})"
            i=$((i + 1))
         done > "$TMPD/splits.js"
         "$SHARDSH" --quiet --norc --continue-on-error "$SIM_URI" -f "$TMPD/splits.js" > /dev/null 2>&1
         i=0
         while [ "$(in_flight_server "$v")" = 0 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
         out=$("$SHARDSH" --dashboard --once --json --interval 0.5 "$SIM_URI" 2> "$TMPD/err")
         want=$(in_flight_server "$v")
         got=$(printf '%s' "$out" | jq '.balancer.migrationsInFlight')
         if [ -n "$want" ] && [ "$want" != 0 ] && [ "$got" = "$want" ]; then
            pass "dash_once/$v/in_flight_busy"
         else
            fail "dash_once/$v/in_flight_busy" "dashboard [$got], server [$want]"
         fi
         check_eq "dash_once/$v/in_flight_listed" "$got" "$(printf '%s' "$out" | jq '.balancer.migrations | length')"
         kinds=$(printf '%s' "$out" | jq -r '[.events[].kind] | unique | join(",")')
         check_contains "dash_once/$v/events_rounds_while_migrating" "round" "$kinds"
         check_contains "dash_once/$v/events_migrations" "migration" "$kinds"
         check_contains "dash_once/$v/events_failed_round_kept" "roundFailed" "$kinds"
         check_contains "dash_once/$v/events_failed_migration_kept" "migrationFailed" "$kinds"
         sim_stop
      fi
   done

   # sizes: per collection and in total, as $shardedDataDistribution says (a cluster without workloads holds still)
   if sim_start --scenario demo --version 7.0; then
      out=$("$SHARDSH" --dashboard --once --json --interval 0.3 "$SIM_URI" 2> "$TMPD/err")
      sdd=$("$SHARDSH" --quiet --norc --json "$SIM_URI" --eval \
         'db.adminCommand({aggregate: 1, pipeline: [{$shardedDataDistribution: {}}], cursor: {}})' |
         jq -c '.cursor.firstBatch[]')
      want=$(printf '%s\n' "$sdd" | jq -s -c 'map({(.ns): ([.shards[].ownedSizeBytes] | add)} | select(.[] > 0)) | add')
      got=$(printf '%s' "$out" | jq -c '[.collections[] | select(.dataBytes > 0) | {(.ns): .dataBytes}] | add')
      if [ -n "$want" ] && [ "$want" != null ] && [ "$(printf '%s' "$want" | jq -S -c .)" = "$(printf '%s' "$got" | jq -S -c .)" ]; then
         pass "dash_once/collection_data_size"
      else
         fail "dash_once/collection_data_size" "dashboard $got, \$shardedDataDistribution $want"
      fi
      check_eq "dash_once/totals_bytes" "$(printf '%s\n' "$sdd" | jq -s '[.[].shards[].ownedSizeBytes] | add')" \
         "$(printf '%s' "$out" | jq '.totals.dataBytes')"
      check_eq "dash_once/totals_documents" "$(printf '%s\n' "$sdd" | jq -s '[.[].shards[].numOwnedDocuments] | add')" \
         "$(printf '%s' "$out" | jq '.totals.documents')"
      check_eq "dash_once/totals_chunks" "$(printf '%s' "$out" | jq '[.shards[].chunks] | add')" \
         "$(printf '%s' "$out" | jq '.totals.chunks')"
      check_eq "dash_once/not_draining_null" "null" "$(printf '%s' "$out" | jq -c '[.shards[].drain] | unique | .[0]')"
      sim_stop
   fi

   # drain: removeShard, then the draining shard's chunks and bytes fall between two readings, with a rate and a
   # time left
   if sim_start --scenario demo --version 7.0 --workload app.events:ascending:20 --balancer-interval-ms 200 \
      --migration-ms 200; then
      "$SHARDSH" --quiet --norc "$SIM_URI" --eval 'db.adminCommand({removeShard: "shard03"})' > /dev/null 2>&1
      d1=$("$SHARDSH" --dashboard --once --json --interval 1 "$SIM_URI" 2> "$TMPD/err" | jq -c '.shards[] | select(.shard == "shard03") | .drain')
      sleep 1
      d2=$("$SHARDSH" --dashboard --once --json --interval 1 "$SIM_URI" 2> "$TMPD/err" | jq -c '.shards[] | select(.shard == "shard03") | .drain')
      c1=$(printf '%s' "$d1" | jq .chunks)
      c2=$(printf '%s' "$d2" | jq .chunks)
      b1=$(printf '%s' "$d1" | jq .bytes)
      b2=$(printf '%s' "$d2" | jq .bytes)
      if [ -n "$c1" ] && [ -n "$c2" ] && [ "$c1" != null ] && [ "$c2" -lt "$c1" ] && [ "$b2" -lt "$b1" ]; then
         pass "dash_once/drain_falls"
      else
         fail "dash_once/drain_falls" "first $d1, then $d2"
      fi
      check_eq "dash_once/drain_databases" 0 "$(printf '%s' "$d1" | jq .databases)"
      if printf '%s' "$d1" | jq -e '.bytesPerSec > 0 and .etaSec >= 0' > /dev/null; then
         pass "dash_once/drain_rate_eta"
      else
         fail "dash_once/drain_rate_eta" "$d1"
      fi
      sim_stop
   fi
else
   skip "dash_once/server_figures" "jq is not installed"
fi

# Round trips per refresh depend on neither the number of chunks nor the numbers of shards and collections: each
# kind of data is asked for once (plus at most 8 $collStats and 2 x 2 key-end finds, and one read of the databases
# while a shard drains), so a refresh on 4 shards with
# 10 collections and 2,000 chunks sends as many commands as one on 200 shards with 100 collections and 40,000 chunks
# (one plain frame each; a long interval so a slow sanitizer build stays inside the refresh budget).
rt() {
   printf '%s' "$1" | sed -n 's/^cluster .*, \([0-9]*\) commands).*/\1/p' | head -1
}
# rt_at SHARDS COLLECTIONS CHUNKS: the round trips of one refresh on that large scenario ("" when it failed)
rt_at() {
   sim_start --scenario large --large-shards "$1" --large-collections "$2" --large-chunks "$3" || return 0
   rt "$("$SHARDSH" --dashboard -n 1 --interval 20 "$SIM_URI" < /dev/null 2>/dev/null)"
   sim_stop
}
if sim_start --scenario large --large-shards 4 --large-collections 5 --large-chunks 2000; then
   sim_stop
   small=$(rt_at 4 5 2000)
   big=$(rt_at 4 5 40000)
   if [ -n "$small" ] && [ "$small" = "$big" ]; then
      pass "dash_once/round_trips_independent_of_chunks"
   else
      fail "dash_once/round_trips_independent_of_chunks" "2000 chunks: [$small] round trips, 40000 chunks: [$big]"
   fi
   small=$(rt_at 4 10 2000)
   big=$(rt_at 200 100 40000)
   if [ -n "$small" ] && [ "$small" = "$big" ] && [ "$big" -le 28 ]; then
      pass "dash_once/round_trips_independent_of_scale"
   else
      fail "dash_once/round_trips_independent_of_scale" \
         "4 shards, 10 collections, 2000 chunks: [$small]; 200 shards, 100 collections, 40000 chunks: [$big] (at most 28: 24 with the closing serverStatus, and the 4 reads of the Operations strip)"
   fi
   # a draining shard adds one command (the databases it is still primary for), and the Operations strip's 8 drain
   # reads (sh.progress's: removeShard.start, moved chunks, chunks and databases left; and for why it may be stuck:
   # the shards with their zones, balancerStatus, the balancer settings, the zone ranges), whatever the scale
   if sim_start --scenario large --large-shards 200 --large-collections 100 --large-chunks 40000; then
      first=$("$SHARDSH" --quiet --norc --json "$SIM_URI" --eval 'db.getSiblingDB("config").shards.find({}, {_id: 1}).limit(1)' |
         sed -n 's/.*"_id" : "\([^"]*\)".*/\1/p')
      "$SHARDSH" --quiet --norc "$SIM_URI" --eval "db.adminCommand({removeShard: \"$first\"})" > /dev/null 2>&1
      draining=$(rt "$("$SHARDSH" --dashboard -n 1 --interval 20 "$SIM_URI" < /dev/null 2> /dev/null)")
      sim_stop
      if [ -n "$first" ] && [ -n "$draining" ] && [ "$draining" = "$((big + 9))" ] && [ "$draining" -le 37 ]; then
         pass "dash_once/round_trips_draining"
      else
         fail "dash_once/round_trips_draining" "$first draining: [$draining] round trips (no drain: [$big]; at most 37)"
      fi
   fi
   # a router whose serverStatus fails reports no version: the refresh still asks $shardedDataDistribution (a
   # refusal would make it fall back) rather than one $collStats per collection
   if sim_start --scenario large --large-shards 200 --large-collections 100 --large-chunks 40000 \
      --fault-fail serverStatus:13:-1; then
      unknown=$(rt "$("$SHARDSH" --dashboard -n 1 --interval 20 "$SIM_URI" < /dev/null 2>/dev/null)")
      sim_stop
      if [ -n "$unknown" ] && [ "$unknown" -le 28 ]; then
         pass "dash_once/round_trips_unknown_version"
      else
         fail "dash_once/round_trips_unknown_version" "serverStatus failing: [$unknown] round trips (at most 28)"
      fi
   fi
else
   skip "dash_once/round_trips_independent_of_chunks" "shardsim has no large scenario"
   skip "dash_once/round_trips_independent_of_scale" "shardsim has no large scenario"
fi

# Plain text, frames without a terminal, and a router that is not there.
if sim_start --scenario demo; then
   out=$("$SHARDSH" --dashboard --once --interval 0.2 "$SIM_URI" 2>&1)
   check_contains "dash_once/text_header" "SHARD" "$out"
   check_contains "dash_once/text_collections" "app.events" "$out"
   out=$("$SHARDSH" --dashboard -n 2 --interval 0.2 "$SIM_URI" < /dev/null 2>&1)
   check_eq "dash_once/frames_plain" 2 "$(printf '%s\n' "$out" | grep -c '^cluster ')"
   port=$SIM_PORT
   sim_stop
   start=$(date +%s)
   out=$("$SHARDSH" --dashboard --once --json --interval 0.5 "mongodb://127.0.0.1:$port" 2> "$TMPD/err")
   rc=$?
   took=$(($(date +%s) - start))
   check_eq "dash_once/no_router_exit" 1 "$rc"
   check_contains "dash_once/no_router_stale" '"stale": true' "$out"
   if [ "$took" -le 5 ]; then pass "dash_once/no_router_bounded"; else fail "dash_once/no_router_bounded" "took ${took}s"; fi
fi
