#!/bin/sh
# passes: plain asan
# One balance truth on 4.4 (issue 32): drain the only shard of zone SFO on the demo cluster. The balancer can never
# move that chunk; sh.progress(), sh.explainBalance(), the dashboard and --plan must all say it is STUCK, why, and the
# same fix (commands/stuck.h), with no time left (null, shown as ?). Also: a failed balancer round is listed only
# for the collection its error names; the balancer stopped is a stuck cause; the sh.progress table keeps its columns.
# One shardsim (4.4 demo), driven round by round with {simBalancer: "round"}.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh

if ! command -v jq > /dev/null 2>&1; then
   skip "stuck_44" "jq is not installed"
   exit 0
fi

run() { NO_COLOR=1 "$SHARDSH" --norc --quiet --yes --json "$SIM_URI/test" --eval "$1" 2>&1; }
text() { NO_COLOR=1 "$SHARDSH" --norc --quiet --yes "$SIM_URI/test" --eval "$1" 2>&1; }
rounds() { for _i in $(seq "$1"); do run 'db.adminCommand({simBalancer: "round"})' > /dev/null; done; }

if ! sim_start --scenario demo --version 4.4; then
   fail "stuck_44.start" "shardsim did not start"
   exit 0
fi

# ---- before anything moves: the demo's failed round names app.orders only ----
out=$(run 'sh.explainBalance("app.orders")' | jq -c '[.findings[].cause] | index("failedBalancerRounds") != null')
check_eq "stuck_44.rounds a failed round naming app.orders is listed for app.orders" "true" "$out"
out=$(run 'sh.explainBalance("app.users")' | jq -c '[.findings[].cause] | index("failedBalancerRounds")')
check_eq "stuck_44.rounds the same round is not listed for app.users" "null" "$out"

# ---- --plan of the drain: the SFO chunk will not move, why, the fix, exit 3 ----
echo 'sh.removeShard("shard02")' > "$TMPD/drain.js"
NO_COLOR=1 "$SHARDSH" --norc --quiet --plan -f "$TMPD/drain.js" "$SIM_URI/test" > "$TMPD/plan.out" 2>&1
rc=$?
check_eq "stuck_44.plan exits 3 when a chunk will not move" 3 "$rc"
check_contains "stuck_44.plan names the chunk that will not move" \
   "will not move app.stores [{ zipcode: '94102' }, { zipcode: '94188' })" "$(cat "$TMPD/plan.out")"
check_not_contains "stuck_44.plan does not count it as a move" "-> (no shard in the zone)" "$(cat "$TMPD/plan.out")"
check_contains "stuck_44.plan total says how many will not move" "1 chunk will not move" "$(cat "$TMPD/plan.out")"
plan_fix=$(NO_COLOR=1 "$SHARDSH" --norc --quiet --plan --json -f "$TMPD/drain.js" "$SIM_URI/test" 2> /dev/null |
   tail -1 | jq -r '.plan.willNotMove[0].fix')

# ---- the drain: every other chunk leaves, the SFO chunk stays ----
run 'sh.removeShard("shard02")' > /dev/null
rounds 12
prog=$(run 'sh.progress()' | jq -c '.operations[] | select(.type == "drain")')
check_contains "stuck_44.progress the drain is stuck on zone SFO" "in zone SFO" "$(echo "$prog" | jq -r .stuck)"
check_eq "stuck_44.progress a stuck drain has no time left (null, never 0)" "null" "$(echo "$prog" | jq -c .etaSec)"
prog_fix=$(echo "$prog" | jq -r .fix)
check_contains "stuck_44.progress the fix adds a shard to the zone" 'sh.addShardToZone("shard01", "SFO")' "$prog_fix"
table=$(text 'sh.progress()')
check_contains "stuck_44.progress the table marks it STUCK" "STUCK: 1 chunk of app.stores in zone SFO" "$table"
# the columns: the header's LEFT starts where the row's STUCK does
hdr=$(echo "$table" | grep '^TYPE')
row=$(echo "$table" | grep '^drain')
hpos=$(printf '%s' "${hdr%%LEFT*}" | wc -c)
rpos=$(printf '%s' "${row%%STUCK*}" | wc -c)
check_eq "stuck_44.progress the table keeps its columns" "$hpos" "$rpos"

expl=$(run 'sh.explainBalance("app.stores")' | jq -c '.findings[0]')
check_eq "stuck_44.explain the first finding is the chunk without a recipient" "noRecipient" \
   "$(echo "$expl" | jq -r .cause)"
