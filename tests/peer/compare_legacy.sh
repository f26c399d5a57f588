#!/bin/sh
# passes: plain
# Peer check of issue 29's legacy collection methods, cursors and explain: what each statement prints through shardsh --eval
# and through mongosh 2.12 (one mongosh for every batch and version: tests/peer/lib.sh's mongosh_batches), each client against
# its own fresh shardsim --scenario demo so both see the same data. mongosh prints its deprecation warnings with
# print() on stdout; shardsh writes them on stderr (docs/javascript.md): they are taken out of mongosh's output and
# must be on shardsh's stderr. The writes both send to the scratch database must be the same (and the legacy
# methods' requests are compared again by compare_db_methods.sh).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/lib.sh
. tests/peer/lib.sh

ensure_mongosh legacy-peer || exit 0

# one statement a line, run in this order (later ones see earlier writes); the scratch.bw ones are failing bulks:
# unordered sends every batch and throws every write error with the result (the driver's MongoBulkWriteError),
# ordered stops after the failing batch
cat > "$TMPD/legacy.stmts" <<'JS'
db.getSiblingDB("config").settings.update({_id: "balancer"}, {$set: {stopped: true}}, true)
db.getSiblingDB("config").settings.update({_id: "balancer"}, {$set: {stopped: true}}, {upsert: true})
db.getSiblingDB("config").settings.findOne({_id: "balancer"})
db.getSiblingDB("scratch").notes.insert({_id: 1, a: 1})
db.getSiblingDB("scratch").notes.insert([{_id: 2}, {_id: 3, a: 2}])
db.getSiblingDB("scratch").notes.update({_id: 2}, {$set: {b: 1}})
db.getSiblingDB("scratch").notes.update({}, {$set: {c: 1}}, {multi: true})
db.getSiblingDB("scratch").notes.update({_id: 9}, {$set: {c: 2}}, {upsert: true})
db.getSiblingDB("scratch").notes.update({_id: 1}, {z: 1})
db.getSiblingDB("scratch").notes.findAndModify({query: {_id: 1}, update: {$inc: {n: 1}}, new: true})
db.getSiblingDB("scratch").notes.findAndModify({query: {_id: 1}, update: {$inc: {n: 1}}, fields: {n: 1}})
db.getSiblingDB("scratch").notes.findAndModify({query: {_id: 77}, update: {$inc: {n: 1}}})
db.getSiblingDB("scratch").notes.findAndModify({query: {_id: 3}, remove: true, sort: {_id: 1}, fields: {a: 1}})
db.getSiblingDB("scratch").notes.findAndModify({query: {_id: 2}, update: {b: 5}, new: true, upsert: true, fields: {b: 1}})
db.getSiblingDB("scratch").notes.findAndModify({query: {_id: 2}, update: [{$set: {p: 1}}], new: true})
db.getSiblingDB("scratch").notes.findAndModify({query: {_id: 2}})
db.getSiblingDB("scratch").notes.ensureIndex({a: 1})
db.getSiblingDB("scratch").notes.ensureIndex({a: 1, c: -1}, {name: "ac"})
db.getSiblingDB("scratch").notes.bulkWrite([{insertOne: {document: {_id: 31}}}, {insertOne: {document: {_id: 32}}}, {updateOne: {filter: {_id: 31}, update: {$set: {a: 1}}}}, {updateMany: {filter: {}, update: {$set: {b: 1}}, upsert: true}}, {replaceOne: {filter: {_id: 37}, replacement: {x: 1}, upsert: true}}, {deleteOne: {filter: {_id: 32}}}, {insertOne: {document: {_id: 33}}}, {deleteMany: {filter: {x: 5}}}])
db.getSiblingDB("scratch").notes.bulkWrite([{insertOne: {document: {_id: 41}}}, {deleteOne: {filter: {_id: 41}}}, {insertOne: {document: {_id: 42}}}, {updateOne: {filter: {_id: 42}, update: {$set: {a: 1}}}}], {ordered: false})
db.getSiblingDB("scratch").notes.bulkWrite([{insertOne: {document: {_id: 1}}}])
(() => { const b = db.getSiblingDB("scratch").bk.initializeOrderedBulkOp(); b.insert({_id: 1}); b.insert({_id: 2}); b.find({_id: 1}).upsert().updateOne({$set: {a: 1}}); b.find({_id: 5}).upsert().replaceOne({r: 1}); b.find({_id: 2}).remove(); b.find({}).update({$set: {z: 1}}); return b.execute(); })()
(() => { const u = db.getSiblingDB("scratch").bk.initializeUnorderedBulkOp(); u.find({_id: 9}).removeOne(); u.insert({_id: 9}); u.find({_id: 9}).collation({locale: "en"}).updateOne({$inc: {n: 1}}); return u.execute({w: 1}); })()
db.getSiblingDB("scratch").notes.find().sort({_id: 1}).toArray()
(() => { try { const r = db.getSiblingDB("scratch").bw.bulkWrite([{insertOne: {document: {_id: 1}}}, {insertOne: {document: {_id: 1}}}, {updateOne: {filter: {_id: 60}, update: {$set: {a: 1}}, upsert: true}}, {insertOne: {document: {_id: 2}}}, {updateOne: {filter: {_id: 62}, update: {$set: {a: 1}}, upsert: true}}, {deleteOne: {filter: {_id: 2}}}], {ordered: false}); return r } catch (e) { return [e.name, e.code, e.message, Object.assign({}, e.result), e.writeErrors.map(w => [w.index, w.code, w.getOperation()])] } })()
(() => { try { const r = db.getSiblingDB("scratch").bw.bulkWrite([{insertOne: {document: {_id: 3}}}, {updateOne: {filter: {_id: 3}, update: {$set: {b: 1}}}}, {insertOne: {document: {_id: 3}}}, {insertOne: {document: {_id: 4}}}, {deleteMany: {filter: {_id: 60}}}]); return r } catch (e) { return [e.name, e.code, Object.assign({}, e.result), e.writeErrors.length] } })()
(() => { const u = db.getSiblingDB("scratch").bw.initializeUnorderedBulkOp(); u.insert({_id: 4}); u.find({_id: 70}).upsert().updateOne({$set: {c: 1}}); u.insert({_id: 5}); u.find({_id: 1}).remove(); try { const r = u.execute(); return r } catch (e) { return [e.name, Object.assign({}, e.result), e.writeErrors.map(w => [w.index, w.errmsg])] } })()
db.getSiblingDB("scratch").bw.find().sort({_id: 1}).toArray()
(() => { const c = db.getSiblingDB("scratch").dw; c.count(); c.count({a: 1}); c.remove({_id: 99}); c.remove({_id: 98}); c.insert({_id: 1}); c.insert({_id: 2}); c.update({_id: 1}, {$set: {a: 1}}); c.update({_id: 2}, {$set: {a: 1}}); return c.count() })()
JS
# cursors (7.0+: checkMetadataConsistency)
cat > "$TMPD/cursor.stmts" <<'JS'
sh.checkMetadataConsistency()
db.getSiblingDB("app").checkMetadataConsistency()
db.getSiblingDB("app").users.checkMetadataConsistency()
sh.checkMetadataConsistency().toArray()
sh.checkMetadataConsistency().itcount()
sh.checkMetadataConsistency().hasNext()
sh.getShardedDataDistribution().map(d => d.ns).toArray()
sh.getShardedDataDistribution().itcount()
db.getSiblingDB("admin").aggregate([{$shardedDataDistribution: {}}, {$sort: {ns: 1}}]).next().ns
db.getSiblingDB("admin").aggregate([{$currentOp: {}}, {$match: {nothing: 1}}])
db.getSiblingDB("admin").aggregate([{$currentOp: {}}, {$match: {nothing: 1}}]).toArray()
sh.stopBalancer() && sh.getShardedDataDistribution().toArray().length
JS
# explain through shardsim's mongos (the router's serverInfo and $clusterTime differ between the two shardsims; JSON
# text, as print() would cut the plans' depth; without the Long totalChildMillis, which JSON.stringify writes
# differently: issue 29 item 5)
cat > "$TMPD/explain.stmts" <<'JS'
JSON.stringify(db.getSiblingDB("app").users.find({uid: 5}).explain().queryPlanner)
(e => { delete e.executionStages.totalChildMillis; return JSON.stringify(e); })(db.getSiblingDB("app").users.find({uid: {$gt: 5}}).sort({uid: 1}).limit(3).explain("executionStats").executionStats)
JSON.stringify(db.getSiblingDB("app").users.explain().find({uid: {$lt: 3}}).projection({uid: 1}).explain().queryPlanner.winningPlan)
db.getSiblingDB("app").orders.explain("executionStats").count({}).executionStats.executionStages.shards.map(s => s.shardName)
JSON.stringify(db.getSiblingDB("app").users.explain().distinct("uid", {uid: 3}).queryPlanner)
Object.keys(db.getSiblingDB("app").users.find().explain(true))
Object.keys(db.getSiblingDB("app").users.find().explain("executionStats").executionStats)
(e => [e.queryPlanner.winningPlan.stage, e.queryPlanner.winningPlan.shards.map(s => [s.shardName, s.winningPlan.stage, s.winningPlan.inputStage.stage])])(db.getSiblingDB("app").users.explain().findAndModify({query: {uid: 3}, update: {$inc: {n: 1}}, new: true}))
(e => [e.executionStats.executionStages.stage, e.executionStats.executionStages.shards.map(s => s.executionStages.stage)])(db.getSiblingDB("app").users.explain("executionStats").findOneAndDelete({uid: 4}))
Object.keys(db.getSiblingDB("app").users.explain().findOneAndReplace({uid: 4}, {b: 1}))
db.getSiblingDB("app").users.aggregate([{$match: {uid: 5}}]).explain()
JS

