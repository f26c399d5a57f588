/* shardsim's dataSize through the router: { dataSize: "db.coll", keyPattern, min, max, estimate } answers the size,
 * document count and time of a sharded collection's key range, summed over the chunks that lie inside [min, max)
 * (the router sends it to every shard and adds their answers up; the chunk table keeps each chunk's documents and
 * bytes current). Without min and max: the whole collection. An unsharded collection is answered by its primary
 * shard (documents scanned). Callers hold sim_g.lock. */
#include <string.h>

#include "tests/shardsim/sim.h"
#include "tests/shardsim/query/simq.h"

/* An unsharded collection (the router sends dataSize to the primary shard, s/commands/cluster_data_size_cmd.cpp; the
 * shard's CmdDataSize in db/commands/dbcommands.cpp): the whole collection, or with min and max the documents whose
 * values of min's fields lie in [min, max). */
static void
sim_data_size_unsharded (sim_coll_t *coll, const bson_t *min, const bson_t *max, int64_t *size, int64_t *objects)
{
   for (size_t p = 0; p < coll->nparts; p++) {
      for (size_t i = 0; i < coll->parts[p].docs.n; i++) {
         bson_t view;
         sim_pos_t at = { p, i };
         sim_coll_view (coll, at, &view);
         if (min) {
            bson_t key = BSON_INITIALIZER;
            bson_iter_t f;
            bson_iter_init (&f, min);
            while (bson_iter_next (&f)) {
               bson_value_t v;
               if (simq_get_path (&view, bson_iter_key (&f), &v)) {
                  bson_append_value (&key, bson_iter_key (&f), -1, &v);
               } else {
                  bson_append_null (&key, bson_iter_key (&f), -1);
               }
            }
            bool in = order_docs (&key, min) >= 0 && order_docs (&key, max) < 0;
            bson_destroy (&key);
            if (!in) {
               continue;
            }
         }
         *size += view.len;
         (*objects)++;
      }
   }
}

void
sim_cmd_data_size (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_t min, max;
   const char *ns = NULL;
   bool have_min, have_max;
   sim_coll_t *coll;
   sim_ctab_t *t;
   int64_t size = 0, objects = 0;

   if (bson_iter_init_find (&it, ctx->cmd, "dataSize") && BSON_ITER_HOLDS_UTF8 (&it))
      ns = bson_iter_utf8 (&it, NULL);
   if (!ns || !strchr (ns, '.')) {
      sim_reply_error (reply, 73, "Invalid namespace specified '%s'", ns ? ns : "");
      return;
   }
   have_min = docget_sub (ctx->cmd, "min", BSON_TYPE_DOCUMENT, &min);
   have_max = docget_sub (ctx->cmd, "max", BSON_TYPE_DOCUMENT, &max);
   if (have_min != have_max) {
      sim_reply_error (reply, 9, "only one of min or max specified");
      return;
   }
   coll = sim_coll_get_ns (ns);
   t = coll ? sim_ctab_get (coll) : NULL;
   if (coll && !t) {
      sim_data_size_unsharded (coll, have_min ? &min : NULL, have_min ? &max : NULL, &size, &objects);
   }
   for (size_t i = 0; t && i < t->n; i++) {
      bson_t cmin, cmax;
      sim_chunk_min (&t->v[i], &cmin);
      sim_chunk_max (&t->v[i], &cmax);
      if (have_min && (order_docs (&cmin, &min) < 0 || order_docs (&cmax, &max) > 0))
         continue;
      size += t->v[i].bytes;
      objects += t->v[i].docs;
   }
   BSON_APPEND_INT64 (reply, "size", size);
   BSON_APPEND_INT64 (reply, "numObjects", objects);
   BSON_APPEND_INT64 (reply, "millis", 0);
   sim_reply_ok (reply);
}
