/* sh.explainBalance's hot range: the finding the dashboard flags (views/model/collect_judge.c judge_hot), taken the
 * same way over two readings one second apart: a shard is hot when it takes at least EXH_HOT_FACTOR times its fair
 * share (1/N of the shards) of the collection's writes ($collStats latencyStats per shard), and the range is hot when
 * the collection's highest key grew meanwhile (inserts at the top of an ascending key) and the chunk whose max is
 * MaxKey sits on that shard. Only for a ranged first key field; nothing is said when no write happened. */
#include <string.h>

#include "commands/table.h"
#include "commands/exec.h"
#include "commands/explain_hot.h"
#include "shell/core/interrupt.h"
#include "shell/lib/docget.h"
#include "shell/lib/order.h"

#define EXH_HOT_FACTOR 2.0
#define EXH_SPAN_MS 1000
#define EXH_MAX_SHARDS 1024

typedef struct {
   char shard[128];
   int64_t writes;
} exh_count_t;

typedef struct {
   exh_count_t v[EXH_MAX_SHARDS];
   size_t n;
   bson_t top; /* { <field>: <highest value> } (empty when none) */
} exh_reading_t;

/* One reading: the per-shard write counters and the highest value of field. */
static bool
exh_read (sh_ctx_t *ctx, const char *db, const char *coll, const char *field, exh_reading_t *r, sh_error_t *err)
{
   bson_t *cmd = BCON_NEW ("aggregate", BCON_UTF8 (coll), "pipeline", "[", "{", "$collStats", "{", "latencyStats", "{",
                           "}", "}", "}", "]", "cursor", "{", "}");
   bson_t docs, sort = BSON_INITIALIZER, proj = BSON_INITIALIZER, find = BSON_INITIALIZER, first;
   bson_iter_t it;
   bool ok = conn_run_docs (ctx, db, cmd, CONN_READ, 0, &docs, NULL, err);
   bson_destroy (cmd);
   r->n = 0;
   bson_init (&r->top);
   if (ok && bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it) && r->n < EXH_MAX_SHARDS) {
         bson_t d;
         if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d))
            continue;
         bson_strncpy (r->v[r->n].shard, docget_utf8 (&d, "shard", ""), sizeof r->v[r->n].shard);
         r->v[r->n].writes = docget_int (&d, "latencyStats.writes.ops", 0);
         r->n++;
      }
   }
   bson_destroy (&docs);
   if (!ok)
      return false;
   BSON_APPEND_UTF8 (&find, "find", coll);
   cmd_append_empty (&find, "filter");
   BSON_APPEND_INT32 (&sort, field, -1);
   BSON_APPEND_DOCUMENT (&find, "sort", &sort);
   BSON_APPEND_INT32 (&proj, "_id", 0);
   BSON_APPEND_INT32 (&proj, field, 1);
   BSON_APPEND_DOCUMENT (&find, "projection", &proj);
   BSON_APPEND_INT32 (&find, "limit", 1);
   ok = conn_run_docs (ctx, db, &find, CONN_READ, 1, &docs, NULL, err);
   if (ok && cmd_first_doc (&docs, &first)) {
      bson_destroy (&r->top);
      bson_copy_to (&first, &r->top);
   }
   bson_destroy (&docs);
   bson_destroy (&sort);
   bson_destroy (&proj);
   bson_destroy (&find);
   return ok;
}

/* The shard owning the chunk whose max is the greatest (MaxKey) of the collection coll (a config.collections
 * document), into shard ("" when unknown). */
static bool
exh_top_owner (sh_ctx_t *ctx, const bson_t *coll, char *shard, size_t len, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER, filter, sort, docs, first;
   bool ok;
   shard[0] = '\0';
   BSON_APPEND_UTF8 (&cmd, "find", "chunks");
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "filter", &filter);
   cmd_append_chunks_match (&filter, coll);
   bson_append_document_end (&cmd, &filter);
   BSON_APPEND_DOCUMENT_BEGIN (&cmd, "sort", &sort);
   BSON_APPEND_INT32 (&sort, "max", -1);
   bson_append_document_end (&cmd, &sort);
   BSON_APPEND_INT32 (&cmd, "limit", 1);
   ok = conn_run_docs (ctx, "config", &cmd, CONN_READ, 1, &docs, NULL, err);
   if (ok && cmd_first_doc (&docs, &first))
      bson_strncpy (shard, docget_utf8 (&first, "shard", ""), len);
   bson_destroy (&docs);
   bson_destroy (&cmd);
   return ok;
}

bool
explain_hot_range (sh_ctx_t *ctx, const char *ns, const bson_t *coll, size_t nshards, bson_t *hot, sh_error_t *err)
{
   exh_reading_t *a = bson_malloc0 (sizeof *a), *b = bson_malloc0 (sizeof *b);
   bson_iter_t it;
   char db[128], owner[128], hot_shard[128] = "";
   const char *dot = strchr (ns, '.'), *field = NULL;
   bool ok = true;
   bson_init (hot);
   bson_init (&a->top);
   bson_init (&b->top);
   /* a ranged first key field only: a hashed key spreads inserts by design */
   if (!dot || (size_t) (dot - ns) >= sizeof db || !bson_iter_init_find (&it, coll, "key") ||
       !BSON_ITER_HOLDS_DOCUMENT (&it) || !bson_iter_recurse (&it, &it) || !bson_iter_next (&it) ||
       !BSON_ITER_HOLDS_NUMBER (&it) || nshards < 2)
      goto done;
   field = bson_iter_key (&it);
   bson_strncpy (db, ns, (size_t) (dot - ns) + 1);
   bson_destroy (&a->top);
   if (!(ok = exh_read (ctx, db, dot + 1, field, a, err)))
      goto done;
   int64_t ever = 0;
   for (size_t i = 0; i < a->n; i++)
      ever += a->v[i].writes;
   if (!ever)
      goto done; /* never written: no second reading, no wait */
   if (!sh_sleep_ms (EXH_SPAN_MS))
      goto done; /* Ctrl-C: no hot range said, the rest of the diagnosis stands */
   bson_destroy (&b->top);
   if (!(ok = exh_read (ctx, db, dot + 1, field, b, err)))
      goto done;
   int64_t total = 0, best = 0;
   for (size_t i = 0; i < b->n; i++) {
      for (size_t k = 0; k < a->n; k++) {
         if (strcmp (a->v[k].shard, b->v[i].shard) || b->v[i].writes <= a->v[k].writes)
            continue;
         int64_t d = b->v[i].writes - a->v[k].writes;
         total += d;
         if (d > best) {
            best = d;
            bson_strncpy (hot_shard, b->v[i].shard, sizeof hot_shard);
         }
      }
   }
   if (!total || (double) best < EXH_HOT_FACTOR * (double) total / (double) nshards)
      goto done;
   bson_iter_t ta, tb;
   if (!bson_iter_init_find (&ta, &a->top, field) || !bson_iter_init_find (&tb, &b->top, field) ||
       order_values (bson_iter_value (&tb), bson_iter_value (&ta)) <= 0)
      goto done; /* the highest key did not grow: not inserts at the top */
   if (!(ok = exh_top_owner (ctx, coll, owner, sizeof owner, err)) || strcmp (owner, hot_shard))
      goto done;
   BSON_APPEND_UTF8 (hot, "shard", hot_shard);
   BSON_APPEND_UTF8 (hot, "field", field);
   BSON_APPEND_DOUBLE (hot, "share", (double) best / (double) total);
done:
   bson_destroy (&a->top);
   bson_destroy (&b->top);
   bson_free (a);
   bson_free (b);
   return ok;
}
