/* passes: plain asan */
/* shardsim's $shardedDataDistribution against config.chunks and the documents inserted: one document per sharded
 * collection of config.collections, its rows the shards holding its chunks in name order, each { shardName,
 * numOrphanedDocs, numOwnedDocuments, ownedSizeBytes, orphanedSizeBytes } of NumberLong. A collection without
 * documents is counted from its chunks alone (sim_distrib.c: the shard names interned once for the stage) and has
 * zeros; one with documents goes through sim_coll_shard_stats and has their count. Two large scenarios: every
 * collection on every shard (the walk over all names in order, a collection taking the previous one's array whole)
 * and each on two of forty shards (its names sorted by rank; the last collection's chunks name shard40 before shard01).
 */
#include "tests/unit/fidelity.h"

#include <stdlib.h>

#define SDD_MAX_COLLS 64
#define SDD_MAX_SHARDS 64

/* What config.collections and config.chunks say of one collection: its uuid and the shards holding its chunks. */
typedef struct {
   char ns[128];
   uint8_t uuid[16];
   char shards[SDD_MAX_SHARDS][64];
   size_t nshards;
   bool seen; /* answered by $shardedDataDistribution */
} sdd_want_t;

typedef struct {
   sdd_want_t v[SDD_MAX_COLLS];
   size_t n;
} sdd_wants_t;

static int
sdd_name_cmp (const void *a, const void *b)
{
   return strcmp (a, b);
}

/* Every document of config.coll, passed to each (ud). */
static void
sdd_each (sim_t *s, const char *coll, void (*each) (const bson_t *doc, sdd_wants_t *w), sdd_wants_t *w)
{
   bson_t filter = BSON_INITIALIZER;
   const bson_t *doc;
   mongoc_collection_t *c = mongoc_client_get_collection (s->client, "config", coll);
   mongoc_cursor_t *cur = mongoc_collection_find_with_opts (c, &filter, NULL, NULL);
   while (mongoc_cursor_next (cur, &doc)) {
      each (doc, w);
   }
   mongoc_cursor_destroy (cur);
   mongoc_collection_destroy (c);
}

/* The 16 bytes of doc's uuid, or NULL when it has none of that size. */
static const uint8_t *
uuid_at (const bson_t *doc)
{
   bson_iter_t it;
   const uint8_t *data;
   uint32_t len;
   bson_subtype_t st;
   if (!bson_iter_init_find (&it, doc, "uuid") || !BSON_ITER_HOLDS_BINARY (&it)) {
      return NULL;
   }
   bson_iter_binary (&it, &st, &len, &data);
   return len == 16 ? data : NULL;
}

static void
sdd_add_coll (const bson_t *doc, sdd_wants_t *w)
{
   const uint8_t *data = uuid_at (doc);
   if (w->n == SDD_MAX_COLLS || !str_at (doc, "_id") || !data) {
      return;
   }
   sdd_want_t *c = &w->v[w->n++];
   memset (c, 0, sizeof *c);
   bson_strncpy (c->ns, str_at (doc, "_id"), sizeof c->ns);
   memcpy (c->uuid, data, 16);
}

static void
sdd_add_chunk (const bson_t *doc, sdd_wants_t *w)
{
   const uint8_t *data = uuid_at (doc);
   const char *shard = str_at (doc, "shard");
   if (!shard || !data) {
      return;
   }
   for (size_t i = 0; i < w->n; i++) {
      sdd_want_t *c = &w->v[i];
      size_t k = 0;
      if (memcmp (c->uuid, data, 16) != 0) {
         continue;
      }
      while (k < c->nshards && strcmp (c->shards[k], shard) != 0) {
         k++;
      }
      if (k == c->nshards && k < SDD_MAX_SHARDS) {
         bson_strncpy (c->shards[c->nshards++], shard, 64);
      }
   }
}

/* The NumberLong at key of doc, or -1 when missing or of another type. */
static int64_t
sdd_long (const bson_t *doc, const char *key)
{
   bson_iter_t it;
   return bson_iter_init_find (&it, doc, key) && BSON_ITER_HOLDS_INT64 (&it) ? bson_iter_int64 (&it) : -1;
}

/* Whether the rows of one $shardedDataDistribution document are want's shards in name order, five NumberLong
 * fields each, zeros but for docs_ns (numOwnedDocuments summing to ndocs, with their bytes); why not in why. */
