#!/bin/sh
# passes: plain asan
# --readonly proven by shardsim's command log: every entry of the command table (listed by the binary's own `help`,
# so a new helper is covered without touching this file) runs its documented example under --readonly against
# shardsim --log-commands. The log must hold no command that changes the cluster, every entry that `help NAME` says
# is "refused under --readonly" must be refused (exit 2, the readonly message), and no read-only entry may be.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh

# The commands a server only reads with (first key of the command document, as shardsim logs it). Everything else
# is taken as mutating; aggregate is mutating when its pipeline has $out or $merge, profile unless its level is -1
# (only the reading form, getProfilingStatus's, asks for -1).
READS=" find aggregate count distinct listDatabases listCollections listIndexes listShards hello isMaster ismaster
 buildInfo buildinfo ping balancerStatus serverStatus getParameter getCmdLineOpts currentOp getShardVersion
 analyzeShardKey balancerCollectionStatus shardDrainingStatus checkMetadataConsistency connectionStatus endSessions
 getMore killCursors saslStart saslContinue dbStats listCommands hostInfo replSetGetStatus replSetGetConfig usersInfo
 rolesInfo "
READS=" $(echo $READS) " # one space between names, and around them

hs() { NO_COLOR=1 "$SHARDSH" --norc --quiet --dry-run --eval "$1" 2>&1; }

# entry names from the table, as help lists them: the first word of each indented line, "db.<collection>.x" as
# help NAME spells it ("db.collection.x")
names=$(hs 'help' | sed -n 's/^  \([^ (]*\).*/\1/p' | sed 's/^db\.<collection>\./db.collection./')
count=$(printf '%s\n' "$names" | grep -c .)
if [ "$count" -lt 50 ]; then
   fail "readonly_all/list" "help listed only $count entries: $(hs 'help' | head -5)"
   exit 0
fi
pass "readonly_all/list ($count entries from help)"

if ! sim_start --scenario demo --version 8.0 --log-commands "$TMPD/ro.log"; then
   fail "readonly_all/start" "shardsim did not start"
   exit 0
fi

covered=0
refused=0
for name in $names; do
   info=$(hs "help $name")
   example=$(printf '%s\n' "$info" | sed -n 's/^  example: //p' | head -1)
   case "$name" in
   sleep)
      skip "readonly_all/$name" "sends nothing and only waits"
      continue
      ;;
   exit | quit)
      skip "readonly_all/$name" "leaves the shell: interactive only, no example"
      continue
      ;;
   esac
   # "refused under --readonly": CMD_READONLY and CMD_CLIENT_ONLY unset; "... unless the command only reads":
   # readonly_if decides per call, so only the log check applies
   writes=no
   printf '%s\n' "$info" | grep -q '^  refused under --readonly$' && writes=yes
   printf '%s\n' "$info" | grep -q '^  refused under --readonly unless' && writes=depends
   if [ -z "$example" ]; then
      if [ "$writes" = no ]; then
         skip "readonly_all/$name" "the table gives no example to run (a read-only entry)"
      else
         fail "readonly_all/$name" "a writing entry without an example: $info"
      fi
      continue
   fi
   : > "$TMPD/ro.log"
   out=$(NO_COLOR=1 timeout 20 "$SHARDSH" --norc --quiet --readonly "$SIM_URI/test" --eval "$example" 2>&1 < /dev/null)
   rc=$?
   covered=$((covered + 1))
   if [ "$writes" = yes ]; then
      refused=$((refused + 1))
      if [ "$rc" = 2 ] && case "$out" in *"refused by --readonly"*) true ;; *) false ;; esac; then
         pass "readonly_all/$name refused"
      else
         fail "readonly_all/$name refused" "exit $rc: $(printf '%s' "$out" | head -c 300)"
      fi
   elif [ "$writes" = no ]; then
      # the example may call another helper first (sh.stopBalancer(); sh.waitForBalancerOff()): only a refusal of
      # this entry counts
      who=$(printf '%s\n' "$out" | sed -n 's/.*error: \([^ ]*\) changes the cluster: refused by --readonly.*/\1/p' | head -1)
      case "$name" in db.collection.*) mine=$(printf '%s' "$who" | sed 's/^db\.[^.]*\./db.collection./') ;; *) mine=$who ;; esac
      case "$mine" in
      "$name") fail "readonly_all/$name runs" "read-only entry refused: $(printf '%s' "$out" | head -c 300)" ;;
      *) if [ "$rc" = 124 ]; then fail "readonly_all/$name runs" "timed out"; else pass "readonly_all/$name runs (exit $rc)"; fi ;;
      esac
   fi
   bad=""
   cmds=$(sed -n 's/.*"cmd": { "\([^"]*\)".*/\1/p' "$TMPD/ro.log")
   for c in $cmds; do
      [ "$c" = profile ] && continue # judged by its level, below
      case "$READS" in *" $c "*) ;; *) bad="$bad $c" ;; esac
   done
   if grep '"cmd": { "aggregate"' "$TMPD/ro.log" | grep -q -E '"\$(out|merge)"'; then bad="$bad aggregate+\$out/\$merge"; fi
   if grep '"cmd": { "profile"' "$TMPD/ro.log" | grep -v -q -E '"profile" : (-1|\{ "\$numberInt" : "-1" \})[ ,}]'; then bad="$bad profile(level)"; fi
   if [ -n "$bad" ]; then
      fail "readonly_all/$name sends no write" "received:$bad for $example"
   else
      pass "readonly_all/$name sends no write ($(printf '%s\n' "$cmds" | grep -c .) commands)"
   fi
