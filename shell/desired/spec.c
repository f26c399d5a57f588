/* The spec file's check (docs/desired-state.md): one document literal parsed by the shell's own parser, every field
 * checked against what it may hold, and rewritten in the canonical form that --export prints and --diff compares
 * (names sorted, zone lists sorted, ranges sorted by min and checked for overlap). Errors carry the value's
 * file:line:col (spec_locs.c). Nothing here reads the cluster. */
#include <stdlib.h>
#include <string.h>

#include "shell/desired/desired.h"
#include "shell/desired/spec_locs.h"
#include "shell/lang/parser.h"
#include "shell/lib/docget.h"

typedef struct {
   const spec_locs_t *locs;
   sh_error_t *err;
} chk_t;

static const char *
chk_type (const bson_iter_t *it)
{
   switch (bson_iter_type (it)) {
   case BSON_TYPE_DOCUMENT:
      return "a document";
   case BSON_TYPE_ARRAY:
      return "an array";
   case BSON_TYPE_UTF8:
      return "a string";
   case BSON_TYPE_BOOL:
      return "a boolean";
   case BSON_TYPE_NULL:
      return "null";
   case BSON_TYPE_INT32:
   case BSON_TYPE_INT64:
   case BSON_TYPE_DOUBLE:
      return "a number";
   default:
      return "another type";
   }
}

/* Fails at path (shown as the dotted name) with "what: expected ...". Always false. */
static bool
chk_fail (chk_t *c, const char *path, const char *fmt, const char *a, const char *b)
{
   char shown[512];
   bson_snprintf (shown, sizeof shown, "%s", path[0] == '/' ? path + 1 : path);
   for (char *p = shown; *p; p++)
      if (*p == '/')
         *p = '.';
   sh_error_set_at (c->err, SH_ERR_PARSE, spec_locs_at (c->locs, path), "%s%s", shown, shown[0] ? ": " : "");
   bson_snprintf (c->err->message + strlen (c->err->message), sizeof c->err->message - strlen (c->err->message), fmt,
                  a ? a : "", b ? b : "");
   return false;
}

static bool
chk_bool (chk_t *c, const bson_iter_t *it, const char *path, bson_t *out, const char *key)
{
   if (!BSON_ITER_HOLDS_BOOL (it))
      return chk_fail (c, path, "expected true or false, got %s%s", chk_type (it), NULL);
   return BSON_APPEND_BOOL (out, key, bson_iter_bool (it));
}

static bool
chk_mb (chk_t *c, const bson_iter_t *it, const char *path, bson_t *out, const char *key)
{
   double v = BSON_ITER_HOLDS_NUMBER (it) ? bson_iter_as_double (it) : -1;
   if (!BSON_ITER_HOLDS_NUMBER (it) || !(v >= 1 && v <= 1024) || v != (double) (int32_t) v)
      return chk_fail (c, path, "expected a whole number of megabytes from 1 to 1024, got %s%s", chk_type (it), NULL);
   return BSON_APPEND_INT32 (out, key, (int32_t) v);
}

/* "HH:MM" */
static bool
chk_hhmm (const bson_iter_t *it)
{
   const char *s = BSON_ITER_HOLDS_UTF8 (it) ? bson_iter_utf8 (it, NULL) : "";
   return strlen (s) == 5 && s[2] == ':' && s[0] >= '0' && s[0] <= '2' && s[1] >= '0' && s[1] <= '9' &&
          (s[0] < '2' || s[1] <= '3') && s[3] >= '0' && s[3] <= '5' && s[4] >= '0' && s[4] <= '9';
}

static bool
chk_window (chk_t *c, const bson_iter_t *it, const char *path, bson_t *out)
{
   bson_iter_t w;
   bson_t win;
   bool start = false, stop = false;
   char sub[256];
   if (BSON_ITER_HOLDS_NULL (it))
      return BSON_APPEND_NULL (out, "activeWindow");
   if (!BSON_ITER_HOLDS_DOCUMENT (it))
      return chk_fail (c, path, "expected { start: \"HH:MM\", stop: \"HH:MM\" } or null, got %s%s", chk_type (it),
                       NULL);
   bson_iter_recurse (it, &w);
   while (bson_iter_next (&w)) {
      const char *k = bson_iter_key (&w);
      bson_snprintf (sub, sizeof sub, "%s/%s", path, k);
      if (strcmp (k, "start") && strcmp (k, "stop"))
         return chk_fail (c, sub, "expected start or stop, got the field %s%s", k, NULL);
      if (!chk_hhmm (&w))
         return chk_fail (c, sub, "expected a time \"HH:MM\" (00:00 to 23:59), got %s%s",
                          BSON_ITER_HOLDS_UTF8 (&w) ? bson_iter_utf8 (&w, NULL) : chk_type (&w), NULL);
      *(k[2] == 'a' ? &start : &stop) = true;
   }
   if (!start || !stop)
      return chk_fail (c, path, "expected both start and stop, %s is missing", start ? "stop" : "start", NULL);
   bson_iter_recurse (it, &w);
   BSON_APPEND_DOCUMENT_BEGIN (out, "activeWindow", &win);
   while (bson_iter_next (&w))
      BSON_APPEND_UTF8 (&win, bson_iter_key (&w), bson_iter_utf8 (&w, NULL));
   return bson_append_document_end (out, &win);
}

