#!/bin/sh
# The test runner behind `make test`. Each test program or script prints lines "PASS name", "FAIL name: why" or
# "SKIP name: why"; the runner collects them over the passes in SHARDSH_PASSES and ends with one tally line
# "N passed, N failed, N skipped". Exits non-zero when anything failed. Passes:
#   plain  every unit binary, script case, integration and peer test, against $BUILD / $BINDIR
#   asan   the tests whose passes line names asan, built with ASan+UBSan (build/asan)
#   fuzz   each libFuzzer target replays its saved corpus and regressions once (build/fuzz), when clang built
#          them: deterministic; the random campaign is `make fuzz`
# SHARDSH_JOBS (default 4) tests run at a time; TEST_ONLY=<text> runs only the tests whose label contains it;
# SHARDSH_BG_BUILD is a build to run during the plain pass (below). The plain and asan passes share one pool of
# workers (the asan tests queued after the plain ones, started once the background build is done), so the asan
# pass does not wait for the plain pass's last test. The ten slowest tests are printed at the end.
BUILD=${BUILD:-build}
BINDIR=${BINDIR:-bin}
UNITS_BUILD=$BUILD
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

JOBS=${SHARDSH_JOBS:-4}
case "$JOBS" in '' | *[!0-9]* | 0) echo "tests/run.sh: SHARDSH_JOBS must be a positive number" >&2; exit 2 ;; esac

cpu_ms() {
   # $1, $2: the output of the shell's `times` before and after a test; prints the CPU time (user+sys) of the
   # children reaped in between, in ms (the second line of `times` holds the children's "0m1.5s 0m0.2s")
   awk 'function ms(t) { split(t, a, "m"); sub("s", "", a[2]); return a[1] * 60000 + a[2] * 1000 }
        FNR == 2 { v[FILENAME] = ms($1) + ms($2) } END { printf "%d", v[ARGV[2]] - v[ARGV[1]] }' "$1" "$2"
}

run_one() {
   # $1: label, rest: command. Keeps its PASS/FAIL/SKIP lines (prefixed with the pass) in the test's own .res file,
   # which suite_collect adds to the log in queue order; a crash or a non-zero exit without a FAIL line is a failure
   # too.
   label=$1; shift
   out="$LOGDIR/$(echo "$label" | tr '/ :' '___').log"
   t0=$(date +%s%N)
   times > "$out.c0"
   "$@" > "$out" 2>&1
   rc=$?
   times > "$out.c1"
   t1=$(date +%s%N)
   # wall and CPU (user+sys of the test and every process it waited for) in ms, for the timing report
   printf '%s\t%s\t%s\n' "$PREFIX$label" $(((t1 - t0) / 1000000)) "$(cpu_ms "$out.c0" "$out.c1")" >> "$LOGDIR/timing"
   grep -E '^(PASS|FAIL|SKIP) ' "$out" | sed "s/^\([A-Z]*\) /\1 $PREFIX/" > "$out.res"
   if [ "$rc" -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
      echo "FAIL $PREFIX$label: exited with status $rc (see $out)" >> "$out.res"
   fi
   grep -E '^FAIL ' "$out" | sed "s|^|  [$PREFIX$label] |"
}

# The tests that take longest (wall time in the clean-clone runs, tests/run.sh's timing report), started first so
# that the $JOBS workers end close together rather than waiting on one long test at the end; a label not listed
# keeps its place after them. Keep it to the slowest dozen: the order of the rest matters little.
# The mongosh peer tests come after the first few: on a clean clone mongosh is being installed meanwhile (below).
SLOW_FIRST="unit/test_sim_dynamics tests/integration/valgrind.sh tests/integration/faults.sh
tests/integration/readonly_all.sh tests/peer/compare_corpus.sh tests/peer/compare_js_scripts.sh
tests/integration/stuck_80.sh tests/peer/compare_js_globals.sh tests/integration/story.sh
tests/peer/compare_db_methods.sh tests/peer/compare_sh_helpers.sh tests/integration/dash_ops.sh
unit/test_sim_fidelity_rows tests/integration/dash_fit.sh"

suite_queue() {
   # the suite, one "label<TAB>command" per line: the SLOW_FIRST tests, then the mongosh peer scripts, the
   # shell-level tests and the unit binaries, so that $JOBS workers end close together
   suite_all > "$LOGDIR/all-tests"
   for l in $SLOW_FIRST; do
      awk -F '\t' -v l="$l" '$1 == l' "$LOGDIR/all-tests"
   done
   awk -F '\t' -v slow=" $(echo $SLOW_FIRST) " 'index(slow, " " $1 " ") == 0' "$LOGDIR/all-tests"
}
suite_all() {
   for t in tests/peer/*.sh tests/integration/*.sh; do
      [ -f "$t" ] || continue
      case "$t" in */lib.sh) continue ;; esac # shared functions, not a test
      echo "$t	sh $t"
   done
   [ -f tests/scripts/run.sh ] && echo "tests/scripts	sh tests/scripts/run.sh"
   # the unit binaries as the first build has them (the asan pass's are queued before the background build made
   # them: the same names, in $BUILD)
   for t in "$UNITS_BUILD"/tests/test_* "$UNITS_BUILD"/tests/simtest_*; do
      [ -x "$t" ] && echo "unit/$(basename "$t")	$BUILD/tests/$(basename "$t")"
   done
}

