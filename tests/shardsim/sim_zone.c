/* shardsim's zones: addShardToZone, removeShardFromZone, updateZoneKeyRange (config.tags with the overlap checks
 * the server makes) and the zone lookups the balancer and migrations use. Callers hold sim_g.lock. */
#include "tests/shardsim/sim_admin.h"
#include "tests/shardsim/query/simq_int.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The zone whose range contains [min, max) of ns, or NULL; zone copied into out. */
bool
sim_zone_of (const char *ns, const bson_t *min, const bson_t *max, char *out, size_t outlen)
{
   sim_coll_t *tags = sim_coll_get ("config", "tags");
   bson_t filter = BSON_INITIALIZER;
   bson_error_t err;
   sim_hits_t hits = { 0 };
   bool found = false;
   BSON_APPEND_UTF8 (&filter, "ns", ns);
   if (tags && sim_coll_match (tags, &filter, 0, &hits, &err)) {
      for (size_t i = 0; i < hits.n && !found; i++) {
         bson_t view, tmin, tmax;
         sim_coll_view (tags, hits.v[i], &view);
         if (docget_sub (&view, "min", BSON_TYPE_EOD, &tmin) && docget_sub (&view, "max", BSON_TYPE_EOD, &tmax) &&
             order_docs (&tmin, min) <= 0 && order_docs (max, &tmax) <= 0 && docget_utf8 (&view, "tag", NULL)) {
            bson_strncpy (out, docget_utf8 (&view, "tag", NULL), outlen);
            found = true;
         }
      }
   }
   sim_hits_destroy (&hits);
   bson_destroy (&filter);
   return found;
}

bool
sim_shard_in_zone (const char *shard, const char *zone)
{
   bson_t doc, tags;
   bool yes = false;
   if (!sim_shard_get (shard, &doc)) {
      return false;
   }
   if (docget_sub (&doc, "tags", BSON_TYPE_EOD, &tags)) {
      bson_iter_t it;
      bson_iter_init (&it, &tags);
      while (bson_iter_next (&it)) {
         yes = yes || (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), zone));
      }
   }
   bson_destroy (&doc);
   return yes;
}

bool
sim_op_add_shard_to_zone (const char *shard, const char *zone, bson_error_t *err)
{
   bson_t doc, tags, out, set = BSON_INITIALIZER, arr;
   if (!sim_shard_get (shard, &doc)) {
      SIM_ERR (err, 70, "shard %s does not exist", shard);
      bson_destroy (&set);
      return false;
   }
   uint32_t n = 0;
   bool have = false;
   BSON_APPEND_ARRAY_BEGIN (&set, "tags", &arr);
   if (docget_sub (&doc, "tags", BSON_TYPE_EOD, &tags)) {
      bson_iter_t it;
      bson_iter_init (&it, &tags);
      while (bson_iter_next (&it)) {
         char key[16];
         const char *kp;
         have = have || (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), zone));
         bson_uint32_to_string (n++, &kp, key, sizeof key);
         bson_append_value (&arr, kp, -1, bson_iter_value (&it));
      }
   }
   if (!have) {
      char key[16];
      const char *kp;
      bson_uint32_to_string (n++, &kp, key, sizeof key);
      BSON_APPEND_UTF8 (&arr, kp, zone);
   }
   bson_append_array_end (&set, &arr);
   sim_doc_set (&doc, &set, NULL, &out);
   sim_pos_t pos;
   sim_coll_t *shards = sim_coll_get ("config", "shards");
   if (sim_find_by_sid (shards, shard, &pos)) {
      sim_coll_replace (shards, pos, &out);
   }
   bson_destroy (&out);
   bson_destroy (&set);
   bson_destroy (&doc);
   return true;
}

/* Extends a zone bound to the full shard key (missing trailing fields MinKey). */
void
sim_extend_bound (const sim_shcoll_t *sc, const bson_t *bound, bson_t *out)
{
   bson_iter_t k, b;
   bson_init (out);
   bson_iter_init (&k, &sc->key);
   while (bson_iter_next (&k)) {
      if (bson_iter_init_find (&b, bound, bson_iter_key (&k))) {
         bson_append_value (out, bson_iter_key (&k), -1, bson_iter_value (&b));
      } else {
         BSON_APPEND_MINKEY (out, bson_iter_key (&k));
      }
   }
}

