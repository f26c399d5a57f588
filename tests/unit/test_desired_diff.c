/* passes: plain asan */
/* The order of --diff's statements (shell/desired/diff.c, docs/desired-state.md), from a spec and a cluster's export
 * given as literals, no cluster involved: a shard joins a zone before a range points at it, live ranges are removed
 * (the balancer stopped around them while it runs) before the new ones are added, a shard leaves a zone after its
 * ranges are gone, collection settings, then the balancer's settings; fields the spec leaves out are not compared. */
#include <stdlib.h>

#include "shell/desired/desired.h"
#include "shell/desired/diff_int.h"
#include "shell/lang/parser.h"
#include "tests/unit/unit.h"

static const char *have_text =
   "{ balancer: { stopped: false, activeWindow: null, chunkSizeMB: 128, secondaryThrottle: false, waitForDelete: false "
   "},"
   "  shards: { s1: { zones: ['A'], draining: false }, s2: { zones: ['B'], draining: false } },"
   "  collections: { 'd.c': { key: { k: 1 }, unique: false, balancing: true, chunkSizeMB: null, allowMigrations: true,"
   "                          autoMerge: true,"
   "                          zones: [ { zone: 'A', min: { k: 0 }, max: { k: 10 } },"
   "                                   { zone: 'B', min: { k: 10 }, max: { k: 20 } } ] } } }";

/* The diff of spec against have_text: its text (bson_free), its changes into *n and those left out into *skipped. */
static char *
run_diff (const char *spec, bool apply, int *n, int *skipped)
{
   bson_t want, have = BSON_INITIALIZER, wrap = BSON_INITIALIZER;
   bson_iter_t it;
   sh_error_t err;
   diff_t d;
   char *text;
   if (!desired_spec_parse ("spec.js", spec, strlen (spec), &want, &err) ||
       !sh_parse_value (have_text, strlen (have_text), &wrap, "h", &err)) {
      printf ("(parse failed: %s)\n", err.message);
      bson_destroy (&want);
      bson_destroy (&wrap);
      return NULL;
   }
   bson_iter_init_find (&it, &wrap, "h");
   {
      uint32_t len;
      const uint8_t *data;
      bson_iter_document (&it, &len, &data);
      bson_destroy (&have);
      bson_init_static (&have, data, len);
   }
   memset (&d, 0, sizeof d);
   d.text = bson_string_new (NULL);
   bson_init (&d.changes);
   d.apply = apply;
   diff_build (&d, &want, &have);
   *n = d.n;
   *skipped = d.skipped;
   text = bson_string_free (d.text, false);
   bson_destroy (&d.changes);
   bson_destroy (&want);
   bson_destroy (&wrap);
   return text;
}

int
main (void)
{
   int n, skipped;
   char *t;

   t = run_diff ("{ shards: { s1: { zones: ['A'] }, s2: { zones: ['B'] } },"
                 "  collections: { 'd.c': { zones: [ { zone: 'A', min: { k: 0 }, max: { k: 10 } },"
                 "                                   { zone: 'B', min: { k: 10 }, max: { k: 20 } } ] } },"
                 "  balancer: { stopped: false } }",
                 false, &n, &skipped);
   CHECK_STR ("diff: the same state gives nothing", "", t);
   bson_free (t);

   t = run_diff ("{ balancer: { activeWindow: { start: '01:00', stop: '05:00' } },"
                 "  shards: { s1: { zones: ['A', 'C'] }, s2: { zones: [] } },"
                 "  collections: { 'd.c': { balancing: false, zones: [ { zone: 'A', min: { k: 0 }, max: { k: 10 } },"
                 "                                   { zone: 'C', min: { k: 10 }, max: { k: 20 } } ] } } }",
                 false, &n, &skipped);
   CHECK_STR ("diff: zone joins, ranges replaced with the balancer stopped, zone leaves, settings, in that order",
              "sh.addShardToZone('s1', 'C')\n"
              "// the balancer is stopped while zone ranges are replaced, and started again after\n"
              "sh.stopBalancer()\n"
              "sh.removeRangeFromZone('d.c', { k: 10 }, { k: 20 })\n"
              "sh.updateZoneKeyRange('d.c', { k: 10 }, { k: 20 }, 'C')\n"
              "sh.startBalancer()\n"
              "sh.removeShardFromZone('s2', 'B')\n"
              "sh.disableBalancing('d.c')\n"
              "db.getSiblingDB('config').settings.updateOne({ _id: 'balancer' }, { $set: { activeWindow: { start: "
              "'01:00', stop: '05:00' } } }, { upsert: true })\n",
              t);
   CHECK ("diff: eight changes", n == 8);
   bson_free (t);

   t = run_diff ("{ balancer: { stopped: true }, collections: { 'd.c': { zones: [] } } }", false, &n, &skipped);
   CHECK_STR ("diff: a spec that stops the balancer stops it first, and once",
              "sh.stopBalancer()\n"
              "sh.removeRangeFromZone('d.c', { k: 0 }, { k: 10 })\n"
              "sh.removeRangeFromZone('d.c', { k: 10 }, { k: 20 })\n",
              t);
   bson_free (t);

   t = run_diff ("{ balancer: { chunkSizeMB: 64, secondaryThrottle: true },"
                 "  collections: { 'd.c': { chunkSizeMB: 32, allowMigrations: false, autoMerge: false },"
                 "                 'd.new': { key: { h: 'hashed' } } } }",
                 false, &n, &skipped);
   CHECK_STR ("diff: collection and balancer settings, a new sharded collection",
              "db.adminCommand({ configureCollectionBalancing: 'd.c', chunkSize: 32 })\n"
              "sh.disableMigrations('d.c')\n"
              "sh.disableAutoMerger('d.c')\n"
              "sh.shardCollection('d.new', { h: 'hashed' }, false)\n"
              "db.getSiblingDB('config').settings.updateOne({ _id: 'chunksize' }, { $set: { value: 64 } }, { upsert: "
              "true })\n"
              "db.getSiblingDB('config').settings.updateOne({ _id: 'balancer' }, { $set: { _secondaryThrottle: true } "
              "}, { upsert: true })\n",
              t);
   bson_free (t);

   t = run_diff ("{ shards: { s9: { zones: [] }, s2: { draining: false } } }", false, &n, &skipped);
   CHECK_STR ("diff: a shard the cluster lacks is a note without a statement",
              "// shard s9 is not in the cluster (adding shards is not managed)\n", t);
   CHECK ("diff: the note counts as drift", n == 1);
   bson_free (t);

   UNIT_EXIT ();
}
