#!/bin/sh
# passes: plain asan
# Script tests: every case is one file, tests/scripts/NAME.case, in parts (a line "=== PART" begins one; see
# tests/lib.sh's case_split). Its js part runs through bin/shardsh as NAME.js and stdout, stderr and exit code are
# compared with its out part, err part (when present) and code part (default 0). Optional parts:
#   args  extra shardsh arguments (one line; {{URI}} is replaced by the simulated cluster's address)
#   sim   start shardsim with these arguments first (one line) and log every command it receives; the log part then
#         holds lines that must appear in that log (a command name and fields, in order) or the single word NONE,
#         meaning the log must hold no command at all
#   tier  "read": the script may run against a real cluster under the opt-in tier (SHARDSH_TEST_URI set,
#         tests/lib.sh): it sends nothing that changes the cluster and its expected parts do not depend on
#         shardsim's scenario data. Under that tier every other case with a sim part is reported SKIP, and the log
#         check (which needs shardsim's --log-commands) is reported SKIP on its own
# In expected parts, {{PORT}} stands for the simulated cluster's port.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
ROOT=$(pwd)
SHARDSH_ABS="$ROOT/$SHARDSH"

CASES="$TMPD/cases"
mkdir -p "$CASES"
# a case in the old many-file format (NAME.js beside NAME.out, ...) would not run: say so
for js in tests/scripts/*.js; do
   [ -f "$js" ] && fail "script/$(basename "$js" .js)" "$js: a case is one file now, NAME.case in parts (see run.sh)"
done
for case in tests/scripts/*.case; do
   name=$(basename "$case" .case)
   base="$CASES/$name"
   if ! case_split "$case" "$CASES" || ! [ -f "$base.js" ]; then
      fail "script/$name" "$case has no js part or a line before its first part"
      continue
   fi
   args=""
   [ -f "$base.args" ] && args=$(cat "$base.args")
   if [ -f "$base.sim" ]; then
      SIM_TIER_OK=""
      [ -f "$base.tier" ] && SIM_TIER_OK=$(cat "$base.tier")
      logopt="--log-commands"
      [ "$SIM_TIER" = real ] && logopt=""
      if ! sim_start $(cat "$base.sim") ${logopt:+$logopt "$TMPD/$name.cmdlog"}; then
         fail "script/$name" "shardsim did not start"
         continue
      fi
      args=$(echo "$args" | sed "s|{{URI}}|$SIM_URI|g")
   fi
   expected_code=0
   [ -f "$base.code" ] && expected_code=$(cat "$base.code")
   # run from the case's folder so file names in messages are short and stable
   (cd "$CASES" && NO_COLOR=1 "$SHARDSH_ABS" --norc $args "$name.js" > "$TMPD/$name.stdout" 2> "$TMPD/$name.stderr" < /dev/null)
   code=$?
   sim_stop
   ok=1
   if [ "$code" != "$expected_code" ]; then
      fail "script/$name" "exit code $code, expected $expected_code; stderr: $(head -c 600 "$TMPD/$name.stderr")"
      ok=0
   fi
   for stream in out err; do
      [ -f "$base.$stream" ] || continue
      sed "s|{{PORT}}|$SIM_PORT|g" "$base.$stream" > "$TMPD/$name.expected.$stream"
      actual="$TMPD/$name.std$stream"
      if ! cmp -s "$TMPD/$name.expected.$stream" "$actual"; then
         fail "script/$name" "std$stream differs: $(diff "$TMPD/$name.expected.$stream" "$actual" | head -20 | tr '\n' '|')"
         ok=0
      fi
   done
   if [ -f "$base.log" ] && [ "$SIM_TIER" = real ] && [ -f "$base.sim" ]; then
      skip "script/$name/log" "real-cluster tier: the command log needs shardsim's --log-commands"
   elif [ -f "$base.log" ]; then
      if [ "$(cat "$base.log")" = "NONE" ]; then
         if [ -s "$TMPD/$name.cmdlog" ]; then
            fail "script/$name" "the cluster received commands: $(head -c 400 "$TMPD/$name.cmdlog")"
            ok=0
         fi
      else
         while IFS= read -r want; do
            [ -n "$want" ] || continue
            if ! grep -F -q -- "$want" "$TMPD/$name.cmdlog"; then
               fail "script/$name" "the cluster did not receive: $want"
               ok=0
            fi
         done < "$base.log"
      fi
   fi
   [ "$ok" = 1 ] && pass "script/$name"
done
