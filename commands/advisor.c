/* sh.adviseShardKey(namespace[, key or [keys]][, options]): measures candidate shard keys on a bounded $sample of
 * the collection and explains each verdict in the seed documents' terms (docs/advisor.md). This file does the I/O:
 * argument checks, listIndexes, count, $sample, the cluster's shards and chunk map, sampled queries and, on 7.0+,
 * the server's analyzeShardKey beside shardsh's figures. The analysis itself is advisor_model.c. */
#include <string.h>

#include "shell/lib/checked.h"
#include "commands/advisor_model.h"
#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "shell/lib/docget.h"
#include "shell/lib/aligned.h"

#define ADVISOR_DEFAULT_SAMPLE 1000
#define ADVISOR_MAX_SAMPLE 100000
#define ADVISOR_MAX_CANDIDATES 32
#define ADVISOR_MAX_VARIANTS 8
#define ADVISOR_MAX_CHUNKS 100000
#define ADVISOR_MAX_QUERIES 10000
#define ADVISOR_MAX_SHARDS 1024

/* A parsed call. Keys are copies; everything else is plain values. */
typedef struct {
   char *db; /* owned, like coll and ns */
   char *coll;
   char *ns;
   bson_t keys[ADVISOR_MAX_CANDIDATES];
   size_t nkeys;
   int64_t sample_size;
   advisor_limits_t limits;
   bool server;  /* run analyzeShardKey on 7.0+ */
   bool queries; /* read config.sampledQueries on 7.0+ */
} advisor_args_t;

static void
advisor_args_destroy (advisor_args_t *a)
{
   for (size_t i = 0; i < a->nkeys; i++)
      bson_destroy (&a->keys[i]);
   a->nkeys = 0;
   bson_free (a->db);
   bson_free (a->coll);
   bson_free (a->ns);
   a->db = a->coll = a->ns = NULL;
}

static const char *const advisor_option_names[] = { "sampleSize",      "lowCardinality", "hotShare",
                                                    "analyzeShardKey", "sampledQueries", NULL };

static bool
advisor_is_option_name (const char *k)
{
   for (size_t i = 0; advisor_option_names[i]; i++) {
      if (!strcmp (k, advisor_option_names[i]))
         return true;
   }
   return false;
}

/* A document whose fields are all option names is the options, not a key. */
static bool
advisor_looks_like_options (const bson_iter_t *arg)
{
   bson_iter_t f;
   bool any = false;
   if (!BSON_ITER_HOLDS_DOCUMENT (arg) || !bson_iter_recurse (arg, &f))
      return false;
   while (bson_iter_next (&f)) {
      if (!advisor_is_option_name (bson_iter_key (&f)))
         return false;
      any = true;
   }
   return any;
}

static bool
advisor_add_key (const sh_call_t *call, int i, const bson_iter_t *it, advisor_args_t *a, sh_error_t *err)
{
   bson_t key;
   const uint8_t *data;
   uint32_t len;
   char why[256];
   if (!BSON_ITER_HOLDS_DOCUMENT (it)) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, i),
                       "a candidate key must be a document such as {ts: 1} or {ts: \"hashed\"}");
      return false;
   }
   bson_iter_document (it, &len, &data);
   if (!bson_init_static (&key, data, len) || !advisor_key_valid (&key, why, sizeof why)) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, i), "invalid candidate key: %s", why);
      return false;
   }
   if (a->nkeys == ADVISOR_MAX_CANDIDATES) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, i), "at most %d candidate keys", ADVISOR_MAX_CANDIDATES);
      return false;
   }
   bson_copy_to (&key, &a->keys[a->nkeys++]);
   return true;
}

static bool
advisor_parse_options (const sh_call_t *call, int i, const bson_iter_t *arg, advisor_args_t *a, sh_error_t *err)
{
   bson_iter_t f;
   if (!BSON_ITER_HOLDS_DOCUMENT (arg) || !bson_iter_recurse (arg, &f)) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, i), "options must be a document");
      return false;
   }
   while (bson_iter_next (&f)) {
      const char *k = bson_iter_key (&f);
      bool number = BSON_ITER_HOLDS_NUMBER (&f);
      int64_t n;
      if (!strcmp (k, "sampleSize") && args_number_to_int (&f, 1, ADVISOR_MAX_SAMPLE, &n)) {
         a->sample_size = n;
      } else if (!strcmp (k, "lowCardinality") && args_number_to_int (&f, 1, INT64_MAX, &n)) {
         a->limits.low_cardinality = n;
      } else if (!strcmp (k, "hotShare") && number && bson_iter_as_double (&f) > 0 && bson_iter_as_double (&f) < 1) {
         a->limits.hot_share = bson_iter_as_double (&f);
      } else if (!strcmp (k, "analyzeShardKey") && BSON_ITER_HOLDS_BOOL (&f)) {
         a->server = bson_iter_bool (&f);
      } else if (!strcmp (k, "sampledQueries") && BSON_ITER_HOLDS_BOOL (&f)) {
         a->queries = bson_iter_bool (&f);
      } else {
         sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, i),
                          advisor_is_option_name (k) ? "bad value for option '%s'" : "unknown option '%s'", k);
         sh_error_hint (err,
                        "options: sampleSize (1 to %d), lowCardinality (>= 1), hotShare (0 to 1), analyzeShardKey "
                        "(bool), sampledQueries (bool)",
                        ADVISOR_MAX_SAMPLE);
         return false;
      }
   }
   return true;
}

