# Shared helpers for the shell-level tests: result lines, assertions, and starting/stopping shardsim.
# Source it; every test prints "PASS name" / "FAIL name: why" / "SKIP name: why".
BINDIR=${BINDIR:-bin}
SHARDSH="$BINDIR/shardsh"
SHARDSIM="$BINDIR/shardsim"
SIM_PID=""
SIM_PORT=""
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/shardsh-test.XXXXXX")
export HOME="$TMPD/home"
mkdir -p "$HOME"
export SHARDSH_HISTFILE="$TMPD/history"

pass() { echo "PASS $1"; }
# Under the real-cluster tier (below) a test whose shardsim could not be replaced by the cluster reports SKIP with the
# reason instead of its "shardsim did not start" failure.
fail() {
   case "$2" in
   "shardsim did not start"*)
      if [ -n "$SIM_SKIP" ]; then
         echo "SKIP $1: $SIM_SKIP"
         return 0
      fi
      ;;
   esac
   echo "FAIL $1: $2"
}
skip() { echo "SKIP $1: $2"; }

# check NAME EXPECTED ACTUAL
check_eq() {
   if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected [$2] got [$3]"; fi
}
# check_contains NAME NEEDLE HAYSTACK
check_contains() {
   case "$3" in *"$2"*) pass "$1" ;; *) fail "$1" "missing [$2] in [$3]" ;; esac
}
check_not_contains() {
   case "$3" in *"$2"*) fail "$1" "unexpected [$2] in [$3]" ;; *) pass "$1" ;; esac
}

# The opt-in real-cluster tier: with SHARDSH_TEST_URI set to a real sharded cluster's connection string, sim_start
# starts no shardsim and points SIM_URI at that cluster instead, for the tests that declare they can run there:
#   SIM_TIER_OK=read   the test only reads (the cluster may hold anything);
#   SIM_TIER_OK=write  the test also writes, and only in the scratch database $SIM_SCRATCH_DB
#                      (shardsh_test_<pid>), which sim_stop drops; these run only when SHARDSH_TEST_WRITES=1.
# Any other sim_start under the tier, and any asking for a shardsim-only feature (faults, --log-commands, workloads,
# loads, the live balancer, --auth, TLS, the large scenario), fails with SIM_SKIP holding the reason, which fail()
# reports as SKIP. Without SHARDSH_TEST_URI nothing changes.
SIM_TIER=shardsim
[ -n "${SHARDSH_TEST_URI:-}" ] && SIM_TIER=real
SIM_SKIP=""
SIM_SCRATCH_DB="shardsh_test_$$"

# sim_tier_check [shardsim args...]: under the real tier, whether a test with these arguments may run against the
# cluster; sets SIM_SKIP to the reason when it may not.
sim_tier_check() {
   SIM_SKIP=""
   _prev=""
   for _a in "$@"; do
      case "$_a" in
      --fault-*) SIM_SKIP="real-cluster tier: needs shardsim's fault injection ($_a)" ;;
      --log-commands) SIM_SKIP="real-cluster tier: needs shardsim's --log-commands" ;;
      --workload | --load | --live | --balancer-interval-ms | --migration-ms | --reshard-ms)
         SIM_SKIP="real-cluster tier: needs shardsim's simulated dynamics ($_a)" ;;
      --auth | --tls-cert | --tls-ca) SIM_SKIP="real-cluster tier: needs shardsim's own credentials or TLS ($_a)" ;;
      large) [ "$_prev" = --scenario ] && SIM_SKIP="real-cluster tier: needs shardsim's large scenario" ;;
      esac
      _prev=$_a
   done
   [ -z "$SIM_SKIP" ] || return 1
   case "${SIM_TIER_OK:-}" in
   read) ;;
   write)
      if [ "${SHARDSH_TEST_WRITES:-}" != 1 ]; then
         SIM_SKIP="real-cluster tier: writes (in $SIM_SCRATCH_DB) run only with SHARDSH_TEST_WRITES=1"
         return 1
      fi
      ;;
   *)
      SIM_SKIP="real-cluster tier: this test needs shardsim (its scenario data or writes outside a scratch database)"
      return 1
      ;;
   esac
   return 0
}

