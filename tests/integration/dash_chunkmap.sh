#!/bin/sh
# passes: plain
# The dashboard's chunk map through tmux at 80x24 and 160x45 against shardsim 7.0 (issue 21): after two migrations
# and a split of app.stores (on top of the demo's own migration), Enter on the collection and m show its key space from MinKey to MaxKey as cells by
# owning shard with the zones (NYC, SFO) beneath and a legend whose range counts match config.chunks; [ steps the
# replay back through the changelog (the newest migration first, each shown with its shards and range, the strip and
# the counts as they were before it), ] forward to now again; r re-reads; Esc goes back to the chunk list.
# ASCII glyphs (LC_ALL=C) so the strip can be read character by character.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh

tui_require "dash_chunkmap"
dash_require "dash_chunkmap"
TUI_PANE=dash TUI_TENTHS=80

# setup: a fresh shardsim where app.stores' top range (outside every zone) goes from shard03 to shard02, then
# [10281, 94102) (shard03's, moved there by the demo itself) is split at 50000 and its upper half goes to shard01; $counts: the chunks per shard as config.chunks has them ("shard01 (3)")
setup() {
   sim_stop
   sim_start --scenario demo --version 7.0 || return 1
   sh_eval 'sh.moveChunk("app.stores", {zipcode: "99999"}, "shard02")' || return 1
   sh_eval 'sh.splitAt("app.stores", {zipcode: "50000"})' || return 1
   sh_eval 'sh.moveChunk("app.stores", {zipcode: "60000"}, "shard01")' || return 1
   counts=$(NO_COLOR=1 "$SHARDSH" --norc --quiet --json "$SIM_URI" --eval \
      'db.getSiblingDB("config").chunks.aggregate([{$lookup: {from: "collections", localField: "uuid", foreignField: "uuid", as: "c"}}, {$match: {"c._id": "app.stores"}}, {$group: {_id: "$shard", n: {$sum: 1}}}, {$sort: {_id: 1}}])' |
      sed -n 's/.*"_id" : "\([^"]*\)", "n" : \([0-9]*\).*/\1 (\2)/p')
}
sh_eval() { NO_COLOR=1 "$SHARDSH" --norc --quiet --yes "$SIM_URI" --eval "$1" > /dev/null 2>&1; }

# open_map COLS LINES [NS]: a dashboard of that size with the chunk map of NS (app.stores) open
open_map() {
   _ns=${3:-app.stores}
   [ -n "${TM:-}" ] && $TM kill-server 2> /dev/null
   tui_server # a fresh server: the last one may still be shutting down
   $TM new-session -d -s dash -x "$1" -y "$2" \
      "LC_ALL=C TERM=xterm-256color $SHARDSH --dashboard --interval 1 $SIM_URI 2> $TMPD/dash.err"
   wait_for "Shards (3)" || return 1
   # the collections panel has the focus; keep only that collection and open it
   $TM send-keys -t dash /
   $TM send-keys -t dash -l "$_ns"
   $TM send-keys -t dash Enter
   wait_for "(1 filtered)" || return 1
   $TM send-keys -t dash Enter
   wait_for "Chunks of $_ns" || return 1
   $TM send-keys -t dash m
   wait_for "Chunk map of $_ns"
}