/* Checks the arguments and fills a (released by the caller in every case). */
static bool
advisor_parse (const sh_call_t *call, advisor_args_t *a, sh_error_t *err)
{
   bson_iter_t it, arr;
   const char *ns, *dot;
   int opt_index = 2;

   memset (a, 0, sizeof *a);
   a->sample_size = ADVISOR_DEFAULT_SAMPLE;
   a->limits = advisor_limits_default ();
   a->server = true;
   a->queries = true;
   if (!args_check (call, 0, ARG_STRING, true, "Shard", "adviseShardKey", err) ||
       !args_check (call, 1, ARG_OBJECT, false, "Shard", "adviseShardKey", err) ||
       !args_check (call, 2, ARG_OBJECT, false, "Shard", "adviseShardKey", err))
      return false;
   ns = args_str (call, 0);
   dot = strchr (ns, '.');
   if (!dot || dot == ns || !dot[1]) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "the namespace must be \"<database>.<collection>\"");
      return false;
   }
   a->db = bson_strndup (ns, (size_t) (dot - ns));
   a->coll = bson_strdup (dot + 1);
   a->ns = bson_strdup (ns);

   if (args_get (call, 1, &it) && !BSON_ITER_HOLDS_NULL (&it)) {
      if (call->argc == 2 && advisor_looks_like_options (&it)) {
         opt_index = 1;
      } else if (BSON_ITER_HOLDS_ARRAY (&it) && bson_iter_recurse (&it, &arr)) {
         while (bson_iter_next (&arr)) {
            if (!advisor_add_key (call, 1, &arr, a, err))
               return false;
         }
         if (!a->nkeys) {
            sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 1), "the list of candidate keys is empty");
            return false;
         }
      } else if (!advisor_add_key (call, 1, &it, a, err)) {
         return false;
      }
   }
   if (args_get (call, opt_index, &it) && !advisor_parse_options (call, opt_index, &it, a, err))
      return false;
   return true;
}