# sim_start [shardsim args...]: starts shardsim on a free loopback port; sets SIM_PORT, SIM_PID, SIM_URI. Under the
# real-cluster tier: starts nothing, SIM_URI is SHARDSH_TEST_URI and SIM_PORT the port in it (or returns 1 with
# SIM_SKIP set, above).
sim_start() {
   if [ "$SIM_TIER" = real ]; then
      sim_tier_check "$@" || return 1
      SIM_URI=$SHARDSH_TEST_URI
      SIM_PORT=$(printf '%s' "$SIM_URI" | sed -n 's|^mongodb://\([^@/]*@\)\{0,1\}[^,/:]*:\([0-9]*\)[/?]\{0,1\}.*|\2|p')
      [ -n "$SIM_PORT" ] || SIM_PORT=27017
      SIM_STARTED_REAL=1
      return 0
   fi
   pf="$TMPD/port.$$.$(date +%s%N)"
   "$SHARDSIM" --port 0 --port-file "$pf" "$@" > "$TMPD/sim.out" 2> "$TMPD/sim.err" &
   SIM_PID=$!
   i=0
   while [ ! -s "$pf" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
   if [ ! -s "$pf" ]; then
      echo "shardsim did not start: $(cat "$TMPD/sim.err")" >&2
      return 1
   fi
   SIM_PORT=$(cat "$pf")
   SIM_URI="mongodb://127.0.0.1:$SIM_PORT"
}

# sim_stop: stops the shardsim sim_start started; under the real tier drops the scratch database when the test wrote.
sim_stop() {
   if [ -n "${SIM_STARTED_REAL:-}" ]; then
      SIM_STARTED_REAL=""
      if [ "${SIM_TIER_OK:-}" = write ]; then
         "$SHARDSH" --norc --quiet "$SIM_URI" --eval "db.getSiblingDB(\"$SIM_SCRATCH_DB\").dropDatabase()" \
            > /dev/null 2>&1
      fi
   fi
   if [ -n "$SIM_PID" ]; then
      kill "$SIM_PID" 2>/dev/null
      wait "$SIM_PID" 2>/dev/null
      SIM_PID=""
   fi
}

# sim_keep: hands the shardsim sim_start just started to SIMS_PIDS, so a test holds several at once (one per client
# and batch, each fresh: shardsim starts in milliseconds, mongosh in seconds); sims_stop stops them all, and cleanup
# does when the test ends early.
sim_keep() {
   SIMS_PIDS="${SIMS_PIDS:-} $SIM_PID"
   SIM_PID=""
}
sims_stop() {
   for _p in ${SIMS_PIDS:-}; do kill "$_p" 2> /dev/null; done
   for _p in ${SIMS_PIDS:-}; do wait "$_p" 2> /dev/null; done
   SIMS_PIDS=""
}

cleanup() {
   sim_stop
   sims_stop
   groups_stop
   for _sock in "$TMPD"/tmux.*.sock "$TMPD"/group.*/tmux.*.sock; do
      [ -S "$_sock" ] && tmux -S "$_sock" kill-server 2> /dev/null
   done
   rm -rf "$TMPD"
}
trap cleanup EXIT

# Independent parts of a test that mostly wait (timeouts, timed shardsim operations, terminals) run at once, each
# in a background subshell with its own shardsim and folder, so the test takes as long as its longest part rather
# than their sum; their result lines are printed in the order the parts were started, as if they had run one
# after the other (the same PASS names).
# group NAME FUNCTION [ARGS...]: runs FUNCTION in the background with TMPD set to its own folder $TMPD/group.NAME
# (its shardsim's sim.out/sim.err, tmux sockets and files) and its output (stdout and stderr) kept until
# groups_wait; a group's shardsim is stopped when the group ends. NAME: letters, digits, _ and -.
GROUP_PIDS=""
GROUP_NAMES=""
group() {
   _gname=$1
   shift
   mkdir -p "$TMPD/group.$_gname"
   (
      TMPD="$TMPD/group.$_gname"
      SIM_PID=""
      SIMS_PIDS=""
      trap 'sim_stop; sims_stop' EXIT
      trap 'exit 143' TERM
      "$@"
   ) > "$TMPD/group.$_gname.out" 2>&1 < /dev/null &
   GROUP_PIDS="$GROUP_PIDS $!"
   GROUP_NAMES="$GROUP_NAMES $_gname"
}
# groups_wait: waits for every group, then prints each one's output in the order they were started.
groups_wait() {
   for _p in $GROUP_PIDS; do wait "$_p"; done
   GROUP_PIDS=""
   for _g in $GROUP_NAMES; do cat "$TMPD/group.$_g.out"; done
   GROUP_NAMES=""
}
# groups_stop: stops the groups still running (a test that ends early); their shardsims stop with them.
groups_stop() {
   for _p in $GROUP_PIDS; do kill "$_p" 2> /dev/null; done
   for _p in $GROUP_PIDS; do wait "$_p" 2> /dev/null; done
   GROUP_PIDS=""
}

# dash_require LABEL: ends the test with "SKIP LABEL: this build has no dashboard" when $SHARDSH has no --dashboard.
dash_require() {
   "$SHARDSH" --help | grep -q -- '--dashboard' && return 0
   skip "$1" "this build has no dashboard"
   exit 0
}

# ---- terminal tests through tmux ----
# tui_require LABEL: ends the test with "SKIP LABEL: tmux is not installed" when there is no tmux.
tui_require() {
   command -v tmux > /dev/null 2>&1 && return 0
   skip "$1" "tmux is not installed"
   exit 0
}
# tui_server: points $TM at a new private tmux server whose socket lives in $TMPD; cleanup kills it. Each
# call makes a new one: starting a server where one is still shutting down races.
TUI_N=0
tui_server() {
   TUI_N=$((TUI_N + 1))
   TM="tmux -S $TMPD/tmux.$TUI_N.sock -f /dev/null"
}
# screen: what pane $TUI_PANE shows ($TUI_CAPTURE adds capture-pane options, e.g. "-S -200" for scrollback).
screen() { $TM capture-pane -p -t "$TUI_PANE" $TUI_CAPTURE 2> /dev/null; }
# wait_for NEEDLE [TENTHS]: waits until the screen shows NEEDLE (a substring; a grep pattern when TUI_GREP=1), at
# most TENTHS tenths of a second (default $TUI_TENTHS, else 50). wait_gone: until it no longer does.
tui_has() {
   if [ -n "${TUI_GREP:-}" ]; then
      screen | grep -q -- "$1"
   else
      case "$(screen)" in *"$1"*) return 0 ;; esac
      return 1
   fi
}
wait_for() {
   _i=0
   while [ $_i -lt "${2:-${TUI_TENTHS:-50}}" ]; do
      tui_has "$1" && return 0
      sleep 0.1
      _i=$((_i + 1))
   done
   return 1
}
wait_gone() {
   _i=0
   while [ $_i -lt "${2:-${TUI_TENTHS:-50}}" ]; do
      tui_has "$1" || return 0
      sleep 0.1
      _i=$((_i + 1))
   done
   return 1
}