# mongosh's side first: every batch of both versions in one mongosh (tests/peer/lib.sh's mongosh_batches), each
# batch against its own fresh shardsim, whose command log is read once it has stopped
BATCHES="legacy:4.4 explain:4.4 legacy:8.0 explain:8.0 cursor:8.0"
: > "$TMPD/batches"
for b in $BATCHES; do
   label=${b%:*} v=${b#*:}
   mkdir -p "$TMPD/$label.$v.m"
   if ! sim_start --scenario demo --version "$v" --log-commands "$TMPD/$label.$v.m.log"; then
      fail "legacy-peer/$label.$v" "shardsim did not start"
      continue
   fi
   sim_keep
   : > "$TMPD/$label.$v.m/started"
   echo "$SIM_URI/test $TMPD/$label.stmts $TMPD/$label.$v.m" >> "$TMPD/batches"
done
mongosh_batches "$TMPD/batches"
sims_stop

# check_batch LABEL VERSION STMTS: every statement of STMTS through shardsh, outputs compared line by line
check_batch() {
   label=$1 v=$2 stmts=$3
   mkdir -p "$TMPD/$label.s"
   [ -f "$TMPD/$label.$v.m/started" ] || return
   if ! sim_start --scenario demo --version "$v" --log-commands "$TMPD/$label.$v.s.log"; then
      fail "legacy-peer/$label.$v" "shardsim did not start"
      return
   fi
   n=0
   while IFS= read -r s; do
      n=$((n + 1))
      NO_COLOR=1 "$SHARDSH" --norc --quiet --yes "$SIM_URI/test" --eval "$s" > "$TMPD/$label.s/$n.out" \
         2> "$TMPD/$label.s/$n.err" < /dev/null
   done < "$stmts"
   sim_stop
   n=0
   while IFS= read -r s; do
      n=$((n + 1))
      m="$TMPD/$label.$v.m/$n.out"
      grep -v '^DeprecationWarning: ' "$m" > "$m.values"
      # a thrown error: mongosh's print shows "Name: message", shardsh's --eval the same message at file:line:col
      if grep -q '^[A-Za-z]*Error: ' "$m.values"; then
         msg=$(sed -n 's/^[A-Za-z]*Error: //p' "$m.values" | head -n 1)
         if grep -qF "$msg" "$TMPD/$label.s/$n.err"; then
            pass "legacy-peer/$label.$v.$n fails as mongosh does"
         else
            fail "legacy-peer/$label.$v.$n fails as mongosh does" "$s: mongosh: $msg; shardsh: $(head -c 300 "$TMPD/$label.s/$n.err")"
         fi
      elif cmp -s "$m.values" "$TMPD/$label.s/$n.out"; then
         pass "legacy-peer/$label.$v.$n prints what mongosh prints"
      else
         fail "legacy-peer/$label.$v.$n prints what mongosh prints" \
            "$s: $(diff "$m.values" "$TMPD/$label.s/$n.out" | head -10 | tr '\n' '|')"
      fi
      grep '^DeprecationWarning: ' "$m" | while IFS= read -r w; do
         if grep -qxF "$w" "$TMPD/$label.s/$n.err"; then
            pass "legacy-peer/$label.$v.$n warns on stderr as mongosh warns"
         else
            fail "legacy-peer/$label.$v.$n warns on stderr as mongosh warns" "$s: no '$w' in $(head -c 200 "$TMPD/$label.s/$n.err")"
         fi
      done
      # each warning once a session (mongosh's printDeprecationWarning; its batch is one session, so it warns once for
      # all its statements, and each shardsh --eval is a session of its own)
      if grep -q '^DeprecationWarning: ' "$TMPD/$label.s/$n.err"; then
         twice=$(grep '^DeprecationWarning: ' "$TMPD/$label.s/$n.err" | sort | uniq -d | head -n 1)
         if [ -z "$twice" ]; then
            pass "legacy-peer/$label.$v.$n warns once a session"
         else
            fail "legacy-peer/$label.$v.$n warns once a session" "$s: twice: $twice"
         fi
      fi
   done < "$stmts"
   # the writes both clients sent to scratch, in order (shardsh's pre-flight reads config.*, which is left out)
   for who in m s; do
      normalise "$TMPD/$label.$v.$who.log" | jq -c 'select(.db == "scratch" and (.cmd | keys_unsorted[0] |
         IN("insert", "update", "delete", "findAndModify", "createIndexes")))' > "$TMPD/$label.$v.$who.writes"
   done
   if [ ! -s "$TMPD/$label.$v.m.writes" ]; then
      pass "legacy-peer/$label.$v writes nothing to scratch, as mongosh"
   elif cmp -s "$TMPD/$label.$v.m.writes" "$TMPD/$label.$v.s.writes"; then
      pass "legacy-peer/$label.$v sends the writes mongosh sends"
   else
      fail "legacy-peer/$label.$v sends the writes mongosh sends" \
         "$(diff "$TMPD/$label.$v.m.writes" "$TMPD/$label.$v.s.writes" | head -8 | cut -c1-300 | tr '\n' '|')"
   fi
}

for v in 4.4 8.0; do
   check_batch legacy "$v" "$TMPD/legacy.stmts"
   check_batch explain "$v" "$TMPD/explain.stmts"
done
check_batch cursor 8.0 "$TMPD/cursor.stmts"
