#!/bin/sh
# passes: plain asan
# Cursors stream, as mongosh's do: against shardsim with 1,200 chunks and every command logged, printing a cursor
# sends one find and no more than its 20 documents need (with batchSize(5): find + 3 getMores of 5), "it" continues
# the same server cursor (after a JavaScript cursor and after a literal find typed in the REPL), toArray() reads
# everything, and a cursor left half-read is killed (killCursors of its id) when the script or the session ends.
cd "$(dirname "$0")/../.." || exit 2
. tests/lib.sh
case $SHARDSH in
/*) SH_ABS=$SHARDSH ;;
*) SH_ABS="$(pwd)/$SHARDSH" ;;
esac
LOG="$TMPD/cmd.log"

if ! sim_start --scenario large --large-chunks 1200 --log-commands "$LOG"; then
   fail "cursor/shardsim" "shardsim did not start"
   exit 0
fi

# count NEEDLE: how many logged commands hold NEEDLE (after the log was emptied)
count() { grep -F -c -- "$1" "$LOG"; }
# the cursor ids named by getMore or killCursors, one per line, in order
getmore_ids() { sed -n 's/.*"getMore" : { "$numberLong" : "\([0-9]*\)" }.*/\1/p' "$LOG"; }
killed_ids() { sed -n 's/.*"killCursors" : "chunks", "cursors" : \[ { "$numberLong" : "\([0-9]*\)" } \].*/\1/p' "$LOG"; }
run() { : > "$LOG"; NO_COLOR=1 "$SHARDSH" --norc --quiet "$SIM_URI" "$@" 2>&1; }

out=$(run --eval 'db.getSiblingDB("config").chunks.find()')
check_eq "cursor/--eval prints 20 documents and the hint" 'Type "it" for more' "$(echo "$out" | tail -1)"
check_eq "cursor/--eval of 1,200 documents sends one find" "1" "$(count '"find" : "chunks"')"
check_eq "cursor/--eval of a cursor sends no getMore for 20 documents" "0" "$(count '"getMore"')"
check_eq "cursor/--eval the open cursor is killed at exit" "1" "$(count '"killCursors" : "chunks"')"

out=$(run --eval 'db.getSiblingDB("config").chunks.find({}, {_id: 1}).batchSize(5)')
check_eq "cursor/batchSize(5) prints 20 documents" "20" "$(echo "$out" | grep -c "_id: ObjectId")"
check_eq "cursor/batchSize(5) is sent with find" "1" "$(count '"find" : "chunks", "filter" : {  }, "projection" : { "_id" : { "$numberInt" : "1" } }, "batchSize" : { "$numberInt" : "5" }')"
check_eq "cursor/batchSize(5): three getMores of 5 for 20 documents" "3" "$(count '"collection" : "chunks", "batchSize" : { "$numberInt" : "5" }')"
check_eq "cursor/batchSize(5): one cursor id for every getMore and the kill" "1" "$( (getmore_ids; killed_ids) | sort -u | wc -l)"

# a -f script shows results under --verbose (issue 18); its status line ("literal.js:1 ok ...") is left out here
echo 'db.getSiblingDB("config").chunks.find()' > "$TMPD/literal.js"
out=$(run --verbose "$TMPD/literal.js" | grep -v -E '\.js:[0-9]+ ok ')
check_eq "cursor/literal find prints 20 documents and the hint" 'Type "it" for more' "$(echo "$out" | tail -1)"
check_eq "cursor/literal find sends one find and no getMore" "1:0" "$(count '"find" : "chunks"'):$(count '"getMore"')"
check_eq "cursor/literal find's open cursor is killed at exit" "1" "$(count '"killCursors" : "chunks"')"

echo 'db.getSiblingDB("config").chunks.aggregate([{$project: {_id: 1}}], {batchSize: 7})' > "$TMPD/aggregate.js"
out=$(run --verbose "$TMPD/aggregate.js" | grep -v -E '\.js:[0-9]+ ok ')
check_eq "cursor/literal aggregate with batchSize 7 prints 20 and the hint" "20:Type \"it\" for more" \
   "$(echo "$out" | grep -c "_id: ObjectId"):$(echo "$out" | tail -1)"
check_eq "cursor/literal aggregate: its batchSize on two getMores for 20 documents" "2" \
   "$(count '"collection" : "chunks", "batchSize" : { "$numberInt" : "7" }')"

out=$(run --eval 'db.getSiblingDB("config").chunks.find({}, {_id: 1}).batchSize(100).toArray().length === db.getSiblingDB("config").chunks.countDocuments({})')
check_eq "cursor/toArray() reads every document" "true" "$out"
check_eq "cursor/toArray() reads them by getMore" "12" "$(count '"collection" : "chunks", "batchSize" : { "$numberInt" : "100" }')"