static bool
chk_balancer (chk_t *c, const bson_iter_t *it, bson_t *out)
{
   bson_iter_t b;
   bson_t doc;
   char sub[256];
   bool ok = true;
   if (!BSON_ITER_HOLDS_DOCUMENT (it))
      return chk_fail (c, "/balancer", "expected a document, got %s%s", chk_type (it), NULL);
   bson_iter_recurse (it, &b);
   BSON_APPEND_DOCUMENT_BEGIN (out, "balancer", &doc);
   while (ok && bson_iter_next (&b)) {
      const char *k = bson_iter_key (&b);
      bson_snprintf (sub, sizeof sub, "/balancer/%s", k);
      if (!strcmp (k, "stopped") || !strcmp (k, "secondaryThrottle") || !strcmp (k, "waitForDelete"))
         ok = chk_bool (c, &b, sub, &doc, k);
      else if (!strcmp (k, "chunkSizeMB"))
         ok = chk_mb (c, &b, sub, &doc, k);
      else if (!strcmp (k, "activeWindow"))
         ok = chk_window (c, &b, sub, &doc);
      else
         ok = chk_fail (c, sub,
                        "expected one of stopped, activeWindow, chunkSizeMB, secondaryThrottle, waitForDelete, got "
                        "the field %s%s",
                        k, NULL);
   }
   bson_append_document_end (out, &doc);
   return ok;
}

