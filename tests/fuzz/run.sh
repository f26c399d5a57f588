#!/bin/sh
# `make fuzz FUZZ_SECONDS=N`: runs each libFuzzer target (built by the Makefile into $FUZZ_BUILD) for N seconds on a
# scratch copy of its seed corpus, prints the executions per target, and fails when any target finds a crash, a leak
# or a hang (over 10 s on one input). A crashing input is left in $FUZZ_BUILD/artifacts/; copy it into
# tests/fuzz/regressions/<target>/ once fixed, so `make test` replays it for good.
FUZZ_BUILD=${FUZZ_BUILD:-build/fuzz}
SECONDS_PER=${1:-60}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
mkdir -p "$FUZZ_BUILD/artifacts"
status=0
for t in parser render js_bridge; do
   bin="$FUZZ_BUILD/fuzz_$t"
   work="$FUZZ_BUILD/work/$t"
   log="$FUZZ_BUILD/fuzz_$t.log"
   mkdir -p "$work"
   dict=""
   [ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"
   regress=""
   [ -d "tests/fuzz/regressions/$t" ] && regress="tests/fuzz/regressions/$t"
   # SpiderMonkey's own allocations look leaked between inputs (see the file); only that target is given it
   lsan=""
   [ "$t" = js_bridge ] && lsan="suppressions=$ROOT/tests/fuzz/lsan-mozjs.supp"
   SHARDSH_JS_PLUGIN="$ROOT/$FUZZ_BUILD/shardsh-js.so"
   export SHARDSH_JS_PLUGIN
   # the seeds and saved regressions start the run; new finds go to the scratch corpus only
   LSAN_OPTIONS=$lsan ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$bin" -max_total_time="$SECONDS_PER" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
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
