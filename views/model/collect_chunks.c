/* The collector's chunk readers: sharded collections from config.collections, the chunk counts and key-space ends
 * from two server-side $group over config.chunks, and the incremental refresh (only the chunks changed since the
 * last collection versions, the others' counts carried). */
#include <mongoc/mongoc.h>
#include <stdlib.h>
#include <string.h>

#include "shell/lib/checked.h"
#include "views/model/collect_int.h"
#include "shell/lib/docget.h"
#include "shell/lib/aligned.h"
#include "shell/core/output.h"

static int
ix_cmp (const void *a, const void *b)
{
   const ix_ent_t *x = a, *y = b;
   int c = memcmp (x->key, y->key, x->len < y->len ? x->len : y->len);
   if (c)
      return c;
   return x->len < y->len ? -1 : x->len > y->len;
}

static void
ix_add (ix_t *ix, const void *key, size_t len, int i)
{
   ix->v[ix->n].key = key;
   ix->v[ix->n].len = len;
   ix->v[ix->n].i = i;
   ix->n++;
}

/* The index stored with key, or -1. */
static int
ix_find (const ix_t *ix, const void *key, size_t len)
{
   ix_ent_t want = { key, len, 0 };
   const ix_ent_t *e = ix->n ? bsearch (&want, ix->v, ix->n, sizeof *ix->v, ix_cmp) : NULL;
   return e ? e->i : -1;
}

void
collect_lookup_destroy (lookup_t *lk)
{
   free (lk->shards.v);
   free (lk->by_ns.v);
   free (lk->by_uuid.v);
   memset (lk, 0, sizeof *lk);
}

static bool
key_is_hashed (const bson_t *key)
{
   bson_iter_t it;
   if (bson_iter_init (&it, key))
      while (bson_iter_next (&it))
         if (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), "hashed"))
            return true;
   return false;
}

/* A collection's incarnation from its config.collections document: "t:<timestamp>" (5.0+), else "e:<epoch>". A
 * dropped and re-created, or resharded, collection gets a new one. */
static void
coll_ident (const bson_t *d, char *out, size_t len)
{
   bson_iter_t it;
   out[0] = '\0';
   if (bson_iter_init_find (&it, d, "timestamp") && BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      uint32_t t, i;
      bson_iter_timestamp (&it, &t, &i);
      bson_snprintf (out, len, "t:%u|%u", t, i);
   } else if ((bson_iter_init_find (&it, d, "lastmodEpoch") || bson_iter_init_find (&it, d, "epoch")) &&
              BSON_ITER_HOLDS_OID (&it)) {
      char hex[25];
      bson_oid_to_string (bson_iter_oid (&it), hex);
      bson_snprintf (out, len, "e:%s", hex);
   }
}

bool
collect_sample_collections (collect_t *c, snap_t *s, coll_meta_t **metas, size_t *nmetas, sh_error_t *err)
{
   bson_t *find =
      BCON_NEW ("find", "collections", "filter", "{", "dropped", "{", "$ne", BCON_BOOL (true), "}", "unsplittable", "{",
                "$ne", BCON_BOOL (true), "}", "}", "sort", "{", "_id", BCON_INT32 (1), "}");
   bson_t docs;
   bson_iter_t it;
   uint32_t n;
   bool ok = false;

   if (!collect_run_docs (c, "config", find, 0, &docs, err))
      goto done;
   n = bson_count_keys (&docs);
   s->colls = collect_calloc (n, sizeof *s->colls);
   *metas = SH_ALLOC_ARRAY (coll_meta_t, n);
   if (!*metas)
      abort ();
   if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it)) {
         snap_coll_t *co = &s->colls[s->ncolls];
         coll_meta_t *m = &(*metas)[s->ncolls];
         bson_t d, key;
         bson_iter_t u;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !docget_sub (&d, "key", BSON_TYPE_EOD, &key))
            continue;
         bson_strncpy (co->ns, docget_utf8 (&d, "_id", "?"), sizeof co->ns);
         bson_strncpy (m->ns, co->ns, sizeof m->ns);
         bson_copy_to (&key, &m->key);
         output_format_doc_line (&key, co->key, sizeof co->key);
         collect_fmt_json (&key, co->key_json, sizeof co->key_json);
         co->hashed = key_is_hashed (&key);
         co->no_balance = docget_bool (&d, "noBalance");
         co->range_bytes = docget_int (&d, "maxChunkSizeBytes", 0);
         co->hot_shard = co->hot_range_shard = co->top_shard = co->bottom_shard = -1;
         m->by_uuid = bson_has_field (&d, "timestamp");
         coll_ident (&d, m->ident, sizeof m->ident);
         if (bson_iter_init_find (&u, &d, "uuid") && BSON_ITER_HOLDS_BINARY (&u)) {
            const uint8_t *bin;
            uint32_t len;
            bson_iter_binary (&u, NULL, &len, &bin);
            if (len == 16) {
               memcpy (m->uuid, bin, 16);
               m->has_uuid = true;
            }
         }
         s->ncolls++;
         *nmetas = s->ncolls;
      }
   }
   ok = true;
