#!/bin/sh
# Peer check of the JavaScript engine: the JavaScript script cases (tests/scripts/js_*.js) run through mongosh 2.12.0
# and through shardsh, each against its own fresh shardsim --scenario demo; what they print must be the same, and so
# must the exit status (0, or 1 for the script a server error stops).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh

ensure_mongosh js-peer || exit 0

for name in js_balancer_wait js_presplit_move js_reads js_server_error; do
   js="tests/scripts/$name.js"
   for who in shardsh mongosh; do
      if ! sim_start --scenario demo; then
         fail "js-peer/$name" "shardsim did not start"
         continue 2
      fi
      if [ "$who" = shardsh ]; then
         NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI" "$js" > "$TMPD/$name.$who.out" 2> "$TMPD/$name.$who.err" < /dev/null
      else
         "$MONGOSH" --norc --quiet "$SIM_URI/test" "$js" > "$TMPD/$name.$who.out" 2> "$TMPD/$name.$who.err" < /dev/null
      fi
      echo $? > "$TMPD/$name.$who.rc"
      sim_stop
   done
   if cmp -s "$TMPD/$name.shardsh.out" "$TMPD/$name.mongosh.out"; then
      pass "js-peer/$name prints what mongosh prints"
   else
      fail "js-peer/$name prints what mongosh prints" \
         "$(diff "$TMPD/$name.mongosh.out" "$TMPD/$name.shardsh.out" | head -20 | tr '\n' '|')"
   fi
   check_eq "js-peer/$name exits as mongosh does" "$(cat "$TMPD/$name.mongosh.rc")" "$(cat "$TMPD/$name.shardsh.rc")"
done