/* Views a stored document (raw BSON, its length in the first four bytes). */
static void
sim_raw_view (const uint8_t *raw, bson_t *out)
{
   bson_init_static (out, raw,
                     (uint32_t) raw[0] | (uint32_t) raw[1] << 8 | (uint32_t) raw[2] << 16 | (uint32_t) raw[3] << 24);
}

/* The overlap check of updateZoneKeyRange through the range index of ns's config.tags partition (sim_index.c): when
 * that partition holds ns's ranges only and they are pairwise disjoint (always, unless config.tags was written by
 * hand), the existing ranges overlapping [min, max) are one run of the index, found by two binary searches, instead
 * of a scan of every range. Sets *identical (the same bounds and zone exist) and, when some other range overlaps,
 * *have_clash with *clash viewing the first of them in storage order (the one a scan reports). Returns false when the
 * index cannot answer (the caller scans). */
static bool
sim_zone_overlap_indexed (sim_coll_t *tags, const char *ns, const bson_t *min, const bson_t *max, const char *zone,
                          bool *identical, bool *have_clash, bson_t *clash)
{
   bson_value_t v;
   size_t n = 0;
   bool disjoint = false, tight = false;
   if (strlen (ns) >= 100) {
      return false; /* the partition key might not hold it whole */
   }
   memset (&v, 0, sizeof v);
   v.value_type = BSON_TYPE_UTF8;
   v.value.v_utf8.str = (char *) ns;
   v.value.v_utf8.len = (uint32_t) strlen (ns);
   size_t p = sim_coll_find_part (tags, &v);
   if (p == SIZE_MAX) {
      return true; /* no range of ns yet */
   }
   const uint8_t *const *ord = sim_part_by_min (tags, p, &n, &disjoint, &tight);
   if (!ord || !disjoint || !tight) {
      return false;
   }
   /* Disjoint ranges sorted by min have their maxes sorted too: the overlapping ones are [lo, hi), lo the first
    * whose max is above min, hi the first whose min is not below max. */
   size_t lo = 0, hi = n;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      bson_t doc, tmax;
      sim_raw_view (ord[mid], &doc);
      docget_sub (&doc, "max", BSON_TYPE_EOD, &tmax);
      if (order_docs (&tmax, min) <= 0) {
         lo = mid + 1;
      } else {
         hi = mid;
      }
   }
   size_t first = lo;
   hi = n;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      bson_t doc, tmin;
      sim_raw_view (ord[mid], &doc);
      docget_sub (&doc, "min", BSON_TYPE_EOD, &tmin);
      if (order_docs (&tmin, max) < 0) {
         lo = mid + 1;
      } else {
         hi = mid;
      }
   }
   const uint8_t *best = NULL;
   size_t best_pos = SIZE_MAX;
   for (size_t k = first; k < lo; k++) {
      bson_t doc, tmin, tmax;
      sim_raw_view (ord[k], &doc);
      docget_sub (&doc, "min", BSON_TYPE_EOD, &tmin);
      docget_sub (&doc, "max", BSON_TYPE_EOD, &tmax);
      const char *tz = docget_utf8 (&doc, "tag", NULL);
      if (order_docs (&tmin, min) == 0 && order_docs (&tmax, max) == 0 && tz && !strcmp (tz, zone)) {
         *identical = true;
         continue;
      }
      if (!best) {
         best = ord[k];
         continue;
      }
      /* Several overlap (a wide new range): the scan would report the first stored. */
      const sim_raw_t *docs = &tags->parts[p].docs;
      if (best_pos == SIZE_MAX) {
         for (best_pos = 0; docs->v[best_pos] != best; best_pos++) {
         }
      }
      size_t pos = 0;
      while (docs->v[pos] != ord[k]) {
         pos++;
      }
      if (pos < best_pos) {
         best = ord[k];
         best_pos = pos;
      }
   }
   if (best) {
      sim_raw_view (best, clash);
      *have_clash = true;
   }
   return true;
}