/* Pure: the requests every call starts with (listIndexes when no key is given, count, $sample). */
static bool
build_advise_shard_key (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   advisor_args_t a;
   bson_t *cmd, pipeline, stage, sample;
   bool ok = false;

   if (!advisor_parse (call, &a, err))
      goto done;
   if (!a.nkeys) {
      cmd = sh_requests_add (out, a.db, CONN_READ);
      BSON_APPEND_UTF8 (cmd, "listIndexes", a.coll);
      cmd_append_empty (cmd, "cursor");
   }
   cmd = sh_requests_add (out, a.db, CONN_READ);
   BSON_APPEND_UTF8 (cmd, "count", a.coll);
   cmd = sh_requests_add (out, a.db, CONN_READ);
   BSON_APPEND_UTF8 (cmd, "aggregate", a.coll);
   BSON_APPEND_ARRAY_BEGIN (cmd, "pipeline", &pipeline);
   BSON_APPEND_DOCUMENT_BEGIN (&pipeline, "0", &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$sample", &sample);
   BSON_APPEND_INT32 (&sample, "size", (int32_t) a.sample_size);
   bson_append_document_end (&stage, &sample);
   bson_append_document_end (&pipeline, &stage);
   bson_append_array_end (cmd, &pipeline);
   cmd_append_empty (cmd, "cursor");
   ok = true;
done:
   advisor_args_destroy (&a);
   return ok;
}

/* ---- reading the cluster ---- */

/* Everything read from the server, owned here. */
typedef struct {
   bson_t indexes; /* listIndexes documents */
   bson_t docs;    /* the $sample */
   bson_t recent;  /* newest documents, oldest first (only when _id is not always an ObjectId) */
   bool has_recent;
   bson_t queries; /* { filter, write } per sampled query */
   bool has_queries;
   int64_t total;
   char **shards;
   size_t nshards;
   bson_t coll_doc; /* config.collections entry, empty when not sharded */
   bson_t key;      /* its key */
   bool sharded;
   advisor_chunk_t *chunks;
   size_t nchunks;
   bool chunks_truncated;
   int64_t chunk_bytes;
   int version[3];
} advisor_data_t;

static void
advisor_data_init (advisor_data_t *d)
{
   memset (d, 0, sizeof *d);
   bson_init (&d->indexes);
   bson_init (&d->docs);
   bson_init (&d->recent);
   bson_init (&d->queries);
   bson_init (&d->coll_doc);
   bson_init (&d->key);
}

static void
advisor_data_destroy (advisor_data_t *d)
{
   bson_destroy (&d->indexes);
   bson_destroy (&d->docs);
   bson_destroy (&d->recent);
   bson_destroy (&d->queries);
   bson_destroy (&d->coll_doc);
   bson_destroy (&d->key);
   for (size_t i = 0; i < d->nshards; i++)
      bson_free (d->shards[i]);
   bson_free (d->shards);
   for (size_t i = 0; i < d->nchunks; i++) {
      bson_destroy (&d->chunks[i].min);
      bson_destroy (&d->chunks[i].max);
   }
   bson_free (d->chunks);
}

/* Runs a cursor command whose failure only means "not available here": docs stays empty and false is returned. */
static bool
advisor_try_docs (sh_ctx_t *ctx, const char *db, const bson_t *cmd, size_t max, bson_t *docs, bool *more)
{
   sh_error_t ignored;
   sh_error_clear (&ignored);
   bson_destroy (docs);
   if (conn_run_docs (ctx, db, cmd, CONN_READ, max, docs, more, &ignored))
      return true;
   bson_reinit (docs);
   return false;
}

static void
advisor_read_shards (sh_ctx_t *ctx, advisor_data_t *d)
{
   bson_t cmd = BSON_INITIALIZER, docs = BSON_INITIALIZER, sort;
   bson_iter_t it, f;
   BSON_APPEND_UTF8 (&cmd, "find", "shards");
   cmd_append_empty (&cmd, "filter");
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "sort", &sort);
   BSON_APPEND_INT32 (&sort, "_id", 1);
   bson_append_document_end (&cmd, &sort);
   if (advisor_try_docs (ctx, "config", &cmd, ADVISOR_MAX_SHARDS, &docs, NULL) && bson_iter_init (&it, &docs)) {
      d->shards = bson_malloc0 (sizeof *d->shards * (bson_count_keys (&docs) + 1));
      while (bson_iter_next (&it)) {
         if (BSON_ITER_HOLDS_DOCUMENT (&it) && bson_iter_recurse (&it, &f) && bson_iter_find (&f, "_id") &&
             BSON_ITER_HOLDS_UTF8 (&f))
            d->shards[d->nshards++] = bson_strdup (bson_iter_utf8 (&f, NULL));
      }
   }
   bson_destroy (&cmd);
   bson_destroy (&docs);
}