check_contains "stuck_44.explain it is stuck on zone SFO" "in zone SFO" "$(echo "$expl" | jq -r .stuck)"
expl_fix=$(echo "$expl" | jq -r .fix)

dash=$(NO_COLOR=1 "$SHARDSH" --norc --quiet --dashboard --once --json "$SIM_URI" 2> /dev/null)
drain=$(echo "$dash" | jq -c '.shards[] | select(.shard == "shard02") | .drain')
check_eq "stuck_44.dashboard the drain has no time left" "null" "$(echo "$drain" | jq -c .etaSec)"
check_contains "stuck_44.dashboard the drain is stuck on zone SFO" "in zone SFO" "$(echo "$drain" | jq -r .stuck)"
dash_fix=$(echo "$drain" | jq -r .fix)
check_eq "stuck_44.dashboard the operation agrees" "$dash_fix" \
   "$(echo "$dash" | jq -r '.operations[] | select(.type == "drain") | .fix')"
check_contains "stuck_44.dashboard text says STUCK" "STUCK: 1 chunk of app.stores" \
   "$(NO_COLOR=1 "$SHARDSH" --norc --quiet --dashboard --once "$SIM_URI" 2> /dev/null)"

if command -v tmux > /dev/null 2>&1; then
   T="tmux -S $TMPD/stuck-tmux.sock"
   $T new-session -d -s dash -x 80 -y 24 "NO_COLOR=1 $(pwd)/$SHARDSH --norc --dashboard $SIM_URI; sleep 30"
   seen=0
   i=0
   while [ $i -lt 60 ] && [ "$seen" = 0 ]; do
      sleep 0.1
      i=$((i + 1))
      screen=$($T capture-pane -t dash -p 2> /dev/null)
      case "$screen" in *"Draining"*"STUCK: 1 chunk of app.stores"*) seen=1 ;; esac
   done
   check_eq "stuck_44.dashboard 80x24 shows STUCK in the Draining panel" 1 "$seen"
   check_not_contains "stuck_44.dashboard 80x24 shows no time left for it" "0s left" "$screen"
   $T send-keys -t dash q
   $T kill-server 2> /dev/null
fi

check_eq "stuck_44.agree the four views give the same fix" "$prog_fix|$prog_fix|$prog_fix|$prog_fix" \
   "$prog_fix|$expl_fix|$dash_fix|$plan_fix"

# ---- the balancer stopped is a stuck cause too ----
run 'sh.stopBalancer()' > /dev/null
prog=$(run 'sh.progress()' | jq -c '.operations[] | select(.type == "drain") | [.stuck, .fix, .etaSec]')
check_eq "stuck_44.balancer a stopped balancer is why nothing moves" \
   '["the balancer is stopped: nothing moves","sh.startBalancer()",null]' "$prog"
out=$(run 'sh.explainBalance("app.stores")' | jq -c '.findings[0] | [.cause, .fix, (.stuck != null)]')
check_eq "stuck_44.balancer explainBalance agrees" '["balancerOff","sh.startBalancer()",true]' "$out"
run 'sh.startBalancer()' > /dev/null

# ---- the fix unsticks it: the drain moves on and is no longer stuck ----
text 'sh.addShardToZone("shard01", "SFO")' > /dev/null
rounds 3
prog=$(run 'sh.progress()' | jq -c '.operations[] | select(.type == "drain")')
check_eq "stuck_44.fixed after the fix the chunk left" '"chunks moved; 1 database to movePrimary"' \
   "$(echo "$prog" | jq -c .phase)"
check_contains "stuck_44.fixed what holds it now is the database (movePrimary)" \
   'db.adminCommand({movePrimary: "<db>", to: "<shard>"})' "$(echo "$prog" | jq -r .fix)"
# a phase longer than the old fixed column ("chunks moved; 1 database to movePrimary"): the columns still line up
table=$(text 'sh.progress()')
hdr=$(echo "$table" | grep '^TYPE')
row=$(echo "$table" | grep '^drain')
check_eq "stuck_44.progress a long phase keeps the columns (LEFT)" "$(printf '%s' "${hdr%%LEFT*}" | wc -c)" \
   "$(printf '%s' "${row%%STUCK*}" | wc -c)"
check_eq "stuck_44.progress a long phase keeps the columns (SHARDS)" "$(printf '%s' "${hdr%%SHARDS*}" | wc -c)" \
   "$(printf '%s' "${row%%shard02*}" | wc -c)"
sim_stop