cat > "$TMPD/abandon.js" <<'JS'
const c = db.getSiblingDB("config").chunks.find().batchSize(5);
print(c.next() !== null);
for (let i = 0; i < 3; i++) db.getSiblingDB("config").chunks.find().batchSize(2).next();
JS
out=$(run "$TMPD/abandon.js" | grep -v -E '\.js:[0-9]+ ok ')
check_eq "cursor/abandoned cursors: the script runs" "true" "$out"
check_eq "cursor/abandoned cursors are killed (killCursors of each)" "4" "$(killed_ids | sort -u | wc -l)"
check_eq "cursor/abandoned cursors: no getMore was needed" "0" "$(count '"getMore"')"

# cursors dropped in a loop that makes garbage: the collector finalizes them and the shell kills their server
# cursors while the script still runs (before the ping that ends it), not only at exit
cat > "$TMPD/gc.js" <<'JS'
for (let i = 0; i < 300; i++) {
   db.getSiblingDB("config").chunks.find().batchSize(2).next();
   const junk = [];
   for (let j = 0; j < 2000; j++) junk.push({a: j, b: "x".repeat(50)});
}
db.adminCommand({ping: 1});
print("done");
JS
out=$(run "$TMPD/gc.js" | grep -v -E '\.js:[0-9]+ ok ')
before=$(sed -n '/"ping" :/q;p' "$LOG" | grep -c '"killCursors" : "chunks"')
check_eq "cursor/collected cursors: the script runs" "done" "$out"
if [ "$before" -gt 0 ]; then
   pass "cursor/collected cursors are killed while the script runs ($before before its end)"
else
   fail "cursor/collected cursors are killed while the script runs" "no killCursors before the end"
fi
check_eq "cursor/collected cursors: every cursor killed by the end" "300" "$(killed_ids | sort -u | wc -l)"

if ! command -v tmux > /dev/null 2>&1; then
   skip "cursor/repl" "tmux is not installed"
   exit 0
fi
T="tmux -S $TMPD/tmux.sock"
screen() { $T capture-pane -t repl -p -S -400 2>/dev/null; }
wait_for() {
   i=0
   while [ $i -lt 80 ]; do
      [ "$(screen | grep -c -- "$1")" -ge "${2:-1}" ] && return 0
      sleep 0.1
      i=$((i + 1))
   done
   return 1
}
: > "$LOG"
$T new-session -d -s repl -x 150 -y 50 "SHARDSH_HISTFILE=$TMPD/hist NO_COLOR=1 $SH_ABS --norc $SIM_URI; echo EXITED=\$?; sleep 30"
wait_for 'test>' || fail "cursor/repl starts" "$(screen | tail -3)"
$T send-keys -t repl 'var c = db.getSiblingDB("config").chunks.find({}, {_id: 1}).batchSize(5); c' Enter
wait_for 'Type "it" for more' || fail "cursor/repl a cursor prints its first 20" "$(screen | tail -5)"
$T send-keys -t repl 'it' Enter
wait_for 'Type "it" for more' 2 || fail "cursor/repl it prints the next 20" "$(screen | tail -5)"
check_eq "cursor/repl it sends getMores on the same cursor (3 + 4)" "7:1" "$(getmore_ids | wc -l):$(getmore_ids | sort -u | wc -l)"
check_eq "cursor/repl it sends no new find" "1" "$(count '"find" : "chunks"')"
: > "$LOG"
# a literal find: 20 of the server's first batch of 101 printed; five "it" use the rest, the sixth needs a getMore
$T send-keys -t repl 'db.getSiblingDB("config").chunks.find({}, {_id: 1}).sort({_id: 1})' Enter
wait_for 'Type "it" for more' 3 || fail "cursor/repl a literal find prints its first 20" "$(screen | tail -5)"
for i in 1 2 3 4 5 6; do
   $T send-keys -t repl 'it' Enter
   wait_for 'Type "it" for more' $((3 + i)) || fail "cursor/repl it after a literal find ($i)" "$(screen | tail -5)"
done
check_eq "cursor/repl it continues a literal find: one find, one getMore" "1:1" "$(count '"find" : "chunks"'):$(count '"getMore"')"
$T send-keys -t repl 'exit' Enter
wait_for 'EXITED=0' || fail "cursor/repl exit" "$(screen | tail -5)"
# the literal cursor's getMore (no batchSize) brought the rest and closed it; c, still open, is killed at exit
check_eq "cursor/repl exit kills the cursor left open (c), not the finished one" "1:0" \
   "$(killed_ids | sort -u | wc -l):$(killed_ids | grep -c -F "$(getmore_ids | head -1)")"
$T kill-server 2>/dev/null
