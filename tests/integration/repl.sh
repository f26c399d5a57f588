#!/bin/sh
# passes: plain
# The interactive shell, driven through tmux as a person would: multi-line input, Ctrl-C dropping a line, Tab
# completion, Ctrl-D, and a history file (mode 0600) that never receives a password typed or passed.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
tui_require "repl"
# each session gets its own tmux server (tui_server): starting a new server where one is still shutting down races
TUI_PANE=repl TUI_GREP=1 TUI_TENTHS=150
HIST="$TMPD/history"
SH_ABS="$(pwd)/$SHARDSH"

start() {
   tui_server
   $TM new-session -d -s repl -x 120 -y 40 "SHARDSH_HISTFILE=$HIST NO_COLOR=1 $SH_ABS --norc --dry-run $*; echo EXITED=\$?; sleep 30"
   wait_for 'test>'
}
stop() { $TM kill-server 2>/dev/null; }

start
$TM send-keys -t repl 'sh.addShardToZone("shard01",' Enter
$TM send-keys -t repl '"NYC")' Enter
wait_for 'addShardToZone" : "shard01", "zone" : "NYC"' && pass "repl/multi-line statement runs once complete" ||
   fail "repl/multi-line statement runs once complete" "$(screen | tail -5)"
# Ctrl-C once the line is on screen (sent together, the signal can overtake the typed text under load)
$TM send-keys -t repl 'sh.moveChunk("a.b", {x: 1}, "s2")'
wait_for 'sh.moveChunk("a.b", {x: 1}, "s2")'
$TM send-keys -t repl C-c
# and type on only once the fresh prompt is there (a bare "test>" line: the dropped line keeps its text)
wait_for '^test>$'
$TM send-keys -t repl 'sh.isBalancerRun' Tab
$TM send-keys -t repl ')' Enter
wait_for '"balancerStatus"' && pass "repl/tab completes helper names" ||
   fail "repl/tab completes helper names" "$(screen | tail -5 | tr '\n' '|') [tmux: $($TM list-panes -F '#{pane_dead} #{pane_current_command}' 2>&1)]"
check_not_contains "repl/ctrl-c drops the line" '"moveChunk"' "$(screen)"
$TM send-keys -t repl 'db.adminCommand({createUser: "ops", pwd: "hunter2", roles: []})' Enter
$TM send-keys -t repl 'print("mongodb://ops:hunter2@db1.example.net/admin")' Enter
$TM send-keys -t repl 'sh.getBalancerState()' Enter
$TM send-keys -t repl C-d
wait_for 'EXITED=0' && pass "repl/ctrl-d leaves with status 0" || fail "repl/ctrl-d leaves with status 0" "$(screen | tail -3)"
stop
check_contains "repl/history keeps ordinary lines" 'sh.addShardToZone("shard01", "NYC")' "$(cat "$HIST" 2>/dev/null)"
check_not_contains "repl/history never stores a typed password" 'hunter2' "$(cat "$HIST" 2>/dev/null)"
mode=$(stat -c %a "$HIST" 2>/dev/null)
check_eq "repl/history file mode is 0600" "600" "$mode"

# a password passed on the command line never reaches the history either
start -u ops -p hunter3
$TM send-keys -t repl 'sh.isBalancerRunning()' Enter
wait_for 'balancerStatus'
$TM send-keys -t repl 'exit' Enter
wait_for 'EXITED=0' && pass "repl/exit leaves" || fail "repl/exit leaves" "$(screen | tail -3)"
stop
check_not_contains "repl/history never stores a passed password" 'hunter3' "$(cat "$HIST" 2>/dev/null)"
check_contains "repl/history has the session's statement" 'sh.isBalancerRunning()' "$(cat "$HIST" 2>/dev/null)"

# -u without a password asks for it on the terminal, without echo, and it is never shown or stored
tui_server
$TM new-session -d -s repl -x 120 -y 40 "SHARDSH_HISTFILE=$HIST NO_COLOR=1 $SH_ABS --norc -u ops mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=200; echo EXITED=\$?; sleep 30"
if wait_for 'Enter password:'; then
   pass "repl/asks for the password when -u is given alone"
   $TM send-keys -t repl 'hunter4' Enter
   wait_for 'test>'
   check_not_contains "repl/the password prompt does not echo" 'hunter4' "$(screen)"
   $TM send-keys -t repl 'sh.getBalancerState()' Enter
   wait_for 'error' || true
   check_not_contains "repl/errors never show the password" 'hunter4' "$(screen)"
   $TM send-keys -t repl 'exit' Enter
   wait_for 'EXITED=0' || true
else
   fail "repl/asks for the password when -u is given alone" "$(screen | tail -3)"
fi
stop
check_not_contains "repl/history never stores a prompted password" 'hunter4' "$(cat "$HIST" 2>/dev/null)"

# colour only on a terminal, never under NO_COLOR; the rc file runs at start unless --norc
echo 'print("rc file ran")' > "$HOME/.shardshrc"
tui_server
$TM new-session -d -s repl -x 120 -y 40 "SHARDSH_HISTFILE=$HIST $SH_ABS --dry-run; echo EXITED=\$?; sleep 30"
wait_for 'test>'
check_contains "repl/rc file runs at start" "rc file ran" "$(screen)"
$TM send-keys -t repl 'printjson({n: 12345})' Enter
wait_for '12345'
esc=$(printf '\033')
check_contains "repl/results are coloured on a terminal" "${esc}[33m12345" "$($TM capture-pane -t repl -p -e 2>/dev/null)"
stop
tui_server
$TM new-session -d -s repl -x 120 -y 40 "SHARDSH_HISTFILE=$HIST NO_COLOR=1 $SH_ABS --norc --dry-run; echo EXITED=\$?; sleep 30"
wait_for 'test>'
check_not_contains "repl/--norc skips the rc file" "rc file ran" "$(screen)"
$TM send-keys -t repl 'printjson({n: 12345})' Enter
wait_for '12345'
check_not_contains "repl/NO_COLOR turns colour off" "${esc}[33m" "$($TM capture-pane -t repl -p -e 2>/dev/null)"
stop
rm -f "$HOME/.shardshrc"

# Ctrl-C abandons a waiting command and the shell lives on
if sim_start --scenario demo; then
   tui_server
   $TM new-session -d -s repl -x 120 -y 40 "SHARDSH_HISTFILE=$HIST NO_COLOR=1 $SH_ABS --norc $SIM_URI; echo EXITED=\$?; sleep 30"
   wait_for 'test>'
   $TM send-keys -t repl 'sh.waitForBalancer(true, 60000)' Enter
   sleep 1
   $TM send-keys -t repl C-c
   wait_for 'interrupted' && pass "repl/ctrl-c abandons sh.waitForBalancer" ||
      fail "repl/ctrl-c abandons sh.waitForBalancer" "$(screen | tail -4)"
   $TM send-keys -t repl 'sleep(60000)' Enter
   sleep 0.5
   $TM send-keys -t repl C-c
   wait_for 'sleep interrupted' && pass "repl/ctrl-c abandons sleep" || fail "repl/ctrl-c abandons sleep" "$(screen | tail -4)"
   $TM send-keys -t repl 'sh.getBalancerState()' Enter
   wait_for '^true' && pass "repl/the shell lives on after an interrupted wait" ||
      fail "repl/the shell lives on after an interrupted wait" "$(screen | tail -4)"
   $TM send-keys -t repl 'exit' Enter
   wait_for 'EXITED=0' || true
   stop
   sim_stop
else
   fail "repl/simulated cluster" "shardsim did not start"
fi
