#!/bin/sh
# passes: plain asan
# shardsh --exporter against shardsim: /metrics in both formats (content negotiation by Accept), two clusters by
# name, series that agree with the cluster counted directly (chunks per shard, migrations from the changelog), the
# counters unchanged across a restart of the exporter, scrapes that never fail while migrations run, promtool's
# checks of a scrape and of the shipped alert rules, and the HTTP errors (404, 405).
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

EXP_PID=""
# exp_start ARGS...: starts the exporter on a free loopback port (port 0, read back from its stderr); sets EXP_PORT.
exp_start() {
   "$SHARDSH" --exporter 127.0.0.1:0 "$@" 2> "$TMPD/exp.err" &
   EXP_PID=$!
   EXP_PORT=""
   i=0
   while [ -z "$EXP_PORT" ] && [ $i -lt 100 ]; do
      sleep 0.05
      EXP_PORT=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$TMPD/exp.err")
      i=$((i + 1))
   done
   [ -n "$EXP_PORT" ]
}
exp_stop() {
   [ -n "$EXP_PID" ] && kill "$EXP_PID" 2> /dev/null && wait "$EXP_PID" 2> /dev/null
   EXP_RC=$?
   EXP_PID=""
}
# scrape [ACCEPT]: the body of /metrics
scrape() {
   curl -s --max-time 5 ${1:+-H "Accept: $1"} "http://127.0.0.1:$EXP_PORT/metrics"
}
# value TEXT SERIES: the value of the series written exactly so (name{labels})
value() {
   printf '%s\n' "$1" | awk -v s="$2" 'index($0, s " ") == 1 { print $2; exit }'
}
# wait_up: until every cluster has a refresh and its changelog counts (at most 10 s)
wait_up() {
   i=0
   while [ $i -lt 100 ]; do
      m=$(scrape)
      if [ "$(printf '%s\n' "$m" | grep -c '^shardsh_up{.*} 1$')" -ge "${1:-1}" ] &&
         printf '%s\n' "$m" | grep -q '^shardsh_migrations_succeeded_total'; then
         return 0
      fi
      sleep 0.1
      i=$((i + 1))
   done
   return 1
}
shsh() {
   "$SHARDSH" --quiet --norc --json "$SIM_URI" --eval "$1"
}

if ! command -v curl > /dev/null 2>&1; then
   skip "exporter" "curl is not installed (tests/deps.sh installs it)"
   exit 0
fi
# the command line: a bad address, two clusters with one name, extra connection strings without --exporter
"$SHARDSH" --exporter 127.0.0.1:99999 mongodb://127.0.0.1:1 > /dev/null 2> "$TMPD/bad.err"
check_eq "exporter/bad_address_exit" 2 "$?"
check_contains "exporter/bad_address_said" "is not an address" "$(cat "$TMPD/bad.err")"
"$SHARDSH" --exporter 0 a=mongodb://127.0.0.1:1 a=mongodb://127.0.0.1:2 > /dev/null 2> "$TMPD/dup.err"
check_eq "exporter/duplicate_name_exit" 2 "$?"
"$SHARDSH" mongodb://127.0.0.1:1 mongodb://127.0.0.1:2 > /dev/null 2>&1 < /dev/null
check_eq "exporter/two_uris_need_exporter" 2 "$?"

if ! sim_start --scenario demo --version 7.0 --balancer-interval-ms 150 --migration-ms 200; then
   fail "exporter/start" "shardsim did not start"
   exit 0
fi
if ! exp_start --interval 0.3 east="$SIM_URI" "west=$SIM_URI"; then
   fail "exporter/listen" "no listening line: $(cat "$TMPD/exp.err")"
   exit 0
fi
if wait_up 2; then pass "exporter/up_both"; else fail "exporter/up_both" "$(scrape | grep shardsh_up)"; fi

# content negotiation
curl -s -D "$TMPD/h.txt" -o "$TMPD/m.txt" "http://127.0.0.1:$EXP_PORT/metrics"
check_contains "exporter/text_type" "text/plain; version=0.0.4" "$(cat "$TMPD/h.txt")"
curl -s -D "$TMPD/h.om" -o "$TMPD/m.om" -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;q=0.5' \
   "http://127.0.0.1:$EXP_PORT/metrics"
