#!/bin/sh
# passes: plain
# The dashboard right at 80x24 and 200x50 through a drain and a resharding (issue 36), against one shardsim 8.0: the
# header never cuts a word, the Operations line keeps its rate and time left, the shards drop the sparkline before a
# figure, the chunk list keeps documents and size, ? fits (it scrolls), the focus is marked in text (also with
# --no-color), the events say when failures are pinned and Enter opens an event's details, / filters the TOTAL rows,
# and after the resharding the chunk map's replay and legend show only the new key's ranges and the shards left.
# ASCII glyphs (LC_ALL=C): the focus marker is ">", the ellipsis "~".
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

tui_require "dash_fit"
dash_require "dash_fit"
TUI_PANE=dash

if ! sim_start --scenario demo --version 8.0 --workload app.events:ascending:40 --workload app.users:hashed:40 \
   --balancer-interval-ms 300 --migration-ms 800 --reshard-ms 24000; then
   fail "dash_fit/start" "shardsim did not start"
   exit 0
fi
# a resharding of app.users (in the background: 24 s, so its copy, whose rate and time left the Operations line shows,
# outlasts both sizes' live checks on a loaded machine; commitReshardCollection ends it once they are done) and shard03
# draining
NO_COLOR=1 "$SHARDSH" --norc --quiet --yes "$SIM_URI" --eval 'sh.reshardCollection("app.users", {region: 1})' \
   > "$TMPD/reshard.out" 2>&1 &
RESHARD_PID=$!
"$SHARDSH" --quiet --norc "$SIM_URI" --eval 'db.adminCommand({removeShard: "shard03"})' > /dev/null 2>&1

# quit_dash: q, and waits for the dashboard to leave (under ASan its leak check runs then, into the .err file)
quit_dash() {
   [ -n "${TM:-}" ] || return 0
   $TM send-keys -t dash q 2> /dev/null
   i=0
   while $TM has-session -t dash 2> /dev/null && [ $i -lt 50 ]; do
      sleep 0.1
      i=$((i + 1))
   done
   $TM kill-server 2> /dev/null
}
# dash NAME COLS LINES [OPTIONS]: a dashboard session in its own tmux server
dash() {
   quit_dash
   tui_server
   $TM new-session -d -s dash -x "$2" -y "$3" \
      "LC_ALL=C TERM=xterm-256color $SHARDSH --dashboard --interval 0.5 $4 $SIM_URI 2> $TMPD/dash.$1.err"
   wait_for "Shards (" || fail "dash_fit/$1/start" "$(screen)"
}
clock() { screen | sed -n 's/.*last sample \([0-9:]*\).*/\1/p' | head -1; }
# frame: waits for the next sample to be drawn (after a key or a resize)
frame() {
   c0=$(clock)
   i=0
   while [ "$(clock)" = "$c0" ] && [ $i -lt 30 ]; do
      sleep 0.1
      i=$((i + 1))
   done
}
# wait_re REGEX [TENTHS]: waits until a line of the screen matches the extended regex
wait_re() {
   i=0
   while [ $i -lt "${2:-80}" ]; do
      screen | grep -Eq -- "$1" && return 0
      sleep 0.1
      i=$((i + 1))
   done
   return 1
}
# chunks_of LINE HEADING: the CHUNKS column of LINE, in the panel whose headings start with HEADING
chunks_of() {
   awk -v h="$(screen | grep -m1 "^$2 ")" -v l="$1" 'BEGIN { s = index(h, "CHUNKS"); print substr(l, s, 6) + 0 }'
}
# events_in_order: the events panel's times never rise down the list, or its title says failures are pinned
events_in_order() {
   s=$(screen)
   printf '%s\n' "$s" | grep -q '^.Events (.*pinned' && return 0
   t=$(printf '%s\n' "$s" | awk '/^.Events \(/ { on = 1; getline; next } on && /^[0-9][0-9]:/ { print $1 }')
   [ -n "$t" ] && [ "$t" = "$(printf '%s\n' "$t" | sort -r)" ]
}

