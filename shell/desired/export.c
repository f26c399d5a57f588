/* --export (docs/desired-state.md): the live cluster's spec, read with read-only finds on config.shards, config.tags,
 * config.collections and config.settings, in the canonical form (every field present, names sorted, ranges sorted by
 * min) so that two exports of the same cluster are byte-identical; and the spec printer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shell/core/conn.h"
#include "shell/core/output.h"
#include "shell/desired/desired.h"
#include "shell/desired/ranges.h"
#include "shell/lib/docget.h"

#define EXPORT_MAX_DOCS 100000

/* find on config.<coll> sorted by sort_field into docs (an array, initialised here). */
static bool
export_find (sh_ctx_t *ctx, const char *coll, const char *sort_field, bson_t *docs, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER, sort;
   bool ok, more = false;
   BSON_APPEND_UTF8 (&cmd, "find", coll);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "sort", &sort);
   BSON_APPEND_INT32 (&sort, sort_field, 1);
   bson_append_document_end (&cmd, &sort);
   ok = conn_run_docs (ctx, "config", &cmd, CONN_READ, EXPORT_MAX_DOCS, docs, &more, err);
   bson_destroy (&cmd);
   if (ok && more) {
      sh_error_set (err, SH_ERR_USAGE, "config.%s holds more than %d documents: too many to export", coll,
                    EXPORT_MAX_DOCS);
      ok = false;
   }
   return ok;
}

static int
export_cmp_str (const void *a, const void *b)
{
   return strcmp (*(char *const *) a, *(char *const *) b);
}

static void
export_shards (const bson_t *docs, bson_t *out)
{
   bson_iter_t it;
   bson_t all;
   BSON_APPEND_DOCUMENT_BEGIN (out, "shards", &all);
   bson_iter_init (&it, docs);
   while (bson_iter_next (&it)) {
      bson_t d, s, zones, tags;
      const char **names = NULL;
      size_t n = 0;
      bson_iter_t t;
      const char *id;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !(id = docget_utf8 (&d, "_id", NULL)))
         continue;
      if (docget_sub (&d, "tags", BSON_TYPE_ARRAY, &tags) && bson_iter_init (&t, &tags))
         while (bson_iter_next (&t))
            if (BSON_ITER_HOLDS_UTF8 (&t)) {
               names = bson_realloc (names, (n + 1) * sizeof *names);
               names[n++] = bson_iter_utf8 (&t, NULL);
            }
      if (n)
         qsort (names, n, sizeof *names, export_cmp_str);
      BSON_APPEND_DOCUMENT_BEGIN (&all, id, &s);
      BSON_APPEND_ARRAY_BEGIN (&s, "zones", &zones);
      for (size_t i = 0; i < n; i++) {
         char key[16];
         bson_snprintf (key, sizeof key, "%zu", i);
         BSON_APPEND_UTF8 (&zones, key, names[i]);
      }
      bson_append_array_end (&s, &zones);
      BSON_APPEND_BOOL (&s, "draining", docget_bool (&d, "draining"));
      bson_append_document_end (&all, &s);
      bson_free (names);
   }
   bson_append_document_end (out, &all);
}

/* config.tags read once: every range with its namespace, sorted by namespace and then by min (the find's order
 * within a namespace is by min only when the server sorts it so, so they are sorted here again), so that each
 * collection finds its own run by a binary search instead of a walk over every tag. */
typedef struct {
   desired_range_t *r; /* owned; views into the tags reply */
   const char **ns;    /* owned array; r[i]'s namespace, a view into the tags reply */
   size_t n;
} export_tags_t;

typedef struct {
   const char *ns;
   desired_range_t r;
} export_tag_t;

static int
export_tag_cmp (const void *a, const void *b)
{
   const export_tag_t *x = a, *y = b;
   int c = strcmp (x->ns, y->ns);
   return c ? c : desired_range_cmp (&x->r, &y->r);
}