check_contains "exporter/om_type" "application/openmetrics-text; version=1.0.0" "$(cat "$TMPD/h.om")"
check_eq "exporter/om_eof" "# EOF" "$(tail -n 1 "$TMPD/m.om")"
check_contains "exporter/om_counter_family" "# TYPE shardsh_migrations_succeeded counter" "$(cat "$TMPD/m.om")"
check_contains "exporter/text_counter_family" "# TYPE shardsh_migrations_succeeded_total counter" "$(cat "$TMPD/m.txt")"
check_not_contains "exporter/text_no_eof" "# EOF" "$(cat "$TMPD/m.txt")"

# the series against the cluster, counted directly (the balancer is quick here: stop it so the two agree)
shsh 'sh.stopBalancer()' > /dev/null
sleep 1
m=$(scrape)
counts=$(shsh 'db.getSiblingDB("config").chunks.aggregate([{$group: {_id: "$shard", n: {$sum: 1}}}, {$sort: {_id: 1}}])')
n=0
for line in $(printf '%s\n' "$counts" | sed 's/.*"_id" : "\([^"]*\)", "n" : \([0-9]*\).*/\1=\2/'); do
   shard=${line%%=*}
   check_eq "exporter/chunks_$shard" "${line#*=}" "$(value "$m" "shardsh_shard_chunks{cluster=\"east\",shard=\"$shard\"}")"
   n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "exporter/direct_count" "no chunk counts from config.chunks: $counts"
