/* The spec check of collections (docs/desired-state.md): each namespace's shard key and shardCollection options, its
 * balancing settings and its zone ranges, rewritten in canonical form (ranges sorted by min, none overlapping). */
#include <stdlib.h>
#include <string.h>

#include "shell/desired/desired.h"
#include "shell/desired/ranges.h"
#include "shell/desired/spec_locs.h"
#include "shell/lib/names.h"
#include "shell/lib/order.h"

bool
spec_check_collections (const spec_locs_t *locs, sh_error_t *err, const bson_iter_t *it, bson_t *out);

typedef struct {
   const spec_locs_t *locs;
   sh_error_t *err;
} cc_t;

static bool
cc_fail (cc_t *c, const char *path, const char *fmt, const char *a)
{
   char shown[512];
   bson_snprintf (shown, sizeof shown, "%s", path + 1);
   for (char *p = shown; *p; p++)
      if (*p == '/')
         *p = '.';
   sh_error_set_at (c->err, SH_ERR_PARSE, spec_locs_at (c->locs, path), "%s: ", shown);
   bson_snprintf (c->err->message + strlen (c->err->message), sizeof c->err->message - strlen (c->err->message), fmt,
                  a ? a : "");
   return false;
}

/* A shard key: a non-empty document whose values are 1 or "hashed". */
static bool
cc_key (cc_t *c, const bson_iter_t *it, const char *path, bson_t *out)
{
   bson_iter_t k;
   bson_t key;
   int n = 0;
   if (!BSON_ITER_HOLDS_DOCUMENT (it))
      return cc_fail (c, path, "expected a shard key document such as { zipcode: 1 } or { _id: \"hashed\" }%s", NULL);
   bson_iter_recurse (it, &k);
   while (bson_iter_next (&k)) {
      bool one = BSON_ITER_HOLDS_NUMBER (&k) && bson_iter_as_double (&k) == 1;
      bool hashed = BSON_ITER_HOLDS_UTF8 (&k) && !strcmp (bson_iter_utf8 (&k, NULL), "hashed");
      n++;
      if (!one && !hashed)
         return cc_fail (c, path, "expected 1 or \"hashed\" for the key field %s", bson_iter_key (&k));
   }
   if (!n)
      return cc_fail (c, path, "expected at least one key field%s", NULL);
   bson_iter_recurse (it, &k);
   BSON_APPEND_DOCUMENT_BEGIN (out, "key", &key);
   while (bson_iter_next (&k)) {
      if (BSON_ITER_HOLDS_UTF8 (&k))
         BSON_APPEND_UTF8 (&key, bson_iter_key (&k), "hashed");
      else
         BSON_APPEND_INT32 (&key, bson_iter_key (&k), 1);
   }
   bson_append_document_end (out, &key);
   return true;
}

static void
cc_view (const uint8_t *data, uint32_t len, bson_t *out)
{
   bson_init_static (out, data, len);
}

/* One { zone, min, max } element into r (views into the spec). */
static bool
cc_range (cc_t *c, const bson_iter_t *it, const char *path, desired_range_t *r)
{
   bson_iter_t f;
   bson_t mn, mx;
   char sub[512];
   bool has_min = false, has_max = false;
   r->zone = NULL;
   if (!BSON_ITER_HOLDS_DOCUMENT (it))
      return cc_fail (c, path, "expected a range { zone: \"NYC\", min: {...}, max: {...} }%s", NULL);
   bson_iter_recurse (it, &f);
   while (bson_iter_next (&f)) {
      const char *k = bson_iter_key (&f);
      bson_snprintf (sub, sizeof sub, "%s/%s", path, k);
      if (!strcmp (k, "zone")) {
         if (!BSON_ITER_HOLDS_UTF8 (&f) || !bson_iter_utf8 (&f, NULL)[0])
            return cc_fail (c, sub, "expected a zone name (a non-empty string)%s", NULL);
         r->zone = bson_iter_utf8 (&f, NULL);
      } else if (!strcmp (k, "min") || !strcmp (k, "max")) {
         bool is_min = k[1] == 'i';
         if (!BSON_ITER_HOLDS_DOCUMENT (&f))
            return cc_fail (c, sub, "expected a document of shard key values such as { zipcode: \"10001\" }%s", NULL);
         bson_iter_document (&f, is_min ? &r->min_len : &r->max_len, is_min ? &r->min : &r->max);
         *(is_min ? &has_min : &has_max) = true;
      } else {
         return cc_fail (c, sub, "expected zone, min or max, got the field %s", k);
      }
   }
   if (!r->zone || !has_min || !has_max)
      return cc_fail (c, path, "expected zone, min and max: %s is missing",
                      !r->zone   ? "zone"
                      : !has_min ? "min"
                                 : "max");
   cc_view (r->min, r->min_len, &mn);
   cc_view (r->max, r->max_len, &mx);
   if (order_keys (&mn, &mx) >= 0) {
      bson_snprintf (sub, sizeof sub, "%s/max", path);
      return cc_fail (c, sub, "expected max above min%s", NULL);
   }
   return true;
}

