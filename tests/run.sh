#!/bin/sh
# The test runner behind `make test`: runs every unit binary, script case, integration and peer test,
# each of which prints lines "PASS name", "FAIL name: why" or "SKIP name: why", and ends with the
# tally line "N passed, N failed, N skipped". Exits non-zero when anything failed.
BUILD=${BUILD:-build}
BINDIR=${BINDIR:-bin}
# libmongoc's constructor creates /dev/shm/mongoc-<pid> before main(); a stale file left by a killed process with
# the same pid makes it print a warning on stderr, which would leak into tests that compare stderr
MONGOC_DISABLE_SHM=1
export BUILD BINDIR MONGOC_DISABLE_SHM
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
OUT="$BUILD/test-out"
rm -rf "$OUT" && mkdir -p "$OUT"
LOG="$OUT/all.log"
: > "$LOG"
ONLY=${TEST_ONLY:-}

run_one() {
   # $1: label, rest: command. Captures PASS/FAIL/SKIP lines; a crash or non-zero exit with no FAIL is a failure.
   label=$1; shift
   case "$label" in *"$ONLY"*) ;; *) return ;; esac
   out="$OUT/$(echo "$label" | tr '/ ' '__').log"
   t0=$(date +%s)
   "$@" > "$out" 2>&1
   rc=$?
   t1=$(date +%s)
   [ $((t1 - t0)) -ge 20 ] && echo "  [$label] took $((t1 - t0))s"
   grep -E '^(PASS|FAIL|SKIP) ' "$out" >> "$LOG"
   if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
      echo "FAIL $label: exited with status $rc (see $out)" >> "$LOG"
   fi
   grep -E '^FAIL ' "$out" | sed "s|^|  [$label] |"
}

for t in "$BUILD"/tests/test_* "$BUILD"/tests/simtest_*; do
   [ -x "$t" ] || continue
   run_one "unit/$(basename "$t")" "$t"
done
for t in tests/integration/*.sh tests/peer/*.sh; do
   [ -f "$t" ] || continue
   run_one "$t" sh "$t"
done
if [ -f tests/scripts/run.sh ]; then
   run_one "tests/scripts" sh tests/scripts/run.sh
fi

passed=$(grep -c '^PASS ' "$LOG")
failed=$(grep -c '^FAIL ' "$LOG")
skipped=$(grep -c '^SKIP ' "$LOG")
grep '^SKIP ' "$LOG" | sed 's/^/  /'
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
