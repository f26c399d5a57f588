#!/bin/sh
# Bench for sh.adviseShardKey (not a timed test): for each collection size, loads a shardsim collection with
# bench/advisor_load.c and measures the advisor's wall time and shardsh's peak memory (max RSS) with a fixed sample
# size. The claim it checks: time and memory follow the sample size, not the collection size (target: 1,000,000
# documents in under 2 s). The wall time includes the simulator's own work (count, $sample over every document).
#
#   sh bench/advisor.sh                      sizes 10000 20000 40000, sample 1000
#   ADVISOR_BENCH_SIZES="1000000" sh bench/advisor.sh
#   ADVISOR_BENCH_SAMPLE=5000 sh bench/advisor.sh
#
# Needs bin/shardsh and bin/shardsim (BINDIR=… to use another build) and /usr/bin/time.
cd "$(dirname "$0")/.." || exit 2
BINDIR=${BINDIR:-bin}
. tests/lib.sh

SIZES=${ADVISOR_BENCH_SIZES:-"10000 20000 40000"}
SAMPLE=${ADVISOR_BENCH_SAMPLE:-1000}
LOADER="$TMPD/advisor_load"
cc -std=c11 -D_DEFAULT_SOURCE -O2 -o "$LOADER" bench/advisor_load.c $(pkg-config --cflags --libs libmongoc-1.0) -lm ||
   exit 2

printf '%-10s %-8s %-10s %-12s %-14s %s\n' docs sample load_s advise_s shardsh_rss_kb candidates
for n in $SIZES; do
   sim_start --version 6.0 --scenario empty --shards 3 || exit 2
   t0=$(date +%s.%N)
   "$LOADER" "$SIM_URI" app events "$n" 20000 > "$TMPD/load.out" 2>&1 || {
      echo "load failed: $(head -c 300 "$TMPD/load.out")"
      exit 2
   }
   t1=$(date +%s.%N)
   /usr/bin/time -f "%e %M" -o "$TMPD/time.out" "$SHARDSH" --norc --quiet "$SIM_URI" \
      --eval "sh.adviseShardKey(\"app.events\", null, {sampleSize: $SAMPLE, analyzeShardKey: false})" > "$TMPD/advise.out" 2>&1
   read -r secs rss < "$TMPD/time.out"
   cands=$(grep -c -E '^[0-9]+\. ' "$TMPD/advise.out")
   printf '%-10s %-8s %-10.2f %-12s %-14s %s\n' "$n" "$SAMPLE" "$(echo "$t1 - $t0" | bc)" "$secs" "$rss" "$cands"
   sim_stop
done
