#!/bin/sh
# `make layers-check`: the layout's rules, checked from the sources and the build. (1) Every project #include goes
# down the layer table below (or stays in its own folder); (2) no circle among the product's files: no file calls a
# function of a file that calls back into it, directly or round a longer loop (read from the build's objects with nm,
# so the check fails when it cannot see them); (3) no source file is over 1,000 lines; (4) no function is over 150
# lines (mongo-c-driver style: the name at column 0, the body closed by a "}" at column 0); (5) nothing at the top
# of the tree but the entries of the root allow-list; (6) shardsim's files call no function of a floor above their
# own (SIM_FLOORS, from the objects too). Prints each breach as file:line: what and exits 1 when there is
# one, 2 when it cannot check. The table is the README's layout table. BUILD names the build (default build).
cd "$(dirname "$0")/../.." || exit 2
BUILD=${BUILD:-build}

# folder: the folders it may include from (besides itself)
LAYERS='
shell/lib:
shell/core: shell/lib
shell/lang: shell/core shell/lib
commands: shell/lang shell/core shell/lib
shell/plan: commands shell/lang shell/core shell/lib
shell/js: shell/plan commands shell/lang shell/core shell/lib
views/model: commands shell/core shell/lib
views: views/model shell/lib
shell/desired: commands shell/lang shell/core shell/lib
shell: shell/desired shell/js shell/plan commands views views/model shell/lang shell/core shell/lib
tests/shardsim/query: shell/lib
tests/shardsim: tests/shardsim/query shell/lib
'
# shardsim's floors, lowest first (a floor: its files): a file may call functions of its own floor and of the floors
# below, never of one above (read from the objects as the circle check reads them). Every tests/shardsim file has a
# floor; the query engine (tests/shardsim/query) is below them all. The upward calls that exist are listed in
# SIM_UP with why, so they are known and a new one fails.
SIM_FLOORS='
base: sim_state sim_reply sim_stop sim_fault sim_log sim_auth
catalog: sim_store sim_index sim_ctab sim_config sim_admin sim_chunk sim_zone sim_crud sim_write sim_distrib
operations: sim_balancer sim_balpolicy sim_migrate sim_split sim_drain sim_shards sim_reshard sim_shardcoll sim_ddlcheck sim_mfail
commands: sim_cmds sim_hello sim_meta sim_analyze sim_aggregate sim_ddl sim_rename sim_topology sim_balset sim_datasize sim_collstats sim_shstats sim_explain sim_usermgmt sim_roles sim_authinfo sim_settings
drivers: sim_workload sim_dyn sim_scenario
network: sim_wire sim_tls sim_server
main: sim_main
'
# caller>callee: why (the chunk table asks the balancer which chunks a migration holds; the command table names the
# simWorkload handler, which lives beside the workload it drives)
SIM_UP='sim_ctab>sim_balancer sim_cmds>sim_workload'
# what may sit at the top of the tree (tracked or not ignored): anything else is litter
ROOT_ALLOW='.ci .clang-format .gitignore Makefile README.md bench commands docs shell tests views'
MAX_FILE=${MAX_FILE:-1000}
MAX_FUNC=${MAX_FUNC:-150}

out=$(mktemp -d) || { echo "layers-check: cannot make a temporary folder" >&2; exit 2; }
trap 'rm -rf "$out"' EXIT
SRCS=$(find shell commands views tests/shardsim tests/unit tests/fuzz bench -type f \
          \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) | sort)
[ -n "$SRCS" ] || { echo "layers-check: no sources found" >&2; exit 2; }
fail=0

# (1) includes; a folder missing from the table may include nothing of the project
for f in $(echo "$SRCS" | grep -v '^tests/unit/\|^tests/fuzz/\|^bench/'); do
   dir=$(dirname "$f")
   allowed=$(echo "$LAYERS" | awk -F': *' -v d="$dir" '$1 == d { print $2 }')
   grep -n '^#include "' "$f" | while IFS= read -r line; do
      n=${line%%:*}
      inc=$(echo "$line" | sed 's/^[0-9]*:#include "\([^"]*\)".*/\1/')
      idir=$(dirname "$inc")
      ok=0
      [ "$idir" = "$dir" ] && ok=1
      for a in $allowed; do [ "$idir" = "$a" ] && ok=1; done
      if [ $ok = 0 ]; then
         echo "$f:$n: $dir may not include $inc (allowed: ${allowed:-nothing of the project})"
      fi
   done
done > "$out/includes" || { echo "layers-check: cannot write $out/includes" >&2; exit 2; }
if [ -s "$out/includes" ]; then cat "$out/includes"; fail=1; fi

# (2) circles: an edge a -> b when a's object needs a function b's object defines (data, such as the command table's
# entries, is not a call); the product's files (shell, commands, views) from the build, every one of them required
PROD=$(echo "$SRCS" | grep '^\(shell\|commands\|views\)/.*\.c$')
for f in $PROD; do
   o="$BUILD/${f%.c}.o"
   if [ ! -f "$o" ]; then
      echo "layers-check: cannot see the build: $o is missing (build first: make binaries)" >&2
      exit 2
   fi
   nm "$o" | awk -v f="$f" '$1 == "U" { print "U", f, $2 } $2 == "T" { print "T", f, $3 }'