done:
   bson_destroy (find);
   bson_destroy (&docs);
   return ok;
}

int
collect_find_meta (const coll_meta_t *metas, size_t n, const char *ns)
{
   for (size_t i = 0; i < n; i++)
      if (!strcmp (metas[i].ns, ns))
         return (int) i;
   return -1;
}

void
collect_lookup_build (const snap_t *s, const coll_meta_t *metas, size_t nmetas, lookup_t *lk)
{
   memset (lk, 0, sizeof *lk);
   lk->shards.v = collect_calloc (s->nshards, sizeof *lk->shards.v);
   lk->by_ns.v = collect_calloc (nmetas, sizeof *lk->by_ns.v);
   lk->by_uuid.v = collect_calloc (nmetas, sizeof *lk->by_uuid.v);
   for (size_t i = 0; i < s->nshards; i++)
      ix_add (&lk->shards, s->shards[i].name, strlen (s->shards[i].name), (int) i);
   for (size_t i = 0; i < nmetas; i++) {
      ix_add (&lk->by_ns, metas[i].ns, strlen (metas[i].ns), (int) i);
      if (metas[i].has_uuid)
         ix_add (&lk->by_uuid, metas[i].uuid, 16, (int) i);
   }
   qsort (lk->shards.v, lk->shards.n, sizeof *lk->shards.v, ix_cmp);
   qsort (lk->by_ns.v, lk->by_ns.n, sizeof *lk->by_ns.v, ix_cmp);
   qsort (lk->by_uuid.v, lk->by_uuid.n, sizeof *lk->by_uuid.v, ix_cmp);
}

int
collect_lookup_shard (const lookup_t *lk, const char *name)
{
   return ix_find (&lk->shards, name, strlen (name));
}

int
collect_lookup_ns (const lookup_t *lk, const char *ns)
{
   return ix_find (&lk->by_ns, ns, strlen (ns));
}

/* Appends the value config.chunks uses to name a collection: its UUID (5.0+) or its namespace. */
void
collect_append_chunk_coll (bson_t *b, const char *key, const coll_meta_t *m)
{
   if (m->by_uuid && m->has_uuid)
      bson_append_binary (b, key, -1, BSON_SUBTYPE_UUID, m->uuid, 16);
   else
      bson_append_utf8 (b, key, -1, m->ns, -1);
}

/* Appends {op: [field, {"$literal": bound}]} as element key of the array arr (a chunk's bound against a zone
 * bound). */
static void
append_bound_cmp (bson_t *arr, const char *key, const char *op, const char *field, const bson_t *bound)
{
   bson_t e, a, lit;
   BSON_APPEND_DOCUMENT_BEGIN (arr, key, &e);
   BSON_APPEND_ARRAY_BEGIN (&e, op, &a);
   BSON_APPEND_UTF8 (&a, "0", field);
   BSON_APPEND_DOCUMENT_BEGIN (&a, "1", &lit);
   BSON_APPEND_DOCUMENT (&lit, "$literal", bound);
   bson_append_document_end (&a, &lit);
   bson_append_array_end (&e, &a);
   bson_append_document_end (arr, &e);
}

/* Appends the $switch branch k: a chunk of meta's collection with min < b < max for a bound b of [mn, mx) is
 * { straddles: zone }. */