/* Whether every element of bound may be stored in config.tags: no array, no regular expression, and embedded
 * documents without top-level $-prefixed fields (ShardKeyPattern::checkShardKeyIsValidForMetadataStorage). On failure
 * err is 2 BadValue "Shard key element <field: value> is not valid for storage". */
static bool
sim_bound_storable (const bson_t *bound, bson_error_t *err)
{
   bson_iter_t it, sub;
   bson_iter_init (&it, bound);
   while (bson_iter_next (&it)) {
      bool bad = BSON_ITER_HOLDS_ARRAY (&it) || BSON_ITER_HOLDS_REGEX (&it);
      if (BSON_ITER_HOLDS_DOCUMENT (&it) && bson_iter_recurse (&it, &sub)) {
         while (!bad && bson_iter_next (&sub)) {
            bad = bson_iter_key (&sub)[0] == '$';
         }
      }
      if (bad) {
         bson_t one = BSON_INITIALIZER;
         bson_append_value (&one, bson_iter_key (&it), -1, bson_iter_value (&it));
         char *s = sim_bson_str (&one);
         size_t l = strlen (s);
         /* "{ f: v }" -> "f: v", the element as the server prints it */
         SIM_ERR (err, 2, "Shard key element %.*s is not valid for storage", l > 4 ? (int) (l - 4) : (int) l,
                  l > 4 ? s + 2 : s);
         bson_free (s);
         bson_destroy (&one);
         return false;
      }
   }
   return true;
}

/* Whether min and max name the same fields in the same order (ChunkRange::extractKeyPattern, used for a collection
 * that is not sharded); err is 61 ShardKeyNotFound otherwise. */
static bool
sim_bounds_same_fields (const bson_t *min, const bson_t *max, bson_error_t *err)
{
   bson_iter_t a, b;
   bson_iter_init (&a, min);
   bson_iter_init (&b, max);
   for (;;) {
      bool na = bson_iter_next (&a), nb = bson_iter_next (&b);
      if (!na && !nb) {
         return true;
      }
      if (na != nb || strcmp (bson_iter_key (&a), bson_iter_key (&b)) != 0) {
         char *x = sim_bson_str (min), *y = sim_bson_str (max);
         SIM_ERR (err, 61, "the shard key of min %s doesn't match with the shard key of max %s", x, y);
         bson_free (x);
         bson_free (y);
         return false;
      }
   }
}

/* Whether some shard is in zone (config.shards tags). */
static bool
sim_zone_exists (const char *zone)
{
   simq_docs_t shards;
   bool found = false;
   simq_docs_init (&shards);
   sim_shards_list (&shards);
   for (size_t i = 0; i < shards.n && !found; i++) {
      found = sim_shard_in_zone (docget_utf8 (shards.v[i], "_id", NULL), zone);
   }
   simq_docs_clear (&shards);
   return found;
}

/* Checks that min_in and max_in are prefixes of sc's shard key (includeFullShardKey) and extends them to the full key
 * into min and max (initialised by the caller); with zone (assignKeyRangeToZone), a hashed field's bounds must also be
 * NumberLong, MinKey or MaxKey. False with err set otherwise. */