test_source() {
   # $1: a label; prints the file that holds the test's passes line (a unit binary's is its C source)
   case "$1" in
   unit/*) echo "tests/unit/${1#unit/}.c" ;;
   tests/scripts) echo tests/scripts/run.sh ;;
   *) echo "$1" ;;
   esac
}

test_passes() {
   # $1: a label; prints the passes its source names in a line "passes: plain asan" within its first three lines
   # ("# passes: ..." in a script, "/* passes: ... */" in C): each test says where it runs, and one that says
   # nothing fails. plain: every test; asan: what the sanitizers can find something in (units, scripts, faults,
   # secrets, JavaScript, plan, the read-only commands), not the tmux screen tests nor the mongosh peer checks.
   head -3 "$(test_source "$1")" 2> /dev/null | sed -n 's|^[#/* ]*passes:\([a-z ]*\).*|\1|p' | head -1
}

pass_env() {
   # $1: a pass; sets what its tests run with (in the caller's shell: call it in a subshell)
   case "$1" in
   plain)
      PREFIX=""
      export BUILD BINDIR
      ;;
   asan)
      PREFIX="asan:"
      BUILD=build/asan
      BINDIR=build/asan/bin
      SHARDSH_SAN=1
      ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
      UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
      LOGDIR="$LOGDIR/asan"
      export BUILD BINDIR SHARDSH_SAN ASAN_OPTIONS UBSAN_OPTIONS
      ;;
   esac
   PASS=$1
}

queue_pass() {
   # $1: plain or asan; adds the pass's tests (their passes line) to $POOL as "pass<TAB>label<TAB>command", the
   # slowest first
   (
      pass_env "$1"
      mkdir -p "$LOGDIR"
      suite_queue | while IFS='	' read -r label cmd; do
         case "$label" in *"$ONLY"*) ;; *) continue ;; esac
         passes=$(test_passes "$label")
         case " $passes " in
         "  ")
            echo "FAIL $PREFIX$label: says no passes (a line '# passes: plain asan' near the top of $(test_source "$label"))" >> "$LOG"
            continue ;;
         *" $PASS "*) ;;
         *) echo "$PREFIX$label" >> "$LOGDIR/not-in-pass"; continue ;;
         esac
         for p in $passes; do
            case "$p" in plain | asan) ;; *) echo "FAIL $PREFIX$label: unknown pass '$p' in its passes line" >> "$LOG" ;; esac
         done
         printf '%s\t%s\t%s\n' "$PASS" "$label" "$cmd"
      done >> "$POOL"
      [ -f "$LOGDIR/not-in-pass" ] && echo "  [$PASS] $(wc -l < "$LOGDIR/not-in-pass") tests not in this pass (their passes line)"
   )
}

bg_build_ready() {
   # in a worker: waits until the background build has ended; false when it failed (its tests are not run)
   [ -n "$BG_PID" ] || return 0
   until [ -s "$LOGDIR/bg-build.rc" ]; do sleep 0.5; done
   [ "$(cat "$LOGDIR/bg-build.rc")" = 0 ]
}

pool_worker() {
   # takes the pool's tests one at a time: a test is run by the worker whose mkdir of its claim directory succeeds.
   # The asan pass's tests follow the plain pass's in the pool, so they start as workers free up at the plain pass's
   # end (once the sanitizer build is done) rather than after its last test
   n=0
   while IFS='	' read -r pass label cmd; do
      n=$((n + 1))
      mkdir "$LOGDIR/claim.$n" 2> /dev/null || continue
      [ "$pass" = plain ] || bg_build_ready || continue
      # shellcheck disable=SC2086 # the command is a path and its arguments, split on purpose
      (pass_env "$pass"; run_one "$label" $cmd)
   done < "$POOL"
}