static void
append_straddle_branch (bson_t *branches, uint32_t k, const coll_meta_t *meta, const bson_t *mn, const bson_t *mx,
                        const char *zone)
{
   char kb[16];
   const char *ks;
   bson_t br, cs, and, e1, a, or, side, sand, then;
   bson_uint32_to_string (k, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (branches, ks, &br);
   BSON_APPEND_DOCUMENT_BEGIN (&br, "case", &cs);
   BSON_APPEND_ARRAY_BEGIN (&cs, "$and", &and);
   BSON_APPEND_DOCUMENT_BEGIN (&and, "0", &e1);
   BSON_APPEND_ARRAY_BEGIN (&e1, "$eq", &a);
   BSON_APPEND_UTF8 (&a, "0", meta->by_uuid && meta->has_uuid ? "$uuid" : "$ns");
   collect_append_chunk_coll (&a, "1", meta);
   bson_append_array_end (&e1, &a);
   bson_append_document_end (&and, &e1);
   BSON_APPEND_DOCUMENT_BEGIN (&and, "1", & or);
   BSON_APPEND_ARRAY_BEGIN (& or, "$or", &side);
   for (int b = 0; b < 2; b++) {
      const bson_t *bound = b ? mx : mn;
      BSON_APPEND_DOCUMENT_BEGIN (&side, b ? "1" : "0", &e1);
      BSON_APPEND_ARRAY_BEGIN (&e1, "$and", &sand);
      append_bound_cmp (&sand, "0", "$lt", "$min", bound);
      append_bound_cmp (&sand, "1", "$gt", "$max", bound);
      bson_append_array_end (&e1, &sand);
      bson_append_document_end (&side, &e1);
   }
   bson_append_array_end (& or, &side);
   bson_append_document_end (&and, & or);
   bson_append_array_end (&cs, &and);
   bson_append_document_end (&br, &cs);
   BSON_APPEND_DOCUMENT_BEGIN (&br, "then", &then);
   BSON_APPEND_UTF8 (&then, "straddles", zone);
   bson_append_document_end (&br, &then);
   bson_append_document_end (branches, &br);
}

/* Builds the $switch that names the zone holding each chunk's min, from config.tags. Returns false (nothing
 * appended) when there are no zone ranges for known collections. */
static bool
append_zone_switch (bson_t *id, const bson_t *tags, const coll_meta_t *metas, size_t nmetas)
{
   bson_t sw, sw_in, branches;
   bson_iter_t it;
   uint32_t k = 0;
   if (!bson_iter_init (&it, tags))
      return false;
   /* two passes over the ranges: first the chunks straddling a range's bound (the balancer must split them there
    * before it can place them: balancerCollectionStatus says zoneViolation), named { straddles: <zone> }; then
    * the zone holding each other chunk's min */
   for (int pass = 0; pass < 2; pass++) {
      bson_iter_init (&it, tags);
      while (bson_iter_next (&it)) {
         bson_t t, mn, mx;
         int mi;
         if (!docget_sub (tags, bson_iter_key (&it), BSON_TYPE_EOD, &t) ||
             !docget_sub (&t, "min", BSON_TYPE_EOD, &mn) || !docget_sub (&t, "max", BSON_TYPE_EOD, &mx))
            continue;
         mi = collect_find_meta (metas, nmetas, docget_utf8 (&t, "ns", ""));
         if (mi < 0)
            continue;
         if (k == 0) {
            BSON_APPEND_DOCUMENT_BEGIN (id, "z", &sw);
            BSON_APPEND_DOCUMENT_BEGIN (&sw, "$switch", &sw_in);
            BSON_APPEND_ARRAY_BEGIN (&sw_in, "branches", &branches);
         }
         if (pass == 0) {
            append_straddle_branch (&branches, k++, &metas[mi], &mn, &mx, docget_utf8 (&t, "tag", ""));
            continue;
         }
         {
            char kb[16];
            const char *ks;
            bson_t br, cs, and, e1;
            bson_uint32_to_string (k++, &ks, kb, sizeof kb);
            BSON_APPEND_DOCUMENT_BEGIN (&branches, ks, &br);
            BSON_APPEND_DOCUMENT_BEGIN (&br, "case", &cs);
            BSON_APPEND_ARRAY_BEGIN (&cs, "$and", &and);
            BSON_APPEND_DOCUMENT_BEGIN (&and, "0", &e1);
            {
               bson_t a;
               BSON_APPEND_ARRAY_BEGIN (&e1, "$eq", &a);
               BSON_APPEND_UTF8 (&a, "0", metas[mi].by_uuid && metas[mi].has_uuid ? "$uuid" : "$ns");
               collect_append_chunk_coll (&a, "1", &metas[mi]);
               bson_append_array_end (&e1, &a);
            }
            bson_append_document_end (&and, &e1);
            append_bound_cmp (&and, "1", "$gte", "$min", &mn);
            append_bound_cmp (&and, "2", "$lt", "$min", &mx);
            bson_append_array_end (&cs, &and);
            bson_append_document_end (&br, &cs);
            BSON_APPEND_UTF8 (&br, "then", docget_utf8 (&t, "tag", ""));
            bson_append_document_end (&branches, &br);
         }
      }
   }
   if (k == 0)
      return false;
   bson_append_array_end (&sw_in, &branches);
   BSON_APPEND_NULL (&sw_in, "default");
   bson_append_document_end (&sw, &sw_in);
   bson_append_document_end (id, &sw);
   return true;
}

/* Whether shard sh is in zone z. */
bool
collect_shard_in_zone (const snap_shard_t *sh, const char *z)
{
   const char *p = sh->zones;
   size_t zl = strlen (z);
   while (*p) {
      const char *e = strchr (p, ',');
      size_t l = e ? (size_t) (e - p) : strlen (p);
      if (l == zl && !strncmp (p, z, l))
         return true;
      if (!e)
         break;
      p = e + 1;
   }
   return false;
}

static int
meta_for_chunk_id (const lookup_t *lk, const bson_t *id)
{
   bson_iter_t it;
   if (!bson_iter_init_find (&it, id, "c"))
      return -1;
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      uint32_t len;
      const char *ns = bson_iter_utf8 (&it, &len);
      return ix_find (&lk->by_ns, ns, len);
   }
   if (BSON_ITER_HOLDS_BINARY (&it)) {
      const uint8_t *bin;
      uint32_t len;
      bson_iter_binary (&it, NULL, &len, &bin);
      if (len == 16)
         return ix_find (&lk->by_uuid, bin, 16);
   }
   return -1;
}

