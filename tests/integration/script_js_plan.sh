#!/bin/sh
# passes: plain asan
# Pre-flight and plan of JavaScript inputs (issue 18, docs/plan.md "JavaScript"), on shardsim 7.0 and 4.4: a script
# the literal grammar does not take runs first with its reads sent and its writes checked against the model and held
# back. A missing zone on its last line, a range overlapping an existing one, a 6.0-only helper on 4.4, an undefined
# name or a write's bad argument after its writes exits 2 and the cluster receives no write; a script that passes
# writes each thing once; one that reads what its writes made, or polls for what a write does, is followed as far as
# it can be, with a warning, and then runs; --plan of a JavaScript loop gives the literal script's plan, and the
# balancer then moves that much.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1
case $SHARDSH in /*) ROOT_SH=$SHARDSH ;; *) ROOT_SH="$(pwd)/$SHARDSH" ;; esac

WRITES='"cmd": { "(balancerStop|balancerStart|addShardToZone|removeShardFromZone|updateZoneKeyRange|moveChunk|moveRange|removeShard|update|insert|delete|shardCollection|split|mergeChunks)"'

# no_write NAME LOG: the command log holds no write command
no_write() {
   if grep -E -q "$WRITES" "$2"; then
      fail "$1" "the cluster received a write: $(grep -E -o "$WRITES" "$2" | head -3 | tr '\n' ' ')"
   else
      pass "$1"
   fi
}

# writes LOG NAME: how many NAME commands the log holds
writes() { grep -c "\"cmd\": { \"$2\"" "$1"; }

cat > "$TMPD/missing_zone.js" << 'JS'
// the shards come from the cluster (a read, sent); the zone on the last line does not exist
const shards = db.getSiblingDB("config").shards.find().sort({_id: 1}).toArray().map(s => s._id);
sh.stopBalancer();
for (const s of shards.slice(2)) {
  sh.addShardToZone(s, "LON");
}
sh.updateZoneKeyRange("app.events", {ts: MinKey}, {ts: 0}, "LON");
[["30000", "30100", "APCA"]].forEach(([a, b, z]) => sh.updateZoneKeyRange("app.stores", {zipcode: a}, {zipcode: b}, z));
JS
cat > "$TMPD/overlap.js" << 'JS'
for (const [a, b] of [["10200", "10300"]]) {
  sh.updateZoneKeyRange("app.stores", {zipcode: a}, {zipcode: b}, "SFO");
}
JS
cat > "$TMPD/moverange.js" << 'JS'
const target = "shard02";
sh.addShardToZone(target, "NYC");
sh.moveRange("app.events", target, {ts: 0});
JS
cat > "$TMPD/undefined.js" << 'JS'
sh.stopBalancer();
sh.addShardToZone("shard01", "NYC");
sh.startBalancer(timeout);
JS
cat > "$TMPD/badarg.js" << 'JS'
sh.stopBalancer();
for (const s of ["shard01"]) sh.addShardToZone(s, "NYC");
sh.setBalancerState("yes");
JS

for v in 7.0 4.4; do
   for case in missing_zone overlap moverange undefined badarg; do
      [ "$case" = moverange ] && [ "$v" != 4.4 ] && continue
      log="$TMPD/$case.$v.log"
      if ! sim_start --scenario demo --version "$v" --log-commands "$log"; then
         fail "js_plan/$v/$case" "shardsim did not start"
         continue
      fi
      out=$(cd "$TMPD" && "$ROOT_SH" --norc "$SIM_URI" "$case.js" 2>&1)
      rc=$?
      sim_stop
      check_eq "js_plan/$v/$case exits 2" 2 "$rc"
      no_write "js_plan/$v/$case sends no write" "$log"
      case $case in
      missing_zone)
         check_contains "js_plan/$v/$case names the zones, at file:line:col" \
            "missing_zone.js:8:56: error: zone APCA does not exist; zones: NYC, SFO, LON" "$out"
         check_contains "js_plan/$v/$case: its reads were sent" '"find" : "shards"' "$(cat "$log")"
         check_contains "js_plan/$v/$case says nothing was written" \
            "hint: found by the pre-flight: nothing was written (--no-preflight skips it)" "$out" ;;
      overlap) check_contains "js_plan/$v/$case RangeOverlapConflict at its line" "overlap.js:2:6: " "$out"
               check_contains "js_plan/$v/$case RangeOverlapConflict" "RangeOverlapConflict" "$out" ;;
      moverange) check_contains "js_plan/$v/$case version gate" \
                    "moverange.js:3:4: error: sh.moveRange needs MongoDB 6.0 and the cluster runs 4.4" "$out" ;;
      badarg) check_contains "js_plan/$v/$case: a write's bad argument, located" \
                 "badarg.js:3:4: error: [COMMON-10001] Argument at position 0 must be of type boolean, got string instead" "$out" ;;
      undefined) check_eq "js_plan/$v/$case: located, with a caret" \
                    "undefined.js:3:1: error: ReferenceError: timeout is not defined
  sh.startBalancer(timeout);
  ^
hint: found by the pre-flight, which runs the JavaScript with its writes held back: nothing was written (--no-preflight skips it)" \
                    "$out" ;;
      esac
   done
done

# a script that passes: checked, then run once (every write sent once, none during the pre-flight)
if sim_start --scenario demo --version 7.0 --log-commands "$TMPD/ok.log"; then
   cat > "$TMPD/ok.js" << 'JS'
const shards = db.getSiblingDB("config").shards.find().sort({_id: 1}).toArray().map(s => s._id);
for (const s of shards.slice(0, 2)) {
  sh.addShardToZone(s, "EU");
}
sh.updateZoneKeyRange("app.stores", {zipcode: "90000"}, {zipcode: "90100"}, "EU");
print("zoned", shards.length - 1);
JS
   out=$(cd "$TMPD" && "$ROOT_SH" --norc "$SIM_URI" ok.js 2> ok.err)
   check_eq "js_plan/ok: runs (exit 0)" 0 "$?"
   check_eq "js_plan/ok: prints once" "zoned 2" "$out"
   check_eq "js_plan/ok: each addShardToZone sent once" 2 "$(writes "$TMPD/ok.log" addShardToZone)"
   check_eq "js_plan/ok: the range sent once" 1 "$(writes "$TMPD/ok.log" updateZoneKeyRange)"
   check_eq "js_plan/ok: the status lines are the real run's" \
      "ok.js:3 ok sh.addShardToZone('shard01', 'EU')
ok.js:3 ok sh.addShardToZone('shard02', 'EU')
ok.js:5 ok sh.updateZoneKeyRange('app.stores', { zipcode: '90000' }, { zipcode: '90100' }, 'EU')" "$(cat "$TMPD/ok.err")"

   # a script that reads what its own writes made: followed up to there, with a warning; then it runs
   cat > "$TMPD/reads_own.js" << 'JS'
sh.shardCollection("shop.carts", {cart: 1});
const coll = db.getSiblingDB("config").collections.findOne({_id: "shop.carts"});
print("key", Object.keys(coll.key).join(","));
JS
   out=$(cd "$TMPD" && "$ROOT_SH" --norc "$SIM_URI" reads_own.js 2> reads_own.err)
   check_eq "js_plan/reads its own writes: runs (exit 0)" 0 "$?"
   check_eq "js_plan/reads its own writes: its output" "key cart" "$out"
   check_contains "js_plan/reads its own writes: the pre-flight says where it stopped following" \
      "pre-flight: followed to reads_own.js:3 (TypeError: coll is null, after a read that may miss what a held-back write makes); the rest is checked as it runs" \
      "$(cat "$TMPD/reads_own.err")"
   check_eq "js_plan/reads its own writes: shardCollection sent once" 1 "$(writes "$TMPD/ok.log" shardCollection)"

   # the same across inputs: a literal file's write is held back too when the JavaScript after it reads it
   printf 'sh.shardCollection("shop.items", {sku: 1})\n' > "$TMPD/items_lit.js"
   cat > "$TMPD/items_js.js" << 'JS'
const items = db.getSiblingDB("config").collections.findOne({_id: "shop.items"});
sh.splitAt(items._id, {sku: "m"});
print("split", items._id);
JS
   out=$(cd "$TMPD" && "$ROOT_SH" --norc "$SIM_URI" -f items_lit.js -f items_js.js 2> items.err)
   check_eq "js_plan/reads an earlier input's write: runs (exit 0)" 0 "$?"
   check_eq "js_plan/reads an earlier input's write: its output" "split shop.items" "$out"
   check_contains "js_plan/reads an earlier input's write: a warning, not a failure" \
      "pre-flight: followed to items_js.js:2 (TypeError: items is null" "$(cat "$TMPD/items.err")"

   # a loop polling for what a write does never ends in the pre-flight (the write is held back): it stops following
   cat > "$TMPD/poll.js" << 'JS'
sh.stopBalancer();
while (sh.getBalancerState()) { sleep(100); }
print("stopped");
sh.startBalancer();
JS
   out=$(cd "$TMPD" && "$ROOT_SH" --norc "$SIM_URI" poll.js 2> poll.err)
   check_eq "js_plan/polling loop: runs (exit 0)" 0 "$?"
   check_eq "js_plan/polling loop: its output" "stopped" "$out"
   check_contains "js_plan/polling loop: the pre-flight stops following it" \
      "pre-flight: followed to poll.js:2 (a sleep: it may wait for what a held-back write does)" "$(cat "$TMPD/poll.err")"

   # --readonly: nothing is written, so nothing is run twice
   : > "$TMPD/ok.log"
   out=$(cd "$TMPD" && "$ROOT_SH" --norc --readonly "$SIM_URI" ok.js 2>&1)
   check_eq "js_plan/--readonly: one read of config.shards (no pre-flight run)" 1 \
      "$(grep -c '"find" : "shards"' "$TMPD/ok.log")"
   sim_stop
else
   fail "js_plan/ok" "shardsim did not start"
fi

# json_field NAME TEXT: the number after "NAME" : in TEXT (the first one)
json_field() { printf '%s\n' "$2" | sed -n "s/.*\"$1\" : \([0-9]*\).*/\1/p" | head -1; }