/* config.collections, config.chunks (sorted by min) and the chunk size. */
static void
advisor_read_chunk_map (sh_ctx_t *ctx, const advisor_args_t *a, advisor_data_t *d)
{
   bson_t cmd = BSON_INITIALIZER, filter = BSON_INITIALIZER, sort = BSON_INITIALIZER, docs = BSON_INITIALIZER;
   bson_t setting, coll, key;
   bson_iter_t it, f;
   bool more = false;

   d->chunk_bytes = d->version[0] && d->version[0] < 6 ? (int64_t) 64 * 1024 * 1024 : (int64_t) 128 * 1024 * 1024;
   /* the cluster-wide chunk size (MB) */
   cmd_append_find_id (&cmd, "settings", "chunksize");
   if (advisor_try_docs (ctx, "config", &cmd, 1, &docs, NULL) && cmd_first_doc (&docs, &setting) &&
       docget_int (&setting, "value", 0) > 0)
      d->chunk_bytes = ck_mul (docget_int (&setting, "value", 0), 1024 * 1024);

   bson_reinit (&cmd);
   cmd_append_find_id (&cmd, "collections", a->ns);
   if (!advisor_try_docs (ctx, "config", &cmd, 1, &docs, NULL) || !cmd_first_doc (&docs, &coll))
      goto done;
   if ((bson_iter_init_find (&f, &coll, "dropped") && bson_iter_as_bool (&f)) ||
       (bson_iter_init_find (&f, &coll, "unsplittable") && bson_iter_as_bool (&f)) ||
       !docget_sub (&coll, "key", BSON_TYPE_DOCUMENT, &key))
      goto done;
   bson_copy_to_excluding_noinit (&coll, &d->coll_doc, "", NULL);
   bson_concat (&d->key, &key);
   d->sharded = true;
   if (docget_int (&coll, "maxChunkSizeBytes", 0) > 0)
      d->chunk_bytes = docget_int (&coll, "maxChunkSizeBytes", 0);

   /* chunks are keyed by uuid when the collection entry has a timestamp (5.0+), else by ns */
   bson_reinit (&cmd);
   bson_reinit (&filter);
   BSON_APPEND_UTF8 (&cmd, "find", "chunks");
   if (bson_iter_init_find (&f, &coll, "timestamp") && bson_iter_init_find (&it, &coll, "uuid"))
      BSON_APPEND_VALUE (&filter, "uuid", bson_iter_value (&it));
   else
      BSON_APPEND_UTF8 (&filter, "ns", a->ns);
   BSON_APPEND_DOCUMENT (&cmd, "filter", &filter);
   BSON_APPEND_INT32 (&sort, "min", 1);
   BSON_APPEND_DOCUMENT (&cmd, "sort", &sort);
   if (!advisor_try_docs (ctx, "config", &cmd, ADVISOR_MAX_CHUNKS, &docs, &more) || !bson_iter_init (&it, &docs))
      goto done;
   d->chunks_truncated = more;
   d->chunks = SH_ALLOC_ARRAY (advisor_chunk_t, bson_count_keys (&docs) + 1);
   while (bson_iter_next (&it)) {
      bson_t chunk, min, max;
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &chunk) || !docget_sub (&chunk, "min", BSON_TYPE_DOCUMENT, &min) ||
          !docget_sub (&chunk, "max", BSON_TYPE_DOCUMENT, &max) || !bson_iter_init_find (&f, &chunk, "shard") ||
          !BSON_ITER_HOLDS_UTF8 (&f))
         continue;
      bson_copy_to (&min, &d->chunks[d->nchunks].min);
      bson_copy_to (&max, &d->chunks[d->nchunks].max);
      bson_strncpy (d->chunks[d->nchunks].shard, bson_iter_utf8 (&f, NULL), sizeof d->chunks[0].shard);
      d->nchunks++;
   }
done:
   bson_destroy (&cmd);
   bson_destroy (&filter);
   bson_destroy (&sort);
   bson_destroy (&docs);
}

/* Appends { filter, write } for one sampled query's filter. */
static void
advisor_push_query (bson_t *out, uint32_t *n, const bson_iter_t *filter, bool write)
{
   char k[16];
   const char *key;
   bson_t q;
   bson_uint32_to_string ((*n)++, &key, k, sizeof k);
   BSON_APPEND_DOCUMENT_BEGIN (out, key, &q);
   if (filter && BSON_ITER_HOLDS_DOCUMENT (filter))
      BSON_APPEND_VALUE (&q, "filter", bson_iter_value ((bson_iter_t *) filter));
   BSON_APPEND_BOOL (&q, "write", write);
   bson_append_document_end (out, &q);
}

/* config.sampledQueries (7.0+, written by configureQueryAnalyzer) as { filter, write } documents: find, aggregate,
 * count and distinct carry cmd.filter; update and delete one filter per statement (q); findAndModify cmd.query. */
static void
advisor_read_queries (sh_ctx_t *ctx, const advisor_args_t *a, advisor_data_t *d)
{
   bson_t cmd = BSON_INITIALIZER, filter = BSON_INITIALIZER, docs = BSON_INITIALIZER;
   bson_iter_t it, f, c, s, q;
   uint32_t n = 0;

   BSON_APPEND_UTF8 (&cmd, "find", "sampledQueries");
   BSON_APPEND_UTF8 (&filter, "ns", a->ns);
   BSON_APPEND_DOCUMENT (&cmd, "filter", &filter);
   BSON_APPEND_INT32 (&cmd, "limit", ADVISOR_MAX_QUERIES);
   if (!advisor_try_docs (ctx, "config", &cmd, ADVISOR_MAX_QUERIES, &docs, NULL) || !bson_iter_init (&it, &docs))
      goto done;
   while (bson_iter_next (&it)) {
      const char *name = "";
      if (!BSON_ITER_HOLDS_DOCUMENT (&it) || !bson_iter_recurse (&it, &f))
         continue;
      if (bson_iter_find (&f, "cmdName") && BSON_ITER_HOLDS_UTF8 (&f))
         name = bson_iter_utf8 (&f, NULL);
      if (!bson_iter_recurse (&it, &f) || !bson_iter_find (&f, "cmd") || !BSON_ITER_HOLDS_DOCUMENT (&f))
         continue;
      if (!strcmp (name, "update") || !strcmp (name, "delete")) {
         if (bson_iter_recurse (&f, &c) && bson_iter_find (&c, name[0] == 'u' ? "updates" : "deletes") &&
             BSON_ITER_HOLDS_ARRAY (&c) && bson_iter_recurse (&c, &s)) {
            while (bson_iter_next (&s)) {
               if (BSON_ITER_HOLDS_DOCUMENT (&s) && bson_iter_recurse (&s, &q) && bson_iter_find (&q, "q"))
                  advisor_push_query (&d->queries, &n, &q, true);
            }
         }
      } else if (!strcmp (name, "findAndModify")) {
         if (bson_iter_recurse (&f, &c) && bson_iter_find (&c, "query"))
            advisor_push_query (&d->queries, &n, &c, true);
      } else if (bson_iter_recurse (&f, &c)) {
         advisor_push_query (&d->queries, &n, bson_iter_find (&c, "filter") ? &c : NULL, false);
      }
   }
   d->has_queries = n > 0;
done:
   bson_destroy (&cmd);
   bson_destroy (&filter);
   bson_destroy (&docs);
}