/* Appends {"c": {$ifNull: ["$uuid", "$ns"]}} to a $group _id: the collection a chunk belongs to, on every version. */
static void
append_group_coll (bson_t *id)
{
   bson_t ifn, arr;
   BSON_APPEND_DOCUMENT_BEGIN (id, "c", &ifn);
   BSON_APPEND_ARRAY_BEGIN (&ifn, "$ifNull", &arr);
   BSON_APPEND_UTF8 (&arr, "0", "$uuid");
   BSON_APPEND_UTF8 (&arr, "1", "$ns");
   bson_append_array_end (&ifn, &arr);
   bson_append_document_end (id, &ifn);
}

/* One document of the key-space ends reply: a collection's MaxKey and MinKey chunks with their owners. */
static bool
chunk_end_doc (void *data, const bson_t *d)
{
   reply_ctx_t *rc = data;
   bson_t gid, end, mn, mx;
   snap_coll_t *co;
   int mi, si;
   if (!docget_sub (d, "_id", BSON_TYPE_EOD, &gid) || (mi = meta_for_chunk_id (rc->lk, &gid)) < 0)
      return true;
   co = &rc->s->colls[mi];
   char buf[SNAP_END_TEXTS][SNAP_TEXT];
   const char *text[SNAP_END_TEXTS];
   for (int k = 0; k < SNAP_END_TEXTS; k++) {
      bson_strncpy (buf[k], snap_coll_end (co, (snap_end_text_t) k), sizeof buf[k]);
      text[k] = buf[k];
   }
   if (docget_sub (d, "hi", BSON_TYPE_EOD, &end) && docget_sub (&end, "max", BSON_TYPE_EOD, &mx) &&
       collect_first_type (&mx) == BSON_TYPE_MAXKEY && docget_sub (&end, "min", BSON_TYPE_EOD, &mn) &&
       (si = collect_lookup_shard (rc->lk, docget_utf8 (&end, "shard", ""))) >= 0) {
      co->top_shard = si;
      output_format_doc_line (&mn, buf[SNAP_TOP_MIN], SNAP_TEXT);
      collect_fmt_json (&mn, buf[SNAP_TOP_MIN_JSON], SNAP_TEXT);
      output_format_doc_line (&mx, buf[SNAP_TOP_MAX], SNAP_TEXT);
      collect_fmt_json (&mx, buf[SNAP_TOP_MAX_JSON], SNAP_TEXT);
   }
   if (docget_sub (d, "lo", BSON_TYPE_EOD, &end) && docget_sub (&end, "min", BSON_TYPE_EOD, &mn) &&
       collect_first_type (&mn) == BSON_TYPE_MINKEY && docget_sub (&end, "max", BSON_TYPE_EOD, &mx) &&
       (si = collect_lookup_shard (rc->lk, docget_utf8 (&end, "shard", ""))) >= 0) {
      co->bottom_shard = si;
      output_format_doc_line (&mn, buf[SNAP_BOTTOM_MIN], SNAP_TEXT);
      collect_fmt_json (&mn, buf[SNAP_BOTTOM_MIN_JSON], SNAP_TEXT);
      output_format_doc_line (&mx, buf[SNAP_BOTTOM_MAX], SNAP_TEXT);
      collect_fmt_json (&mx, buf[SNAP_BOTTOM_MAX_JSON], SNAP_TEXT);
   }
   snap_coll_set_ends (co, text);
   return true;
}

