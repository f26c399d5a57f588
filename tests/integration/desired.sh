#!/bin/sh
# passes: plain asan
# Sharding as code (issue 34, docs/desired-state.md) on shardsim 8.0 and 4.4, one shardsim per version: --export
# twice gives the same bytes; --diff of the export finds no drift (exit 0); a spec that adds a zone range, moves a
# range to another zone, sets the balancer window and disables balancing on one collection gives exactly those
# statements (exit 3; the balancer stopped around the range changes) with --plan's move estimate, and the same as data
# under --json; --diff sends no write; an invalid spec exits 2 at file:line:col before anything is sent to the
# cluster; --apply runs them, then --diff finds no drift and a second --apply sends no write (shardsim's command
# log); an --apply stopped half way by a failure, by a lost connection (the write whose reply was lost is "unknown")
# or by Ctrl-C (exit 130, with its summary) is finished by the next; a drain is left out unless the spec marks it and --allow-expensive is given.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export NO_COLOR=1

WRITES='"cmd": { "(balancerStop|balancerStart|addShardToZone|removeShardFromZone|updateZoneKeyRange|moveChunk|moveRange|removeShard|update|insert|delete|shardCollection|configureCollectionBalancing)"'

EXPECTED="// the balancer is stopped while zone ranges are replaced, and started again after
sh.stopBalancer()
sh.removeRangeFromZone('app.stores', { zipcode: '94102' }, { zipcode: '94188' })
sh.updateZoneKeyRange('app.stores', { zipcode: '30000' }, { zipcode: '30100' }, 'SFO')
sh.updateZoneKeyRange('app.stores', { zipcode: '94102' }, { zipcode: '94188' }, 'NYC')
sh.startBalancer()
sh.disableBalancing('app.events')
db.getSiblingDB('config').settings.updateOne({ _id: 'balancer' }, { \$set: { activeWindow: { start: '01:00', stop: '05:00' } } }, { upsert: true })"

cat > "$TMPD/bad.js" << 'JS'
{
  balancer: { activeWindow: { start: '01:00', stop: '5am' } }
}
JS

# drift_spec IN OUT: the export IN with the four changes made to it
drift_spec() {
   python3 - "$1" "$2" << 'PY'
import sys
s = open(sys.argv[1]).read()
s = s.replace("activeWindow: null", "activeWindow: { start: '01:00', stop: '05:00' }")
s = s.replace("{ zone: 'SFO', min: { zipcode: '94102' }", "{ zone: 'NYC', min: { zipcode: '94102' }")
s = s.replace("zones: [\n", "zones: [\n        { zone: 'SFO', min: { zipcode: '30000' }, max: { zipcode: '30100' } },\n", 1)
i = s.index("'app.events'")
j = s.index("balancing: true", i)
s = s[:j] + "balancing: false" + s[j + len("balancing: true"):]
open(sys.argv[2], "w").write(s)
PY
}

