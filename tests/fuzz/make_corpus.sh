#!/bin/sh
# Refreshes the render fuzzer's seeds: starts shardsim --scenario demo, sends each command of tests/fuzz/replies.txt
# with tests/fuzz/capture_replies.c and keeps the raw reply bytes in tests/fuzz/corpus/render/reply-<name>.
# Run by hand after `make`; the seeds are committed, so `make fuzz` does not need it.
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
BINDIR=${BINDIR:-bin}
. tests/lib.sh
mkdir -p build/fuzz
cc -std=c11 -D_DEFAULT_SOURCE -D_GNU_SOURCE -Wall -Wextra -Werror -o build/fuzz/capture_replies tests/fuzz/capture_replies.c \
   $(pkg-config --cflags --libs libmongoc-1.0)
sim_start --scenario demo
tmp="$TMPD/replies"
mkdir -p "$tmp"
build/fuzz/capture_replies "$SIM_URI/?directConnection=true" "$tmp" < tests/fuzz/replies.txt
for f in "$tmp"/*; do cp "$f" "tests/fuzz/corpus/render/reply-$(basename "$f")"; done