static bool
cc_zones (cc_t *c, const bson_iter_t *it, const char *path, bson_t *out)
{
   bson_iter_t z;
   desired_range_t *r = NULL;
   size_t n = 0;
   bool ok = true;
   char sub[512];
   if (!BSON_ITER_HOLDS_ARRAY (it))
      return cc_fail (c, path, "expected an array of ranges [ { zone, min, max }, ... ]%s", NULL);
   bson_iter_recurse (it, &z);
   while (ok && bson_iter_next (&z)) {
      r = bson_realloc (r, (n + 1) * sizeof *r);
      bson_snprintf (sub, sizeof sub, "%s/%s", path, bson_iter_key (&z));
      r[n].index = (int) n;
      ok = cc_range (c, &z, sub, &r[n]);
      n++;
   }
   if (ok && n)
      qsort (r, n, sizeof *r, desired_range_cmp);
   for (size_t i = 1; ok && i < n; i++) {
      bson_t pmax, cmin;
      cc_view (r[i - 1].max, r[i - 1].max_len, &pmax);
      cc_view (r[i].min, r[i].min_len, &cmin);
      if (order_keys (&pmax, &cmin) > 0) {
         bson_snprintf (sub, sizeof sub, "%s/%d", path, r[i].index > r[i - 1].index ? r[i].index : r[i - 1].index);
         ok = cc_fail (c, sub, "expected ranges that do not overlap: this one overlaps the range of zone %s",
                       r[i].index > r[i - 1].index ? r[i - 1].zone : r[i].zone);
      }
   }
   desired_ranges_append (out, r, ok ? n : 0);
   bson_free (r);
   return ok;
}

static bool
cc_field (cc_t *c, const bson_iter_t *f, const char *sub, bson_t *doc)
{
   const char *k = bson_iter_key (f);
   if (!strcmp (k, "key"))
      return cc_key (c, f, sub, doc);
   if (!strcmp (k, "zones"))
      return cc_zones (c, f, sub, doc);
   if (!strcmp (k, "unique") || !strcmp (k, "balancing") || !strcmp (k, "allowMigrations") ||
       !strcmp (k, "autoMerge") || !strcmp (k, "allowReshard")) {
      if (!BSON_ITER_HOLDS_BOOL (f))
         return cc_fail (c, sub, "expected true or false%s", NULL);
      return BSON_APPEND_BOOL (doc, k, bson_iter_bool (f));
   }
   if (!strcmp (k, "chunkSizeMB")) {
      double v = BSON_ITER_HOLDS_NUMBER (f) ? bson_iter_as_double (f) : -1;
      if (BSON_ITER_HOLDS_NULL (f))
         return BSON_APPEND_NULL (doc, k);
      if (!(v >= 1 && v <= 1024) || v != (double) (int32_t) v)
         return cc_fail (c, sub, "expected a whole number of megabytes from 1 to 1024, or null (the cluster's)%s",
                         NULL);
      return BSON_APPEND_INT32 (doc, k, (int32_t) v);
   }
   return cc_fail (c, sub,
                   "expected one of key, unique, balancing, chunkSizeMB, allowMigrations, autoMerge, zones, "
                   "allowReshard, got the field %s",
                   k);
}