done
# a read entry that writes for some arguments: an aggregate with $out or $merge is refused like any write
for stage in '{$out: "ro_copy"}' '{$merge: {into: "ro_copy"}}'; do
   : > "$TMPD/ro.log"
   out=$(timeout 20 "$SHARDSH" --norc --quiet --readonly "$SIM_URI/app" --eval "db.users.aggregate([{\$match: {}}, $stage])" 2>&1)
   rc=$?
   check_eq "readonly_all/aggregate with $stage is refused" "2" "$rc"
   if grep -q -E '"\$(out|merge)"' "$TMPD/ro.log"; then
      fail "readonly_all/aggregate with $stage sends nothing" "received: $(grep -E '"\$(out|merge)"' "$TMPD/ro.log" | head -c 300)"
   else
      pass "readonly_all/aggregate with $stage sends nothing"
   fi
done
# the database-level aggregate too
: > "$TMPD/ro.log"
out=$(timeout 20 "$SHARDSH" --norc --quiet --readonly "$SIM_URI/app" --eval 'db.aggregate([{$documents: [{a: 1}]}, {$out: "ro_copy"}])' 2>&1)
check_eq "readonly_all/db.aggregate with \$out is refused" "2" "$?"
if [ -s "$TMPD/ro.log" ]; then
   fail "readonly_all/db.aggregate with \$out sends nothing" "received: $(head -c 300 "$TMPD/ro.log")"
else
   pass "readonly_all/db.aggregate with \$out sends nothing"
fi
# db.adminCommand / db.runCommand under --readonly: each read-only command name passes (first, last and in between
# of commands/admin.c's sorted list, as a document and as a string), names around them and writes are refused
hs_ro() { NO_COLOR=1 "$SHARDSH" --norc --quiet --dry-run --readonly --eval "$1" > /dev/null 2>&1; }
for c in aggregate analyzeShardKey buildInfo buildinfo getTransitionToDedicatedConfigServerStatus isMaster ismaster \
   isdbgrid ping validate whatsmyuri; do
   hs_ro "db.adminCommand({$c: 1})"
   check_eq "readonly_all/raw $c passes" "0" "$?"
   hs_ro "db.runCommand(\"$c\")"
   check_eq "readonly_all/raw \"$c\" passes" "0" "$?"
done
for c in aaa aggregatez insert getShardVersionX pingg zzz update validat; do
   hs_ro "db.adminCommand({$c: 1})"
   check_eq "readonly_all/raw $c is refused" "2" "$?"
done
# validate reads, but the manual's repair: true changes the collection and full: true locks it exclusively
# (fixMultikey rewrites index metadata): those forms are refused, the plain and background forms pass
for c in '{validate: "users", repair: true}' '{validate: "users", full: true}' '{validate: "users", fixMultikey: true}'; do
   hs_ro "db.getSiblingDB(\"app\").runCommand($c)"
   check_eq "readonly_all/raw $c is refused" "2" "$?"
done
for c in '{validate: "users"}' '{validate: "users", full: false, background: true}'; do
   hs_ro "db.getSiblingDB(\"app\").runCommand($c)"
   check_eq "readonly_all/raw $c passes" "0" "$?"
done
sim_stop
echo "readonly_all: $covered entries run ($refused expected refused), $((count - covered)) skipped"