for v in 8.0 4.4; do
   log="$TMPD/desired.$v.log"
   # the first updateZoneKeyRange fails (InterruptedAtShutdown): the first --apply stops half way
   if ! sim_start --scenario demo --version "$v" --log-commands "$log" --fault-fail updateZoneKeyRange:11600:1; then
      fail "desired/$v" "shardsim did not start"
      continue
   fi
   "$SHARDSH" --norc --quiet --export "$SIM_URI" > "$TMPD/export.$v.js" 2> "$TMPD/err"
   check_eq "desired/$v --export exits 0" 0 "$?"
   check_contains "desired/$v --export holds the zone ranges" \
      "{ zone: 'NYC', min: { zipcode: '10001' }, max: { zipcode: '10281' } }" "$(cat "$TMPD/export.$v.js")"
   again=$("$SHARDSH" --norc --quiet --export "$SIM_URI" 2>&1)
   check_eq "desired/$v a second --export is byte-identical" "$(cat "$TMPD/export.$v.js")" "$again"

   out=$("$SHARDSH" --norc --quiet --diff "$TMPD/export.$v.js" "$SIM_URI" 2>&1)
   check_eq "desired/$v --diff of the export exits 0 (no drift)" 0 "$?"
   check_contains "desired/$v --diff of the export says so" "// no drift" "$out"

   drift_spec "$TMPD/export.$v.js" "$TMPD/drift.$v.js"
   out=$("$SHARDSH" --norc --quiet --diff "$TMPD/drift.$v.js" "$SIM_URI" 2>&1)
   check_eq "desired/$v --diff of a changed spec exits 3 (drift)" 3 "$?"
   stmts=$(printf '%s\n' "$out" | sed -n '2,/^$/p' | sed '/^$/d')
   check_eq "desired/$v --diff lists exactly the four changes, the balancer stopped around the ranges" "$EXPECTED" "$stmts"
   check_contains "desired/$v --diff estimates the move of the range that changes zone" \
      "move app.stores [{ zipcode: '94102' }, { zipcode: '94188' }) 22 docs" "$out"
   check_contains "desired/$v --diff gives the plan's total" "total: 2 chunks, 22 docs" "$out"

   json=$("$SHARDSH" --norc --quiet --json --diff "$TMPD/drift.$v.js" "$SIM_URI" 2>&1)
   check_eq "desired/$v --diff --json exits 3" 3 "$?"
   check_contains "desired/$v --diff --json: drift as data" '{ "drift" : true, "changes" : [ { "statement" : "sh.stopBalancer()"' "$json"
   check_contains "desired/$v --diff --json: the plan's moves" '"chunks" : 2, "docs" : 22' "$json"
   if grep -E -q "$WRITES" "$log"; then
      fail "desired/$v --export and --diff send no write" "$(grep -E -o "$WRITES" "$log" | head -3 | tr '\n' ' ')"
   else
      pass "desired/$v --export and --diff send no write"
   fi

   before=$(wc -l < "$log")
   out=$("$SHARDSH" --norc --quiet --diff "$TMPD/bad.js" "$SIM_URI" 2>&1)
   check_eq "desired/$v an invalid spec exits 2" 2 "$?"
   check_contains "desired/$v an invalid spec is refused at file:line:col" \
      "bad.js:2:53: error: balancer.activeWindow.stop: expected a time \"HH:MM\" (00:00 to 23:59), got 5am" "$out"
   check_eq "desired/$v an invalid spec sends nothing" "$before" "$(wc -l < "$log")"
   # a NUL byte inside the spec is refused where it is (the reader keeps every byte; it used to cut the file there)
   { head -c 200 "$TMPD/export.$v.js"; printf '\000'; tail -c +201 "$TMPD/export.$v.js"; } > "$TMPD/nul.$v.js"
   out=$("$SHARDSH" --norc --quiet --diff "$TMPD/nul.$v.js" "$SIM_URI" 2>&1)
   check_eq "desired/$v a spec holding a NUL byte exits 2" 2 "$?"
   check_contains "desired/$v a spec's NUL byte is refused at file:line:col" "nul.$v.js:" "$out"
   check_contains "desired/$v a spec's NUL byte is named" "unexpected NUL byte" "$out"

   out=$("$SHARDSH" --norc --apply "$TMPD/drift.$v.js" "$SIM_URI" 2>&1)
   check_eq "desired/$v an --apply interrupted by a failure exits 1" 1 "$?"
   check_contains "desired/$v the interrupted --apply says the balancer was left stopped" "balancer" \
      "$(printf '%s\n' "$out" | sed -n '/updateZoneKeyRange/,$p' | grep -i 'stopped')"
   out=$("$SHARDSH" --norc --apply "$TMPD/drift.$v.js" "$SIM_URI" 2>&1)
   check_eq "desired/$v the next --apply finishes the job (exit 0)" 0 "$?"
   check_contains "desired/$v the next --apply restarts the balancer" "ok sh.startBalancer()" "$out"
   check_contains "desired/$v --apply runs the statements as a script" "ok sh.disableBalancing('app.events')" "$out"
   out=$("$SHARDSH" --norc --quiet --diff "$TMPD/drift.$v.js" "$SIM_URI" 2>&1)
   check_eq "desired/$v --diff after --apply finds no drift" 0 "$?"
   writes=$(grep -E -c "$WRITES" "$log")
   out=$("$SHARDSH" --norc --apply "$TMPD/drift.$v.js" "$SIM_URI" 2>&1)
   check_eq "desired/$v a second --apply exits 0" 0 "$?"
   check_eq "desired/$v a second --apply sends no write" "$writes" "$(grep -E -c "$WRITES" "$log")"

   # an --apply cut by a lost connection: the write whose reply never came is "unknown", the next --apply finishes
   "$SHARDSH" --norc --apply "$TMPD/export.$v.js" "$SIM_URI" > /dev/null 2>&1
   check_eq "desired/$v --apply of the export puts the cluster back" 0 "$?"
   "$SHARDSH" --norc "$SIM_URI" --eval 'db.adminCommand({simFault: "closeOn", command: "updateZoneKeyRange"})' \
      > /dev/null 2>&1
   out=$("$SHARDSH" --norc --apply "$TMPD/drift.$v.js" "$SIM_URI" 2>&1)
   check_eq "desired/$v an --apply cut by a lost connection exits 1" 1 "$?"
   check_contains "desired/$v the cut --apply: its summary, the lost write unknown" \
      "summary: ran <apply>:2; failed nothing; unknown — check the cluster: <apply>:3; did not run: <apply>:4," "$out"
   "$SHARDSH" --norc --apply "$TMPD/drift.$v.js" "$SIM_URI" > /dev/null 2>&1
   check_eq "desired/$v the --apply after a lost connection finishes the job" 0 "$?"
   "$SHARDSH" --norc --diff "$TMPD/drift.$v.js" "$SIM_URI" > /dev/null 2>&1
   check_eq "desired/$v ... and --diff then finds no drift" 0 "$?"

   # Ctrl-C mid-apply (8.0 only: the cost is the same on both): every reply slowed by 300 ms, SIGINT sent once the
   # balancerStop reached shardsim; the run ends after its reply, with the summary, exit 130
   if [ "$v" = 8.0 ]; then
      "$SHARDSH" --norc --apply "$TMPD/export.$v.js" "$SIM_URI" > /dev/null 2>&1
      "$SHARDSH" --norc "$SIM_URI" --eval 'db.adminCommand({simFault: "delay", ms: 300})' > /dev/null 2>&1
      n0=$(wc -l < "$log")
      "$SHARDSH" --norc --apply "$TMPD/drift.$v.js" "$SIM_URI" > "$TMPD/int.out" 2> "$TMPD/int.err" &
      pid=$!
      i=0
      while [ $i -lt 500 ] && ! tail -n +$((n0 + 1)) "$log" | grep -q '"balancerStop"'; do
         sleep 0.02
         i=$((i + 1))
      done
      kill -INT $pid
      wait $pid
      check_eq "desired/$v an --apply stopped by Ctrl-C exits 130" 130 "$?"
      "$SHARDSH" --norc "$SIM_URI" --eval 'db.adminCommand({simFault: "clear"})' > /dev/null 2>&1
      check_contains "desired/$v the Ctrl-C'd --apply says so" "shardsh: stopped by SIGINT at a statement boundary" \
         "$(cat "$TMPD/int.err")"
      check_contains "desired/$v the Ctrl-C'd --apply leaves a summary" \
         "summary: ran <apply>:2; failed nothing; did not run: <apply>:3, <apply>:4," "$(cat "$TMPD/int.err")"
      check_contains "desired/$v the Ctrl-C'd --apply warns the balancer is stopped" "WARNING: the balancer is stopped" \
         "$(cat "$TMPD/int.err")"
      out=$("$SHARDSH" --norc --apply "$TMPD/drift.$v.js" "$SIM_URI" 2>&1)
      check_eq "desired/$v the --apply after Ctrl-C finishes the job" 0 "$?"
      check_contains "desired/$v ... restarting the balancer" "ok sh.startBalancer()" "$out"
      "$SHARDSH" --norc --diff "$TMPD/drift.$v.js" "$SIM_URI" > /dev/null 2>&1
      check_eq "desired/$v ... and --diff then finds no drift" 0 "$?"
   fi

   sed 's/shard03: { zones: \[\], draining: false }/shard03: { zones: [], draining: true }/' "$TMPD/drift.$v.js" \
      > "$TMPD/drain.$v.js"
   out=$("$SHARDSH" --norc --apply "$TMPD/drain.$v.js" "$SIM_URI" --allow-expensive 2>&1)
   check_eq "desired/$v --apply of an unmarked drain exits 3 (drift left)" 3 "$?"
   check_contains "desired/$v --apply says why the drain is left out" \
      "left out: it needs allowDrain: true in the spec and --allow-expensive" "$out"
   sed 's/draining: true }/draining: true, allowDrain: true }/' "$TMPD/drain.$v.js" > "$TMPD/drain2.$v.js"
   out=$("$SHARDSH" --norc --apply "$TMPD/drain2.$v.js" "$SIM_URI" 2>&1)
   check_eq "desired/$v --apply of a marked drain without --allow-expensive exits 3" 3 "$?"
   check_eq "desired/$v a drain left out sends no removeShard" 0 "$(grep -c '"removeShard"' "$log")"
   out=$("$SHARDSH" --norc --quiet --diff "$TMPD/drain2.$v.js" "$SIM_URI" 2>&1)
   check_contains "desired/$v --diff shows the drain marked, with its cost" \
      "// EXPENSIVE: draining shard03 moves its" "$out"
   check_contains "desired/$v --diff plans the drain" "shard shard03 drains:" "$out"
   sim_stop
done
