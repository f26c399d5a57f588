#!/bin/sh
# passes: plain
# `make demo`, as a newcomer runs it: without a terminal it shows the tour and exits 0; in a terminal (tmux) it opens
# the live dashboard, q quits, and either way the demo's shardsim is stopped afterwards.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
export TMPDIR="$TMPD" # the demo's own temp dir (and so its shardsim's --port-file) lands under ours

demo_cmd() {
   if [ -n "${SHARDSH_SAN:-}" ]; then
      echo "BINDIR=$BINDIR sh tests/demo.sh" # the sanitizer pass runs the script on its own build
   else
      echo "make --no-print-directory demo BINDIR=$BINDIR BUILD=${BUILD:-build}"
   fi
}
left_over() { pgrep -f "port-file $TMPD/shardsh-demo" > /dev/null 2>&1; }

# a fresh machine: every README entry point runs the dependency step (apt-get only for what is missing) first
for target in all demo check test; do
   check_eq "demo/make $target installs what is missing first" "sh tests/deps.sh" \
      "$(make --no-print-directory -n "$target" 2> /dev/null | head -1)"
done

out=$(eval "$(demo_cmd)" < /dev/null 2>&1)
rc=$?
check_eq "demo/runs without a terminal and exits 0" "0" "$rc"
check_contains "demo/the tour lists the shards" "_id: 'shard01'" "$out"
check_contains "demo/the tour counts chunks on the server" "chunks:" "$out"
check_contains "demo/the tour shows a dry run" "[dry-run] <eval>:1 admin" "$out"
check_contains "demo/the tour adds a zone range" "tag: 'CHI'" "$out"
check_not_contains "demo/the tour runs without an error" "error" "$out"
left_over && fail "demo/shardsim is stopped after the tour" "a demo shardsim is still running" ||
   pass "demo/shardsim is stopped after the tour"

if command -v tmux > /dev/null 2>&1; then
   T="tmux -S $TMPD/demo.sock"
   $T new-session -d -s demo -x 140 -y 45 "cd $(pwd) && $(demo_cmd); echo EXITED=\$?; sleep 30"
   seen=0
   i=0
   while [ $i -lt 150 ]; do
      if $T capture-pane -t demo -p 2>/dev/null | grep -q "app.events"; then
         if $T capture-pane -t demo -p 2>/dev/null | grep -qi "balancer"; then seen=1; break; fi
      fi
      sleep 0.2
      i=$((i + 1))
   done
   screen=$($T capture-pane -t demo -p 2>/dev/null)
   if [ "$seen" = 1 ] && left_over; then
      pass "demo/opens the dashboard on a live cluster"
   else
      fail "demo/opens the dashboard on a live cluster" "$(echo "$screen" | tail -8 | tr '\n' '|')"
   fi
   $T send-keys -t demo q
   i=0
   while [ $i -lt 50 ] && ! $T capture-pane -t demo -p 2>/dev/null | grep -q "EXITED="; do sleep 0.2; i=$((i + 1)); done
   check_contains "demo/q quits with status 0" "EXITED=0" "$($T capture-pane -t demo -p 2>/dev/null)"
   sleep 0.5
   left_over && fail "demo/shardsim is stopped when the dashboard quits" "a demo shardsim is still running" ||
      pass "demo/shardsim is stopped when the dashboard quits"
   $T kill-server 2> /dev/null
else
   skip "demo/dashboard" "tmux is not installed"
fi
