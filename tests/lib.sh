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
fail() { echo "FAIL $1: $2"; }
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

# sim_start [shardsim args...]: starts shardsim on a free loopback port; sets SIM_PORT, SIM_PID, SIM_URI.
sim_start() {
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

sim_stop() {
   if [ -n "$SIM_PID" ]; then
      kill "$SIM_PID" 2>/dev/null
      wait "$SIM_PID" 2>/dev/null
      SIM_PID=""
   fi
}

cleanup() {
   sim_stop
   rm -rf "$TMPD"
}
trap cleanup EXIT

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
   # run npm from an empty directory: a child folder named "mongosh" would be taken for the package
   if ! _log=$(cd "$TMPD" && npm install --no-audit --no-fund --prefix "$_root/.cache/mongosh" mongosh@2.12.0 2>&1) ||
      [ ! -x "$MONGOSH" ]; then
      skip "$1" "npm could not install mongosh: $(echo "$_log" | tail -n 1)"
      return 1
   fi
   return 0
}
