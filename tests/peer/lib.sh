# Shared by the mongosh comparisons (compare_sh_helpers.sh, compare_db_methods.sh): what counts as a client's own
# traffic in shardsim's --log-commands log, so both clients' command documents can be compared line for line.

# normalise LOG: the commands of a log slice, one { db, cmd } per line. Dropped as driver traffic: the handshake and
# monitoring hellos (and the node driver's round-trip pings every 10 s: a hello without a session, where the
# helpers' own hellos always carry one), mongosh's start-up queries (buildInfo unless KEEP_BUILDINFO=1, the
# atlascli aggregate, getParameter, atlasVersion, getLog), endSessions, getMore, killCursors, and the envelope (lsid,
# $clusterTime, txnNumber, $db). Values that depend on the moment or the client are replaced by placeholders: a new ObjectId _id of
# an insert, the changelog window ("yesterday") and sh.status's mongos window (newest ping - 60 s).
NORMALISE_JQ='select(.op == "OP_MSG")
      | .cmd as $c | ($c | keys_unsorted[0]) as $name
      | select(($name | IN("isMaster", "ismaster", "endSessions", "getMore", "killCursors",
                           "atlasVersion", "getParameter", "getLog")) | not)
      | select((($name | IN("buildInfo", "buildinfo")) | not) or ($keepbi == "1"))
      | select(($name == "hello" and ($c | has("helloOk") or has("topologyVersion") or has("client")
                                         or has("maxAwaitTimeMS") or (has("lsid") | not))) | not)
      | select(($name == "aggregate" and $c.aggregate == "atlascli") | not)
      | { db: .db, cmd: ($c | del(.lsid, ."$clusterTime", .txnNumber, ."$db")) }
      | if .cmd.insert then .cmd.documents |= map(if (._id | type) == "object" and (._id | has("$oid"))
                                                    then ._id = "<new ObjectId>" else . end) else . end
      | if .cmd.aggregate == "changelog" then .cmd.pipeline[0]["$match"].time["$gt"] = "<yesterday>" else . end
      | if .cmd.aggregate == "mongos" then .cmd.pipeline[0]["$match"].ping["$gt"] = "<newest ping - 60 s>" else . end
      | if .cmd.find == "mongos" and (.cmd.filter.ping | type) == "object" then .cmd.filter.ping["$gt"] = "<newest ping - 60 s>"
        else . end'
normalise() {
   jq -c --arg keepbi "${KEEP_BUILDINFO:-}" "$NORMALISE_JQ" "$1"
}

# One mongosh per shardsim, fed statement by statement: starting mongosh costs ~1.5 s of CPU, and the comparisons
# send a hundred statements per version. mongosh reads its standard input (a FIFO here) as a REPL does, one line at
# a time, and each statement is followed by a print of a marker, so mongosh_run returns once the statement's
# commands have all been answered.
# mongosh_open URI: starts it; sets MS_PID and MS_OUT (everything it prints).
mongosh_open() {
   MS_OUT="$TMPD/mongosh.$$.out"
   _fifo="$TMPD/mongosh.$$.in"
   rm -f "$_fifo" && mkfifo "$_fifo" || return 1
   : > "$MS_OUT"
   "$MONGOSH" "$1" --quiet < "$_fifo" > "$MS_OUT" 2>&1 &
   MS_PID=$!
   exec 7> "$_fifo"
}