for size in 80x24 160x45; do
   cols=${size%x*} lines=${size#*x}
   T="dash_chunkmap/$size"
   if ! setup; then
      fail "$T/setup" "shardsim or the moves failed"
      continue
   fi
   if ! open_map "$cols" "$lines"; then
      fail "$T/open" "$(screen)"
      continue
   fi
   wait_for "replay: now" || fail "$T/replay_line" "$(screen)"
   s=$(screen)
   check_contains "$T/key" "{ zipcode: 1 }" "$s"
   check_contains "$T/chunk_count" "6 chunks" "$s"
   check_contains "$T/low_bound" "{ zipcode: MinKey() }" "$s"
   check_contains "$T/high_bound" "{ zipcode: MaxKey() }" "$s"
   check_contains "$T/zones" "zones: A NYC  B SFO" "$s"
   check_contains "$T/events" "replay: now; 4 events" "$s"
   # the legend's counts are config.chunks' counts
   for c in $(printf '%s\n' "$counts" | tr ' ' '_'); do
      check_contains "$T/legend ${c%%_*}" "$(echo "$c" | tr '_' ' ')" "$s"
   done
   # the strip: one line of cells, full width, only shard symbols; the zone line beneath only zone letters
   strip=$(printf '%s\n' "$s" | grep -A1 'MaxKey()' | sed -n 2p | cut -c2-$((cols - 1)))
   check_eq "$T/strip_width" "$((cols - 2))" "${#strip}"
   check_eq "$T/strip_symbols" "" "$(printf '%s' "$strip" | tr -d '123')"
   now_strip=$strip
   last_now=$(printf '%s' "$strip" | cut -c$((cols - 2)))
   check_eq "$T/top_on_shard02" "2" "$last_now"

   # [ : before the newest migration (shard03 -> shard01 of [50000, 94102)): that range is shard03's again
   $TM send-keys -t dash '['
   wait_for "replay: 1/4 back" || fail "$T/back1" "$(screen)"
   s=$(screen)
   check_contains "$T/back1_event" "before the migration of " "$s"
   check_contains "$T/back1_shards" ", shard03 -> shard01" "$s"
   check_contains "$T/back1_range" "{ zipcode: '50000' } -> { zipcode: '94102' }" "$s"
   strip=$(printf '%s\n' "$s" | grep -A1 'MaxKey()' | sed -n 2p | cut -c2-$((cols - 1)))
   if [ "$strip" != "$now_strip" ] && [ "$(printf '%s' "$strip" | tr -d '3' | wc -c)" -lt "$(printf '%s' "$now_strip" | tr -d '3' | wc -c)" ]; then
      pass "$T/back1_strip_shows_the_donor"
   else
      fail "$T/back1_strip_shows_the_donor" "now [$now_strip] back [$strip]"
   fi
   check_contains "$T/back1_legend" "1 shard01 ($(($(printf '%s\n' "$counts" | sed -n 's/^shard01 (\([0-9]*\))/\1/p') - 1)))" "$s"
   # [ [ : past the split to before the first migration; the top range is shard03's (the demo's owner) again
   $TM send-keys -t dash '[' '['
   wait_for "replay: 3/4 back" || fail "$T/back3" "$(screen)"
   s=$(screen)
   check_contains "$T/back3_event" ", shard03 -> shard02" "$s"
   check_contains "$T/back3_range" "{ zipcode: '94188' } -> { zipcode: MaxKey() }" "$s"
   strip=$(printf '%s\n' "$s" | grep -A1 'MaxKey()' | sed -n 2p | cut -c2-$((cols - 1)))
   check_eq "$T/back3_top_on_shard03" "3" "$(printf '%s' "$strip" | cut -c$((cols - 2)))"
   # the oldest is the demo's own migration; [ beyond it stays there
   $TM send-keys -t dash '[' '['
   wait_for "replay: 4/4 back" && pass "$T/stops_at_the_oldest" || fail "$T/stops_at_the_oldest" "$(screen)"
   check_contains "$T/oldest_event" ", shard02 -> shard03" "$(screen)"
   # ] ] ] ] : now again, the same strip as before
   $TM send-keys -t dash ']' ']' ']' ']'
   wait_for "replay: now" || fail "$T/forward" "$(screen)"
   strip=$(screen | grep -A1 'MaxKey()' | sed -n 2p | cut -c2-$((cols - 1)))
   check_eq "$T/forward_strip_is_now" "$now_strip" "$strip"
   # r re-reads the map (a new migration shows); Esc goes back to the list, Esc again to the panels
   sh_eval 'sh.moveChunk("app.stores", {zipcode: "99999"}, "shard01")'
   $TM send-keys -t dash r
   wait_for "replay: now; 5 events" || fail "$T/r_rereads" "$(screen)"
   $TM send-keys -t dash Escape
   wait_for "Chunks of app.stores" && pass "$T/esc_list" || fail "$T/esc_list" "$(screen)"
   $TM send-keys -t dash Escape
   wait_for "Shards (3)" && pass "$T/esc_panels" || fail "$T/esc_panels" "$(screen)"
done

# a migration in flight: a live balancer whose migrations last a minute, shard03 draining to give it work; the map of
# the collection being moved names the migration (donor -> recipient and range) on its moving line while it runs
# (that its cells are underlined, and that the mark goes when the migration ends, tests/unit/test_dash_render.c checks)
T="dash_chunkmap/moving"
sim_stop
if sim_start --scenario demo --version 7.0 --balancer-interval-ms 200 --migration-ms 60000; then
   sh_eval 'db.adminCommand({removeShard: "shard03"})'
   i=0 mig=""
   while [ -z "$mig" ] && [ $i -lt 100 ]; do
      mig=$(NO_COLOR=1 "$SHARDSH" --norc --quiet --json "$SIM_URI" --eval 'db.adminCommand({simBalancer: "status"})' \
         2> /dev/null | jq -r '.migrations[0] // empty | "\(.ns) \(.from) \(.to)"' 2> /dev/null)
      [ -n "$mig" ] || sleep 0.1
      i=$((i + 1))
   done
   set -- $mig
   if [ $# -ne 3 ]; then
      fail "$T/in_flight" "no migration started: [$mig]"
   elif ! open_map 120 30 "$1"; then
      fail "$T/open" "$(screen)"
   else
      wait_for "moving (underlined): $2 -> $3 { " && pass "$T/named" || fail "$T/named" "$(screen)"
      # stepping back into the past (when the collection has a recent event) hides it, ] shows it again
      if tui_has "replay: now; 0 events"; then
         skip "$T/not_in_the_past" "$1 has no recent event to step back to"
      else
         $TM send-keys -t dash '['
         wait_gone "moving (underlined)" && pass "$T/not_in_the_past" || fail "$T/not_in_the_past" "$(screen)"
         $TM send-keys -t dash ']'
         wait_for "moving (underlined): $2 -> $3" && pass "$T/back_at_now" || fail "$T/back_at_now" "$(screen)"
      fi
   fi
else
   fail "$T/setup" "shardsim did not start"
fi
$TM send-keys -t dash q
check_eq "dash_chunkmap/stderr_clean" "" "$(cat "$TMPD/dash.err" 2> /dev/null)"