# ensure_mongosh LABEL: sets MONGOSH to mongosh 2.12.0 (the peer client nobody here wrote), installing it with npm
# into the repo-local .cache/mongosh when missing (MONGOSH overrides the path). When it cannot be had, prints
# "SKIP LABEL: why" and returns 1.
ensure_mongosh() {
   _root=$(cd "$(dirname "$0")/../.." && pwd)
   MONGOSH=${MONGOSH:-$_root/.cache/mongosh/node_modules/.bin/mongosh}
   [ -x "$MONGOSH" ] && return 0
   if ! command -v npm > /dev/null 2>&1; then
      skip "$1" "npm could not install mongosh: npm not found"
      return 1
   fi
   mkdir -p "$_root/.cache/mongosh"
   # run npm from an empty directory: a child folder named "mongosh" would be taken for the package; under a lock,
   # since tests/run.sh runs several peer tests at once, and the second one finds the first one's install
   if ! _log=$(cd "$TMPD" && flock "$_root/.cache/mongosh.lock" sh -c '[ -x "$1" ] ||
         npm install --no-audit --no-fund --prefix "$2" mongosh@2.12.0' sh "$MONGOSH" "$_root/.cache/mongosh" 2>&1) ||
      [ ! -x "$MONGOSH" ]; then
      skip "$1" "npm could not install mongosh: $(echo "$_log" | tail -n 1)"
      return 1
   fi
   return 0
}

# A script case is one file, tests/scripts/NAME.case, in parts: a line "=== PART" (args, sim, tier, code, js, out,
# err, log; tests/scripts/run.sh says what each holds) begins a part, which is every line up to the next such line.
# case_split CASE DIR: writes each part of CASE into DIR/NAME.PART (NAME.js, NAME.out, ...), as separate files.
case_split() {
   awk -v out="$2/$(basename "$1" .case)" '
      /^=== [a-z]+$/ { if (f) close(f); f = out "." $2; printf "" > f; next }
      f { print > f }
      !f { print FILENAME ": a line before the first === part" > "/dev/stderr"; exit 1 }' "$1"
}

# case_part CASE PART: prints one part of a case (nothing when the case has no such part).
case_part() {
   awk -v want="$2" '/^=== [a-z]+$/ { on = ($2 == want); next } on { print }' "$1"
}
