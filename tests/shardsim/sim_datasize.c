/* shardsim's dataSize through the router: { dataSize: "db.coll", keyPattern, min, max, estimate } answers the size,
 * document count and time of a collection's key range [min, max) as the shards' index scans would (the router sends
 * it to every shard and adds their answers up; the chunk table keeps each chunk's documents and bytes current, so
 * only the chunks min or max cut through are scanned). Without min and max: the whole collection. An unsharded
 * collection is answered by its primary shard (documents scanned). Callers hold sim_g.lock. */
#include <string.h>

#include "tests/shardsim/sim_admin.h"
#include "tests/shardsim/query/simq_int.h"

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

/* One shard's part of a sharded collection's dataSize: its documents and bytes in all (for the estimate's average
 * object size) and inside [min, max). */
typedef struct {
   const char *shard;
   int64_t docs, bytes, in_docs, in_bytes;
} sim_ds_shard_t;

typedef struct {
   sim_ds_shard_t *v;
   size_t n, cap;
} sim_ds_shards_t;

/* The entry of shard in s (added when new; s->v grows as shards appear). */
static sim_ds_shard_t *
sim_ds_shard (sim_ds_shards_t *s, const char *shard)
{
   for (size_t i = 0; i < s->n; i++) {
      if (!strcmp (s->v[i].shard, shard)) {
         return &s->v[i];
      }
   }
   if (s->n == s->cap) {
      s->cap = s->cap ? s->cap * 2 : 8;
      s->v = bson_realloc (s->v, s->cap * sizeof *s->v);
   }
   s->v[s->n] = (sim_ds_shard_t){ shard, 0, 0, 0, 0 };
   return &s->v[s->n++];
}

/* sim_ds_scan_partial's scan: the chunks partial[] of t, the range [min, max), the shards' sums */
typedef struct {
   const sim_ctab_t *t;
   const size_t *partial;
   size_t npartial;
   const bson_t *min, *max;
   sim_ds_shards_t *v;
} sim_ds_scan_t;

static void
sim_ds_scan_one (void *data, const bson_t *doc, const bson_t *key)
{
   sim_ds_scan_t *sc = data;
   if (order_docs (key, sc->min) < 0 || order_docs (key, sc->max) >= 0) {
      return;
   }
   for (size_t k = 0; k < sc->npartial; k++) {
      const sim_chunk_t *c = &sc->t->v[sc->partial[k]];
      bson_t cmin, cmax;
      sim_chunk_min (c, &cmin);
      sim_chunk_max (c, &cmax);
      if (order_docs (key, &cmin) >= 0 && order_docs (key, &cmax) < 0) {
         sim_ds_shard_t *s = sim_ds_shard (sc->v, c->shard);
         s->in_docs++;
         s->in_bytes += doc->len;
         return;
      }
   }
}

/* Adds the documents of the chunks partial[] of t (those min or max cuts through) that lie in [min, max):
 * one scan of the collection, each document's shard key compared with the bounds as the shard's index scan would. */
static void
sim_ds_scan_partial (sim_coll_t *coll, sim_ctab_t *t, const size_t *partial, size_t npartial, const bson_t *min,
                     const bson_t *max, sim_ds_shards_t *v)
{
   sim_ds_scan_t sc = { t, partial, npartial, min, max, v };
   sim_coll_each_key (coll, &t->sc, sim_ds_scan_one, &sc);
}

/* A sharded collection: every shard answers for its own documents (s/commands/cluster_data_size_cmd.cpp scatters,
 * db/commands/dbcommands.cpp CmdDataSize scans the shard key index over [min, max)). The chunks wholly inside the
 * range count from the chunk table; the (at most two) chunks min or max cut through are scanned. With estimate each
 * shard counts its documents in the range times its own average object size (its bytes / its documents, integer
 * division), as CmdDataSize does; without a range the estimate is the exact size (the collection's dataSize). Chunks
 * are found by binary search (sim_ctab_locate), not a walk of the table. */