/* The newest documents in natural order, oldest first (a find sorted { $natural: -1 }, reversed). */
static void
advisor_read_recent (sh_ctx_t *ctx, const advisor_args_t *a, advisor_data_t *d)
{
   bson_t cmd = BSON_INITIALIZER, filter = BSON_INITIALIZER, sort = BSON_INITIALIZER, docs = BSON_INITIALIZER;
   bson_iter_t it;
   size_t n, i = 0;
   bson_value_t *v = NULL; /* shallow copies: their data lives in docs */

   BSON_APPEND_UTF8 (&cmd, "find", a->coll);
   BSON_APPEND_DOCUMENT (&cmd, "filter", &filter);
   BSON_APPEND_INT32 (&sort, "$natural", -1);
   BSON_APPEND_DOCUMENT (&cmd, "sort", &sort);
   BSON_APPEND_INT64 (&cmd, "limit", a->sample_size);
   if (!advisor_try_docs (ctx, a->db, &cmd, (size_t) a->sample_size, &docs, NULL) || !bson_iter_init (&it, &docs))
      goto done;
   n = bson_count_keys (&docs);
   v = bson_malloc0 (sizeof *v * (n + 1));
   while (bson_iter_next (&it) && i < n)
      v[i++] = *bson_iter_value (&it);
   bson_reinit (&d->recent);
   for (size_t j = 0; j < i; j++) {
      char k[16];
      const char *key;
      bson_uint32_to_string ((uint32_t) j, &key, k, sizeof k);
      BSON_APPEND_VALUE (&d->recent, key, &v[i - 1 - j]);
   }
   d->has_recent = i >= 3;
done:
   bson_free (v);
   bson_destroy (&cmd);
   bson_destroy (&filter);
   bson_destroy (&sort);
   bson_destroy (&docs);
}

static bool
advisor_all_oid_ids (const bson_t *docs)
{
   bson_iter_t it, f;
   bool any = false;
   if (!bson_iter_init (&it, docs))
      return false;
   while (bson_iter_next (&it)) {
      if (!BSON_ITER_HOLDS_DOCUMENT (&it) || !bson_iter_recurse (&it, &f) || !bson_iter_find (&f, "_id") ||
          !BSON_ITER_HOLDS_OID (&f))
         return false;
      any = true;
   }
   return any;
}

/* ---- rendering ---- */

