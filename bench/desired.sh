#!/bin/sh
# Bench for --diff / --apply (issue 34, docs/desired-state.md; not a timed test): on a shardsim cluster with data, a
# spec that puts two zone ranges on two shards; --diff --json's estimate of the chunks, documents and bytes the
# balancer would move is compared with what it then moves once --apply has run them (config.changelog's
# moveChunk.commit counts). The claim: the estimate of bytes agrees within 10 %. Exit 0 when it does, 1 when not, 2
# when the run could not be made.
#
#   sh bench/desired.sh                      7.0, 2000 documents
#   DESIRED_BENCH_VERSION=4.4 DESIRED_BENCH_DOCS=5000 sh bench/desired.sh
#
# Needs bin/shardsh and bin/shardsim (BINDIR=… to use another build).
cd "$(dirname "$0")/.." || exit 2
BINDIR=${BINDIR:-bin}
. tests/lib.sh

VERSION=${DESIRED_BENCH_VERSION:-7.0}
DOCS=${DESIRED_BENCH_DOCS:-2000}

cat > "$TMPD/spec.js" << 'JS'
// two zones on two shards; everything else as the cluster has it (fields left out are not managed)
{
  shards: { shard02: { zones: [ 'EU' ] }, shard03: { zones: [ 'US' ] } },
  collections: {
    'app.ev': {
      zones: [
        { zone: 'US', min: { ip: '017.' }, max: { ip: '018.' } },
        { zone: 'EU', min: { ip: '056.' }, max: { ip: '057.' } }
      ]
    }
  }
}
JS

# field NAME TEXT: the number after "NAME" : in TEXT (the last one: the plan line comes after the changes)
field() { printf '%s\n' "$2" | sed -n "s/.*\"$1\" : \([0-9]*\).*/\1/p" | tail -1; }

# moved: "docs bytes" of app.ev's moveChunk.commit entries
moved() {
   o=$("$SHARDSH" --norc --quiet --json "$SIM_URI" --eval 'db.getSiblingDB("config").changelog.aggregate([{$match: {what: "moveChunk.commit", ns: "app.ev"}}, {$group: {_id: null, docs: {$sum: "$details.counts.cloned"}, bytes: {$sum: "$details.counts.clonedBytes"}}}])' 2>&1)
   echo "$(field docs "$o") $(field bytes "$o")"
}

sim_start --version "$VERSION" --load "app.ev:location:$DOCS" --balancer-interval-ms 50 || exit 2
plan=$("$SHARDSH" --norc --quiet --json --diff "$TMPD/spec.js" "$SIM_URI" 2>&1)
rc=$?
if [ $rc != 3 ]; then
   echo "--diff exited $rc, expected 3 (drift): $plan"
   exit 2
fi
pchunks=$(field chunks "$plan")
pdocs=$(field docs "$plan")
pbytes=$(field bytes "$plan")
"$SHARDSH" --norc --quiet --yes --apply "$TMPD/spec.js" "$SIM_URI" > "$TMPD/apply.out" 2>&1 || {
   echo "--apply failed: $(cat "$TMPD/apply.out")"
   exit 2
}
i=0
got=""
while [ $i -lt 200 ]; do # up to 20 s for the balancer to settle
   got=$(moved)
   [ "${got%% *}" = "$pdocs" ] && break
   sleep 0.1
   i=$((i + 1))
done
gdocs=${got%% *}
gbytes=${got##* }
sim_stop
printf '%-8s %-8s %-14s %-14s %-14s %-14s\n' version chunks est_docs moved_docs est_bytes moved_bytes
printf '%-8s %-8s %-14s %-14s %-14s %-14s\n' "$VERSION" "$pchunks" "$pdocs" "${gdocs:-?}" "$pbytes" "${gbytes:-?}"
if [ -z "$gbytes" ] || [ "${gbytes:-0}" -le 0 ]; then
   echo "nothing was moved: the bench did not run"
   exit 2
fi
diff=$((pbytes > gbytes ? pbytes - gbytes : gbytes - pbytes))
if [ $((diff * 10)) -le "$gbytes" ]; then
   echo "estimate of bytes within 10 % of what moved ($diff bytes apart)"
   exit 0
fi
echo "estimate of bytes off by more than 10 % ($diff bytes apart)"
exit 1
