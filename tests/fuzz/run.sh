#!/bin/sh
# Two modes over each libFuzzer target built by the Makefile into $FUZZ_BUILD (clang, ASan, UBSan with
# float-cast-overflow):
#   run.sh replay   (`make test`, CI) runs every saved input once — the seed corpus tests/fuzz/corpus/<target>/ and
#                   every saved crash tests/fuzz/regressions/<target>/ — and nothing else: no mutation, no random
#                   search, so the same code always gives the same answer. One PASS line per target.
#   run.sh N        (`make fuzz FUZZ_SECONDS=N`) the campaign: N seconds a target on a scratch copy of its corpus;
#                   fails when it finds a crash, a leak or a hang (over 10 s on one input). A crashing input is left
#                   in $FUZZ_BUILD/artifacts/: fix it, then copy it into tests/fuzz/regressions/<target>/ so the
#                   replay keeps it fixed for good.
FUZZ_BUILD=${FUZZ_BUILD:-build/fuzz}
MODE=${1:-60}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
mkdir -p "$FUZZ_BUILD/artifacts"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# the JavaScript bridge's target loads the engine plugin built beside it; SpiderMonkey's own allocations look leaked
# between inputs (see tests/fuzz/lsan-mozjs.supp), so only that target is given the suppression
SHARDSH_JS_PLUGIN="$ROOT/$FUZZ_BUILD/shardsh-js.so"
export SHARDSH_JS_PLUGIN
TARGETS=${FUZZ_TARGETS:-"parser render js_bridge reply numbers"}

if [ "$MODE" = replay ]; then
   status=0
   for t in $TARGETS; do
      bin="$FUZZ_BUILD/fuzz_$t"
      log="$FUZZ_BUILD/replay_$t.log"
      lsan=""
      [ "$t" = js_bridge ] && lsan="suppressions=$ROOT/tests/fuzz/lsan-mozjs.supp"
      # files, not directories: libFuzzer then runs each input once and stops
      set -- $(find "tests/fuzz/corpus/$t" "tests/fuzz/regressions/$t" -type f 2> /dev/null | LC_ALL=C sort)
      if LSAN_OPTIONS=$lsan "$bin" -timeout=10 -rss_limit_mb=2048 "$@" > "$log" 2>&1; then
         echo "PASS fuzz-replay/$t: $# saved inputs (seed corpus and regressions) run once each under clang's ASan+UBSan"
      else
         echo "FAIL fuzz-replay/$t: an input crashed, leaked or hung; see $log"
         grep -E 'ERROR: |SUMMARY: |runtime error|Running: ' "$log" | tail -5 >&2
         status=1
      fi
   done
   exit $status
fi

SECONDS_PER=$MODE
status=0
for t in $TARGETS; do
   bin="$FUZZ_BUILD/fuzz_$t"
   work="$FUZZ_BUILD/work/$t"
   log="$FUZZ_BUILD/fuzz_$t.log"
   mkdir -p "$work"
   dict=""
   [ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"
   regress=""
   [ -d "tests/fuzz/regressions/$t" ] && regress="tests/fuzz/regressions/$t"
   lsan=""
   [ "$t" = js_bridge ] && lsan="suppressions=$ROOT/tests/fuzz/lsan-mozjs.supp"
   # the seeds and saved regressions start the run; new finds go to the scratch corpus only
   LSAN_OPTIONS=$lsan "$bin" -max_total_time="$SECONDS_PER" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -print_final_stats=1 \
      -artifact_prefix="$FUZZ_BUILD/artifacts/${t}-" $dict "$work" "tests/fuzz/corpus/$t" $regress > "$log" 2>&1
   rc=$?
   runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
   secs=$(sed -n 's/^stat::.*//; s/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
   cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
   if [ "$rc" -eq 0 ]; then
      echo "PASS fuzz/$t: ${runs:-?} executions in ${secs:-$SECONDS_PER} s, ${cov:-cov: ?}, 0 crashes"
   else
      echo "FAIL fuzz/$t: status $rc after ${runs:-?} executions; see $log and $FUZZ_BUILD/artifacts/"
      grep -E 'ERROR: |SUMMARY: |runtime error|Test unit written' "$log" | head -10 >&2
      status=1
   fi
done
exit $status
