#!/bin/sh
# passes: plain
# Tab completion of live arguments in the interactive shell, against shardsim through tmux: shard names, namespaces,
# zone names and database names come from the connected cluster (after a first command has connected).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh
if ! command -v tmux > /dev/null 2>&1; then
   skip "cmd_complete" "tmux is not installed"
   exit 0
fi
if ! sim_start --scenario demo --version 8.0; then
   fail "cmd_complete.start" "shardsim did not start"
   exit 0
fi
T="tmux -S $TMPD/tmux.sock"
screen() { $T capture-pane -t c -p; }
wait_for() {
   i=0
   while [ $i -lt 150 ]; do
      screen | grep -q -- "$1" && return 0
      sleep 0.1
      i=$((i + 1))
   done
   return 1
}
$T new-session -d -s c -x 160 -y 40 "NO_COLOR=1 $ROOT/$SHARDSH --norc --dry-run $SIM_URI/test; sleep 30"
wait_for 'test>' || fail "cmd_complete.start" "$(screen | tail -3)"
# under --dry-run nothing is read from the cluster, so nothing completes
$T send-keys -t c 'sh.moveChunk("app.orders", {customer: 1}, "sha' Tab
sleep 0.4
check_not_contains "cmd_complete.dry-run completes nothing" '"shard0' "$(screen | tail -1)"
$T kill-server 2> /dev/null
T="tmux -S $TMPD/tmux2.sock"
$T new-session -d -s c -x 160 -y 40 "NO_COLOR=1 $ROOT/$SHARDSH --norc $SIM_URI/test; sleep 30"
wait_for 'test>' || fail "cmd_complete.start" "$(screen | tail -3)"
$T send-keys -t c 'sh.getBalancerState()' Enter
wait_for 'true' || fail "cmd_complete.connect" "$(screen | tail -3)"
$T send-keys -t c 'sh.addShardToZone("shard0' Tab Tab
sleep 0.5
out=$(screen)
check_contains "cmd_complete.shard names listed" "shard01" "$out"
check_contains "cmd_complete.shard names listed (2)" "shard02" "$out"
$T send-keys -t c C-u
$T send-keys -t c 'sh.balancerCollectionStatus("app.ord' Tab
sleep 0.5
check_contains "cmd_complete.namespace" 'sh.balancerCollectionStatus("app.orders' "$(screen)"
$T send-keys -t c C-u
$T send-keys -t c 'sh.addShardToZone("shard01", "NY' Tab
sleep 0.5
check_contains "cmd_complete.zone" 'sh.addShardToZone("shard01", "NYC' "$(screen)"
$T send-keys -t c C-u
$T send-keys -t c 'use lo' Tab
sleep 0.5
check_contains "cmd_complete.database" 'use logs' "$(screen)"
$T send-keys -t c C-u
$T send-keys -t c 'use app' Enter
wait_for 'switched to db app' || fail "cmd_complete.use app" "$(screen | tail -3)"
$T send-keys -t c 'db.ord' Tab
sleep 0.5
check_contains "cmd_complete.collection after db." 'app> db.orders' "$(screen)"
$T send-keys -t c C-u
$T send-keys -t c 'db.adminCo' Tab
sleep 0.5
check_contains "cmd_complete.db helpers still complete" 'app> db.adminCommand(' "$(screen)"
$T send-keys -t c C-u
$T send-keys -t c 'db.curr' Tab
sleep 0.5
check_contains "cmd_complete.db methods complete" 'app> db.currentOp(' "$(screen)"
$T send-keys -t c C-u
$T send-keys -t c 'db.orders.hideI' Tab
sleep 0.5
check_contains "cmd_complete.collection methods complete" 'app> db.orders.hideIndex(' "$(screen)"
$T send-keys -t c C-u
$T send-keys -t c 'db.orders.updateM' Tab
sleep 0.5
check_contains "cmd_complete.collection writes complete" 'app> db.orders.updateMany(' "$(screen)"
$T kill-server 2> /dev/null
sim_stop
