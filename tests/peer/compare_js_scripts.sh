#!/bin/sh
# passes: plain
# Peer check of the JavaScript engine: the JavaScript script cases (the js part of tests/scripts/js_*.case) run through mongosh 2.12.0
# and through shardsh, each against its own fresh shardsim --scenario demo; what they print must be the same, and so
# must the exit status (0, or 1 for the script a server error stops); one mongosh runs every script. Then --eval
# expressions: the value printed (a mongosh per expression: only --eval prints a value as --eval does).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh
. tests/peer/lib.sh

ensure_mongosh js-peer || exit 0

NAMES="js_balancer_wait js_presplit_move js_reads js_server_error js_cursor_stream"
mkdir -p "$TMPD/cases"
# a fresh shardsim per case and client (the case's .sim options): mongosh's all held at once, ports in NAME.msport
for name in $NAMES; do
   case_split "tests/scripts/$name.case" "$TMPD/cases"
   # shellcheck disable=SC2046
   if ! sim_start $(cat "$TMPD/cases/$name.sim" 2>/dev/null || echo --scenario demo); then
      fail "js-peer/$name" "shardsim did not start"
      continue
   fi
   sim_keep
   echo "$SIM_PORT" > "$TMPD/$name.msport"
done
# one mongosh runs every case's script in turn (starting mongosh costs ~1.5 s of CPU): `db = connect()` to the
# case's own shardsim, then load(); a script an uncaught error stops exits 1, as `mongosh URI script.js` does
# (which prints the error on stderr, not compared)
: > "$TMPD/driver.js"
first=""
for name in $NAMES; do
   [ -s "$TMPD/$name.msport" ] || continue
   port=$(cat "$TMPD/$name.msport")
   [ -n "$first" ] || first="mongodb://127.0.0.1:$port/test"
   cat >> "$TMPD/driver.js" <<JS
print("@@js-peer $name");
db = connect("mongodb://127.0.0.1:$port/test");
db.getMongo()._instanceState.warningsShown.clear();
try { load("$TMPD/cases/$name.js"); print("@@rc 0"); } catch (e) { print("@@rc 1"); }
JS
done
# mongosh in the background while shardsh runs the scripts and the --eval expressions below (the clients never share
# a shardsim but for the read-only expressions)
mpid=""
if [ -n "$first" ]; then
   "$MONGOSH" --norc --quiet "$first" "$TMPD/driver.js" > "$TMPD/driver.out" 2> "$TMPD/driver.err" < /dev/null &
   mpid=$!
fi
for name in $NAMES; do
   [ -s "$TMPD/$name.msport" ] || continue
   # shellcheck disable=SC2046
   if ! sim_start $(cat "$TMPD/cases/$name.sim" 2>/dev/null || echo --scenario demo); then
      fail "js-peer/$name" "shardsim did not start"
      rm -f "$TMPD/$name.msport"
      continue
   fi
   NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI" "$TMPD/cases/$name.js" \
      > "$TMPD/$name.shardsh.out" 2> "$TMPD/$name.shardsh.err" < /dev/null
   echo $? > "$TMPD/$name.shardsh.rc"
   sim_stop
done

# --eval: the value of the last expression, printed as mongosh prints it (no depth limit, cursors by batches of 20);
# a mongosh per expression (only --eval prints a value as --eval does), three at a time, in the background
EVAL_OK=""
if sim_start --scenario demo; then
   EVAL_OK=1
   n=0
   epids=""
   while IFS= read -r expr; do
      [ -n "$expr" ] || continue
      n=$((n + 1))
      printf '%s\n' "$expr" > "$TMPD/eval$n.expr"
      NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI" --eval "$expr" > "$TMPD/eval$n.shardsh" 2>&1 < /dev/null
      "$MONGOSH" --norc --quiet "$SIM_URI/test" --eval "$expr" > "$TMPD/eval$n.mongosh" 2>&1 < /dev/null &
      epids="$epids $!"
      if [ $((n % 3)) -eq 0 ]; then
         for p in $epids; do wait "$p"; done
         epids=""
      fi
   done <<'JS'
({a: NumberLong("5"), d: new Date(0), o: ObjectId("5f0000000000000000000001"), n: [1, 2.5, "x", null, true], t: Timestamp({t: 1, i: 2}), u: UUID("01234567-89ab-cdef-0123-456789abcdef"), m: MinKey(), dec: NumberDecimal("1.5"), re: /a+/i, nested: {a: {b: {c: {d: {e: {f: {g: 1}}}}}}}})
db.getSiblingDB("config").shards.find().toArray().map(s => s._id)
[...Array(150).keys()]
const c = db.getSiblingDB("config").chunks.find().sort({_id: 1}).batchSize(3); c
db.getSiblingDB("config").chunks.find({}, {_id: 0, shard: 1}).sort({_id: 1})
db.getSiblingDB("config").chunks.find({nothing: 1})
db.getSiblingDB("config").chunks.aggregate([{$sort: {_id: 1}}, {$project: {_id: 0, min: 1}}]).batchSize(2)
const r = db.adminCommand({balancerStatus: 1}); [r.mode, r.inBalancerRound, typeof r.numBalancerRounds]
!sh.getBalancerState() && !sh.isBalancerRunning().inBalancerRound
var x = 5
JSON.stringify(db.getSiblingDB("config").shards.findOne({_id: "shard01"})._id)
JS
   for p in $epids; do wait "$p"; done
   NEVAL=$n
   sim_stop
fi

if [ -n "$mpid" ]; then
   wait "$mpid"
   awk -v dir="$TMPD" '/^@@js-peer / { n = $2; f = dir "/" n ".mongosh.out"; printf "" > f; next }
      /^@@rc / { print $2 > (dir "/" n ".mongosh.rc"); close(f); f = ""; next } f { print > f }' "$TMPD/driver.out"
fi
sims_stop
for name in $NAMES; do
   [ -s "$TMPD/$name.msport" ] || continue
   if cmp -s "$TMPD/$name.shardsh.out" "$TMPD/$name.mongosh.out"; then
      pass "js-peer/$name prints what mongosh prints"
   else
      fail "js-peer/$name prints what mongosh prints" \
         "$(diff "$TMPD/$name.mongosh.out" "$TMPD/$name.shardsh.out" | head -20 | tr '\n' '|')"
   fi
   check_eq "js-peer/$name exits as mongosh does" "$(cat "$TMPD/$name.mongosh.rc" 2> /dev/null)" \
      "$(cat "$TMPD/$name.shardsh.rc")"
done

if [ -n "$EVAL_OK" ]; then
   n=0
   while [ "$n" -lt "$NEVAL" ]; do
      n=$((n + 1))
      if cmp -s "$TMPD/eval$n.shardsh" "$TMPD/eval$n.mongosh"; then
         pass "js-peer/--eval value $n prints what mongosh prints"
      else
         fail "js-peer/--eval value $n prints what mongosh prints" \
            "$(cat "$TMPD/eval$n.expr"): $(diff "$TMPD/eval$n.mongosh" "$TMPD/eval$n.shardsh" | head -10 | tr '\n' '|')"
      fi
   done
else
   fail "js-peer/--eval" "shardsim did not start"
fi