static bool
sdd_rows_ok (const bson_t *d, sdd_want_t *want, const char *docs_ns, int64_t ndocs, char *why, size_t whylen)
{
   bson_iter_t it, rows;
   size_t k = 0;
   int64_t owned = 0, bytes = 0;
   bool with_docs = docs_ns && !strcmp (want->ns, docs_ns);
   qsort (want->shards, want->nshards, sizeof want->shards[0], sdd_name_cmp);
   if (!bson_iter_init_find (&it, d, "shards") || !BSON_ITER_HOLDS_ARRAY (&it) || !bson_iter_recurse (&it, &rows)) {
      snprintf (why, whylen, "no shards array");
      return false;
   }
   while (bson_iter_next (&rows)) {
      bson_t row;
      const uint8_t *data;
      uint32_t len;
      char key[24];
      snprintf (key, sizeof key, "%zu", k);
      if (!BSON_ITER_HOLDS_DOCUMENT (&rows) || strcmp (bson_iter_key (&rows), key) != 0 || k >= want->nshards) {
         snprintf (why, whylen, "row %zu: not a row expected there", k);
         return false;
      }
      bson_iter_document (&rows, &len, &data);
      bson_init_static (&row, data, len);
      if (!str_at (&row, "shardName") || strcmp (str_at (&row, "shardName"), want->shards[k]) != 0 ||
          bson_count_keys (&row) != 5 || sdd_long (&row, "numOrphanedDocs") != 0 ||
          sdd_long (&row, "orphanedSizeBytes") != 0 || sdd_long (&row, "numOwnedDocuments") < 0 ||
          sdd_long (&row, "ownedSizeBytes") < 0 ||
          (!with_docs && (sdd_long (&row, "numOwnedDocuments") != 0 || sdd_long (&row, "ownedSizeBytes") != 0))) {
         char *j = bson_as_relaxed_extended_json (&row, NULL);
         snprintf (why, whylen, "row %zu is %s, want shardName %s", k, j, want->shards[k]);
         bson_free (j);
         return false;
      }
      owned += sdd_long (&row, "numOwnedDocuments");
      bytes += sdd_long (&row, "ownedSizeBytes");
      k++;
   }
   if (k != want->nshards || (with_docs && (owned != ndocs || bytes <= 0))) {
      snprintf (why, whylen, "%zu rows of %zu, %lld documents of %lld", k, want->nshards, (long long) owned,
                (long long) (with_docs ? ndocs : 0));
      return false;
   }
   return true;
}

/* Runs $shardedDataDistribution and checks every document against config.collections and config.chunks. */
static void
sdd_check (sim_t *s, const char *pre, const char *docs_ns, int64_t ndocs)
{
   sdd_wants_t *w = bson_malloc0 (sizeof *w);
   bson_t *pipeline = BCON_NEW ("pipeline", "[", "{", "$shardedDataDistribution", "{", "}", "}", "]");
   mongoc_database_t *admin = mongoc_client_get_database (s->client, "admin");
   mongoc_cursor_t *cur = mongoc_database_aggregate (admin, pipeline, NULL, NULL);
   const bson_t *d;
   bson_error_t err;
   size_t ndocs_seen = 0, bad = 0;
   char name[800], why[512] = "";
   sdd_each (s, "collections", sdd_add_coll, w);
   sdd_each (s, "chunks", sdd_add_chunk, w);
   while (mongoc_cursor_next (cur, &d)) {
      size_t i = 0;
      ndocs_seen++;
      while (i < w->n && (!str_at (d, "ns") || strcmp (w->v[i].ns, str_at (d, "ns")) != 0)) {
         i++;
      }
      if (i == w->n || w->v[i].seen) {
         snprintf (why, sizeof why, "document %zu: ns %s not expected", ndocs_seen, str_at (d, "ns"));
         bad++;
         continue;
      }
      w->v[i].seen = true;
      if (!sdd_rows_ok (d, &w->v[i], docs_ns, ndocs, why, sizeof why)) {
         bad++;
      }
   }
   snprintf (name, sizeof name, "%s$shardedDataDistribution ran", pre);
   CHECK (name, !mongoc_cursor_error (cur, &err));
   snprintf (name, sizeof name, "%sone document per collection (%zu of %zu)", pre, ndocs_seen, w->n);
   CHECK (name, ndocs_seen == w->n && w->n > 0);
   snprintf (name, sizeof name, "%srows = config.chunks' shards in name order%s%s", pre, bad ? ": " : "", why);
   CHECK (name, bad == 0);
   mongoc_cursor_destroy (cur);
   mongoc_database_destroy (admin);
   bson_destroy (pipeline);
   bson_free (w);
}

static void
run_scenario (const char *pre, const char *shards, const char *colls, const char *chunks)
{
   sim_t s;
   const char *args[] = {
      "--version",      "7.0",  "--scenario", "large", "--large-shards", shards, "--large-collections", colls,
      "--large-chunks", chunks, NULL
   };
   if (!fid_begin (&s, args, pre)) {
      return;
   }
   sdd_check (&s, pre, NULL, 0);
   /* documents in db000.coll000: that collection's figures from its documents, the others' from their chunks */
   char name[96];
   snprintf (name, sizeof name, "%sinsert into db000.coll000", pre);
   CHECK (name, insert_docs (&s, "db000", "coll000", 0, 25));
   char pre2[64];
   snprintf (pre2, sizeof pre2, "%swith documents.", pre);
   sdd_check (&s, pre2, "db000.coll000", 25);
   fid_end (&s, pre);
}

int
main (void)
{
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   run_scenario ("all shards.", "7", "5", "60");
   run_scenario ("two of forty.", "40", "40", "80");
   mongoc_cleanup ();
   UNIT_EXIT ();
}