static void
sim_data_size_sharded (sim_coll_t *coll, sim_ctab_t *t, const bson_t *min, const bson_t *max, bool estimate,
                       int64_t *size, int64_t *objects)
{
   sim_ds_shards_t v = { NULL, 0, 0 };
   size_t partial[2], npartial = 0;

   /* The shards' totals: for the estimate's averages, or the answer itself without a range. */
   for (size_t i = 0; (estimate || !min) && i < t->n; i++) {
      sim_ds_shard_t *s = sim_ds_shard (&v, t->v[i].shard);
      s->docs += t->v[i].docs;
      s->bytes += t->v[i].bytes;
      if (!min) {
         s->in_docs += t->v[i].docs;
         s->in_bytes += t->v[i].bytes;
      }
   }
   if (min && order_docs (min, max) < 0) {
      size_t i = sim_ctab_locate (t, min);
      for (i = i == SIZE_MAX ? 0 : i; i < t->n; i++) {
         bson_t cmin, cmax;
         sim_chunk_min (&t->v[i], &cmin);
         sim_chunk_max (&t->v[i], &cmax);
         if (order_docs (&cmin, max) >= 0) {
            break;
         }
         if (order_docs (&cmax, min) <= 0) {
            continue;
         }
         if (order_docs (&cmin, min) < 0 || order_docs (&cmax, max) > 0) {
            if (npartial < 2) {
               partial[npartial++] = i;
            }
            continue;
         }
         sim_ds_shard_t *s = sim_ds_shard (&v, t->v[i].shard);
         s->in_docs += t->v[i].docs;
         s->in_bytes += t->v[i].bytes;
      }
      if (npartial) {
         sim_ds_scan_partial (coll, t, partial, npartial, min, max, &v);
      }
   }
   for (size_t k = 0; k < v.n; k++) {
      const sim_ds_shard_t *s = &v.v[k];
      *objects += s->in_docs;
      *size += estimate && min ? (s->docs ? s->in_docs * (s->bytes / s->docs) : 0) : s->in_bytes;
   }
   bson_free (v.v);
}

/* The argument checks before any data is read. 7.0+: the router's IDL (DataSizeCommand: keyPattern, min and max
 * objects, 14), then the shard's typed CmdDataSize ("Max must [not ]be set if min is [not ]set."); 5.0/6.0 the
 * errmsgRun revision read (6.1-era: "max must be set if min is set", "min key must be an object"), all 2 BadValue;
 * 4.4 none (the 4.x shard only compares the bounds' emptiness). */
static bool
sim_data_size_args (const bson_t *cmd, bson_t *reply)
{
   bson_iter_t it;
   bool has_min = sim_has (cmd, "min"), has_max = sim_has (cmd, "max");
   if (sim_ver_ge (70)) {
      static const char *const objects[] = { "keyPattern", "min", "max" };
      for (size_t k = 0; k < 3; k++) {
         if (bson_iter_init_find (&it, cmd, objects[k]) && !BSON_ITER_HOLDS_DOCUMENT (&it)) {
            sim_reply_error (reply, 14, "BSON field 'dataSize.%s' is the wrong type '%s', expected type 'object'",
                             objects[k], simq_type_name (bson_iter_type (&it)));
            return false;
         }
      }
      if (has_min != has_max) {
         sim_reply_error (reply, 2,
                          has_min ? "Max must be set if min is set." : "Max must not be set if min is not set.");
         return false;
      }
   } else if (sim_ver_ge (50)) {
      if (has_min != has_max) {
         sim_reply_error (reply, 2, has_min ? "max must be set if min is set" : "min must be set if max is set");
         return false;
      }
      static const char *const bounds[] = { "min", "max" };
      for (size_t k = 0; has_min && k < 2; k++) {
         if (bson_iter_init_find (&it, cmd, bounds[k]) && !BSON_ITER_HOLDS_DOCUMENT (&it)) {
            sim_reply_error (reply, 2, "%s key must be an object", bounds[k]);
            return false;
         }
      }
   }
   return true;
}

/* 7.0+ shard, sharded collection: a keyPattern other than the shard key, or a bound without the shard key's fields,
 * 2 BadValue (the texts print the bound as BSONObj::toString does). */