static void
advisor_print_one (bson_string_t *o, size_t rank, const advisor_result_t *r, const advisor_limits_t *limits)
{
   char *key = advisor_key_string (&r->key);
   char a[32], b[32], c[32];
   output_opts_t one_line = output_opts_default (OUTPUT_PRETTY, false);
   one_line.break_length = 0;

   bson_string_append_printf (o, "%zu. %s  (%s)  score %d\n", rank, key, r->origin, r->score);
   bson_string_append_printf (o, "   verdict       %s\n", r->verdict);
   if (!r->sampled)
      goto done;
   bson_string_append_printf (o, "   cardinality   %s distinct in %s sampled; %s%s in all: at most that many chunks\n",
                              advisor_count_string (r->distinct_sampled, a, sizeof a),
                              advisor_count_string (r->sampled, b, sizeof b), r->all_unique ? "up to " : "about ",
                              advisor_count_string (r->distinct_estimated, c, sizeof c));
   if (r->nmcv) {
      char *v = output_format_doc (&r->mcv[0].value, &one_line);
      bson_string_append_printf (o, "   frequency     most common %s holds %.1f%%", v, 100.0 * r->mcv[0].share);
      bson_free (v);
      if (r->nhot)
         bson_string_append_printf (o, "; %zu value%s at or above %.0f%% hold %.0f%%", r->nhot, r->nhot == 1 ? "" : "s",
                                    100.0 * limits->hot_share, 100.0 * r->hot_share);
      if (r->jumbo_at_docs)
         bson_string_append_printf (o, "; its chunk fills at about %s documents",
                                    advisor_count_string (r->jumbo_at_docs, a, sizeof a));
      bson_string_append_c (o, '\n');
   }
   bson_string_append_printf (o, "   monotonicity  %s (rank correlation %.2f with %s)\n",
                              r->mono == ADVISOR_MONO_ASCENDING    ? "ascending"
                              : r->mono == ADVISOR_MONO_DESCENDING ? "descending"
                              : r->mono == ADVISOR_MONO_NOT        ? "not monotonic"
                                                                   : "unknown",
                              r->correlation,
                              r->order == ADVISOR_ORDER_OBJECTID  ? "the ObjectId time of _id"
                              : r->order == ADVISOR_ORDER_NATURAL ? "natural order"
                                                                  : "no known insertion order");
   if (r->nspread) {
      bson_string_append_printf (o, "   write spread ");
      for (size_t i = 0; i < r->nspread; i++)
         bson_string_append_printf (o, "%s %s %.0f%%", i ? "," : "", r->spread[i].shard, 100.0 * r->spread[i].share);
      bson_string_append_printf (o, " (%s%s)\n",
                                 r->spread_actual ? "the collection's chunk map"
                                 : r->hashed      ? "an even split of the hashed range"
                                                  : "an even split of the sampled range",
                                 r->spread_extrapolated ? ", every next insert beyond the newest value" : "");
   } else {
      bson_string_append_printf (o, "   write spread  no shards (not a sharded cluster)\n");
   }
   if (r->reads + r->writes)
      bson_string_append_printf (
         o,
         "   queries       %s reads: %.0f%% one shard, %.0f%% several, %.0f%% all; %s writes: %.0f%% one shard, "
         "%.0f%% several, %.0f%% all\n",
         advisor_count_string (r->reads, a, sizeof a), r->read_single, r->read_multi, r->read_scatter,
         advisor_count_string (r->writes, b, sizeof b), r->write_single, r->write_multi, r->write_scatter);
   else
      bson_string_append_printf (o, "   queries       no sampled queries (configureQueryAnalyzer, 7.0+)\n");
   if (r->has_server)
      bson_string_append_printf (o, "   server        %s\n", r->server_note);
done:
   bson_free (key);
}

static void
advisor_print_json (sh_result_t *res, const advisor_args_t *a, const advisor_data_t *d, const advisor_result_t *v,
                    size_t n)
{
   bson_t doc = BSON_INITIALIZER, arr, one;
   char k[16];
   const char *key;
   BSON_APPEND_UTF8 (&doc, "ns", a->ns);
   BSON_APPEND_INT64 (&doc, "totalDocs", d->total);
   BSON_APPEND_INT64 (&doc, "sampled", (int64_t) bson_count_keys (&d->docs));
   BSON_APPEND_ARRAY_BEGIN (&doc, "shards", &arr);
   for (size_t i = 0; i < d->nshards; i++) {
      bson_uint32_to_string ((uint32_t) i, &key, k, sizeof k);
      BSON_APPEND_UTF8 (&arr, key, d->shards[i]);
   }
   bson_append_array_end (&doc, &arr);
   BSON_APPEND_BOOL (&doc, "sharded", d->sharded);
   if (d->sharded) {
      BSON_APPEND_DOCUMENT (&doc, "shardKey", &d->key);
      BSON_APPEND_INT64 (&doc, "chunks", (int64_t) d->nchunks);
   }
   BSON_APPEND_INT64 (&doc, "chunkSizeBytes", d->chunk_bytes);
   BSON_APPEND_INT64 (&doc, "sampledQueries", d->has_queries ? (int64_t) bson_count_keys (&d->queries) : 0);
   BSON_APPEND_ARRAY_BEGIN (&doc, "candidates", &arr);
   for (size_t i = 0; i < n; i++) {
      bson_uint32_to_string ((uint32_t) i, &key, k, sizeof k);
      advisor_result_to_bson (&v[i], &one);
      BSON_APPEND_DOCUMENT (&arr, key, &one);
      bson_destroy (&one);
   }
   bson_append_array_end (&doc, &arr);
   sh_result_set_doc (res, &doc);
   bson_destroy (&doc);
}