done > "$out/syms" || { echo "layers-check: nm failed" >&2; exit 2; }
awk '
   $1 == "T" { def[$3] = $2; next }
   { use[NR] = $2; sym[NR] = $3 }
   END {
      for (i in use) if ((sym[i] in def) && def[sym[i]] != use[i]) edge[use[i] SUBSEP def[sym[i]]] = 1
      for (e in edge) { split(e, ab, SUBSEP); out[ab[1]] = out[ab[1]] " " ab[2] }
      # a file is on a circle when it can reach itself: a depth-first walk from each file
      for (a in out) {
         delete seen; n = split(out[a], stack, " "); top = n; path = ""
         while (top > 0) {
            b = stack[top--]
            if (b == a) { circ[a] = 1; break }
            if (b in seen) continue
            seen[b] = 1
            m = split(out[b], nx, " ")
            for (k = 1; k <= m; k++) stack[++top] = nx[k]
         }
      }
      for (a in circ) {
         m = split(out[a], nx, " "); back = ""
         for (k = 1; k <= m; k++) if (nx[k] in circ) back = back " " nx[k]
         printf "%s:1: on a circle: it calls%s, which call back into it\n", a, back
      }
   }
' "$out/syms" | sort > "$out/circles"
if [ -s "$out/circles" ]; then cat "$out/circles"; fail=1; fi

# (6) shardsim's floors: each file's floor number, then every call edge between two of its files that goes up
SIMS=$(echo "$SRCS" | grep '^tests/shardsim/.*\.c$')
for f in $SIMS; do
   o="$BUILD/${f%.c}.o"
   if [ ! -f "$o" ]; then
      echo "layers-check: cannot see the build: $o is missing (build first: make binaries)" >&2
      exit 2
   fi
   b=$(basename "$f" .c)
   nm "$o" | awk -v f="$b" '$1 == "U" { print "U", f, $2 } $2 == "T" { print "T", f, $3 }'
done > "$out/simsyms" || { echo "layers-check: nm failed" >&2; exit 2; }
echo "$SIM_FLOORS" | awk -F': *' 'NF == 2 { n++; k = split($2, fs, " "); for (i = 1; i <= k; i++) print fs[i], n }' \
   > "$out/floors"
for f in $SIMS; do
   case "$f" in tests/shardsim/query/*) continue ;; esac
   b=$(basename "$f" .c)
   grep -q "^$b " "$out/floors" || echo "$f:1: no shardsim floor (tests/layout/check.sh's SIM_FLOORS)"
done > "$out/simfloor"
awk -v up="$SIM_UP" '
   FNR == NR { floor[$1] = $2; next }
   $1 == "T" { def[$3] = $2; next }
   { use[++n] = $2; sym[n] = $3 }
   END {
      k = split(up, ups, " "); for (i = 1; i <= k; i++) known[ups[i]] = 1
      for (i = 1; i <= n; i++) {
         a = use[i]; if (!(sym[i] in def)) continue; b = def[sym[i]]
         fa = (a in floor) ? floor[a] : 0; fb = (b in floor) ? floor[b] : 0
         if (fb > fa && !((a ">" b) in known) && !((a SUBSEP b) in said)) {
            said[a, b] = 1
            printf "tests/shardsim/%s.c:1: calls %s of %s, a floor above it (SIM_FLOORS)\n", a, sym[i], b
         }
      }
   }
' "$out/floors" "$out/simsyms" >> "$out/simfloor"
if [ -s "$out/simfloor" ]; then cat "$out/simfloor"; fail=1; fi

# (3) file length, (4) function length
for f in $SRCS; do
   awk -v f="$f" -v maxf="$MAX_FILE" -v maxfn="$MAX_FUNC" '
      /^[A-Za-z_][A-Za-z_0-9]* \(/ && !/;[ \t]*$/ { name = $1; start = FNR; pending = 1; infn = 0; next }
      pending && /^{/ { pending = 0; infn = 1; next }
      pending && /;[ \t]*$/ { pending = 0; next }
      infn && /^}/ { if (FNR - start + 1 > maxfn) printf "%s:%d: function %s is %d lines (limit %d)\n", f, start, name, FNR - start + 1, maxfn; infn = 0 }
      END { if (FNR > maxf) printf "%s:%d: file is %d lines (limit %d)\n", f, FNR, FNR, maxf }
   ' "$f"
done > "$out/sizes" || { echo "layers-check: cannot write $out/sizes" >&2; exit 2; }
if [ -s "$out/sizes" ]; then cat "$out/sizes"; fail=1; fi

# (5) the root allow-list, from git when this is a checkout (tracked files and untracked ones not ignored)
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
   roots=$(git ls-files --cached --others --exclude-standard | cut -d/ -f1 | sort -u)
else
   roots=$(ls -A | grep -v '^\(bin\|build\|build-.*\|\.cache\|\.git\)$')
fi
for r in $roots; do
   case " $ROOT_ALLOW " in
   *" $r "*) ;;
   *) echo "$r:1: not allowed at the top of the tree (tests/layout/check.sh's ROOT_ALLOW)"; fail=1 ;;
   esac
done

if [ $fail = 0 ]; then
   echo "layers-check: $(echo "$SRCS" | wc -l) files: includes follow the layers, no circle among $(echo "$PROD" | wc -w) objects, files <= $MAX_FILE lines, functions <= $MAX_FUNC lines, root as allowed, shardsim's $(echo "$SIMS" | wc -w) files on their floors"
fi
exit $fail