static bool
sim_zone_full_bounds (const sim_shcoll_t *sc, const char *ns, const bson_t *min_in, const bson_t *max_in,
                      const char *zone, bson_t *min, bson_t *max, bson_error_t *err)
{
   /* includeFullShardKey: both bounds must be a prefix of the shard key (min first), then they are extended. */
   const bson_t *bounds[2] = { min_in, max_in };
   for (int b = 0; b < 2; b++) {
      bson_iter_t k, f;
      bson_iter_init (&k, &sc->key);
      bson_iter_init (&f, bounds[b]);
      bool prefix = true;
      while (prefix && bson_iter_next (&f)) {
         prefix = bson_iter_next (&k) && !strcmp (bson_iter_key (&k), bson_iter_key (&f));
      }
      if (!prefix) {
         char *a = sim_bson_str (bounds[b]), *k2 = sim_bson_str (&sc->key);
         SIM_ERR (err, 61, "%s: %s is not a prefix of the shard key %s of ns: %s", b ? "max" : "min", a, k2, ns);
         bson_free (a);
         bson_free (k2);
         return false;
      }
   }
   sim_extend_bound (sc, min_in, min);
   sim_extend_bound (sc, max_in, max);
   /* checkHashedShardKeyRange (assign only): the extended bounds' hashed field is NumberLong, MinKey or MaxKey. */
   bson_iter_t hm, hx;
   if (zone && sc->hashed[0] && bson_iter_init_find (&hm, min, sc->hashed) &&
       bson_iter_init_find (&hx, max, sc->hashed)) {
      bool okm = BSON_ITER_HOLDS_INT64 (&hm) || BSON_ITER_HOLDS_MINKEY (&hm) || BSON_ITER_HOLDS_MAXKEY (&hm);
      bool okx = BSON_ITER_HOLDS_INT64 (&hx) || BSON_ITER_HOLDS_MINKEY (&hx) || BSON_ITER_HOLDS_MAXKEY (&hx);
      if (!okm || !okx) {
         char *a = sim_bson_str (min), *b = sim_bson_str (max), *k2 = sim_bson_str (&sc->key);
         SIM_ERR (err, 72,
                  "there exists a field in the range %s -->> %s not of type NumberLong, MinKey, or MaxKey which "
                  "corresponds to a hashed field in the shard key pattern %s",
                  a, b, k2);
         bson_free (a);
         bson_free (b);
         bson_free (k2);
         return false;
      }
   }
   return true;
}

bool
sim_op_update_zone_range (const char *ns, const bson_t *min_in, const bson_t *max_in, const char *zone,
                          bson_error_t *err)
{
   bson_t min, max;
   sim_shcoll_t sc;
   bool ok = false;
   bool sharded = sim_shcoll_load (ns, &sc);
   bson_init (&min);
   bson_init (&max);
   if (order_docs (min_in, max_in) >= 0) {
      char *a = sim_bson_str (min_in), *b = sim_bson_str (max_in);
      SIM_ERR (err, 9, "min: %s should be less than max: %s", a, b);
      bson_free (a);
      bson_free (b);
      goto done;
   }
   /* assignKeyRangeToZone checks the bounds can be stored before anything else; removeKeyRangeFromZone does not. */
   if (zone && (!sim_bound_storable (min_in, err) || !sim_bound_storable (max_in, err))) {
      goto done;
   }
   if (zone && !sim_zone_exists (zone)) {
      SIM_ERR (err, 177, "zone %s does not exist", zone);
      goto done;
   }
   if (sharded) {
      if (!sim_zone_full_bounds (&sc, ns, min_in, max_in, zone, &min, &max, err)) {
         goto done;
      }
   } else {
      if (!sim_bounds_same_fields (min_in, max_in, err)) {
         goto done;
      }
      bson_concat (&min, min_in);
      bson_concat (&max, max_in);
   }
   sim_coll_t *tags = sim_coll_ensure ("config", "tags");
   sim_hits_t hits = { 0 }, del = { 0 };
   bool identical = false, have_clash = false;
   bson_t clash; /* the existing range the new one overlaps (the first in storage order) */
   if (!zone || !sim_zone_overlap_indexed (tags, ns, &min, &max, zone, &identical, &have_clash, &clash)) {
      bson_t filter = BSON_INITIALIZER;
      bson_error_t e;
      BSON_APPEND_UTF8 (&filter, "ns", ns);
      sim_coll_match (tags, &filter, 0, &hits, &e);
      bson_destroy (&filter);
      for (size_t i = 0; i < hits.n && !have_clash; i++) {
         bson_t view, tmin, tmax;
         sim_coll_view (tags, hits.v[i], &view);
         if (!docget_sub (&view, "min", BSON_TYPE_EOD, &tmin) || !docget_sub (&view, "max", BSON_TYPE_EOD, &tmax)) {
            continue;
         }
         const char *tz = docget_utf8 (&view, "tag", NULL);
         bool same_bounds = order_docs (&tmin, &min) == 0 && order_docs (&tmax, &max) == 0;
         if (!zone) {
            /* removeKeyRangeFromZone deletes { ns, min, max } exactly: a wrong max removes nothing. */
            if (order_docs (&tmin, &min) == 0 && order_docs (&tmax, &max) == 0) {
               sim_pos_t p = hits.v[i];
               if (del.n == del.cap) {
                  del.cap = del.cap ? del.cap * 2 : 4;
                  del.v = bson_realloc (del.v, del.cap * sizeof *del.v);
               }
               del.v[del.n++] = p;
            }
            continue;
         }
         if (same_bounds && tz && !strcmp (tz, zone)) {
            identical = true;
            continue;
         }
         if (order_docs (&min, &tmax) < 0 && order_docs (&tmin, &max) < 0) {
            clash = view;
            have_clash = true;
         }
      }
   }
   if (have_clash) {
      bson_t tmin, tmax;
      const char *tz = docget_utf8 (&clash, "tag", NULL);
      docget_sub (&clash, "min", BSON_TYPE_EOD, &tmin);
      docget_sub (&clash, "max", BSON_TYPE_EOD, &tmax);
      char *a = sim_bson_str (&min), *b = sim_bson_str (&max), *c = sim_bson_str (&tmin), *d = sim_bson_str (&tmax);
      SIM_ERR (err, 178, "Zone range: %s -->> %s  on  %s is overlapping with existing: %s -->> %s  on  %s", a, b, zone,
               c, d, tz ? tz : "");
      bson_free (a);
      bson_free (b);
      bson_free (c);
      bson_free (d);
      sim_hits_destroy (&hits);
      sim_hits_destroy (&del);
      goto done;
   }
   sim_hits_destroy (&hits);
   if (!zone) {
      sim_coll_delete (tags, &del);
   } else if (!identical) {
      bson_t doc = BSON_INITIALIZER;
      bson_oid_t oid;
      bson_oid_init (&oid, NULL);
      BSON_APPEND_OID (&doc, "_id", &oid);
      BSON_APPEND_UTF8 (&doc, "ns", ns);
      BSON_APPEND_DOCUMENT (&doc, "min", &min);
      BSON_APPEND_DOCUMENT (&doc, "max", &max);
      BSON_APPEND_UTF8 (&doc, "tag", zone);
      sim_coll_insert (tags, &doc);
      bson_destroy (&doc);
   }
   sim_hits_destroy (&del);
   uint32_t s, i;
   sim_tick (&s, &i);
   ok = true;
done:
   bson_destroy (&min);
   bson_destroy (&max);
   sim_shcoll_destroy (&sc);
   return ok;
}

