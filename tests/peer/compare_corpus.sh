#!/bin/sh
# passes: plain
# Peer check with scripts written in the styles operators already have (tests/peer/corpus/, sources in its README):
# each runs through mongosh 2.12.0 and through shardsh, each run against its own fresh shardsim --scenario demo, for
# 8.0 and 9.0; what they print on stdout (normalised, below) and their exit codes must be the same. *.js files run as
# `mongosh URI file.js`; *.stdin files are piped into standard input (heredoc style). mongosh starts slowly (~1 s of
# CPU), so one mongosh per version runs every *.js script (load() of each in turn, `db = connect()` to the script's
# own shardsim first, quit()/exit() turned into a thrown marker so the batch goes on) and one more runs every *.stdin
# script (the inputs concatenated, each after a connect() line); shardsh, fast to start, runs each script on its own,
# meanwhile (its runs overlap the mongosh batches).
# mongosh's connect() to a script's own cluster costs about a second of CPU, so by default each script runs on one of
# the two versions, alternately in name order (the versions differ little for these scripts; CORPUS_BOTH=1 runs every
# script on both, as before a change to the product lands).
# Scripts listed in tests/peer/corpus/known-failing (a feature another branch is building) are SKIPped with the reason.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh

ensure_mongosh corpus-peer || exit 0
CORPUS="$ROOT/tests/peer/corpus"
SHARDSH_ABS="$ROOT/$SHARDSH"
case "$SHARDSH" in /*) SHARDSH_ABS=$SHARDSH ;; esac

# sims_start N VERSION: N shardsims at once, fresh demo clusters; their ports in $TMPD/ports (one a line), their
# pids in SIMS_PIDS. Returns 1 when one did not start.
sims_start() {
   SIMS_PIDS=""
   : > "$TMPD/ports"
   _i=0
   while [ "$_i" -lt "$1" ]; do
      _i=$((_i + 1))
      rm -f "$TMPD/pf.$_i"
      "$SHARDSIM" --port 0 --port-file "$TMPD/pf.$_i" --scenario demo --version "$2" \
         > /dev/null 2> "$TMPD/sim.$_i.err" &
      SIMS_PIDS="$SIMS_PIDS $!"
   done
   _i=0
   while [ "$_i" -lt "$1" ]; do
      _i=$((_i + 1))
      _w=0
      while [ ! -s "$TMPD/pf.$_i" ] && [ "$_w" -lt 200 ]; do sleep 0.05; _w=$((_w + 1)); done
      [ -s "$TMPD/pf.$_i" ] || return 1
      cat "$TMPD/pf.$_i" >> "$TMPD/ports"
   done
}

# normalise: what must differ between two runs or two clients: hosts and ports, new ObjectIds, dates (the demo's
# app.events keys are times near its start) and cluster times; and mongosh's deprecation warnings, which it prints
# on stdout and shardsh on stderr (docs/javascript.md).
normalise() {
   sed -e 's/\(127\.0\.0\.1\|localhost\):[0-9][0-9]*/HOST:PORT/g' \
      -e "s/ObjectId(['\"][0-9a-f]\{24\}['\"])/ObjectId(<oid>)/g" \
      -e "s/ISODate(['\"][^'\"]*['\"])/ISODate(<date>)/g" \
      -e 's/Timestamp({ t: [0-9]*, i: [0-9]* })/Timestamp(<ts>)/g' \
      -e 's/[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\(\.[0-9]*\)\{0,1\}Z/<date>/g' \
      -e '/^\(DeprecationWarning: \|Warning: NumberLong: \)/d' \
      -e 's/^\(.*> \)\(DeprecationWarning: \|Warning: NumberLong: \).*$/\1/' "$1"
}

# known REASON for NAME at VERSION: the reason from known-failing ("NAME reason" or "NAME@VERSION reason"), if any
known() {
   sed -n -e "s/^$1[ 	][ 	]*//p" -e "s/^$1@$2[ 	][ 	]*//p" "$CORPUS/known-failing" 2> /dev/null | head -1
}