static bool
sim_data_size_key_checks (const bson_t *cmd, const sim_shcoll_t *sc, bson_t *reply)
{
   bson_t kp, b;
   if (docget_sub (cmd, "keyPattern", BSON_TYPE_DOCUMENT, &kp) && !bson_empty (&kp) && !bson_equal (&kp, &sc->key)) {
      sim_reply_error (reply, 2, "keyPattern must be empty or must be an object that equals the shard key");
      return false;
   }
   static const char *const bounds[] = { "min", "max" };
   for (size_t k = 0; k < 2; k++) {
      if (!docget_sub (cmd, bounds[k], BSON_TYPE_DOCUMENT, &b) || bson_empty (&b)) {
         continue;
      }
      bson_iter_t f;
      bool full = bson_count_keys (&b) == bson_count_keys (&sc->key);
      for (bool more = bson_iter_init (&f, &sc->key) && bson_iter_next (&f); more && full; more = bson_iter_next (&f)) {
         full = sim_has (&b, bson_iter_key (&f));
      }
      if (!full) {
         char *str = sim_bson_str (&b);
         sim_reply_error (reply, 2, "%s value %s does not have shard key", bounds[k], str);
         bson_free (str);
         return false;
      }
   }
   return true;
}

void
sim_cmd_data_size (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_t min, max;
   const char *ns = NULL;
   bool have_min, have_max, estimate;
   sim_coll_t *coll;
   sim_ctab_t *t;
   int64_t size = 0, objects = 0;

   if (bson_iter_init_find (&it, ctx->cmd, "dataSize") && BSON_ITER_HOLDS_UTF8 (&it))
      ns = bson_iter_utf8 (&it, NULL);
   if (!ns || !strchr (ns, '.')) {
      sim_reply_error (reply, 73, "Invalid namespace specified '%s'", ns ? ns : "");
      return;
   }
   estimate = bson_iter_init_find (&it, ctx->cmd, "estimate") && bson_iter_as_bool (&it);
   if (!sim_data_size_args (ctx->cmd, reply)) {
      return;
   }
   have_min = docget_sub (ctx->cmd, "min", BSON_TYPE_DOCUMENT, &min) && !bson_empty (&min);
   have_max = docget_sub (ctx->cmd, "max", BSON_TYPE_DOCUMENT, &max) && !bson_empty (&max);
   coll = sim_coll_get_ns (ns);
   t = coll ? sim_ctab_get (coll) : NULL;
   if (coll && !t) {
      sim_data_size_unsharded (coll, have_min ? &min : NULL, have_min ? &max : NULL, &size, &objects);
   }
   if (coll && sim_coll_count (coll) > 0 && have_min != have_max) {
      /* A shard holding documents checks that both bounds have fields (an empty collection answers zeros first):
       * 7.0+ 2 BadValue; before, CmdDataSize's errmsg without a code, which the router's getStatusFromCommandResult
       * turns into 8 UnknownError. */
      if (sim_ver_ge (70)) {
         sim_reply_error (reply, 2, "Only one of min or max specified");
      } else {
         sim_reply_error (reply, 8, "only one of min or max specified");
      }
      return;
   }
   if (t && sim_ver_ge (70) && !sim_data_size_key_checks (ctx->cmd, &t->sc, reply)) {
      return;
   }
   if (t) {
      sim_data_size_sharded (coll, t, have_min ? &min : NULL, have_min ? &max : NULL, estimate, &size, &objects);
   }
   if (!sim_ver_ge (50)) {
      /* The 4.4 router sums the shards' answers as doubles ("yes these are doubles...") and millis as an int. */
      BSON_APPEND_DOUBLE (reply, "size", (double) size);
      BSON_APPEND_DOUBLE (reply, "numObjects", (double) objects);
      BSON_APPEND_INT32 (reply, "millis", 0);
   } else {
      BSON_APPEND_INT64 (reply, "size", size);
      BSON_APPEND_INT64 (reply, "numObjects", objects);
      BSON_APPEND_INT64 (reply, "millis", 0);
   }
   sim_reply_ok (reply);
}