void
sim_cmd_add_shard_to_zone (sim_ctx_t *ctx, bson_t *reply)
{
   bson_error_t err;
   const char *shard = sim_first_string (ctx, reply);
   if (!shard) {
      return;
   }
   const char *zone = docget_utf8 (ctx->cmd, "zone", NULL);
   if (!zone) {
      sim_reply_error (reply, 4, "Missing expected field \"zone\"");
      return;
   }
   if (!sim_op_add_shard_to_zone (shard, zone, &err)) {
      sim_admin_error (reply, &err);
      return;
   }
   sim_reply_ok (reply);
}

/* ShardingCatalogManager::_isShardRequiredByZoneStillInUse: shard is the only shard in zone and config.tags holds a
 * range of the zone. */
bool
sim_zone_needs_shard (const char *shard, const char *zone)
{
   if (!sim_shard_in_zone (shard, zone)) {
      return false;
   }
   simq_docs_t shards;
   simq_docs_init (&shards);
   sim_shards_list (&shards);
   int holders = 0;
   for (size_t i = 0; i < shards.n; i++) {
      holders += sim_shard_in_zone (docget_utf8 (shards.v[i], "_id", NULL), zone);
   }
   simq_docs_clear (&shards);
   sim_coll_t *tagc = sim_coll_get ("config", "tags");
   bool used = false;
   for (size_t p = 0; tagc && p < tagc->nparts && !used; p++) {
      for (size_t i = 0; i < tagc->parts[p].docs.n && !used; i++) {
         bson_t view;
         sim_pos_t pos = { p, i };
         sim_coll_view (tagc, pos, &view);
         const char *t = docget_utf8 (&view, "tag", NULL);
         used = t && !strcmp (t, zone);
      }
   }
   return holders <= 1 && used;
}