for v in 8.0 9.0; do
   W="$TMPD/v$v"
   mkdir -p "$W/mongosh" "$W/shardsh"
   names=""
   idx=0
   parity=$([ "$v" = 8.0 ] && echo 1 || echo 0)
   for f in "$CORPUS"/*.js "$CORPUS"/*.stdin; do
      [ -f "$f" ] || continue
      idx=$((idx + 1))
      # each script on one of the two versions, alternately (CORPUS_BOTH=1: every script on both)
      [ -n "${CORPUS_BOTH:-}" ] || [ $((idx % 2)) -eq "$parity" ] || continue
      names="$names $(basename "$f")"
   done
   count=$(echo "$names" | wc -w)
   # two fresh clusters per script: one for each client
   if ! sims_start $((count * 2)) "$v"; then
      fail "corpus-peer.$v.start" "shardsim did not start: $(cat "$TMPD"/sim.*.err | head -3)"
      sims_stop
      continue
   fi
   i=0
   : > "$W/driver.js"
   : > "$W/driver.stdin"
   for n in $names; do
      i=$((i + 1))
      port=$(sed -n "${i}p" "$TMPD/ports")
      echo "$port" > "$W/$n.msport"
      sed -n "$((count + i))p" "$TMPD/ports" > "$W/$n.shport"
      case $n in
      *.js)
         cat >> "$W/driver.js" <<JS
print("@@corpus $n");
db = connect("mongodb://127.0.0.1:$port/test");
try { load("$n"); print("@@rc 0"); } catch (e) {
  const m = /^@@corpus-quit (.*)$/.exec(String(e && e.message));
  print("@@rc " + (m ? m[1] : 1));
}
JS
         ;;
      *.stdin)
         printf 'void (db = connect("mongodb://127.0.0.1:%s/test")); print("@@corpus %s")\n' "$port" "$n" \
            >> "$W/driver.stdin"
         cat "$CORPUS/$n" >> "$W/driver.stdin"
         ;;
      esac
   done
   printf 'void (db = connect("mongodb://127.0.0.1:%s/test")); print("@@corpus end")\n' "$(head -1 "$TMPD/ports")" \
      >> "$W/driver.stdin"
   first="mongodb://127.0.0.1:$(head -1 "$TMPD/ports")/test"
   # shardsh runs every script on its own (its own process, exit code and cluster) while the mongosh batches run:
   # the two use different clusters, so overlapping them saves the wall time of the shorter
   (
      for n in $names; do
         uri="mongodb://127.0.0.1:$(cat "$W/$n.shport")/test"
         (
            cd "$CORPUS" || exit 1
            case $n in
            *.js) NO_COLOR=1 "$SHARDSH_ABS" --norc --quiet "$uri" "$n" < /dev/null ;;
            *.stdin) NO_COLOR=1 "$SHARDSH_ABS" --norc --quiet "$uri" < "$n" ;;
            esac > "$W/shardsh/$n.out" 2> "$W/shardsh/$n.err"
            echo $? > "$W/shardsh/$n.out.rc"
         )
      done
   ) &
   shpid=$!
   # quit/exit: a thrown marker, so one script's quit(n) ends that script only (its code is printed, then compared)
   (
      cd "$CORPUS" || exit 1
      {
         echo 'globalThis.quit = globalThis.exit = function (c) {'
         echo '  throw new Error("@@corpus-quit " + (c === undefined ? 0 : c));'
         echo '};'
         cat "$W/driver.js"
      } > "$W/driver.all.js"
      "$MONGOSH" --norc --quiet "$first" "$W/driver.all.js" > "$W/mongosh.js.out" 2> "$W/mongosh.js.err" < /dev/null &
      p1=$!
      "$MONGOSH" --norc --quiet "$first" > "$W/mongosh.stdin.out" 2> "$W/mongosh.stdin.err" < "$W/driver.stdin" &
      p2=$!
      wait $p1
      wait $p2
   )
   # split the batches: a file script's part ends at its "@@rc N" line; a piped script's at the next connect line's
   # prompt (kept: it is the prompt mongosh prints after the script's last line, as it does at the end of input); the
   # empty line mongosh prints after the marker's own output is not the script's
   awk -v dir="$W/mongosh" '/^@@corpus / { f = dir "/" $2 ".out"; printf "" > f; next }
      /^@@rc / { print $2 > (f ".rc"); close(f ".rc"); close(f); f = ""; next } f { print > f }' "$W/mongosh.js.out"
   awk -v dir="$W/mongosh" '{ line = $0 }
      match(line, /@@corpus [^ ]*$/) { pre = substr(line, 1, RSTART - 1); nm = substr(line, RSTART + 9)
         if (f) { printf "%s", pre > f; close(f) }
         f = dir "/" nm ".out"; printf "" > f; print 0 > (f ".rc"); close(f ".rc"); skip = 1; next }
      f && skip && line == "" { skip = 0; next }
      f { skip = 0; print line > f }' "$W/mongosh.stdin.out"
   wait "$shpid"
   sims_stop
   match=0
   total=0
   for n in $names; do
      total=$((total + 1))
      normalise "$W/mongosh/$n.out" > "$W/$n.m"
      normalise "$W/shardsh/$n.out" > "$W/$n.s"
      mrc=$(cat "$W/mongosh/$n.out.rc" 2> /dev/null || echo "none")
      src=$(cat "$W/shardsh/$n.out.rc")
      why=""
      if ! cmp -s "$W/$n.m" "$W/$n.s"; then
         why="stdout differs: $(diff "$W/$n.m" "$W/$n.s" | head -8 | tr '\n' '|')"
      elif [ "$mrc" != "$src" ]; then
         why="exit code: mongosh $mrc, shardsh $src"
      fi
      [ -z "$why" ] && match=$((match + 1))
      reason=$(known "$n" "$v")
      if [ -n "$reason" ]; then
         if [ -z "$why" ]; then
            skip "corpus-peer.$v/$n" "known-failing: $reason (matches now: remove the entry)"
         else
            skip "corpus-peer.$v/$n" "known-failing: $reason"
         fi
      elif [ -z "$why" ]; then
         pass "corpus-peer.$v/$n runs as in mongosh"
      else
         fail "corpus-peer.$v/$n runs as in mongosh" "$why"
      fi
   done
   echo "corpus-peer.$v: $match of $total scripts run as in mongosh"
   # CORPUS_KEEP=DIR keeps each version's outputs in DIR.<version>, to read the differences
   if [ -n "${CORPUS_KEEP:-}" ]; then
      rm -rf "$CORPUS_KEEP.$v" && cp -r "$W" "$CORPUS_KEEP.$v"
   fi
done
