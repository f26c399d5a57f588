#!/bin/sh
# passes: plain
# A real Prometheus scrapes shardsh --exporter over shardsim: Prometheus on a free loopback port with its storage in
# the test's directory and a 1 s scrape interval, stopped by its PID; a series is queried back through its HTTP API
# and must equal what the exporter serves (and the target must be healthy). SKIP only when Debian's prometheus
# package could not be installed.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

if ! command -v prometheus > /dev/null 2>&1 || ! command -v curl > /dev/null 2>&1; then
   skip "exporter_prom" "prometheus or curl is not installed (Debian's prometheus package; tests/deps.sh tried)"
   exit 0
fi

EXP_PID=""
PROM_PID=""
stop_all() {
   [ -n "$PROM_PID" ] && kill "$PROM_PID" 2> /dev/null && wait "$PROM_PID" 2> /dev/null
   [ -n "$EXP_PID" ] && kill "$EXP_PID" 2> /dev/null && wait "$EXP_PID" 2> /dev/null
   PROM_PID=""
   EXP_PID=""
}
trap 'stop_all; cleanup' EXIT

# free_port: a loopback port nothing listens on (ss), from a range of its own per process
free_port() {
   p=$((20000 + $$ % 20000))
   while [ $p -lt 65000 ]; do
      if ! command -v ss > /dev/null 2>&1 || [ -z "$(ss -Htln "sport = :$p" 2> /dev/null)" ]; then
         echo $p
         return 0
      fi
      p=$((p + 1))
   done
   return 1
}

if ! sim_start --scenario demo --version 7.0; then
   fail "exporter_prom/start" "shardsim did not start"
   exit 0
fi
"$SHARDSH" --exporter 127.0.0.1:0 --interval 0.5 "demo=$SIM_URI" 2> "$TMPD/exp.err" &
EXP_PID=$!
i=0
EXP_PORT=""
while [ -z "$EXP_PORT" ] && [ $i -lt 100 ]; do
   sleep 0.05
   EXP_PORT=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$TMPD/exp.err")
   i=$((i + 1))
done
if [ -z "$EXP_PORT" ]; then
   fail "exporter_prom/exporter" "$(cat "$TMPD/exp.err")"
   exit 0
fi

PROM_PORT=$(free_port)
mkdir -p "$TMPD/prom"
cat > "$TMPD/prom/prometheus.yml" << EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
rule_files:
  - $(pwd)/docs/exporter/alerts.yml
scrape_configs:
  - job_name: shardsh
    static_configs:
      - targets: ["127.0.0.1:$EXP_PORT"]
EOF
prometheus --config.file="$TMPD/prom/prometheus.yml" --storage.tsdb.path="$TMPD/prom/data" \
   --web.listen-address="127.0.0.1:$PROM_PORT" > "$TMPD/prom.log" 2>&1 &
PROM_PID=$!

# the exporter's own value, then Prometheus's, until it has scraped it (at most 20 s)
q='shardsh_shard_chunks{cluster="demo",shard="shard01"}'
want=""
got=""
i=0
while [ $i -lt 200 ]; do
   want=$(curl -s "http://127.0.0.1:$EXP_PORT/metrics" | awk -v s="$q" 'index($0, s " ") == 1 { print $2 }')
   got=$(curl -s -G --data-urlencode "query=$q" "http://127.0.0.1:$PROM_PORT/api/v1/query" |
      jq -r '.data.result[0].value[1] // empty' 2> /dev/null)
   [ -n "$got" ] && [ -n "$want" ] && break
   sleep 0.1
   i=$((i + 1))
done
if [ -n "$got" ] && [ "$got" = "$want" ]; then
   pass "exporter_prom/query_back"
else
   fail "exporter_prom/query_back" "exporter [$want], Prometheus [$got]: $(tail -5 "$TMPD/prom.log")"
fi
health=$(curl -s "http://127.0.0.1:$PROM_PORT/api/v1/targets" | jq -r '.data.activeTargets[0].health' 2> /dev/null)
check_eq "exporter_prom/target_up" "up" "$health"
# the rules loaded into the server too
rules=$(curl -s "http://127.0.0.1:$PROM_PORT/api/v1/rules" | jq -r '[.data.groups[].rules[]] | length' 2> /dev/null)
check_eq "exporter_prom/rules_loaded" 8 "$rules"
# an OpenMetrics scrape (Prometheus asks for it first): the counter is queryable by its _total name
c=$(curl -s -G --data-urlencode 'query=shardsh_migrations_succeeded_total{cluster="demo"}' \
   "http://127.0.0.1:$PROM_PORT/api/v1/query" | jq -r '.data.result | length' 2> /dev/null)
check_eq "exporter_prom/counter_series" 1 "$c"
# every query of the shipped Grafana dashboard parses and runs on this Prometheus ($cluster, $namespace: all)
bad=0
jq -r '.panels[].targets[].expr' docs/exporter/grafana.json | sed 's/\$cluster/.*/g; s/\$namespace/.*/g' > "$TMPD/exprs"
while IFS= read -r e; do
   st=$(curl -s -G --data-urlencode "query=$e" "http://127.0.0.1:$PROM_PORT/api/v1/query" | jq -r '.status' 2> /dev/null)
   [ "$st" = success ] || { bad=$((bad + 1)); echo "bad query: $e" >&2; }
done < "$TMPD/exprs"
check_eq "exporter_prom/grafana_queries" 0 "$bad"
stop_all
sim_stop