# mongosh_run CODE [OUTFILE]: runs one line of code in the open mongosh and waits (at most 120 s) for it to end;
# OUTFILE gets what it printed. Returns 1 when mongosh died or timed out.
mongosh_run() {
   # the marker is unique even when callers run in subshells (a pipe into a while loop), which keep their own MS_N
   MS_N="$(date +%s%N).$$"
   _from=$(wc -c < "$MS_OUT")
   # first, what only a new mongosh process has: no hello result cached on any database (mongosh's helpers send one
   # hello per Database object and reuse its answer; shardsh's --eval, a new process per case, sends its own)
   _fresh='Object.values(db.getMongo()._databases).forEach((d) => { d._cachedHello = null; });'
   printf '%s\n%s\nprint("@@mongosh_run done %s")\n' "$_fresh" "$1" "$MS_N" >&7 || return 1
   _i=0
   until grep -q "@@mongosh_run done $MS_N\$" "$MS_OUT"; do
      if ! kill -0 "$MS_PID" 2> /dev/null || [ "$_i" -ge 6000 ]; then
         [ -n "${2:-}" ] && tail -c +$((_from + 1)) "$MS_OUT" > "$2"
         return 1
      fi
      sleep 0.02
      _i=$((_i + 1))
   done
   [ -n "${2:-}" ] && tail -c +$((_from + 1)) "$MS_OUT" | grep -v "@@mongosh_run done $MS_N\$" > "$2"
   return 0
}

# mongosh_close: ends the open mongosh (end of input) and waits for it.
mongosh_close() {
   exec 7>&-
   wait "$MS_PID" 2> /dev/null
   MS_PID=""
}

# mongosh_batch URI STMTS OUTDIR: one mongosh prints what `mongosh URI --eval STMT` would print for each line STMT of
# the file STMTS (an expression), into OUTDIR/N.out for line N (from 1): starting mongosh costs ~1.5 s of CPU, so one
# process runs them all, in order. print() formats a value with the writer --eval uses (cursors by their first
# batch, shell results as mongosh shows them); a thrown error prints as --eval prints it, "Name: message". One
# difference: print() keeps util.inspect's limits (6 levels, 100 array entries) where --eval prints every level and
# entry, so a plain value past them (tests/peer/compare_output_limits.sh's cases) needs a real --eval.
mongosh_batch() {
   printf '%s %s %s\n' "$1" "$2" "$3" > "$3/batch.list"
   mongosh_batches "$3/batch.list"
}

# mongosh_batches LIST: mongosh_batch for several batches in one mongosh process: each line of LIST is "URI STMTS
# OUTDIR" (no spaces in any of them), run in order, each after `db = connect(URI)` (the first on the URI mongosh
# starts with, without a connect), so a batch can have its own fresh shardsim (or another version's). Each batch
# starts with no deprecation warning shown yet, as a new mongosh process does (mongosh warns once per method).
mongosh_batches() {
   _js="$1.js"
   : > "$_js"
   _first=""
   while read -r _uri _stmts _dir; do
      if [ -z "$_first" ]; then
         _first=$_uri
      else
         printf 'db = connect("%s");\ndb.getMongo()._instanceState.warningsShown.clear();\n' "$_uri" >> "$_js"
      fi
      _n=0
      while IFS= read -r _s; do
         _n=$((_n + 1))
         printf 'print("@@mongosh_batch %s/%d.out");\ntry { print(%s); } catch (e) { print(e.name + ": " + e.message); }\n' \
            "$_dir" "$_n" "$_s" >> "$_js"
      done < "$_stmts"
   done < "$1"
   [ -n "$_first" ] || return 0
   "$MONGOSH" "$_first" --norc --quiet --file "$_js" > "$1.out" 2>&1 < /dev/null
   awk '/^@@mongosh_batch [^ ]+$/ { if (f) close(f); f = $2; printf "" > f; next } f { print > f }' "$1.out"
}

# ---- the command comparisons (compare_db_methods.sh, compare_sh_helpers.sh): each client on its own shardsim ----
# Each version's cases run twice, on two fresh shardsims started alike: shardsh (a new --eval process per case, as a
# user runs it) on one, and mongosh on the other, where one mongosh process runs every case of every version as a
# script (peer_mongosh_cases): a REPL fed line by line costs ~45 ms of CPU a statement, a script ~12 ms, and a
# mongosh start ~1 s. Each client sees the state its own earlier cases left, as a user running them would. A case's
# commands are the lines its client added to its shardsim's --log-commands log, cut by byte offsets (peer_slice).