/* Appends the stage {$match: {$or: [{uuid: U}, ...]}} naming the collections marked changed in metas (by uuid on
 * 5.0+, else by ns) to pipeline as element *k. With since, each clause also asks for lastmod greater than the
 * collection's version: only the chunks created or changed since the last count. */
static void
append_colls_match (bson_t *pipeline, uint32_t *k, const coll_meta_t *metas, size_t nmetas, bool since)
{
   char kb[16];
   const char *ks;
   bson_t stage, match, or ;
   uint32_t n = 0;
   bson_uint32_to_string ((*k)++, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (pipeline, ks, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &match);
   BSON_APPEND_ARRAY_BEGIN (&match, "$or", & or);
   for (size_t i = 0; i < nmetas; i++) {
      char nb[16];
      const char *ns;
      bson_t clause;
      if (!metas[i].changed)
         continue;
      bson_uint32_to_string (n++, &ns, nb, sizeof nb);
      BSON_APPEND_DOCUMENT_BEGIN (& or, ns, &clause);
      collect_append_chunk_coll (&clause, metas[i].by_uuid && metas[i].has_uuid ? "uuid" : "ns", &metas[i]);
      if (since) {
         bson_t gt;
         BSON_APPEND_DOCUMENT_BEGIN (&clause, "lastmod", &gt);
         BSON_APPEND_TIMESTAMP (&gt, "$gt", metas[i].vt, metas[i].vi);
         bson_append_document_end (&clause, &gt);
      }
      bson_append_document_end (& or, &clause);
   }
   bson_append_array_end (&match, & or);
   bson_append_document_end (&stage, &match);
   bson_append_document_end (pipeline, &stage);
}

/* Starts {aggregate: "chunks", pipeline: [...]} in cmd, the pipeline left open in *pipeline; with only_changed, its
 * first stage keeps the chunks of the collections marked changed. */
static void
chunks_agg_begin (bson_t *cmd, bson_t *pipeline, uint32_t *k, const coll_meta_t *metas, size_t nmetas,
                  bool only_changed)
{
   BSON_APPEND_UTF8 (cmd, "aggregate", "chunks");
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", pipeline);
   *k = 0;
   if (only_changed)
      append_colls_match (pipeline, k, metas, nmetas, false);
}

static void
chunks_agg_end (bson_t *cmd, bson_t *pipeline)
{
   bson_t cursor;
   bson_append_array_end (cmd, pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (cmd, "cursor", &cursor);
   bson_append_document_end (cmd, &cursor);
}

/* The greatest lastmod of a reply document's field v into the collection's version (when greater). */
static void
keep_version (coll_meta_t *m, const bson_t *d)
{
   bson_iter_t it;
   uint32_t t, i;
   if (!bson_iter_init_find (&it, d, "v") || !BSON_ITER_HOLDS_TIMESTAMP (&it))
      return;
   bson_iter_timestamp (&it, &t, &i);
   if (t > m->vt || (t == m->vt && i > m->vi)) {
      m->vt = t;
      m->vi = i;
   }
}

/* Appends to the $or array or, from element *n on, the clauses that keep a collection's chunks at the ends of its
 * key space: {uuid: U, "min.k1": MinKey} and {uuid: U, "max.k1": MaxKey}, k1 the key's first field (by ns before
 * 5.0). Only such chunks can hold the least min or the greatest max, and only they are what chunk_end_doc takes;
 * the $group after them sees two or so chunks per collection instead of all of them. A first field whose name has
 * a dot (or starts with $) would be read as a path: the collection is then kept whole, {uuid: U}. */
static void
append_ends_clauses (bson_t * or, uint32_t *n, const coll_meta_t *m)
{
   const char *coll_field = m->by_uuid && m->has_uuid ? "uuid" : "ns";
   bson_iter_t it;
   const char *k1 = bson_iter_init (&it, &m->key) && bson_iter_next (&it) ? bson_iter_key (&it) : NULL;
   bool whole = !k1 || !*k1 || strchr (k1, '.') || k1[0] == '$';
   for (int end = 0; end < (whole ? 1 : 2); end++) {
      char nb[16], path[SNAP_NAME + 8];
      const char *ns;
      bson_t clause;
      bson_uint32_to_string ((*n)++, &ns, nb, sizeof nb);
      BSON_APPEND_DOCUMENT_BEGIN (or, ns, &clause);
      collect_append_chunk_coll (&clause, coll_field, m);
      if (!whole) {
         bson_snprintf (path, sizeof path, "%s.%s", end ? "max" : "min", k1);
         if (end)
            BSON_APPEND_MAXKEY (&clause, path);
         else
            BSON_APPEND_MINKEY (&clause, path);
      }
      bson_append_document_end (or, &clause);
   }
}

/* The chunks at both ends of every collection's key space (those marked changed, with only_changed), one
 * document per collection: the chunk with the greatest max (its max is MaxKey) and the one with the least min
 * (MinKey), with their owners. A $match keeps only the chunks whose key's first field is MinKey in min or MaxKey in
 * max (append_ends_clauses), so the $group compares a few chunks per collection, not all of them. */
static bool
sample_chunk_ends (collect_t *c, snap_t *s, const lookup_t *lk, const coll_meta_t *metas, size_t nmetas,
                   bool only_changed, sh_error_t *err)
{
   bson_t *hi = BCON_NEW ("$max", "{", "max", "$max", "min", "$min", "shard", "$shard", "}");
   bson_t *lo = BCON_NEW ("$min", "{", "min", "$min", "max", "$max", "shard", "$shard", "}");
   bson_t cmd = BSON_INITIALIZER;
   bson_t pipeline, stage, group, id;
   reply_ctx_t rc = { s, lk, NULL };
   char kb[16];
   const char *ks;
   uint32_t k;
   bool ok = false;

   chunks_agg_begin (&cmd, &pipeline, &k, metas, nmetas, false);
   {
      bson_t match, or ;
      uint32_t n = 0;
      bson_uint32_to_string (k++, &ks, kb, sizeof kb);
      BSON_APPEND_DOCUMENT_BEGIN (&pipeline, ks, &stage);
      BSON_APPEND_DOCUMENT_BEGIN (&stage, "$match", &match);
      BSON_APPEND_ARRAY_BEGIN (&match, "$or", & or);
      for (size_t i = 0; i < nmetas; i++)
         if (metas[i].changed || !only_changed)
            append_ends_clauses (& or, &n, &metas[i]);
      bson_append_array_end (&match, & or);
      bson_append_document_end (&stage, &match);
      bson_append_document_end (&pipeline, &stage);
      if (n == 0) { /* no collection: nothing to ask ($or needs a clause) */
         ok = true;
         goto done;
      }
   }
   bson_uint32_to_string (k, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, ks, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "_id", &id);
   append_group_coll (&id);
   bson_append_document_end (&group, &id);
   BSON_APPEND_DOCUMENT (&group, "hi", hi);
   BSON_APPEND_DOCUMENT (&group, "lo", lo);
   bson_append_document_end (&stage, &group);
   bson_append_document_end (&pipeline, &stage);
   chunks_agg_end (&cmd, &pipeline);
   if (!collect_run_each (c, "config", &cmd, COLLECT_BATCH_DOCS, chunk_end_doc, &rc, err))
      goto done;
   ok = true;
done:
   bson_destroy (hi);
   bson_destroy (lo);
   bson_destroy (&cmd);
   return ok;
}

/* One document of the chunk-count reply: a (collection, shard, zone) group's chunk and jumbo counts, and the
 * greatest lastmod among them (the collection's version is the greatest over its groups). */
static bool
chunk_group_doc (void *data, const bson_t *d)
{
   reply_ctx_t *rc = data;
   snap_t *s = rc->s;
   bson_t gid;
   snap_coll_t *co;
   int mi, si;
   const char *zone;
   int64_t n, j;
   if (!docget_sub (d, "_id", BSON_TYPE_EOD, &gid))
      return true;
   mi = meta_for_chunk_id (rc->lk, &gid);
   si = collect_lookup_shard (rc->lk, docget_utf8 (&gid, "s", ""));
   if (mi < 0)
      return true;
   keep_version (&rc->metas[mi], d);
   if (si < 0)
      return true;
   co = &s->colls[mi];
   /* counts of chunks: never negative, and each fits the cell's int32 */
   n = ck_nonneg (docget_int (d, "n", 0));
   j = ck_nonneg (docget_int (d, "j", 0));
   n = n > INT32_MAX ? INT32_MAX : n;
   j = j > INT32_MAX ? INT32_MAX : j;
   /* the groups of one (collection, shard) by zone add up in snap_coll_tidy */
   snap_coll_cell_add (co, si)->chunks = (int32_t) n;
   if (j)
      snap_coll_act_add (co, si)->jumbo = (int32_t) j;
   co->chunks = ck_add (co->chunks, n);
   co->jumbo = ck_add (co->jumbo, j);
   zone = docget_utf8 (&gid, "z", NULL);
   if (zone && *zone && !collect_shard_in_zone (&s->shards[si], zone))
      co->out_of_zone = ck_add (co->out_of_zone, n);
   if (docget_utf8 (&gid, "z.straddles", NULL))
      co->straddling = ck_add (co->straddling, n);
   return true;
}

/* One document of the change reply: a collection with chunks newer than its version, and the newest of them. */
static bool
chunk_change_doc (void *data, const bson_t *d)
{
   reply_ctx_t *rc = data;
   bson_t gid;
   int mi;
   bson_iter_t it;
   if (!docget_sub (d, "_id", BSON_TYPE_EOD, &gid) || (mi = meta_for_chunk_id (rc->lk, &gid)) < 0)
      return true;
   rc->metas[mi].changed = true;
   /* a migration raises the major version (a split or a merge only the minor one): owned sizes moved too */
   if (bson_iter_init_find (&it, d, "v") && BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      uint32_t t, i;
      bson_iter_timestamp (&it, &t, &i);
      rc->metas[mi].moved = t > rc->metas[mi].vt;
   } else
      rc->metas[mi].moved = true;
   return true;
}

/* Whether the counts of the last good sample can be carried into s: the same shards with the same zones, the same
 * collections (same uuid, incarnation and key, in the same order), the same zone ranges, and no full read asked
 * for. Otherwise the counts are read again whole. */
static bool
chunks_carry_ok (const collect_t *c, const snap_t *s, const coll_meta_t *metas, size_t nmetas, const bson_t *tags)
{
   const snap_t *p = &c->prev;
   if (!c->have_prev || c->full_next || !c->have_tags || p->nshards != s->nshards || p->ncolls != s->ncolls ||
       c->nmeta != nmetas || !bson_equal (&c->tags, tags))
      return false;
   for (size_t i = 0; i < s->nshards; i++)
      if (strcmp (p->shards[i].name, s->shards[i].name) != 0 || strcmp (p->shards[i].zones, s->shards[i].zones) != 0)
         return false;
   for (size_t i = 0; i < nmetas; i++) {
      const coll_meta_t *a = &c->meta[i], *b = &metas[i];
      if (strcmp (a->ns, b->ns) != 0 || strcmp (a->ident, b->ident) != 0 || a->has_uuid != b->has_uuid ||
          a->by_uuid != b->by_uuid || (a->has_uuid && memcmp (a->uuid, b->uuid, 16) != 0) ||
          !bson_equal (&a->key, &b->key) || strcmp (p->colls[i].ns, b->ns) != 0)
         return false;
   }
   return true;
}

/* Which collections' chunks changed since the last good sample: one aggregate whose $match asks, per collection,
 * for the chunks whose lastmod is above its version (every split, merge and migration bumps the version of the
 * chunks it writes), grouped to one small document per changed collection. On a server with the
 * { uuid: 1, lastmod: 1 } index of config.chunks it reads only the changed chunks. Marks them in metas. */
static bool
sample_chunk_changes (collect_t *c, snap_t *s, const lookup_t *lk, coll_meta_t *metas, size_t nmetas, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER;
   bson_t pipeline, stage, group, id, vmax;
   reply_ctx_t rc = { s, lk, metas };
   char kb[16];
   const char *ks;
   uint32_t k = 0;
   bool ok;

   for (size_t i = 0; i < nmetas; i++) {
      metas[i].changed = true; /* every collection is asked about */
      metas[i].vt = c->meta[i].vt;
      metas[i].vi = c->meta[i].vi;
   }
   BSON_APPEND_UTF8 (&cmd, "aggregate", "chunks");
   BSON_APPEND_ARRAY_BEGIN (&cmd, "pipeline", &pipeline);
   if (nmetas)
      append_colls_match (&pipeline, &k, metas, nmetas, true);
   bson_uint32_to_string (k, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, ks, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "_id", &id);
   append_group_coll (&id);
   bson_append_document_end (&group, &id);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "v", &vmax);
   BSON_APPEND_UTF8 (&vmax, "$max", "$lastmod");
   bson_append_document_end (&group, &vmax);
   bson_append_document_end (&stage, &group);
   bson_append_document_end (&pipeline, &stage);
   chunks_agg_end (&cmd, &pipeline);
   for (size_t i = 0; i < nmetas; i++)
      metas[i].changed = metas[i].moved = false;
   ok = !nmetas || collect_run_each (c, "config", &cmd, COLLECT_BATCH_DOCS, chunk_change_doc, &rc, err);
   bson_destroy (&cmd);
   return ok;
}

/* Gives every collection not marked changed the chunk counts, key-space ends and version of the last good sample
 * (chunks_carry_ok said they still hold): its cells and acts are the last sample's, shared. */
static void
carry_chunks (const collect_t *c, snap_t *s, coll_meta_t *metas, size_t nmetas)
{
   for (size_t i = 0; i < nmetas; i++) {
      const snap_coll_t *pc = &c->prev.colls[i];
      snap_coll_t *co = &s->colls[i];
      if (metas[i].changed)
         continue;
      co->chunks = pc->chunks;
      co->jumbo = pc->jumbo;
      co->out_of_zone = pc->out_of_zone;
      co->straddling = pc->straddling;
      co->top_shard = pc->top_shard;
      co->bottom_shard = pc->bottom_shard;
      snap_coll_share_ends (co, pc);
      /* the same cells and acts as the last sample (shared, not copied): what changes them later copies them */
      snap_coll_share_cells (co, pc);
      snap_coll_share_acts (co, pc);
      metas[i].vt = c->meta[i].vt;
      metas[i].vi = c->meta[i].vi;
   }
}

/* The chunk counts: one $group over config.chunks by (collection, shard, zone), so the reply grows with the
 * (collection, shard, zone) triples that hold chunks, never with chunks; then the chunks at the key space's ends.
 * After a good sample whose counts still hold (chunks_carry_ok), an incremental read: one aggregate finds the
 * collections with chunks newer than their version, and only those are counted again (the two $groups, each behind
 * a $match on them; not sent when none changed); the others carry their counts. Marks in metas the collections
 * counted again; *tags_out receives config.tags (owned by the caller). */
bool
collect_sample_chunks (collect_t *c, snap_t *s, coll_meta_t *metas, size_t nmetas, const lookup_t *lk, bson_t *tags_out,
                       sh_error_t *err)
{
   bson_t *tags_cmd = BCON_NEW ("find", "tags", "sort", "{", "ns", BCON_INT32 (1), "min", BCON_INT32 (1), "}");
   bson_t *n_acc = BCON_NEW ("$sum", BCON_INT32 (1));
   bson_t *j_acc = BCON_NEW ("$sum", "{", "$cond", "[", "{", "$eq", "[", "$jumbo", BCON_BOOL (true), "]", "}",
                             BCON_INT32 (1), BCON_INT32 (0), "]", "}");
   bson_t *v_acc = BCON_NEW ("$max", "$lastmod");
   bson_t cmd = BSON_INITIALIZER;
   bson_t pipeline, stage, group, id;
   reply_ctx_t rc = { s, lk, metas };
   char kb[16];
   const char *ks;
   uint32_t k;
   bool inc, ok = false;

   if (!collect_run_docs (c, "config", tags_cmd, COLLECT_TAGS_MAX, tags_out, err))
      goto done;
   inc = chunks_carry_ok (c, s, metas, nmetas, tags_out);
   s->incremental = inc;
   if (inc) {
      if (!sample_chunk_changes (c, s, lk, metas, nmetas, err))
         goto done;
      carry_chunks (c, s, metas, nmetas);
   } else {
      for (size_t i = 0; i < nmetas; i++) {
         metas[i].changed = true;
         metas[i].vt = metas[i].vi = 0;
      }
   }
   for (size_t i = 0; i < nmetas; i++)
      s->colls_reread += metas[i].changed;
   if (!s->colls_reread) {
      ok = true;
      goto done;
   }
   chunks_agg_begin (&cmd, &pipeline, &k, metas, nmetas, inc);
   bson_uint32_to_string (k, &ks, kb, sizeof kb);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, ks, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "_id", &id);
   append_group_coll (&id);
   BSON_APPEND_UTF8 (&id, "s", "$shard");
   append_zone_switch (&id, tags_out, metas, nmetas);
   bson_append_document_end (&group, &id);
   BSON_APPEND_DOCUMENT (&group, "n", n_acc);
   BSON_APPEND_DOCUMENT (&group, "j", j_acc);
   BSON_APPEND_DOCUMENT (&group, "v", v_acc);
   bson_append_document_end (&stage, &group);
   bson_append_document_end (&pipeline, &stage);
   chunks_agg_end (&cmd, &pipeline);
   if (!collect_run_each (c, "config", &cmd, COLLECT_BATCH_DOCS, chunk_group_doc, &rc, err))
      goto done;
   for (size_t i = 0; i < nmetas; i++)
      if (metas[i].changed)
         snap_coll_tidy (&s->colls[i]);
   ok = sample_chunk_ends (c, s, lk, metas, nmetas, inc, err);
done:
   bson_destroy (tags_cmd);
   bson_destroy (n_acc);
   bson_destroy (j_acc);
   bson_destroy (v_acc);
   bson_destroy (&cmd);
   return ok;
}
