#!/bin/sh
# `make layers-check`: the layout's rules, checked from the sources. (1) Every project #include goes down the layer
# table below (or stays in its own folder); (2) no source file is over 1,000 lines; (3) no function is over 150 lines
# (mongo-c-driver style: the name at column 0, the body closed by a "}" at column 0). Prints each breach as
# file:line: what, and exits 1 when there is one. The table is the README's layout table.
cd "$(dirname "$0")/../.." || exit 2

# folder: the folders it may include from (besides itself)
LAYERS='
shell/lib:
shell/core: shell/lib
shell/lang: shell/core shell/lib
commands: shell/lang shell/core shell/lib
views/model: commands shell/core shell/lib
views: views/model shell/lib
shell/desired: commands shell/lang shell/core shell/lib
shell: shell/desired commands views views/model shell/lang shell/core shell/lib
tests/shardsim/query: shell/lib
tests/shardsim: tests/shardsim/query shell/lib
'
MAX_FILE=${MAX_FILE:-1000}
MAX_FUNC=${MAX_FUNC:-150}

SRCS=$(find shell commands views tests/shardsim tests/unit tests/fuzz bench -type f \
          \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) | sort)
fail=0

# (1) includes
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
done > build/.layers-includes 2>/dev/null || { mkdir -p build && : > build/.layers-includes; }
if [ -s build/.layers-includes ]; then cat build/.layers-includes; fail=1; fi

# (2) file length, (3) function length
for f in $SRCS; do
   awk -v f="$f" -v maxf="$MAX_FILE" -v maxfn="$MAX_FUNC" '
      /^[A-Za-z_][A-Za-z_0-9]* \(/ && !/;[ \t]*$/ { name = $1; start = FNR; pending = 1; infn = 0; next }
      pending && /^{/ { pending = 0; infn = 1; next }
      pending && /;[ \t]*$/ { pending = 0; next }
      infn && /^}/ { if (FNR - start + 1 > maxfn) printf "%s:%d: function %s is %d lines (limit %d)\n", f, start, name, FNR - start + 1, maxfn; infn = 0 }
      END { if (FNR > maxf) printf "%s:%d: file is %d lines (limit %d)\n", f, FNR, FNR, maxf }
   ' "$f"
done > build/.layers-sizes
if [ -s build/.layers-sizes ]; then cat build/.layers-sizes; fail=1; fi

if [ $fail = 0 ]; then
   echo "layers-check: $(echo "$SRCS" | wc -l) files: includes follow the layers, files <= $MAX_FILE lines, functions <= $MAX_FUNC lines"
fi
exit $fail