# checks SIZE: what must hold at both sizes
checks() {
   T="dash_fit/$1"
   # the header's first line ends with its last part whole: no word cut at the edge ("window alway")
   if screen | head -1 | grep -Eq 'migrating [0-9?]+ *$'; then
      pass "$T/header_whole"
   else
      fail "$T/header_whole" "[$(screen | head -1)]"
   fi
   # the resharding's Operations line keeps its rate and time left
   if wait_re 'reshardCollection app\.users.* [0-9.]+ [KMG]?B/s [0-9hms]+ left' 100; then
      pass "$T/ops_rate_eta"
   else
      fail "$T/ops_rate_eta" "$(screen | grep -m1 reshardCollection)"
   fi
   # the focus is marked in text, and moves with Tab
   check_contains "$T/focus_marked" ">Collections (" "$(screen)"
   $TM send-keys -t dash Tab
   wait_for ">Events (" 20
   s=$(screen)
   if printf '%s\n' "$s" | grep -q '^>Events (' && ! printf '%s\n' "$s" | grep -q '^>Collections ('; then
      pass "$T/focus_moves"
   else
      fail "$T/focus_moves" "$s"
   fi
   # failures pinned above newer events are said to be, or the list keeps time order
   if events_in_order; then pass "$T/events_order"; else fail "$T/events_order" "$(screen)"; fi
   # Enter on a migration event: its whole changelog entry, the chunk's owner now
   $TM send-keys -t dash / 's' 'h' 'a' 'r' 'd' '0' '3' ' ' '-' '>' Enter g Enter
   if wait_for "config.changelog entry:" 30; then pass "$T/event_details"; else fail "$T/event_details" "$(screen)"; fi
   s=$(screen)
   check_contains "$T/event_details_doc" "what: 'moveChunk." "$s"
   check_contains "$T/event_details_owner" "owner now: shard0" "$s"
   $TM send-keys -t dash Escape Escape Tab Tab
   wait_gone "config.changelog entry:" 20
   # / filters the TOTAL rows too: the totals of the rows shown (the shards' at both sizes; the collections' where
   # the panel has room for its TOTAL row)
   $TM send-keys -t dash / s h a r d 0 1 Enter
   wait_for "Shards (1 filtered)" 30
   frame
   s=$(screen)
   row=$(printf '%s
' "$s" | grep -m1 '^shard01 ')
   tot=$(printf '%s
' "$s" | grep -m1 '^TOTAL')
   if [ -n "$row" ] && [ "$(chunks_of "$row" SHARD)" = "$(chunks_of "$tot" SHARD)" ] &&
      printf '%s
' "$tot" | grep -q '^TOTAL (shown) '; then
      pass "$T/filter_total_shards"
   else
      fail "$T/filter_total_shards" "row [$row] total [$tot]: $s"
   fi
   $TM send-keys -t dash Escape / a p p . e v e n t s Enter
   wait_for "Collections (1 filtered)" 30
   frame
   s=$(screen)
   if [ "$1" = 200 ]; then
      row=$(printf '%s
' "$s" | grep -m1 '^app\.events ')
      tot=$(printf '%s
' "$s" | awk '/^NAMESPACE/ { on = 1 } on && /^TOTAL/ { print; exit }')
      if [ -n "$row" ] && [ "$(chunks_of "$row" NAMESPACE)" = "$(chunks_of "$tot" NAMESPACE)" ] &&
         printf '%s
' "$tot" | grep -q '^TOTAL (shown) '; then
         pass "$T/filter_total"
      else
         fail "$T/filter_total" "row [$row] total [$tot]: $s"
      fi
   fi
   # the chunk list keeps documents and size
   $TM send-keys -t dash g Enter
   wait_for "Chunks of app.events" 30
   head=$(screen | grep -m1 ' MIN ')
   check_contains "$T/chunks_docs" "DOCS" "$head"
   check_contains "$T/chunks_size" "SIZE" "$head"
   $TM send-keys -t dash Escape Escape
   wait_for "Collections (" 20
   # ? fits: every key and panel on one of its pages, never "enlarge the terminal"
   $TM send-keys -t dash '?'
   wait_for "dashboard keys" 20
   s=$(screen)
   $TM send-keys -t dash G
   sleep 0.3
   s="$s
$(screen)"
   check_not_contains "$T/help_fits" "enlarge the terminal" "$s"
   check_contains "$T/help_first_key" "show or hide this help" "$s"
   check_contains "$T/help_last_panel" "Chunk map (m)" "$s"
   $TM send-keys -t dash x
   wait_gone "dashboard keys" 20
}

# --- 80x24 ---
dash 80 80 24
checks 80
# narrow: the shards keep their documents and drop the sparkline
head=$(screen | grep -m1 '^SHARD ')
if printf '%s\n' "$head" | grep -q 'DOCS' && ! printf '%s\n' "$head" | grep -q 'WRITES'; then
   pass "dash_fit/80/spark_before_figure"
else
   fail "dash_fit/80/spark_before_figure" "[$head]"
fi

# --- 200x50 ---
$TM resize-window -t dash -x 200 -y 50
frame
s=$(screen)
# one chunk's "moved" is above its own "moving" of the same second (the rest is true time order, checked above)
bad=$(printf '%s\n' "$s" | awk '/^.Events \(/ { on = 1; next } on && / moving / { k = $1 substr($0, 23); m[k] = 1 }
   on && / moved / { k = $1 substr($0, 23); if (k in m) print }')
check_eq "dash_fit/200/moved_above_moving" "" "$bad"
check_contains "dash_fit/200/header_window" "window always" "$(printf '%s\n' "$s" | head -1)"
check_contains "dash_fit/200/header_rounds" "rounds " "$(printf '%s\n' "$s" | head -1)"
head=$(printf '%s\n' "$s" | grep -m1 '^SHARD ')
check_contains "dash_fit/200/shards_docs" "DOCS" "$head"
check_contains "dash_fit/200/shards_spark" "WRITES" "$head"
checks 200
# wide: the help needs no scrolling
$TM send-keys -t dash '?'
wait_for "dashboard keys" 20
check_contains "dash_fit/200/help_one_page" "(any key closes)" "$(screen)"
$TM send-keys -t dash x

# --- --no-color: the focus still shows ---
dash nocolor 80 24 --no-color
check_contains "dash_fit/nocolor/focus_marked" ">Collections (" "$(screen)"
$TM send-keys -t dash Tab
if wait_for ">Events (" 20 && ! screen | grep -q '^>Collections ('; then
   pass "dash_fit/nocolor/focus_moves"
else
   fail "dash_fit/nocolor/focus_moves" "$(screen)"
fi

# --- after the resharding and the drain: the chunk map of app.users ---
"$SHARDSH" --quiet --norc --yes "$SIM_URI" --eval 'db.adminCommand({commitReshardCollection: "app.users"})' \
   > /dev/null 2>&1
wait "$RESHARD_PID"
i=0
while [ $i -lt 100 ]; do
   out=$("$SHARDSH" --quiet --norc --json "$SIM_URI" --eval 'db.adminCommand({removeShard: "shard03"})' 2>&1)
   case "$out" in *completed*) break ;; esac
   sleep 0.2
   i=$((i + 1))
done
check_contains "dash_fit/map/shard_removed" "completed" "$out"
for size in 80x24 200x50; do
   T="dash_fit/map/$size"
   dash "map$size" "${size%x*}" "${size#*x}"
   $TM send-keys -t dash / a p p . u s e r s Enter
   wait_for "Collections (1 filtered)" 30
   $TM send-keys -t dash g Enter
   wait_for "Chunks of app.users" 30
   $TM send-keys -t dash m
   if ! wait_for "shard01 (" 30; then
      fail "$T/open" "$(screen)"
      continue
   fi
   s=$(screen)
   check_not_contains "$T/legend_no_removed_shard" "shard03 (" "$s"
   # stepping back through the replay never draws the old key's ranges ({ uid: ... }) on the new key's map
   seen=""
   for k in 1 2 3 4 5 6; do
      $TM send-keys -t dash '['
      sleep 0.15
      seen="$seen
$(screen)"
   done
   check_not_contains "$T/replay_no_old_key" "{ uid:" "$seen"
   check_contains "$T/new_key" "region" "$s"
done
quit_dash

# --- events at the same millisecond: the order they were written in (their _ids' ObjectIds, one process), one
# chunk's ending above its own start: the migration of { x: 0 } starts (a6) and ends (a8), then { x: 10 } starts (aa)
ins=""
for e in 'a6 moveChunk.start 0 10' 'a8 moveChunk.from 0 10' 'aa moveChunk.start 10 20'; do
   set -- $e
   ins="$ins db.getSiblingDB('config').changelog.insertOne({_id: 'h:1-2030-01-01T00:00:00.000+00:00-6b0b08afed52f614920884$1',
      time: ISODate('2030-01-01T00:00:00Z'), what: '$2', ns: 'app.x',
      details: {min: {x: $3}, max: {x: $4}, from: 'shard01', to: 'shard02', note: 'success'}});"
done
"$SHARDSH" --quiet --norc "$SIM_URI" --eval "$ins" > /dev/null 2>&1
got=$("$SHARDSH" --quiet --norc --json --dashboard --once "$SIM_URI" 2> /dev/null |
   jq -c '[.events[] | select(.ns == "app.x") | .what + " " + .text]')
check_eq "dash_fit/events_same_ms_sequence" \
   '["moveChunk.start shard01 -> shard02 { x: 10 } -> { x: 20 }","moveChunk.from shard01 -> shard02 { x: 0 } -> { x: 10 }","moveChunk.start shard01 -> shard02 { x: 0 } -> { x: 10 }"]' \
   "$got"
# nothing on stderr (no sanitizer report, no warning) from any session
check_eq "dash_fit/stderr_clean" "" "$(cat "$TMPD"/dash.*.err 2> /dev/null | grep -v '^$')"
sim_stop