static void
export_tags_init (export_tags_t *t, const bson_t *tags)
{
   bson_iter_t it;
   export_tag_t *all = NULL;
   size_t n = 0;
   bson_iter_init (&it, tags);
   while (bson_iter_next (&it)) {
      bson_t d, mn, mx;
      const char *zone, *ns;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) || !(ns = docget_utf8 (&d, "ns", NULL)) ||
          !(zone = docget_utf8 (&d, "tag", NULL)) || !docget_sub (&d, "min", BSON_TYPE_DOCUMENT, &mn) ||
          !docget_sub (&d, "max", BSON_TYPE_DOCUMENT, &mx))
         continue;
      all = bson_realloc (all, (n + 1) * sizeof *all);
      memset (&all[n], 0, sizeof all[n]);
      all[n].ns = ns;
      all[n].r.min = bson_get_data (&mn);
      all[n].r.min_len = mn.len;
      all[n].r.max = bson_get_data (&mx);
      all[n].r.max_len = mx.len;
      all[n++].r.zone = zone;
   }
   if (n)
      qsort (all, n, sizeof *all, export_tag_cmp);
   t->n = n;
   t->r = bson_malloc0 ((n ? n : 1) * sizeof *t->r);
   t->ns = bson_malloc0 ((n ? n : 1) * sizeof *t->ns);
   for (size_t i = 0; i < n; i++) {
      t->r[i] = all[i].r;
      t->ns[i] = all[i].ns;
   }
   bson_free (all);
}

static void
export_tags_destroy (export_tags_t *t)
{
   bson_free (t->r);
   bson_free ((void *) t->ns);
}

/* The ranges of ns as the "zones" array of out. */
static void
export_ranges (const export_tags_t *t, const char *ns, bson_t *out)
{
   size_t lo = 0, hi = t->n, end;
   while (lo < hi) { /* the first entry whose namespace is not below ns */
      size_t mid = lo + (hi - lo) / 2;
      if (strcmp (t->ns[mid], ns) < 0)
         lo = mid + 1;
      else
         hi = mid;
   }
   for (end = lo; end < t->n && !strcmp (t->ns[end], ns); end++)
      ;
   desired_ranges_append (out, t->r + lo, end - lo);
}

/* chunkSizeMB: an int32 as the spec writes it, or (a size no spec accepts, kept so that it shows as drift) an int64. */
static void
export_mb (bson_t *doc, int64_t mb)
{
   if (mb >= INT32_MIN && mb <= INT32_MAX)
      BSON_APPEND_INT32 (doc, "chunkSizeMB", (int32_t) mb);
   else
      BSON_APPEND_INT64 (doc, "chunkSizeMB", mb);
}

/* One sharded collection's canonical entry from its config.collections document c. */
static void
export_coll (const bson_t *c, const char *ns, const export_tags_t *tags, bson_t *all)
{
   bson_t doc, key;
   bson_iter_t it;
   BSON_APPEND_DOCUMENT_BEGIN (all, ns, &doc);
   if (docget_sub (c, "key", BSON_TYPE_DOCUMENT, &key))
      BSON_APPEND_DOCUMENT (&doc, "key", &key);
   BSON_APPEND_BOOL (&doc, "unique", docget_bool (c, "unique"));
   BSON_APPEND_BOOL (&doc, "balancing", !docget_bool (c, "noBalance"));
   if (bson_iter_init_find (&it, c, "maxChunkSizeBytes") && BSON_ITER_HOLDS_NUMBER (&it))
      export_mb (&doc, bson_iter_as_int64 (&it) / (1024 * 1024));
   else
      BSON_APPEND_NULL (&doc, "chunkSizeMB");
   /* setAllowMigrations stores permitMigrations: false from 5.0, allowMigrations: false before */
   BSON_APPEND_BOOL (&doc, "allowMigrations",
                     !((bson_iter_init_find (&it, c, "permitMigrations") && !bson_iter_as_bool (&it)) ||
                       (bson_iter_init_find (&it, c, "allowMigrations") && !bson_iter_as_bool (&it))));
   BSON_APPEND_BOOL (&doc, "autoMerge", !(bson_iter_init_find (&it, c, "enableAutoMerge") && !bson_iter_as_bool (&it)));
   export_ranges (tags, ns, &doc);
   bson_append_document_end (all, &doc);
}

static void
export_collections (const bson_t *colls, const bson_t *tags, bson_t *out)
{
   bson_iter_t it;
   bson_t all;
   export_tags_t t;
   export_tags_init (&t, tags);
   BSON_APPEND_DOCUMENT_BEGIN (out, "collections", &all);
   bson_iter_init (&it, colls); /* sorted by _id */
   while (bson_iter_next (&it)) {
      bson_t c;
      const char *ns;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &c) || !(ns = docget_utf8 (&c, "_id", NULL)) ||
          docget_bool (&c, "dropped") || !strncmp (ns, "config.", 7))
         continue;
      export_coll (&c, ns, &t, &all);
   }
   bson_append_document_end (out, &all);
   export_tags_destroy (&t);
}

