#!/bin/sh
# passes: plain asan
# The JavaScript engine from the outside: --eval prints its last value as mongosh does, a literal --eval never loads
# the engine, a missing plugin fails JavaScript clearly while literal statements keep working, and the interactive
# shell (driven through tmux) keeps variables between lines, reads an open block over several lines, completes
# variables with Tab, pages a cursor with "it", and survives Ctrl-C in an endless loop.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
SH_ABS="$(pwd)/$SHARDSH"

if ! sim_start --scenario demo; then
   fail "js/shardsim" "shardsim did not start"
   exit 0
fi

out=$("$SHARDSH" --norc --quiet --eval 'const ids = db.getSiblingDB("config").shards.find().toArray().map(s => s._id); ids' "$SIM_URI" 2>&1)
check_eq "js/--eval prints the last value" "[ 'shard01', 'shard02', 'shard03' ]" "$out"
out=$("$SHARDSH" --norc --quiet --eval 'sh.getBalancerState() === true ? "on" : "off"' "$SIM_URI" 2>&1)
check_eq "js/--eval a boolean result read as a value" "on" "$out"
out=$("$SHARDSH" --norc --quiet --eval 'db.adminCommand({balancerStatus: 1}).mode' "$SIM_URI" 2>&1)
check_eq "js/--eval a field of a command result" "full" "$out"
out=$("$SHARDSH" --norc --quiet --eval 'var x = 1' "$SIM_URI" 2>&1)
check_eq "js/--eval of a declaration prints nothing" "" "$out"
out=$("$SHARDSH" --norc --quiet --eval 'db.getSiblingDB("config").chunks.find().sort({_id: 1}).batchSize(5)' "$SIM_URI" 2>&1 | tail -1)
check_eq "js/--eval of a cursor prints a batch and says it has more" 'Type "it" for more' "$out"

# a literal --eval never loads the engine: its maps do not name the plugin
out=$(SHARDSH_JS_PLUGIN=/nonexistent/shardsh-js.so "$SHARDSH" --norc --quiet --eval 'sh.getBalancerState()' "$SIM_URI" 2>&1)
rc=$?
check_eq "js/literal --eval works without the plugin" "0:true" "$rc:$out"
out=$(SHARDSH_JS_PLUGIN=/nonexistent/shardsh-js.so "$SHARDSH" --norc --quiet --eval 'const s = sh.getBalancerState(); s' "$SIM_URI" 2>&1)
rc=$?
check_eq "js/without the plugin JavaScript exits 2" "2" "$rc"
check_contains "js/without the plugin the error says why" "JavaScript engine, which is not installed" "$out"

tui_require "js/repl"
tui_server
TUI_PANE=repl TUI_CAPTURE="-S -200" TUI_GREP=1 TUI_TENTHS=80
$TM new-session -d -s repl -x 150 -y 50 "SHARDSH_HISTFILE=$TMPD/hist NO_COLOR=1 $SH_ABS --norc $SIM_URI; echo EXITED=\$?; sleep 30"
wait_for 'test>' || fail "js/repl starts" "$(screen | tail -3)"
$TM send-keys -t repl 'let shards = db.getSiblingDB("config").shards.find().toArray()' Enter
$TM send-keys -t repl 'shards.length * 10' Enter
wait_for '^30$' && pass "js/repl keeps variables between lines" || fail "js/repl keeps variables between lines" "$(screen | tail -5)"
$TM send-keys -t repl 'for (const s of shards) {' Enter
$TM send-keys -t repl '  print(`shard ${s._id}`)' Enter
$TM send-keys -t repl '}' Enter
wait_for 'shard shard03' && pass "js/repl reads an open block over several lines" ||
   fail "js/repl reads an open block over several lines" "$(screen | tail -6)"
$TM send-keys -t repl 'shar' Tab
$TM send-keys -t repl '.length + 100' Enter
wait_for '^103$' && pass "js/repl Tab completes a variable" || fail "js/repl Tab completes a variable" "$(screen | tail -5)"
$TM send-keys -t repl 'var c = db.getSiblingDB("config").chunks.find().sort({_id: 1}); c' Enter
wait_for 'Type "it" for more' && pass "js/repl a cursor prints its first batch" ||
   fail "js/repl a cursor prints its first batch" "$(screen | tail -5)"
$TM send-keys -t repl 'it' Enter
sleep 0.5
$TM send-keys -t repl 'c.hasNext()' Enter
wait_for '^false$' && pass "js/repl it pages the cursor on" || fail "js/repl it pages the cursor on" "$(screen | tail -5)"
$TM send-keys -t repl 'let n = 0; while (true) { n++ }' Enter
sleep 1
$TM send-keys -t repl C-c
sleep 0.5
$TM send-keys -t repl 'n > 0 ? "interrupted" : "not run"' Enter
wait_for '^interrupted$' && pass "js/repl Ctrl-C interrupts a loop and keeps the session" ||
   fail "js/repl Ctrl-C interrupts a loop and keeps the session" "$(screen | tail -5)"
$TM send-keys -t repl 'sh.getBalancerState()' Enter
sleep 0.3
$TM send-keys -t repl 'exit' Enter
wait_for 'EXITED=0' && pass "js/repl literal statements still run and exit leaves" ||
   fail "js/repl literal statements still run and exit leaves" "$(screen | tail -5)"
$TM kill-server 2>/dev/null
