#!/bin/sh
# The test runner behind `make test`. Each test program or script prints lines "PASS name", "FAIL name: why" or
# "SKIP name: why"; the runner collects them over the passes in SHARDSH_PASSES and ends with one tally line
# "N passed, N failed, N skipped". Exits non-zero when anything failed. Passes:
#   plain  every unit binary, script case, integration and peer test, against $BUILD / $BINDIR
#   asan   the same suite built with ASan+UBSan (build/asan), peer tests left to the plain pass
#   fuzz   each libFuzzer target replays its saved corpus and regressions once (build/fuzz), when clang built
#          them: deterministic; the random campaign is `make fuzz`
BUILD=${BUILD:-build}
BINDIR=${BINDIR:-bin}
PASSES=${SHARDSH_PASSES:-plain}
# libmongoc's constructor creates /dev/shm/mongoc-<pid> before main(); a stale file left by a killed process with
# the same pid makes it print a warning on stderr, which would leak into tests that compare stderr
MONGOC_DISABLE_SHM=1
export MONGOC_DISABLE_SHM
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
LOGDIR="$BUILD/test-out"
rm -rf "$LOGDIR" && mkdir -p "$LOGDIR"
LOG="$LOGDIR/all.log"
: > "$LOG"
ONLY=${TEST_ONLY:-}

run_one() {
   # $1: label, rest: command. Keeps its PASS/FAIL/SKIP lines (prefixed with the pass); a crash or a non-zero exit
   # without a FAIL line is a failure too.
   label=$1; shift
   case "$label" in *"$ONLY"*) ;; *) return ;; esac
   out="$LOGDIR/$(echo "$label" | tr '/ :' '___').log"
   t0=$(date +%s)
   "$@" > "$out" 2>&1
   rc=$?
   t1=$(date +%s)
   [ $((t1 - t0)) -ge 20 ] && echo "  [$label] took $((t1 - t0))s"
   grep -E '^(PASS|FAIL|SKIP) ' "$out" | sed "s/^\([A-Z]*\) /\1 $PREFIX/" >> "$LOG"
   if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
      echo "FAIL $PREFIX$label: exited with status $rc (see $out)" >> "$LOG"
   fi
   grep -E '^FAIL ' "$out" | sed "s|^|  [$PREFIX$label] |"
}

run_suite() {
   for t in "$BUILD"/tests/test_* "$BUILD"/tests/simtest_*; do
      [ -x "$t" ] || continue
      run_one "unit/$(basename "$t")" "$t"
   done
   for t in tests/integration/*.sh tests/peer/*.sh; do
      [ -f "$t" ] || continue
      case "$t" in
      */lib.sh) continue ;; # shared functions, not a test
      tests/peer/*)
         if [ -n "${SHARDSH_SAN:-}" ]; then
            echo "SKIP $PREFIX$t: the mongosh peer checks run in the plain pass" >> "$LOG"
            continue
         fi
         ;;
      esac
      run_one "$t" sh "$t"
   done
   [ -f tests/scripts/run.sh ] && run_one "tests/scripts" sh tests/scripts/run.sh
}

for pass in $PASSES; do
   case "$pass" in
   plain)
      PREFIX=""
      (export BUILD BINDIR; run_suite)
      ;;
   asan)
      PREFIX="asan:"
      echo "  [asan] the suite under AddressSanitizer and UndefinedBehaviorSanitizer"
      (BUILD=build/asan BINDIR=build/asan/bin SHARDSH_SAN=1 \
          ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
          LOGDIR="$LOGDIR/asan"; mkdir -p "$LOGDIR"; export BUILD BINDIR SHARDSH_SAN ASAN_OPTIONS UBSAN_OPTIONS; run_suite)
      ;;
   fuzz)
      PREFIX=""
      if [ -x build/fuzz/fuzz_parser ] && [ -x build/fuzz/fuzz_render ]; then
         run_one "fuzz" sh tests/fuzz/run.sh replay
      else
         echo "SKIP fuzz: the libFuzzer targets were not built (clang missing)" >> "$LOG"
      fi
      ;;
   esac
done

passed=$(grep -c '^PASS ' "$LOG")
failed=$(grep -c '^FAIL ' "$LOG")
skipped=$(grep -c '^SKIP ' "$LOG")
grep '^SKIP ' "$LOG" | sed 's/^/  /'
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
