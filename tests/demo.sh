#!/bin/sh
# `make demo`: start the simulated cluster's demo scenario on a free loopback port with live workloads (an ascending
# key, a hashed key, a zoned collection), show shardsh working on it, then (on a terminal) open the live dashboard
# or, where that is not built, the interactive shell. shardsim is stopped by its PID when the demo ends.
cd "$(dirname "$0")/.." || exit 2
BINDIR=${BINDIR:-bin}
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/shardsh-demo.XXXXXX")
PORTFILE="$TMPD/port"
# Live writes: app.events by an ascending timestamp (one hot shard, the MaxKey chunk), app.users by a hashed key
# (spread evenly), app.stores by zip code inside its zones. Older shardsim builds without --workload run without.
WORKLOADS="--workload app.events:ascending:40 --workload app.users:hashed:40 --workload app.stores:random:10"
if ! "$BINDIR/shardsim" --help 2>&1 | grep -q -- '--workload'; then
   WORKLOADS=""
fi
# shellcheck disable=SC2086
"$BINDIR/shardsim" --scenario demo --port 0 --port-file "$PORTFILE" $WORKLOADS > "$TMPD/sim.out" 2>&1 &
SIM_PID=$!
trap 'kill "$SIM_PID" 2>/dev/null; wait "$SIM_PID" 2>/dev/null; rm -rf "$TMPD"' EXIT INT TERM
i=0
while [ ! -s "$PORTFILE" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
if [ ! -s "$PORTFILE" ]; then
   echo "demo: shardsim did not start: $(cat "$TMPD/sim.out")" >&2
   exit 1
fi
URI="mongodb://127.0.0.1:$(cat "$PORTFILE")"
echo "== shardsim (simulated cluster for demos and tests) is listening at $URI"
echo "== a short script through shardsh:"
cat > "$TMPD/tour.js" <<'JS'
print("-- shards")
show shards
print("-- is the balancer enabled?")
sh.getBalancerState()
print("-- chunks per shard, counted on the server")
db.getSiblingDB("config").chunks.aggregate([{ $group: { _id: "$shard", chunks: { $sum: 1 } } }, { $sort: { _id: 1 } }])
print("-- a new zone: shard03 takes Chicago's zip codes (NYC and SFO are there already)")
sh.addShardToZone("shard03", "CHI")
sh.updateZoneKeyRange("app.stores", { zipcode: "60601" }, { zipcode: "60827" }, "CHI")
show zones
print("-- the same requests, printed instead of sent (--dry-run):")
JS
if ! "$BINDIR/shardsh" --quiet --norc --verbose "$URI" -f "$TMPD/tour.js"; then
   echo "demo: the tour failed (above)" >&2
   exit 1
fi
"$BINDIR/shardsh" --quiet --norc --dry-run --eval 'sh.moveChunk("app.events", {ts: 1000}, "shard02")' || exit 1
if [ -t 0 ] && [ -t 1 ]; then
   if "$BINDIR/shardsh" --help | grep -q -- '--dashboard'; then
      echo "== opening the live dashboard in 2 seconds (? help, Tab panels, Enter chunks, q quits)"
      sleep 2
      "$BINDIR/shardsh" --dashboard --interval 1 "$URI"
   else
      echo "== opening the interactive shell on the simulated cluster (exit or Ctrl-D leaves)"
      "$BINDIR/shardsh" --norc "$URI"
   fi
fi