# peer_mongosh_cases LIST: LIST holds one "URI LOG CASES DIR" per version (no spaces in any); CASES one case a line,
# "NAME<TAB>CODE" (NAME: no spaces or slashes). One mongosh runs them in order, each version after
# `db = connect(URI)` (the first on the URI mongosh starts with), each case as a new mongosh process would see it (no
# hello cached on any database, no deprecation warning shown yet) with the value of CODE printed by print(), as
# --eval prints it (a cursor by its first batch); a CODE of several statements joined by "; " has its last one's
# value printed. Writes DIR/NAME.out (what it printed) and adds "DIR/NAME FROM TO" to DIR/ranges: the byte offsets
# of LOG before and after the case. Returns mongosh's status.
peer_mongosh_cases() {
   _js="$1.js"
   printf 'const __fs = require("fs");\n' > "$_js"
   _first=""
   while read -r _uri _log _cases _dir; do
      : > "$_dir/ranges"
      if [ -z "$_first" ]; then
         _first=$_uri
      else
         printf 'db = connect("%s");\n' "$_uri" >> "$_js"
      fi
      printf 'db.getMongo()._instanceState.warningsShown.clear();\n' >> "$_js"
      while IFS='	' read -r _name _code; do
         case "$_code" in
         *'; '*) _pre="${_code%; *}; " _last=${_code##*; } ;;
         *) _pre="" _last=$_code ;;
         esac
         printf '%s\n' "print(\"@@case $_dir/$_name\");" "__m0 = __fs.statSync(\"$_log\").size;" \
            'Object.values(db.getMongo()._databases).forEach((d) => { d._cachedHello = null; });' \
            "try { $_pre print($_last); } catch (e) { print(e.name + \": \" + e.message); }" \
            "print(\"@@range $_dir/$_name \" + __m0 + \" \" + __fs.statSync(\"$_log\").size);" >> "$_js"
      done < "$_cases"
   done < "$1"
   [ -n "$_first" ] || return 0
   "$MONGOSH" "$_first" --norc --quiet --file "$_js" > "$1.out" 2>&1 < /dev/null
   _rc=$?
   awk '/^@@case [^ ]+$/ { if (f) close(f); f = $2 ".out"; printf "" > f; next }
      /^@@range [^ ]+ [0-9]+ [0-9]+$/ { if (f) close(f); f = ""; d = $2; sub("/[^/]*$", "", d)
         print $2, $3, $4 >> (d "/ranges"); next }
      f { print > f }' "$1.out"
   return "$_rc"
}

# peer_slice LOG RANGES SUFFIX: for each "BASE FROM TO" line of RANGES (byte offsets of LOG, in order), the lines of
# LOG in that span into BASE.SUFFIX (empty when none).
peer_slice() {
   LC_ALL=C awk -v sfx="$3" 'FNR == NR { n++; base[n] = $1; from[n] = $2; to[n] = $3; printf "" > ($1 "." sfx); next }
      { while (i <= n && pos >= to[i]) i++
        if (i <= n && pos >= from[i]) print >> (base[i] "." sfx)
        pos += length($0) + 1 }
      BEGIN { i = 1 }' "$2" "$1"
}

# peer_normalise SUFFIX FILES...: normalise (above) for many log slices with one jq: FILE's commands into
# FILE.SUFFIX (KEEP_BUILDINFO as for normalise).
peer_normalise() {
   _sfx=$1
   shift
   for _f in "$@"; do : > "$_f.$_sfx"; done
   [ $# -gt 0 ] || return 0
   jq -r --arg keepbi "${KEEP_BUILDINFO:-}" "($NORMALISE_JQ) | input_filename + \"\\t\" + tojson" "$@" |
      awk -F '\t' -v sfx="$_sfx" '{ print $2 > ($1 "." sfx) }'
}
