#!/bin/sh
# passes: plain
# The interactive dashboard driven through tmux (send-keys, capture-pane) against shardsim: the panels show the
# scenario's shards and chunk counts, ? opens the help, / filters, a resize re-lays out (and says when the terminal
# is too small), Space stops the sample clock, a shardsim restart shows STALE and then recovers, q quits.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

tui_require "dash_tui"
dash_require "dash_tui"

tui_server
TUI_PANE=dash
clock() { screen | sed -n 's/.*last sample \([0-9:]*\).*/\1/p' | head -1; }

if ! sim_start --scenario demo --version 7.0 --workload app.events:ascending:40; then
   fail "dash_tui/start" "shardsim did not start"
   exit 0
fi
PORT=$SIM_PORT
$TM new-session -d -s dash -x 120 -y 32 \
   "TERM=xterm-256color $SHARDSH --dashboard --interval 1 $SIM_URI 2> $TMPD/dash.err; echo \$? > $TMPD/dash.rc"

if wait_for "Shards (3)"; then pass "dash_tui/panels"; else fail "dash_tui/panels" "$(screen)"; fi
counts=$("$SHARDSH" --quiet --norc --json "$SIM_URI" --eval \
   'db.getSiblingDB("config").chunks.aggregate([{$group: {_id: "$shard", n: {$sum: 1}}}, {$sort: {_id: 1}}])')
for line in $(printf '%s\n' "$counts" | sed 's/.*"_id" : "\([^"]*\)", "n" : \([0-9]*\).*/\1=\2/'); do
   shard=${line%%=*}
   want=${line#*=}
   got=$(screen | grep "^$shard " | awk '{print $4}')
   check_eq "dash_tui/chunks_$shard" "$want" "$got"
done
check_contains "dash_tui/collections" "app.events" "$(screen)"
if wait_for "HOT shard" 60; then pass "dash_tui/hot_named"; else fail "dash_tui/hot_named" "$(screen)"; fi

$TM send-keys -t dash '?'
if wait_for "dashboard keys"; then pass "dash_tui/help_opens"; else fail "dash_tui/help_opens" "$(screen)"; fi
check_contains "dash_tui/help_from_table" "invert the sort order" "$(screen)"
$TM send-keys -t dash x
if wait_gone "dashboard keys"; then pass "dash_tui/help_closes"; else fail "dash_tui/help_closes" "$(screen)"; fi

$TM send-keys -t dash / a p p . u s e r s Enter
if wait_for "Collections (1 filtered)"; then pass "dash_tui/filter"; else fail "dash_tui/filter" "$(screen)"; fi
check_not_contains "dash_tui/filter_hides" "app.events " "$(screen | grep -v '^ *[0-9:]* *\(moved\|split\|moving\)')"
$TM send-keys -t dash Escape
if wait_for "Collections (6)"; then pass "dash_tui/filter_clears"; else fail "dash_tui/filter_clears" "$(screen)"; fi

check_contains "dash_tui/wide_has_zones" "ZONES" "$(screen)"
$TM resize-window -t dash -x 70 -y 22
sleep 0.6
# at 70 columns the low-priority columns go and the panel titles end at the new right edge
title=$(screen | grep 'Shards (3)' | LC_ALL=C sed 's/[\xc0-\xff][\x80-\xbf]*/?/g')
if ! screen | grep -q ZONES && [ "${#title}" -le 70 ] && [ "${#title}" -ge 66 ]; then
   pass "dash_tui/resize"
else
   fail "dash_tui/resize" "title [$title]: $(screen)"
fi
$TM resize-window -t dash -x 50 -y 12
if wait_for "terminal too small"; then pass "dash_tui/too_small"; else fail "dash_tui/too_small" "$(screen)"; fi
$TM resize-window -t dash -x 120 -y 32
if wait_for "Shards (3)"; then pass "dash_tui/resize_back"; else fail "dash_tui/resize_back" "$(screen)"; fi

$TM send-keys -t dash Space
wait_for "PAUSED" && pass "dash_tui/paused_shown" || fail "dash_tui/paused_shown" "$(screen)"
t1=$(clock)
sleep 2.5
t2=$(clock)
check_eq "dash_tui/pause_stops_clock" "$t1" "$t2"
$TM send-keys -t dash Down
sleep 0.3
check_contains "dash_tui/scroll_while_paused" "PAUSED" "$(screen)"
$TM send-keys -t dash Space
sleep 2.5
t3=$(clock)
if [ -n "$t3" ] && [ "$t3" != "$t2" ]; then pass "dash_tui/resume"; else fail "dash_tui/resume" "clock $t2 -> $t3"; fi

sim_stop
if wait_for "STALE" 60; then pass "dash_tui/stale"; else fail "dash_tui/stale" "$(screen)"; fi
check_contains "dash_tui/stale_keeps_numbers" "shard01" "$(screen)"
sim_start --scenario demo --version 7.0 --port "$PORT"
if [ "$SIM_PORT" = "$PORT" ] && wait_gone "STALE" 150; then
   pass "dash_tui/recovers"
else
   fail "dash_tui/recovers" "port $SIM_PORT (wanted $PORT): $(screen)"
fi

$TM send-keys -t dash q
i=0
while [ ! -s "$TMPD/dash.rc" ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
check_eq "dash_tui/quit" 0 "$(cat "$TMPD/dash.rc" 2>/dev/null)"
sim_stop