/* The config.settings document whose _id is id into *out (a view into settings), or an empty document. */
static void
export_setting (const bson_t *settings, const char *id, bson_t *out)
{
   bson_iter_t it;
   bson_init (out);
   bson_iter_init (&it, settings);
   while (bson_iter_next (&it)) {
      bson_t d;
      if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) && !strcmp (docget_utf8 (&d, "_id", ""), id)) {
         docget_iter_sub (&it, BSON_TYPE_DOCUMENT, out);
         return;
      }
   }
}

static void
export_balancer (sh_ctx_t *ctx, const bson_t *settings, bson_t *out)
{
   bson_t b, bal, chunk, win;
   bson_iter_t it;
   int version[3] = { 0, 0, 0 };
   sh_error_t ignored;
   export_setting (settings, "balancer", &bal);
   export_setting (settings, "chunksize", &chunk);
   BSON_APPEND_DOCUMENT_BEGIN (out, "balancer", &b);
   BSON_APPEND_BOOL (&b, "stopped", docget_bool (&bal, "stopped") || !strcmp (docget_utf8 (&bal, "mode", ""), "off"));
   if (docget_sub (&bal, "activeWindow", BSON_TYPE_DOCUMENT, &win) && docget_utf8 (&win, "start", NULL) &&
       docget_utf8 (&win, "stop", NULL)) {
      bson_t w;
      BSON_APPEND_DOCUMENT_BEGIN (&b, "activeWindow", &w);
      BSON_APPEND_UTF8 (&w, "start", docget_utf8 (&win, "start", NULL));
      BSON_APPEND_UTF8 (&w, "stop", docget_utf8 (&win, "stop", NULL));
      bson_append_document_end (&b, &w);
   } else {
      BSON_APPEND_NULL (&b, "activeWindow");
   }
   /* the default chunk size: 64 MB before 6.0, 128 MB from 6.0 */
   sh_error_clear (&ignored);
   conn_server_version (ctx, version, &ignored);
   export_mb (&b, docget_int (&chunk, "value", version[0] >= 6 ? 128 : 64));
   /* _secondaryThrottle: true, false or a write concern (which throttles) */
   BSON_APPEND_BOOL (&b, "secondaryThrottle",
                     bson_iter_init_find (&it, &bal, "_secondaryThrottle") &&
                        (BSON_ITER_HOLDS_DOCUMENT (&it) || bson_iter_as_bool (&it)));
   BSON_APPEND_BOOL (&b, "waitForDelete", docget_bool (&bal, "_waitForDelete"));
   bson_append_document_end (out, &b);
}

bool
desired_export_read (sh_ctx_t *ctx, bson_t *out, sh_error_t *err)
{
   bson_t shards = BSON_INITIALIZER, tags = BSON_INITIALIZER, colls = BSON_INITIALIZER, settings = BSON_INITIALIZER;
   bool ok;
   bson_init (out);
   ok = conn_ensure (ctx, err);
   if (ok) {
      bson_destroy (&shards); /* each find initialises its array again */
      ok = export_find (ctx, "shards", "_id", &shards, err);
   }
   if (ok) {
      bson_destroy (&tags);
      ok = export_find (ctx, "tags", "ns", &tags, err);
   }
   if (ok) {
      bson_destroy (&colls);
      ok = export_find (ctx, "collections", "_id", &colls, err);
   }
   if (ok) {
      bson_destroy (&settings);
      ok = export_find (ctx, "settings", "_id", &settings, err);
   }
   if (ok) {
      export_balancer (ctx, &settings, out);
      export_shards (&shards, out);
      export_collections (&colls, &tags, out);
   }
   bson_destroy (&shards);
   bson_destroy (&tags);
   bson_destroy (&colls);
   bson_destroy (&settings);
   return ok;
}

void
desired_spec_print (sh_ctx_t *ctx, const bson_t *spec)
{
   output_opts_t o = output_opts_default (ctx->opts && ctx->opts->json ? OUTPUT_JSON : OUTPUT_PRETTY, false);
   char *text;
   o.depth = -1;
   o.one_line_key = "zones"; /* one range per line */
   text = output_format_doc (spec, &o);
   fprintf (ctx->out_fp, "%s\n", text);
   bson_free (text);
}

int
desired_export (sh_ctx_t *ctx)
{
   bson_t spec;
   sh_error_t err;
   sh_error_clear (&err);
   if (!desired_export_read (ctx, &spec, &err)) {
      sh_error_render (ctx->err_fp, &err, NULL, NULL, ctx->err_color);
      bson_destroy (&spec);
      return DESIRED_ERROR;
   }
   desired_spec_print (ctx, &spec);
   bson_destroy (&spec);
   return DESIRED_NO_DRIFT;
}
