#!/bin/sh
# passes: plain
# The dashboard's layout through tmux at 60x16, 80x24, 160x45 and 240x60 against shardsim with an ascending, a hashed
# and a zoned workload and a draining shard: the draining shard is never the row pushed off, events keep their
# source -> destination, the hot range is readable at 80 columns, namespaces and keys are whole before space is left
# empty, panels are sized to their content; the write sparklines share one scale shown in the heading; the chunk list
# filters by shard and sorts. ASCII glyphs (LC_ALL=C) so that columns can be cut by character offsets.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

tui_require "dash_layout"
dash_require "dash_layout"

tui_server
TUI_PANE=dash
# wait_clock_moves: waits until the sample clock changes (a new frame was drawn after the last key or resize)
clock() { screen | sed -n 's/.*last sample \([0-9:]*\).*/\1/p' | head -1; }
wait_clock_moves() {
   c0=$(clock)
   i=0
   while [ "$(clock)" = "$c0" ] && [ $i -lt 60 ]; do
      sleep 0.1
      i=$((i + 1))
   done
}
# col LINE FROM TO: the characters of LINE from the column heading FROM up to (not including) heading TO
col() {
   awk -v h="$(screen | grep -m1 "$2")" -v l="$1" -v a="$2" -v b="$3" \
      'BEGIN { s = index(h, a); e = index(h, b); print substr(l, s, e - s) }'
}

if ! sim_start --scenario demo --version 7.0 --workload app.events:ascending:40 --workload app.users:hashed:40 \
   --workload app.stores:random:10 --balancer-interval-ms 500 --migration-ms 5000; then
   fail "dash_layout/start" "shardsim did not start"
   exit 0
fi
"$SHARDSH" --quiet --norc "$SIM_URI" --eval 'db.adminCommand({removeShard: "shard03"})' > /dev/null 2>&1
$TM new-session -d -s dash -x 160 -y 45 \
   "LC_ALL=C TERM=xterm-256color $SHARDSH --dashboard --interval 0.5 $SIM_URI 2> $TMPD/dash.err"
wait_for "Shards (3)" || fail "dash_layout/start_dashboard" "$(screen)"
# a few samples, so the sparklines have history and the hot range has been judged
wait_for "^HOT shard01 >= { ts: " 100 || wait_for ">= { ts: " 50

# --- 160x45 ---
s=$(screen)
check_contains "dash_layout/160/namespace_whole" "config.system.sessions " "$s"
check_contains "dash_layout/160/key_whole" "{ customer: 1, ts: 1 }" "$s"
check_contains "dash_layout/160/drain_strip" "Draining (1)" "$s"
check_contains "dash_layout/160/drain_figures" "shard03: " "$s"
# the collections panel ends with its totals row, and the events panel follows at once
after=$(printf '%s\n' "$s" | awk '/^TOTAL/ { n++ } n == 2 { getline; print; exit }')
check_contains "dash_layout/160/panels_sized_to_content" " Events (" "$after"
# the events panel shows as many rows as it has room for: no blank row before the function bar while events remain
shown=$(printf '%s\n' "$s" | awk '/^ Events \(/ { on = 1; getline; next } on && /^\?Help/ { exit } on { print }')
total=$(printf '%s\n' "$s" | sed -n 's/^ Events (\([0-9]*\).*/\1/p')
rows=$(printf '%s\n' "$shown" | wc -l)
blank=$(printf '%s\n' "$shown" | grep -c '^ *$')
if [ "$total" -ge "$rows" ] && [ "$blank" -eq 0 ]; then
   pass "dash_layout/160/events_fill"
elif [ "$total" -lt "$rows" ] && [ "$((rows - blank))" -eq "$total" ]; then
   pass "dash_layout/160/events_fill"
else
   fail "dash_layout/160/events_fill" "$total events, $rows rows, $blank blank: $s"
fi
if printf '%s\n' "$s" | grep -q 'shard0[1-3] -> shard0[1-3] '; then
   pass "dash_layout/160/route_first"
else
   fail "dash_layout/160/route_first" "$s"
fi

# --- one scale for the column of write sparklines, shown in its heading ---
head=$(printf '%s\n' "$s" | grep -m1 '^SHARD ')
check_contains "dash_layout/spark_scale_shown" "WRITES <=" "$head"
full=0
partial=0
for sh in shard01 shard02 shard03; do
   sp=$(col "$(printf '%s\n' "$s" | grep -m1 "^$sh ")" "WRITES" "TREND")
   case "$sp" in
   *"#"*) full=$((full + 1)) ;;
   *[.:=+*-]*) partial=$((partial + 1)) ;;
   esac
done
# the hot shard (ascending and hashed writes) draws full height; the others, slower, draw lower on the same scale
if [ "$full" -ge 1 ] && [ "$partial" -ge 1 ]; then
   pass "dash_layout/spark_shared_scale"
else
   fail "dash_layout/spark_shared_scale" "$full rows at full height, $partial below: $s"
fi