# moved NS: "docs bytes" of the moveChunk.commit entries of NS
moved() {
   o=$("$ROOT_SH" --norc --json "$SIM_URI" --eval "db.getSiblingDB(\"config\").changelog.aggregate([{\$match: {what: \"moveChunk.commit\", ns: \"$1\"}}, {\$group: {_id: null, docs: {\$sum: \"\$details.counts.cloned\"}, bytes: {\$sum: \"\$details.counts.clonedBytes\"}}}])" 2>&1)
   echo "$(json_field docs "$o") $(json_field bytes "$o")"
}

# --plan of a JavaScript loop: the literal script's plan, nothing written; the balancer then moves that much
if sim_start --version 7.0 --load app.ev:location:2000 --balancer-interval-ms 50 --log-commands "$TMPD/zones.log"; then
   printf 'sh.addShardToZone("shard02", "EU")\nsh.updateZoneKeyRange("app.ev", {ip: "056."}, {ip: "057."}, "EU")\nsh.addShardToZone("shard03", "US")\nsh.updateZoneKeyRange("app.ev", {ip: "017."}, {ip: "018."}, "US")\n' > "$TMPD/zones_lit.js"
   cat > "$TMPD/zones_js.js" << 'JS'
const zones = {EU: ["shard02", "056.", "057."], US: ["shard03", "017.", "018."]};
for (const [zone, [shard, lo, hi]] of Object.entries(zones)) {
  sh.addShardToZone(shard, zone);
  sh.updateZoneKeyRange("app.ev", {ip: lo}, {ip: hi}, zone);
}
JS
   lit=$("$ROOT_SH" --norc --plan --json "$SIM_URI" -f "$TMPD/zones_lit.js" 2>&1 | tail -1)
   js=$("$ROOT_SH" --norc --plan --json "$SIM_URI" -f "$TMPD/zones_js.js" 2>&1 | tail -1)
   no_write "js_plan/--plan sends no write" "$TMPD/zones.log"
   check_contains "js_plan/--plan --json ends with the plan line" '{ "plan" : { "moves" : [' "$js"
   check_eq "js_plan/--plan of the JavaScript loop is the literal script's plan" "$lit" "$js"
   text=$("$ROOT_SH" --norc --plan "$SIM_URI" -f "$TMPD/zones_js.js" 2>&1)
   check_contains "js_plan/--plan names each call at its line" \
      "$TMPD/zones_js.js:4 sh.updateZoneKeyRange('app.ev', { ip: '056.' }, { ip: '057.' }, 'EU')" "$text"
   pdocs=$(json_field docs "$js")
   pbytes=$(printf '%s\n' "$js" | sed -n 's/.*"docs" : [0-9]*, "bytes" : \([0-9]*\) } }$/\1/p')
   "$ROOT_SH" --norc "$SIM_URI" -f "$TMPD/zones_js.js" > /dev/null 2>&1
   i=0
   while [ $i -lt 150 ]; do
      got=$(moved app.ev)
      [ "${got%% *}" = "$pdocs" ] && break
      sleep 0.1
      i=$((i + 1))
   done
   check_eq "js_plan/the balancer moves what the plan of the JavaScript predicted ($pdocs docs, $pbytes bytes)" \
      "$pdocs $pbytes" "$got"
   sim_stop
else
   fail "js_plan/--plan" "shardsim did not start"
fi