pool_collect() {
   # $1: a pass; adds its tests' results to the log in pool order, so the log does not depend on which worker ran
   # what
   (
      pass_env "$1"
      while IFS='	' read -r pass label cmd; do
         [ "$pass" = "$1" ] || continue
         res="$LOGDIR/$(echo "$label" | tr '/ :' '___').log.res"
         [ -f "$res" ] && cat "$res" >> "$LOG"
      done < "$POOL"
   )
}

# SHARDSH_BG_BUILD: a command (the sanitizer and fuzz builds, from `make test`) run in the background while the plain
# pass runs, which mostly waits on servers and terminals; the asan pass's tests start once it has ended, and not at
# all when it failed
BG_PID=""
if [ -n "${SHARDSH_BG_BUILD:-}" ]; then
   echo "  [build] in the background during the plain pass (log in $LOGDIR/bg-build.log)"
   sh -c "$SHARDSH_BG_BUILD; echo \$? > '$LOGDIR/bg-build.rc.tmp'; mv '$LOGDIR/bg-build.rc.tmp' '$LOGDIR/bg-build.rc'" \
      > "$LOGDIR/bg-build.log" 2>&1 < /dev/null &
   BG_PID=$!
fi
bg_build_wait() {
   # waits for the background build once; false when it failed (one FAIL line, the log's end printed)
   [ -n "$BG_PID" ] || return "${BG_RC:-0}"
   wait "$BG_PID"
   BG_RC=$(cat "$LOGDIR/bg-build.rc" 2> /dev/null || echo 1)
   BG_PID=""
   if [ "$BG_RC" -ne 0 ]; then
      echo "FAIL build: the background build failed with status $BG_RC (see $LOGDIR/bg-build.log)" >> "$LOG"
      tail -20 "$LOGDIR/bg-build.log" | sed 's/^/  [build] /'
   fi
   return "$BG_RC"
}

# the plain and asan passes share one pool of $JOBS workers; fuzz runs after them
POOL="$LOGDIR/pool"
: > "$POOL"
for pass in $PASSES; do
   case "$pass" in
   plain) queue_pass plain ;;
   asan)
      echo "  [asan] the suite under AddressSanitizer and UndefinedBehaviorSanitizer"
      queue_pass asan
      ;;
   esac
done
# mongosh for the peer tests: when none is installed yet (a clean clone) and no MONGOSH is given, its install
# (tests/lib.sh ensure_mongosh, under its lock) starts now, while the first tests run; the peer tests wait on the
# lock for it instead of three of them each waiting from their start
if [ -z "${MONGOSH:-}" ] && [ ! -x .cache/mongosh/node_modules/.bin/mongosh ] && grep -q '	tests/peer/' "$POOL"; then
   sh -c '. tests/lib.sh; ensure_mongosh mongosh-install > /dev/null' tests/peer/install > "$LOGDIR/mongosh-install.log" 2>&1 &
fi
w=0
while [ "$w" -lt "$JOBS" ]; do
   pool_worker &
   w=$((w + 1))
done
wait
BG_OK=1
bg_build_wait || BG_OK=0
for pass in $PASSES; do
   case "$pass" in
   plain) pool_collect plain ;;
   asan) pool_collect asan ;;
   fuzz)
      [ "$BG_OK" = 1 ] || continue
      PREFIX=""
      case fuzz in *"$ONLY"*) ;; *) continue ;; esac
      if [ -x build/fuzz/fuzz_parser ] && [ -x build/fuzz/fuzz_render ]; then
         run_one "fuzz" sh tests/fuzz/run.sh replay
         cat "$LOGDIR/fuzz.log.res" >> "$LOG"
      else
         echo "SKIP fuzz: the libFuzzer targets were not built (clang missing)" >> "$LOG"
      fi
      ;;
   esac
done

# the timing report: every test's wall and CPU time over all passes in $LOGDIR/timing.txt, the ten slowest here
find "$LOGDIR" -name timing -exec cat {} + | sort -t '	' -k2,2nr > "$LOGDIR/timing.txt"
if [ -s "$LOGDIR/timing.txt" ]; then
   echo "  the ten slowest tests (wall s, CPU s; all in $LOGDIR/timing.txt):"
   head -10 "$LOGDIR/timing.txt" | awk -F '\t' '{ printf "  %7.1f %7.1f  %s\n", $2 / 1000, $3 / 1000, $1 }'
   awk -F '\t' '{ w += $2; c += $3 } END { printf "  all tests: %.1f s wall summed, %.1f s CPU\n", w / 1000, c / 1000 }' \
      "$LOGDIR/timing.txt"
fi

passed=$(grep -c '^PASS ' "$LOG")
failed=$(grep -c '^FAIL ' "$LOG")
skipped=$(grep -c '^SKIP ' "$LOG")
grep '^SKIP ' "$LOG" | sed 's/^/  /'
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