# --- 240x60 ---
$TM resize-window -t dash -x 240 -y 60
wait_clock_moves
s=$(screen)
check_contains "dash_layout/240/key_whole" "{ customer: 1, ts: 1 }" "$s"
check_contains "dash_layout/240/hot_range" ">= { ts: " "$s"
width=$(printf '%s\n' "$s" | awk '{ if (length($0) > m) m = length($0) } END { print m }')
if [ "$width" -le 240 ]; then pass "dash_layout/240/fits"; else fail "dash_layout/240/fits" "a line of $width"; fi

# --- 80x24 ---
$TM resize-window -t dash -x 80 -y 24
wait_clock_moves
s=$(screen)
check_contains "dash_layout/80/hot_range_readable" ">= { ts: " "$s"
if printf '%s\n' "$s" | grep -q 'shard0[1-3] -> shard0[1-3] '; then
   pass "dash_layout/80/route_first"
else
   fail "dash_layout/80/route_first" "$s"
fi
# too narrow for the WHY column: the selected imbalanced collection's reason is in the panel's title row
imb=$(screen | awk '/^NAMESPACE/ { on = 1; next } on && /^TOTAL/ { exit } on && /IMB/ { print n + 0; exit } on { n++ }')
if [ -n "$imb" ]; then
   $TM send-keys -t dash g
   k=0
   while [ "$k" -lt "$imb" ]; do
      $TM send-keys -t dash j
      k=$((k + 1))
   done
   wait_clock_moves
   check_contains "dash_layout/80/imbalance_reason" "holds" "$(screen | grep 'Collections (')"
else
   skip "dash_layout/80/imbalance_reason" "no collection is imbalanced any more: $(screen)"
fi
s=$(screen)
if printf '%s\n' "$s" | grep -q '^shard03 .*DRAIN'; then
   pass "dash_layout/80/draining_shown"
else
   fail "dash_layout/80/draining_shown" "$s"
fi

# --- 60x16 ---
$TM resize-window -t dash -x 60 -y 16
wait_clock_moves
s=$(screen)
check_not_contains "dash_layout/60/not_too_small" "terminal too small" "$s"
if printf '%s\n' "$s" | grep -q '^shard03 .*DRAIN'; then
   pass "dash_layout/60/draining_kept"
else
   fail "dash_layout/60/draining_kept" "$s"
fi
check_contains "dash_layout/60/events_shown" " Events (" "$s"

# --- the chunk list: filter by shard, sort ---
$TM resize-window -t dash -x 160 -y 45
wait_clock_moves
$TM send-keys -t dash g Enter
if wait_for "Chunks of app.events"; then pass "dash_layout/chunks_open"; else fail "dash_layout/chunks_open" "$(screen)"; fi
$TM send-keys -t dash / s h a r d 0 2 Enter
wait_for "filtered, " 30
wait_clock_moves
s=$(screen)
rows=$(printf '%s\n' "$s" | grep -c '^chunk ')
others=$(printf '%s\n' "$s" | grep '^chunk ' | grep -vc ' shard02 ')
if [ "$rows" -ge 1 ] && [ "$others" -eq 0 ]; then
   pass "dash_layout/chunks_filter"
else
   fail "dash_layout/chunks_filter" "$rows rows, $others not on shard02: $s"
fi
check_contains "dash_layout/chunks_filter_title" "filtered" "$(printf '%s\n' "$s" | grep 'Chunks of')"
# clear the filter (Esc while typing one), then sort by shard, then by documents
$TM send-keys -t dash / Escape s
wait_for "sort: shard" 30 && pass "dash_layout/chunks_sort_shown" || fail "dash_layout/chunks_sort_shown" "$(screen)"
s=$(screen)
shards=$(printf '%s\n' "$s" | grep '^chunk ' | while IFS= read -r l; do col "$l" "SHARD" "DOCS" | awk '{print $1}'; done)
if [ -n "$shards" ] && [ "$shards" = "$(printf '%s\n' "$shards" | sort)" ] &&
   [ "$(printf '%s\n' "$shards" | sort -u | wc -l)" -ge 2 ]; then
   pass "dash_layout/chunks_sort_shard"
else
   fail "dash_layout/chunks_sort_shard" "[$shards]"
fi
$TM send-keys -t dash s
wait_for "sort: docs" 30
wait_clock_moves
s=$(screen)
docs=$(printf '%s\n' "$s" | grep '^chunk ' | while IFS= read -r l; do
   col "$l" "SHARD" "SIZE" | awk '{print $2}'
done | sed 's/k$/000/')
if [ -n "$docs" ] && [ "$docs" = "$(printf '%s\n' "$docs" | sort -n -r)" ] && ! printf '%s\n' "$docs" | grep -q '^-$'; then
   pass "dash_layout/chunks_sort_docs"
else
   fail "dash_layout/chunks_sort_docs" "[$docs]"
fi
check_contains "dash_layout/chunks_hot_mark" "^HOT" "$(printf '%s\n' "$s" | grep '^chunk .*MaxKey')"
$TM send-keys -t dash q
sim_stop
