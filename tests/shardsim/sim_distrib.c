/* shardsim's $shardedDataDistribution documents: one per sharded collection, its row per shard from
 * sim_coll_shard_stats. A collection without documents (the large scenario's: chunks only) has rows that depend on
 * the shard's name alone ({ shardName, 0, 0, 0, 0 }); those collections are counted in one pass over their chunks
 * with the shard names interned once for the whole stage (a hash of the name, each row built once and appended by
 * copy), and their rows put in name order through one sort of all the names, instead of a stats array, a sort and
 * five appends per row and collection. Callers hold sim_g.lock. */
#include "tests/shardsim/sim_crud.h"

#include "shell/lib/fnv.h"

#include <stdlib.h>
#include <string.h>

/* A shard name seen in the chunks of the stage's collections. */
typedef struct {
   char name[64];
   uint64_t hash;
   uint32_t rank; /* place of name among all the stage's names, strcmp order (set once every one is known) */
   uint32_t mark; /* the collection (index + 1) that last counted it */
   bson_t *row;   /* its row (sim_drow_build, count 0), built on first use */
} sim_dname_t;

typedef struct {
   sim_dname_t *v;
   size_t n, cap;
   simq_htab_t index; /* hash of the name -> index + 1 in v */
} sim_dnames_t;

/* A collection's rows: the names its chunks hold (fast), or sim_coll_shard_stats' figures. */
typedef struct {
   const char *ns;
   bool fast;
   uint32_t *names; /* fast: indexes into sim_dnames_t.v, in chunk order */
   size_t n;
   sim_shard_stat_t *st; /* else */
} sim_dcoll_t;

/* The index of name (len bytes, no NUL, shorter than 63) in names, added when new. */
static uint32_t
sim_dname_intern (sim_dnames_t *names, const char *name, size_t len)
{
   uint64_t h = fnv_hash64 (name, len);
   size_t probe = 0;
   uintptr_t v;
   while ((v = simq_htab_next (&names->index, h, &probe)) != 0) {
      const sim_dname_t *d = &names->v[v - 1];
      if (memcmp (d->name, name, len) == 0 && d->name[len] == '\0') {
         return (uint32_t) (v - 1);
      }
   }
   if (names->n == names->cap) {
      names->cap = names->cap ? names->cap * 2 : 64;
      names->v = bson_realloc (names->v, names->cap * sizeof *names->v);
   }
   sim_dname_t *d = &names->v[names->n++];
   memset (d, 0, sizeof *d);
   memcpy (d->name, name, len);
   d->hash = h;
   simq_htab_add (&names->index, h, (uintptr_t) names->n);
   return (uint32_t) (names->n - 1);
}

/* The names of ns's chunks, once each, into c (fast) when its figures are its chunks alone and every name is one the
 * stats array holds whole (shorter than 63 bytes); false (nothing kept) otherwise. */
static bool
sim_dcoll_fast (sim_dnames_t *names, sim_dcoll_t *c, uint32_t mark)
{
   sim_coll_t *chunks;
   size_t p, cap = 0;
   if (!sim_coll_chunks_only (c->ns, &chunks, &p)) {
      return false;
   }
   for (size_t i = 0; p != SIZE_MAX && i < chunks->parts[p].docs.n; i++) {
      bson_t view;
      bson_value_t v;
      sim_pos_t at = { p, i };
      sim_coll_view (chunks, at, &view);
      if (!simq_find_value (&view, "shard", &v) || v.value_type != BSON_TYPE_UTF8) {
         continue; /* as the stats array: the first "shard" field, a string */
      }
      const char *s = v.value.v_utf8.str;
      size_t len = strlen (s); /* as the stats array: the name up to its first NUL */
      if (len >= 63) {
         bson_free (c->names);
         c->names = NULL;
         c->n = 0;
         return false;
      }
      uint32_t k = sim_dname_intern (names, s, len);
      if (names->v[k].mark != mark) {
         names->v[k].mark = mark;
         if (c->n == cap) {
            cap = cap ? cap * 2 : 64;
            c->names = bson_realloc (c->names, cap * sizeof *c->names);
         }
         c->names[c->n++] = k;
      }
   }
   c->fast = true;
   return true;
}

static int
sim_dname_cmp (const void *a, const void *b)
{
   return strcmp ((*(const sim_dname_t *const *) a)->name, (*(const sim_dname_t *const *) b)->name);
}

static int
sim_u32_cmp (const void *a, const void *b)
{
   uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
   return x < y ? -1 : x > y;
}

/* A shard's row { shardName, numOrphanedDocs, numOwnedDocuments, ownedSizeBytes, orphanedSizeBytes } into row. */
static void
sim_drow_build (bson_t *row, const char *shard, int64_t count, int64_t size)
{
   int64_t avg = count ? size / count : 0;
   BSON_APPEND_UTF8 (row, "shardName", shard);
   BSON_APPEND_INT64 (row, "numOrphanedDocs", 0);
   BSON_APPEND_INT64 (row, "numOwnedDocuments", count);
   BSON_APPEND_INT64 (row, "ownedSizeBytes", avg * count);
   BSON_APPEND_INT64 (row, "orphanedSizeBytes", 0);
}

/* Appends the row of a shard with count documents of size bytes under key to arr; with cached (the shard's name,
 * count 0: a row that depends on the name alone), a copy of the row built for it the first time. */
