#!/bin/sh
# passes: plain
# The dashboard's Operations strip (issue 21) through tmux at 80x24 and 160x45, against shardsim 8.0 running a timed
# reshardCollection and draining shard03: the strip lists both as sh.progress() does (type, namespace or shard, phase,
# percent) and the resharding's percent rises between two samples; the --once text and JSON carry the same list.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

tui_require "dash_ops"
dash_require "dash_ops"
TUI_PANE=dash TUI_TENTHS=100

# start: a fresh shardsim whose reshardCollection of app.big runs 40 s (in the background), and shard03 draining
start() {
   sim_stop
   sim_start --version 8.0 --reshard-ms 40000 --chunk-size-kb 64 --load app.big:ascending:3000 \
      --migration-ms 3000 --balancer-interval-ms 500 || return 1
   NO_COLOR=1 "$SHARDSH" --norc --quiet --yes "$SIM_URI" --eval 'sh.reshardCollection("app.big", {absent: 1})' \
      > /dev/null 2>&1 &
   NO_COLOR=1 "$SHARDSH" --norc --quiet --yes "$SIM_URI" --eval 'db.adminCommand({removeShard: "shard03"})' \
      > /dev/null 2>&1
}

# the resharding's percent on screen, or "" when the line is not there
pct() { screen | sed -n 's/.*reshardCollection app\.big[^%]* \([0-9][0-9]*\)%.*/\1/p' | head -1; }

for size in 80x24 160x45; do
   cols=${size%x*} lines=${size#*x}
   T="dash_ops/$size"
   if ! start; then
      fail "$T/start" "shardsim did not start"
      continue
   fi
   [ -n "${TM:-}" ] && $TM kill-server 2> /dev/null
   tui_server
   $TM new-session -d -s dash -x "$cols" -y "$lines" \
      "LC_ALL=C TERM=xterm-256color $SHARDSH --dashboard --interval 1 $SIM_URI 2> $TMPD/dash.err"
   if ! wait_for "Operations (" 150; then
      fail "$T/strip_shown" "$(screen)"
      continue
   fi
   pass "$T/strip_shown"
   wait_for "reshardCollection app.big" 100 || fail "$T/resharding_listed" "$(screen)"
   s=$(screen)
   check_contains "$T/resharding_listed" "reshardCollection app.big" "$s"
   check_contains "$T/drain_listed" "drain shard03" "$s"
   i=0
   while [ -z "$(pct)" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
   p1=$(pct)
   # two samples later the resharding has copied more
   i=0
   while [ $i -lt 100 ]; do
      p2=$(pct)
      [ -n "$p1" ] && [ -n "$p2" ] && [ "$p2" -gt "$p1" ] && break
      sleep 0.1
      i=$((i + 1))
   done
   if [ -n "$p1" ] && [ -n "$p2" ] && [ "$p2" -gt "$p1" ]; then
      pass "$T/percent_rises"
   else
      fail "$T/percent_rises" "first [$p1] then [$p2]: $(screen | grep -m1 reshardCollection)"
   fi
   # the shards and collections panels are still there
   s=$(screen)
   check_contains "$T/shards_panel" "Shards (3)" "$s"
   check_contains "$T/collections_panel" "Collections (" "$s"
   $TM send-keys -t dash q
done

# batch: the same operations in --once text and JSON
if start; then
   sleep 1
   out=$(NO_COLOR=1 "$SHARDSH" --norc --quiet --dashboard --once "$SIM_URI" 2>&1)
   check_contains "dash_ops/once_text_heading" "operations:" "$out"
   check_contains "dash_ops/once_text_resharding" "reshardCollection app.big" "$out"
   json=$(NO_COLOR=1 "$SHARDSH" --norc --quiet --dashboard --once --json "$SIM_URI" 2>&1)
   check_eq "dash_ops/once_json_types" '["drain","reshardCollection"]' \
      "$(echo "$json" | jq -c '[.operations[].type] | map(select(. == "reshardCollection" or . == "drain")) | unique')"
   check_eq "dash_ops/once_json_fields" '["bytesPerSec","caveat","etaSec","fix","ns","percent","phase","shard","stuck","type"]' \
      "$(echo "$json" | jq -c '.operations[0] | keys')"
   check_eq "dash_ops/once_json_total" "$(echo "$json" | jq '.operations | length')" "$(echo "$json" | jq '.operationsTotal')"
else
   fail "dash_ops/once_start" "shardsim did not start"
fi
check_eq "dash_ops/stderr_clean" "" "$(cat "$TMPD/dash.err" 2> /dev/null)"