static void
advisor_print (sh_result_t *res, const advisor_args_t *a, const advisor_data_t *d, const advisor_result_t *v, size_t n)
{
   bson_string_t *o = sh_result_text (res);
   char x[32], y[32];
   bson_string_append_printf (o, "%s: %s of %s documents sampled; %zu shard%s; ", a->ns,
                              advisor_count_string ((int64_t) bson_count_keys (&d->docs), x, sizeof x),
                              advisor_count_string (d->total, y, sizeof y), d->nshards, d->nshards == 1 ? "" : "s");
   if (d->sharded) {
      char *key = advisor_key_string (&d->key);
      bson_string_append_printf (o, "sharded on %s with %zu chunk%s%s\n", key, d->nchunks, d->nchunks == 1 ? "" : "s",
                                 d->chunks_truncated ? " (more not read)" : "");
      bson_free (key);
   } else {
      bson_string_append_printf (o, "not sharded\n");
   }
   if (!n) {
      bson_string_append_printf (
         o,
         "no candidate keys: no index could back a shard key; name one, e.g. sh.adviseShardKey(\"%s\", "
         "{field: 1})\n",
         a->ns);
      return;
   }
   for (size_t i = 0; i < n; i++) {
      bson_string_append_c (o, '\n');
      advisor_print_one (o, i + 1, &v[i], &a->limits);
   }
}

/* ---- the command ---- */

/* The server's analyzeShardKey for r's key, with the same sample size. */
static void
advisor_run_server (sh_ctx_t *ctx, const advisor_args_t *a, advisor_result_t *r)
{
   bson_t cmd = BSON_INITIALIZER, reply;
   sh_error_t e;
   sh_error_clear (&e);
   BSON_APPEND_UTF8 (&cmd, "analyzeShardKey", a->ns);
   BSON_APPEND_DOCUMENT (&cmd, "key", &r->key);
   BSON_APPEND_BOOL (&cmd, "keyCharacteristics", true);
   BSON_APPEND_BOOL (&cmd, "readWriteDistribution", true);
   BSON_APPEND_INT64 (&cmd, "sampleSize", a->sample_size);
   if (conn_run (ctx, "admin", &cmd, CONN_READ, &reply, &e)) {
      advisor_attach_server (r, &reply, NULL);
   } else {
      char *msg = bson_strdup_printf ("%s%s%s", e.code_name, e.code_name[0] ? ": " : "", e.message);
      advisor_attach_server (r, NULL, msg);
      bson_free (msg);
   }
   bson_destroy (&cmd);
   bson_destroy (&reply);
}

