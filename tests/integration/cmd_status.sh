#!/bin/sh
# passes: plain
# sh.status() against shardsim's demo cluster (4.4: chunks keyed by ns; 8.0: by uuid): the facts shardsh prints
# (shards, collections, chunk counts per shard, zones) are checked directly, and the whole printout is compared with
# mongosh's (installed into .cache/mongosh when missing; skipped, saying why, only when npm cannot). The balancer section is compared as a set of
# lines, because mongosh fills it from concurrent tasks in completion order; sh.status(true) drops the mongos
# document's ping and up, which move between two runs.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh

HAVE_MONGOSH=0
ensure_mongosh "cmd_status.mongosh" && HAVE_MONGOSH=1

# Sorts the lines of the balancer section so completion order does not matter (without their trailing commas: the
# last field has none, and which field is last depends on that order); drops ping/up lines.
canon() {
   awk 'BEGIN { sec = "" }
        /^---$/ { flush(); print; next }
        sec == "" { sec = $0; print; next }
        { if (sec == "balancer") { l = $0; sub(/,$/, "", l); print l | "sort" } else print }
        function flush() { if (sec == "balancer") close("sort"); sec = "" }
        END { flush() }' | grep -v -E '^ *(ping|up): '
}

for v in 4.4 8.0; do
   if ! sim_start --scenario demo --version "$v" --log-commands "$TMPD/status-$v.log"; then
      fail "cmd_status.$v.start" "shardsim did not start"
      continue
   fi
   out=$(NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI/test" --eval 'sh.status()' 2>&1)
   for needle in "shardingVersion" "_id: 'shard01'" "_id: 'shard02'" "_id: 'shard03'" "tags: [ 'NYC' ]" \
      "'app.events'" "'app.users'" "'app.orders'" "'app.stores'" "'logs.requests'" "'config.system.sessions'" \
      "shardKey: { uid: 'hashed' }" "shardKey: { customer: 1, ts: 1 }" "{ shard: 'shard01', nChunks: 2 }" \
      "tag: 'NYC'" "tag: 'SFO'" "'Migration Results for the last 24 hours'"; do
      check_contains "cmd_status.$v [$needle]" "$needle" "$out"
   done
   # counts come from the server-side $group: no find on chunks without a collection filter, and never all chunks
   if grep -F '"find" : "chunks", "filter" : {  }' "$TMPD/status-$v.log" > /dev/null; then
      fail "cmd_status.$v.no-unfiltered-chunk-read" "sh.status read config.chunks without a filter"
   else
      pass "cmd_status.$v.no-unfiltered-chunk-read"
   fi
   case $v in
   4.4) check_contains "cmd_status.4.4 chunks by ns" '"find" : "chunks", "filter" : { "ns" : "app.users" }' \
           "$(cat "$TMPD/status-$v.log")" ;;
   8.0) check_contains "cmd_status.8.0 chunks by uuid, in one aggregate" \
           '"localField" : "uuid", "foreignField" : "uuid"' "$(cat "$TMPD/status-$v.log")"
        check_not_contains "cmd_status.8.0 no per-collection chunk reads" '"find" : "chunks"' \
           "$(cat "$TMPD/status-$v.log")" ;;
   esac
   if [ "$HAVE_MONGOSH" = 1 ]; then
      for verbose in "" true; do
         ours=$(NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI/test" --eval "sh.status($verbose)" 2>&1 | canon)
         theirs=$("$MONGOSH" "$SIM_URI/test" --quiet --eval "sh.status($verbose)" 2>&1 | canon)
         if [ "$ours" = "$theirs" ]; then
            pass "cmd_status.$v.status($verbose) prints as mongosh"
         else
            echo "$theirs" > "$TMPD/theirs" && echo "$ours" > "$TMPD/ours"
            fail "cmd_status.$v.status($verbose) prints as mongosh" "$(diff "$TMPD/theirs" "$TMPD/ours" | head -12 | tr '\n' '|')"
         fi
      done
   fi
   sim_stop
done

# 5.0+: the number of commands sh.status sends does not grow with the number of sharded collections (mongosh sends
# three per collection); the output still lists every collection
counts=""
for colls in 5 40; do
   if ! sim_start --scenario large --version 8.0 --large-shards 4 --large-collections "$colls" --large-chunks 2000 \
      --log-commands "$TMPD/status-large-$colls.log"; then
      fail "cmd_status.constant.$colls.start" "shardsim did not start"
      continue
   fi
   out=$(NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI/test" --eval 'sh.status()' 2>&1)
   listed=$(echo "$out" | grep -c "shardKey:")
   sent=$(grep -c '"op": "OP_MSG"' "$TMPD/status-large-$colls.log")
   check_eq "cmd_status.constant.$colls collections listed" "$((colls + 1))" "$listed"
   counts="$counts $sent"
   sim_stop
done
set -- $counts
if [ $# = 2 ] && [ "$1" = "$2" ]; then
   pass "cmd_status.constant: $1 commands at 5 and at 40 collections"
else
   fail "cmd_status.constant" "commands sent at 5 and 40 collections:$counts"
fi