/* One namespace of the spec and where its value stands, so the sorted walk needs no second search. */
typedef struct {
   const char *name;
   bson_iter_t value;
} cc_ns_t;

static int
cc_cmp_ns (const void *a, const void *b)
{
   return strcmp (((const cc_ns_t *) a)->name, ((const cc_ns_t *) b)->name);
}

/* False with why filled ("the database name is empty", ...) unless name is "db.coll" with both parts valid as the
 * server and mongosh judge them (names.h). */
static bool
cc_ns_valid (const char *name, char *why, size_t why_size)
{
   const char *dot = strchr (name, '.');
   char db[NAMES_DB_MAX + 1];
   const char *bad;
   if (!dot) {
      bson_snprintf (why, why_size, "it has no dot");
      return false;
   }
   if ((bad = names_db_invalid (name, (size_t) (dot - name)))) {
      bson_snprintf (why, why_size, "the database name %s", bad);
      return false;
   }
   memcpy (db, name, (size_t) (dot - name));
   db[dot - name] = '\0';
   if ((bad = names_coll_invalid (db, dot + 1, strlen (dot + 1)))) {
      bson_snprintf (why, why_size, "the collection name %s", bad);
      return false;
   }
   return true;
}

bool
spec_check_collections (const spec_locs_t *locs, sh_error_t *err, const bson_iter_t *it, bson_t *out)
{
   cc_t c = { locs, err };
   bson_iter_t k;
   cc_ns_t *ns;
   size_t n = 0;
   bson_t all;
   bool ok = true;
   if (!BSON_ITER_HOLDS_DOCUMENT (it))
      return cc_fail (&c, "/collections", "expected a document { \"db.coll\": { key: {...}, ... } }%s", NULL);
   bson_iter_recurse (it, &k);
   while (bson_iter_next (&k))
      n++;
   /* bson_iter_t is over-aligned (libbson's BSON_EXTRA_ALIGN): malloc's 16 bytes are not enough */
   ns = bson_aligned_alloc0 (BSON_ALIGNOF (cc_ns_t), (n ? n : 1) * sizeof *ns);
   n = 0;
   bson_iter_recurse (it, &k);
   while (bson_iter_next (&k)) {
      ns[n].name = bson_iter_key (&k);
      ns[n++].value = k;
   }
   if (n)
      qsort (ns, n, sizeof *ns, cc_cmp_ns);
   BSON_APPEND_DOCUMENT_BEGIN (out, "collections", &all);
   for (size_t i = 0; ok && i < n; i++) {
      bson_iter_t f;
      bson_t doc;
      char path[400], sub[512], why[128];
      bson_snprintf (path, sizeof path, "/collections/%s", ns[i].name);
      if (!cc_ns_valid (ns[i].name, why, sizeof why)) {
         bson_snprintf (sub, sizeof sub, "expected a namespace \"db.collection\", got \"%%s\": %s", why);
         ok = cc_fail (&c, path, sub, ns[i].name);
         break;
      }
      if (!BSON_ITER_HOLDS_DOCUMENT (&ns[i].value)) {
         ok = cc_fail (&c, path, "expected a document { key: {...}, balancing: true, zones: [...] }%s", NULL);
         break;
      }
      bson_iter_recurse (&ns[i].value, &f);
      BSON_APPEND_DOCUMENT_BEGIN (&all, ns[i].name, &doc);
      while (ok && bson_iter_next (&f)) {
         bson_snprintf (sub, sizeof sub, "%s/%s", path, bson_iter_key (&f));
         ok = cc_field (&c, &f, sub, &doc);
      }
      bson_append_document_end (&all, &doc);
   }
   bson_append_document_end (out, &all);
   bson_free (ns);
   return ok;
}