void
sim_cmd_remove_shard_from_zone (sim_ctx_t *ctx, bson_t *reply)
{
   const char *shard = sim_first_string (ctx, reply);
   if (!shard) {
      return;
   }
   const char *zone = docget_utf8 (ctx->cmd, "zone", NULL);
   bson_t doc, tags, set = BSON_INITIALIZER, arr, out;
   if (!zone) {
      sim_reply_error (reply, 4, "Missing expected field \"zone\"");
      goto cleanup_set;
   }
   if (!sim_shard_get (shard, &doc)) {
      sim_reply_error (reply, 70, "shard %s does not exist", shard);
      goto cleanup_set;
   }
   if (sim_zone_needs_shard (shard, zone)) {
      /* Last shard in the zone while a range still uses it → ZoneStillInUse. */
      sim_reply_error (reply, 163, "cannot remove a shard from zone if a chunk range is associated with it");
      goto cleanup;
   }
   uint32_t n = 0;
   BSON_APPEND_ARRAY_BEGIN (&set, "tags", &arr);
   if (docget_sub (&doc, "tags", BSON_TYPE_EOD, &tags)) {
      bson_iter_t it;
      bson_iter_init (&it, &tags);
      while (bson_iter_next (&it)) {
         if (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), zone)) {
            continue;
         }
         char key[16];
         const char *kp;
         bson_uint32_to_string (n++, &kp, key, sizeof key);
         bson_append_value (&arr, kp, -1, bson_iter_value (&it));
      }
      bson_append_array_end (&set, &arr);
      sim_doc_set (&doc, &set, NULL, &out);
      sim_pos_t pos;
      sim_coll_t *shards_coll = sim_coll_get ("config", "shards");
      if (sim_find_by_sid (shards_coll, shard, &pos)) {
         sim_coll_replace (shards_coll, pos, &out);
      }
      bson_destroy (&out);
   } else {
      bson_append_array_end (&set, &arr);
   }
   sim_reply_ok (reply);
cleanup:
   bson_destroy (&doc);
cleanup_set:
   bson_destroy (&set);
}

void
sim_cmd_update_zone_key_range (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_t min, max;
   bson_error_t err;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   if (!BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 14, "\"updateZoneKeyRange\" had the wrong type. Expected string, found %s",
                       BSON_ITER_HOLDS_NUMBER (&it) ? "int" : "object");
      return;
   }
   const char *ns = bson_iter_utf8 (&it, NULL);
   char db[128];
   const char *coll;
   if (!sim_split_ns (ns, db, sizeof db, &coll)) {
      sim_reply_error (reply, 73, "%s is not a valid namespace", ns);
      return;
   }
   const char *names[2] = { "min", "max" };
   bson_t *bounds[2] = { &min, &max };
   for (int i = 0; i < 2; i++) {
      if (!bson_iter_init_find (&it, ctx->cmd, names[i])) {
         sim_reply_error (reply, 4, "The field '%s' cannot be parsed due to Missing expected field \"%s\"", names[i],
                          names[i]);
         return;
      }
      if (!docget_sub (ctx->cmd, names[i], BSON_TYPE_EOD, bounds[i]) || !BSON_ITER_HOLDS_DOCUMENT (&it)) {
         sim_reply_error (reply, 14,
                          "The field '%s' cannot be parsed due to \"%s\" had the wrong type. Expected "
                          "object",
                          names[i], names[i]);
         return;
      }
      if (bson_empty (bounds[i])) {
         sim_reply_error (reply, 2, "The field '%s' cannot be empty", names[i]);
         return;
      }
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "zone")) {
      sim_reply_error (reply, 4, "Missing expected field \"zone\"");
      return;
   }
   const char *zone = NULL;
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      zone = bson_iter_utf8 (&it, NULL);
   } else if (!BSON_ITER_HOLDS_NULL (&it)) {
      sim_reply_error (reply, 14, "\"zone\" had the wrong type. Expected string or null, found %s",
                       BSON_ITER_HOLDS_INT32 (&it)    ? "int"
                       : BSON_ITER_HOLDS_NUMBER (&it) ? "double"
                                                      : "object");
      return;
   }
   if (!sim_op_update_zone_range (ns, &min, &max, zone, &err)) {
      sim_admin_error (reply, &err);
      return;
   }
   sim_reply_ok (reply);
}