static void
sim_drow_append (sim_dname_t *cached, bson_t *arr, const char *key, const char *shard, int64_t count, int64_t size)
{
   bson_t s;
   if (cached) {
      if (!cached->row) {
         cached->row = bson_new ();
         sim_drow_build (cached->row, shard, 0, 0);
      }
      bson_append_document (arr, key, -1, cached->row);
      return;
   }
   BSON_APPEND_DOCUMENT_BEGIN (arr, key, &s);
   sim_drow_build (&s, shard, count, size);
   bson_append_document_end (arr, &s);
}

/* The ranks of fast collection c's names in order, into c->names (the ranks replace the indexes). */
static void
sim_dcoll_order (sim_dnames_t *names, sim_dcoll_t *c, sim_dname_t **byrank)
{
   size_t n = c->n, k = 0;
   if (n * 4 >= names->n) {
      /* most names: walk them all in order, taking this collection's (marked again with a mark of its own) */
      for (size_t i = 0; i < n; i++) {
         names->v[c->names[i]].mark = UINT32_MAX;
      }
      for (size_t r = 0; r < names->n; r++) {
         if (byrank[r]->mark == UINT32_MAX) {
            byrank[r]->mark = 0;
            c->names[k++] = (uint32_t) r;
         }
      }
      return;
   }
   for (size_t i = 0; i < n; i++) {
      c->names[i] = names->v[c->names[i]].rank;
   }
   qsort (c->names, n, sizeof *c->names, sim_u32_cmp);
}

/* The last document of a fast collection: a collection with the same names in order has the same rows. */
typedef struct {
   const sim_dcoll_t *c;
   const bson_t *doc;
} sim_dprev_t;

/* The document of collection c: { ns, shards: [rows in shard name order] }; a fast collection with prev's names
 * takes prev's array whole. */
static bson_t *
sim_dcoll_doc (sim_dcoll_t *c, sim_dname_t **byrank, sim_dprev_t *prev)
{
   size_t n = c->n;
   bson_t *d = bson_sized_new (64 + strlen (c->ns) + n * 160); /* one allocation for a thousand shards' rows */
   bson_t arr;
   bson_iter_t it;
   BSON_APPEND_UTF8 (d, "ns", c->ns);
   if (c->fast && prev->c && prev->c->n == n && memcmp (prev->c->names, c->names, n * sizeof *c->names) == 0 &&
       bson_iter_init_find (&it, prev->doc, "shards") && BSON_ITER_HOLDS_ARRAY (&it)) {
      uint32_t len;
      const uint8_t *data;
      bson_iter_array (&it, &len, &data);
      if (bson_init_static (&arr, data, len)) {
         bson_append_array (d, "shards", -1, &arr);
         return d;
      }
   }
   BSON_APPEND_ARRAY_BEGIN (d, "shards", &arr);
   for (size_t k = 0; k < n; k++) {
      char key[16];
      const char *kp;
      bson_uint32_to_string ((uint32_t) k, &kp, key, sizeof key);
      if (c->fast) {
         sim_drow_append (byrank[c->names[k]], &arr, kp, byrank[c->names[k]]->name, 0, 0);
      } else {
         sim_drow_append (NULL, &arr, kp, c->st[k].shard, c->st[k].count, c->st[k].size);
      }
   }
   bson_append_array_end (d, &arr);
   if (c->fast) {
      prev->c = c;
      prev->doc = d;
   }
   return d;
}

void
sim_distribution_docs (const simq_docs_t *cdocs, simq_docs_t *out)
{
   sim_dnames_t names;
   sim_dcoll_t *colls = bson_malloc0 ((cdocs->n ? cdocs->n : 1) * sizeof *colls);
   size_t ncolls = 0;
   memset (&names, 0, sizeof names);
   simq_htab_init (&names.index);
   for (size_t i = 0; i < cdocs->n; i++) {
      bson_iter_t it;
      if ((bson_iter_init_find (&it, cdocs->v[i], "dropped") && bson_iter_as_bool (&it)) ||
          (bson_iter_init_find (&it, cdocs->v[i], "unsplittable") && bson_iter_as_bool (&it)) ||
          !bson_iter_init_find (&it, cdocs->v[i], "_id") || !BSON_ITER_HOLDS_UTF8 (&it)) {
         continue;
      }
      sim_dcoll_t *c = &colls[ncolls++];
      c->ns = bson_iter_utf8 (&it, NULL);
      if (!sim_dcoll_fast (&names, c, (uint32_t) ncolls)) {
         c->n = sim_coll_shard_stats (c->ns, &c->st);
      }
   }
   /* every name known: their order, once */
   sim_dname_t **byrank = bson_malloc ((names.n ? names.n : 1) * sizeof *byrank);
   for (size_t k = 0; k < names.n; k++) {
      byrank[k] = &names.v[k];
   }
   if (names.n > 1) {
      qsort (byrank, names.n, sizeof *byrank, sim_dname_cmp);
   }
   for (size_t r = 0; r < names.n; r++) {
      byrank[r]->rank = (uint32_t) r;
      byrank[r]->mark = 0;
   }
   sim_dprev_t prev = { NULL, NULL };
   for (size_t i = 0; i < ncolls; i++) {
      if (colls[i].fast) {
         sim_dcoll_order (&names, &colls[i], byrank);
      }
      simq_docs_push_owned (out, sim_dcoll_doc (&colls[i], byrank, &prev));
   }
   for (size_t i = 0; i < ncolls; i++) {
      bson_free (colls[i].names);
      bson_free (colls[i].st);
   }
   bson_free (byrank);
   bson_free (colls);
   for (size_t k = 0; k < names.n; k++) {
      bson_destroy (names.v[k].row);
   }
   simq_htab_destroy (&names.index);
   bson_free (names.v);
}