static int
chk_cmp_str (const void *a, const void *b)
{
   return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The keys of document it, sorted (an array of borrowed strings, bson_free'd by the caller); *n their count. */
static const char **
chk_sorted_keys (const bson_iter_t *it, size_t *n)
{
   bson_iter_t k;
   const char **keys = NULL;
   size_t cap = 0;
   *n = 0;
   bson_iter_recurse (it, &k);
   while (bson_iter_next (&k)) {
      if (*n == cap) {
         cap = cap ? cap * 2 : 16;
         keys = bson_realloc (keys, cap * sizeof *keys);
      }
      keys[(*n)++] = bson_iter_key (&k);
   }
   if (*n)
      qsort (keys, *n, sizeof *keys, chk_cmp_str);
   return keys;
}

/* A list of zone names: strings, no duplicate, written sorted. */
static bool
chk_zone_list (chk_t *c, const bson_iter_t *it, const char *path, bson_t *out)
{
   bson_iter_t z;
   const char **names = NULL;
   size_t n = 0;
   bson_t arr;
   char sub[300], key[16];
   bool ok = true;
   if (!BSON_ITER_HOLDS_ARRAY (it))
      return chk_fail (c, path, "expected an array of zone names, got %s%s", chk_type (it), NULL);
   bson_iter_recurse (it, &z);
   while (bson_iter_next (&z)) {
      bson_snprintf (sub, sizeof sub, "%s/%s", path, bson_iter_key (&z));
      if (!BSON_ITER_HOLDS_UTF8 (&z) || !bson_iter_utf8 (&z, NULL)[0]) {
         ok = chk_fail (c, sub, "expected a zone name (a non-empty string), got %s%s", chk_type (&z), NULL);
         break;
      }
      names = bson_realloc (names, (n + 1) * sizeof *names);
      names[n++] = bson_iter_utf8 (&z, NULL);
   }
   if (ok && n)
      qsort (names, n, sizeof *names, chk_cmp_str);
   for (size_t i = 1; ok && i < n; i++)
      if (!strcmp (names[i - 1], names[i]))
         ok = chk_fail (c, path, "expected each zone once, %s is listed twice%s", names[i], NULL);
   BSON_APPEND_ARRAY_BEGIN (out, "zones", &arr);
   for (size_t i = 0; ok && i < n; i++) {
      bson_snprintf (key, sizeof key, "%zu", i);
      BSON_APPEND_UTF8 (&arr, key, names[i]);
   }
   bson_append_array_end (out, &arr);
   bson_free (names);
   return ok;
}

static bool
chk_shards (chk_t *c, const bson_iter_t *it, bson_t *out)
{
   size_t n;
   const char **ids;
   bson_t all;
   bool ok = true;
   if (!BSON_ITER_HOLDS_DOCUMENT (it))
      return chk_fail (c, "/shards", "expected a document { <shard>: { zones: [...], draining: false } }, got %s%s",
                       chk_type (it), NULL);
   ids = chk_sorted_keys (it, &n);
   BSON_APPEND_DOCUMENT_BEGIN (out, "shards", &all);
   for (size_t i = 0; ok && i < n; i++) {
      bson_iter_t s, f;
      bson_t doc;
      char path[300], sub[400];
      bson_snprintf (path, sizeof path, "/shards/%s", ids[i]);
      bson_iter_recurse (it, &s);
      bson_iter_find (&s, ids[i]);
      if (!BSON_ITER_HOLDS_DOCUMENT (&s)) {
         ok =
            chk_fail (c, path, "expected a document { zones: [...], draining: false }, got %s%s", chk_type (&s), NULL);
         break;
      }
      bson_iter_recurse (&s, &f);
      BSON_APPEND_DOCUMENT_BEGIN (&all, ids[i], &doc);
      while (ok && bson_iter_next (&f)) {
         const char *k = bson_iter_key (&f);
         bson_snprintf (sub, sizeof sub, "%s/%s", path, k);
         if (!strcmp (k, "zones"))
            ok = chk_zone_list (c, &f, sub, &doc);
         else if (!strcmp (k, "draining") || !strcmp (k, "allowDrain"))
            ok = chk_bool (c, &f, sub, &doc, k);
         else
            ok = chk_fail (c, sub, "expected zones, draining or allowDrain, got the field %s%s", k, NULL);
      }
      bson_append_document_end (&all, &doc);
   }
   bson_append_document_end (out, &all);
   bson_free (ids);
   return ok;
}

/* Everything below the top level is spec_coll.c's; the top level and the entry point here. */
bool
spec_check_collections (const spec_locs_t *locs, sh_error_t *err, const bson_iter_t *it, bson_t *out);

static bool
chk_top (chk_t *c, const bson_t *spec, bson_t *out)
{
   static const char *const order[] = { "balancer", "shards", "collections" };
   bson_iter_t it;
   bson_iter_init (&it, spec);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      char sub[300];
      bson_snprintf (sub, sizeof sub, "/%s", k);
      if (strcmp (k, "balancer") && strcmp (k, "shards") && strcmp (k, "collections"))
         return chk_fail (c, sub, "expected one of balancer, shards, collections, got the field %s%s", k, NULL);
   }
   for (size_t i = 0; i < 3; i++) {
      bool ok = true;
      if (!bson_iter_init_find (&it, spec, order[i]))
         continue;
      if (i == 0)
         ok = chk_balancer (c, &it, out);
      else if (i == 1)
         ok = chk_shards (c, &it, out);
      else
         ok = spec_check_collections (c->locs, c->err, &it, out);
      if (!ok)
         return false;
   }
   return true;
}

bool
desired_spec_parse (const char *name, const char *text, size_t len, bson_t *out, sh_error_t *err)
{
   bson_t wrap = BSON_INITIALIZER;
   bson_iter_t it;
   spec_locs_t locs;
   chk_t c;
   bool ok = false;
   (void) name;
   bson_init (out);
   if (!sh_parse_value (text, len, &wrap, "spec", err))
      goto done;
   bson_iter_init_find (&it, &wrap, "spec");
   spec_locs_read (&locs, text, len);
   c.locs = &locs;
   c.err = err;
   if (!BSON_ITER_HOLDS_DOCUMENT (&it)) {
      chk_fail (&c, "",
                "the spec: expected one document { balancer: {...}, shards: {...}, collections: {...} }, got %s%s",
                chk_type (&it), NULL);
   } else {
      bson_t spec;
      docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &spec);
      ok = chk_top (&c, &spec, out);
   }
   spec_locs_destroy (&locs);
done:
   bson_destroy (&wrap);
   if (!ok) {
      bson_destroy (out);
      bson_init (out);
   }
   return ok;
}