collchunks=$(shsh 'const u = db.getSiblingDB("config").collections.findOne({_id: "app.users"}).uuid;
print(db.getSiblingDB("config").chunks.countDocuments({uuid: u}))')
[ -n "$collchunks" ] || collchunks="(no count from config.chunks)"
check_eq "exporter/collection_chunks" "$collchunks" "$(value "$m" 'shardsh_collection_chunks{cluster="east",namespace="app.users"}')"
cpu=$(value "$m" 'shardsh_refresh_router_cpu_seconds{cluster="east"}')
if [ -n "$cpu" ] && awk -v v="$cpu" 'BEGIN { exit !(v >= 0 && v < 60) }'; then
   pass "exporter/router_cpu"
else
   fail "exporter/router_cpu" "shardsim reports extra_info: expected the router's CPU of a refresh, got [$cpu]"
fi
check_eq "exporter/balancer_off" 0 "$(value "$m" 'shardsh_balancer_enabled{cluster="east"}')"
check_eq "exporter/two_clusters_agree" "$(value "$m" 'shardsh_shard_chunks{cluster="east",shard="shard01"}')" \
   "$(value "$m" 'shardsh_shard_chunks{cluster="west",shard="shard01"}')"
okn=$(shsh 'db.getSiblingDB("config").changelog.countDocuments({what: "moveChunk.from", "details.note": "success", "details.errmsg": {$exists: false}})')
failn=$(shsh 'db.getSiblingDB("config").changelog.countDocuments({what: "moveChunk.from", $or: [{"details.note": {$ne: "success"}}, {"details.errmsg": {$exists: true}}]})')
# the counts are read at start and every 30 s: compare with a fresh exporter's
exp_stop
# with a third cluster that cannot be reached (and a password in its connection string): the others stay up
exp_start --interval 0.3 "east=$SIM_URI" "dead=mongodb://ops:secret@127.0.0.1:1/?serverSelectionTimeoutMS=100" ||
   fail "exporter/restart" "$(cat "$TMPD/exp.err")"
wait_up 1
m2=$(scrape)
check_eq "exporter/dead_cluster_down" 0 "$(value "$m2" 'shardsh_up{cluster="dead"}')"
check_eq "exporter/live_cluster_up" 1 "$(value "$m2" 'shardsh_up{cluster="east"}')"
[ -n "$okn" ] && [ -n "$failn" ] || okn="(no count from config.changelog)"
check_eq "exporter/migrations_succeeded" "$okn" "$(value "$m2" 'shardsh_migrations_succeeded_total{cluster="east"}')"
check_eq "exporter/migrations_failed" "$failn" "$(value "$m2" 'shardsh_migrations_failed_total{cluster="east"}')"
a=$(value "$m" 'shardsh_migrations_succeeded_total{cluster="east"}')
b=$(value "$m2" 'shardsh_migrations_succeeded_total{cluster="east"}')
if [ -n "$a" ] && [ -n "$b" ] && [ "$b" -ge "$a" ]; then
   pass "exporter/counter_survives_restart"
else
   fail "exporter/counter_survives_restart" "before the restart '$a', after '$b'"
fi

# scrapes while migrations run: every one answers 200 with the cluster up
shsh 'sh.startBalancer()' > /dev/null
# manual migrations in the background, the balancer's on top (shardsim: each takes --migration-ms)
shsh 'const u = db.getSiblingDB("config").collections.findOne({_id: "app.events"}).uuid;
for (const ch of db.getSiblingDB("config").chunks.find({uuid: u}).limit(4).toArray()) {
   db.adminCommand({moveChunk: "app.events", bounds: [ch.min, ch.max], to: ch.shard == "shard01" ? "shard02" : "shard01"})
}' > "$TMPD/moves.out" 2>&1 &
MOVER=$!
bad=0
i=0
while [ $i -lt 30 ]; do
   code=$(curl -s -o "$TMPD/s.txt" -w '%{http_code}' --max-time 2 "http://127.0.0.1:$EXP_PORT/metrics")
   [ "$code" = 200 ] && grep -q '^shardsh_up{cluster="east"} 1$' "$TMPD/s.txt" || bad=$((bad + 1))
   sleep 0.1
   i=$((i + 1))
done
check_eq "exporter/scrapes_during_migrations" 0 "$bad"
wait "$MOVER"
m=$(scrape)
okn=$(shsh 'db.getSiblingDB("config").changelog.countDocuments({what: "moveChunk.from", "details.note": "success", "details.errmsg": {$exists: false}})')
b2=$(value "$m" 'shardsh_migrations_succeeded_total{cluster="east"}')
if [ -n "$b2" ] && [ "$b2" -ge "$b" ] && [ "$okn" -gt "$b" ]; then
   pass "exporter/migrations_moved"
else
   fail "exporter/migrations_moved" "changelog $okn, counter before $b, now $b2: $(cat "$TMPD/moves.out")"
fi
inflight=$(scrape | grep -c '^shardsh_migrations_in_flight')
check_eq "exporter/in_flight_series" 1 "$inflight"

# HTTP errors
check_eq "exporter/404" 404 "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$EXP_PORT/nope")"
check_eq "exporter/405" 405 "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$EXP_PORT/metrics")"

# promtool: the scrape's format and names, and the shipped rules
if command -v promtool > /dev/null 2>&1; then
   if out=$(scrape | promtool check metrics 2>&1); then
      pass "exporter/promtool_metrics"
   else
      fail "exporter/promtool_metrics" "$out"
   fi
   if out=$(promtool check rules docs/exporter/alerts.yml 2>&1); then
      pass "exporter/promtool_rules"
   else
      fail "exporter/promtool_rules" "$out"
   fi
else
   skip "exporter/promtool" "promtool is not installed (Debian's prometheus package; tests/deps.sh tried)"
fi
if command -v jq > /dev/null 2>&1 && jq -e '.panels | length > 0' docs/exporter/grafana.json > /dev/null 2>&1; then
   pass "exporter/grafana_json"
else
   fail "exporter/grafana_json" "docs/exporter/grafana.json is not a dashboard with panels"
fi

exp_stop
check_eq "exporter/sigterm_exit" 0 "$EXP_RC"
check_contains "exporter/dead_cluster_logged" "dead: refresh failed" "$(cat "$TMPD/exp.err")"
check_not_contains "exporter/no_password_logged" "secret" "$(cat "$TMPD/exp.err")"
sim_stop
