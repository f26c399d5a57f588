#!/bin/sh
# passes: plain
# The dashboard gives the terminal back whatever signal ends it: for SIGINT, SIGTERM, SIGHUP, SIGSEGV and SIGABRT,
# a tmux pane runs an interactive sh (dash: it does not restore the tty modes of a job that dies, so what the pane
# shows afterwards is what shardsh left), the dashboard is started in it and killed with the signal once it has drawn.
# Afterwards the pane must have left the alternate screen, show the cursor, and its tty must have echo and icanon on;
# a typed command is echoed as typed and runs. SIGSEGV, SIGABRT, SIGBUS and SIGFPE go through crt's fatal handler
# (async-signal-safe: saved termios, terminfo exit sequences written with write(2)), which must end with the signal's
# own default action: the pane's sh sees the status 128+N.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh

tui_require "dash_signals"
dash_require "dash_signals"

tui_server
# one session lives through the whole test, so ending a signal's session never stops the tmux server under the next
$TM new-session -d -s keep -x 20 -y 5 "sleep 3600"

# wait_file FILE [TENTHS]: until FILE is non-empty
wait_file() {
   i=0
   while [ ! -s "$1" ] && [ $i -lt "${2:-50}" ]; do sleep 0.1; i=$((i + 1)); done
   [ -s "$1" ]
}
has_flag() { tr ' ' '\n' < "$2" | grep -qx -- "$1"; }

if ! sim_start --scenario demo --version 7.0; then
   fail "dash_signals/start" "shardsim did not start"
   exit 0
fi
SH_ABS="$ROOT/$SHARDSH"
case "$SHARDSH" in /*) SH_ABS=$SHARDSH ;; esac

for SIG in INT TERM HUP SEGV ABRT BUS FPE; do
   T="dash_signals/$SIG"
   S="sig$SIG" # a session of its own per signal: the previous one's tmux server may still be going away
   TUI_PANE=$S
   fatal=""
   case $SIG in SEGV) fatal=11 ;; ABRT) fatal=6 ;; BUS) fatal=7 ;; FPE) fatal=8 ;; esac # Linux numbers
   if [ -n "$SHARDSH_SAN" ] && [ -n "$fatal" ]; then
      skip "$T" "under the sanitizers crt's fatal-signal handler replaces ASan's (and ASan aborts on its own)"
      continue
   fi
   pidf="$TMPD/pid.$SIG"
   sttyf="$TMPD/stty.$SIG"
   rcf="$TMPD/rc.$SIG"
   $TM new-session -d -s "$S" -x 120 -y 32 "env PS1='$ ' TERM=xterm-256color sh -i"
   if ! wait_for '$' 100; then
      fail "$T/pane" "the pane's sh gave no prompt: $(screen)"
      $TM kill-session -t "$S" 2> /dev/null
      continue
   fi
   # the wrapper writes its pid and execs shardsh, so the pid is the dashboard's
   $TM send-keys -t "$S" -l "sh -c 'echo \$\$ > $pidf; exec $SH_ABS --dashboard --interval 0.5 $SIM_URI' 2> $TMPD/dash.$SIG.err"
   $TM send-keys -t "$S" Enter
   if ! wait_for "Shards (3)" 80 || ! wait_file "$pidf"; then
      fail "$T/draws" "$(screen | head -5)"
      $TM kill-session -t "$S" 2> /dev/null
      continue
   fi
   pass "$T/draws"
   check_eq "$T/alternate_screen_during" 1 "$($TM display -p -t "$S" '#{alternate_on}')"
   pid=$(cat "$pidf")
   kill -"$SIG" "$pid"
   i=0
   while kill -0 "$pid" 2> /dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
   if kill -0 "$pid" 2> /dev/null; then
      fail "$T/exits" "pid $pid still running 5 s after SIG$SIG"
      kill -KILL "$pid" 2> /dev/null
   else
      pass "$T/exits"
   fi
   sleep 0.3
   check_eq "$T/alternate_screen_left" 0 "$($TM display -p -t "$S" '#{alternate_on}')"
   check_eq "$T/cursor_visible" 1 "$($TM display -p -t "$S" '#{cursor_flag}')"
   $TM send-keys -t "$S" -l "echo \$? > $rcf; stty -a > $sttyf"
   $TM send-keys -t "$S" Enter
   if wait_file "$sttyf" 30; then
      for flag in echo icanon; do
         if has_flag "$flag" "$sttyf"; then pass "$T/stty_$flag"; else fail "$T/stty_$flag" "$(tr '\n' ' ' < "$sttyf")"; fi
      done
      if [ -n "$fatal" ]; then
         check_eq "$T/dies_of_the_signal" "$((128 + fatal))" "$(cat "$rcf")"
      fi
   else
      fail "$T/stty" "the pane ran nothing: $(screen | tail -5)"
   fi
   $TM send-keys -t "$S" -l "clear"
   $TM send-keys -t "$S" Enter
   sleep 0.3
   $TM send-keys -t "$S" -l "echo ok-$SIG"
   $TM send-keys -t "$S" Enter
   wait_for "
ok-$SIG" 30
   if screen | grep -qx "\\$ echo ok-$SIG"; then pass "$T/typed_text_echoed"; else fail "$T/typed_text_echoed" "$(screen | head -5)"; fi
   if screen | grep -qx "ok-$SIG"; then pass "$T/command_runs"; else fail "$T/command_runs" "$(screen | head -5)"; fi
   $TM kill-session -t "$S" 2> /dev/null
done
sim_stop