static bool
exec_advise_shard_key (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   advisor_args_t a;
   advisor_data_t d;
   sh_requests_t reqs = { .n = 0 };
   advisor_result_t *results = NULL;
   size_t nres = 0, ri = 0;
   bson_t reply = BSON_INITIALIZER;
   bson_iter_t it, f;
   bool ok = false, dry = ctx->opts && ctx->opts->dry_run;
   advisor_cluster_t cluster;
   advisor_sample_t sample;
   char why[256];

   advisor_data_init (&d);
   if (!advisor_parse (call, &a, err) || !build_advise_shard_key (call, &reqs, err))
      goto done;
   if (!dry) {
      sh_error_t ve;
      sh_error_clear (&ve);
      if (!conn_server_version (ctx, d.version, &ve))
         memset (d.version, 0, sizeof d.version);
   }
   if (!a.nkeys) {
      bson_destroy (&d.indexes);
      if (!conn_run_docs (ctx, reqs.v[ri].db, &reqs.v[ri].cmd, reqs.v[ri].path, 0, &d.indexes, NULL, err))
         goto done;
      ri++;
   }
   bson_destroy (&reply);
   if (!conn_run (ctx, reqs.v[ri].db, &reqs.v[ri].cmd, reqs.v[ri].path, &reply, err))
      goto done;
   d.total = ck_nonneg (docget_int (&reply, "n", d.total));
   ri++;
   bson_destroy (&d.docs);
   if (!conn_run_docs (ctx, reqs.v[ri].db, &reqs.v[ri].cmd, reqs.v[ri].path, (size_t) a.sample_size, &d.docs, NULL,
                       err))
      goto done;
   if (bson_count_keys (&d.docs) && !advisor_all_oid_ids (&d.docs))
      advisor_read_recent (ctx, &a, &d);
   advisor_read_shards (ctx, &d);
   advisor_read_chunk_map (ctx, &a, &d);
   if (a.queries && d.version[0] >= 7)
      advisor_read_queries (ctx, &a, &d);

   cluster = (advisor_cluster_t){ .key = d.sharded ? &d.key : NULL,
                                  .chunks = d.chunks,
                                  .nchunks = d.nchunks,
                                  .shards = (const char *const *) d.shards,
                                  .nshards = d.nshards,
                                  .chunk_bytes = d.chunk_bytes };
   sample = (advisor_sample_t){ .docs = &d.docs,
                                .recent = d.has_recent ? &d.recent : NULL,
                                .queries = d.has_queries ? &d.queries : NULL,
                                .total_docs = d.total };
   results = SH_ALLOC_ARRAY (advisor_result_t, ADVISOR_MAX_CANDIDATES + ADVISOR_MAX_VARIANTS);
   if (a.nkeys) {
      for (size_t i = 0; i < a.nkeys; i++) {
         if (advisor_analyze (&sample, &a.keys[i], "given", &cluster, &a.limits, &results[nres], why, sizeof why))
            nres++;
         else
            advisor_result_destroy (&results[nres]);
      }
   } else if (bson_iter_init (&it, &d.indexes)) {
      /* every index that could back a shard key as it is */
      while (bson_iter_next (&it) && nres < ADVISOR_MAX_CANDIDATES) {
         bson_t index, key, pattern;
         char *origin;
         bool seen = false;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &index) ||
             !docget_sub (&index, "key", BSON_TYPE_DOCUMENT, &key) ||
             (bson_iter_init_find (&f, &index, "sparse") && bson_iter_as_bool (&f)) ||
             bson_iter_init_find (&f, &index, "partialFilterExpression"))
            continue;
         if (!advisor_key_from_index (&key, &pattern)) {
            bson_destroy (&pattern);
            continue;
         }
         for (size_t j = 0; j < nres && !seen; j++)
            seen = bson_equal (&results[j].key, &pattern);
         origin = bson_strdup_printf ("index %s", bson_iter_init_find (&f, &index, "name") && BSON_ITER_HOLDS_UTF8 (&f)
                                                     ? bson_iter_utf8 (&f, NULL)
                                                     : "?");
         if (!seen) {
            if (advisor_analyze (&sample, &pattern, origin, &cluster, &a.limits, &results[nres], why, sizeof why))
               nres++;
            else
               advisor_result_destroy (&results[nres]);
         }
         bson_free (origin);
         bson_destroy (&pattern);
      }
      if (nres) {
         bson_t keys[ADVISOR_MAX_VARIANTS];
         char origins[ADVISOR_MAX_VARIANTS][128];
         size_t nv = advisor_variants (results, nres, keys, origins, ADVISOR_MAX_VARIANTS);
         size_t base = nres;
         for (size_t i = 0; i < nv; i++) {
            if (advisor_analyze (&sample, &keys[i], origins[i], &cluster, &a.limits, &results[base + i], why,
                                 sizeof why))
               nres++;
            else
               advisor_result_destroy (&results[base + i]);
            bson_destroy (&keys[i]);
         }
      }
   }
   advisor_rank (results, nres, d.nshards, &a.limits);
   if (a.server && d.version[0] >= 7 && !dry) {
      for (size_t i = 0; i < nres; i++)
         advisor_run_server (ctx, &a, &results[i]);
   }
   if (!dry) {
      if (ctx->out.mode == OUTPUT_JSON)
         advisor_print_json (res, &a, &d, results, nres);
      else
         advisor_print (res, &a, &d, results, nres);
   }
   ok = true;
done:
   for (size_t i = 0; i < nres; i++)
      advisor_result_destroy (&results[i]);
   bson_free (results);
   bson_destroy (&reply);
   sh_requests_destroy (&reqs);
   advisor_data_destroy (&d);
   advisor_args_destroy (&a);
   return ok;
}

const sh_cmd_t cmd_sh_advise_shard_key = {
   .name = "sh.adviseShardKey",
   .usage = "sh.adviseShardKey(namespace[, key or [keys]][, options])",
   .summary = "Measure candidate shard keys on a sample of the collection (cardinality, frequency, monotonicity, write "
              "spread, query targeting) and rank them with a verdict",
   .sends = "<db> { listIndexes: <coll> } (no key given), { count: <coll> }, { aggregate: <coll>, pipeline: [ { "
            "$sample: { size } } ] }; config { find: shards / settings / collections / chunks / sampledQueries }; "
            "7.0+: admin { analyzeShardKey: <ns>, key, sampleSize } per candidate",
   .example = "sh.adviseShardKey(\"app.events\", [{ts: 1}, {ts: \"hashed\"}], {sampleSize: 2000})",
   .flags = CMD_READONLY | CMD_EXTRA,
   .build = build_advise_shard_key,
   .exec = exec_advise_shard_key,
};
