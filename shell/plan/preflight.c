/* Pre-flight of a script: every literal statement checked in script order against the model of the cluster
 * (shell/plan/pf_model.c), which each statement then updates; under --plan the effects come from shell/plan/pf_plan.c.
 * See preflight.h and docs/plan.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "shell/core/conn.h"
#include "shell/core/output.h"
#include "commands/dispatch.h"
#include "shell/lib/docget.h"
#include "shell/lib/order.h"
#include "shell/plan/pf_model.h"
#include "shell/plan/preflight.h"
#include "shell/lib/secret.h"

/* The server's code and codeName for what the model refused (the server would refuse it so): kept with err, which
 * stays a usage error when reported, and thrown with them into a JavaScript script that catches it. */
static bool
pf_code (sh_error_t *err, int code, const char *name)
{
   err->code = code;
   bson_strncpy (err->code_name, name, sizeof err->code_name);
   return false;
}

/* The error position: argument i when known, else the helper's name. */
static sh_pos_t
pf_at (const sh_call_t *call, int i)
{
   return call->arg_pos && i >= 0 && i < call->argc ? call->arg_pos[i] : call->pos;
}

/* Checks that bound (argument i) has the shard key's fields in order, hashed ones as NumberLong, MinKey or MaxKey. */
static bool
pf_check_bound (const sh_call_t *call, int i, const bson_t *bound, const pf_coll_t *c, sh_error_t *err)
{
   bson_iter_t b, k;
   char key[512], got[512];
   output_format_doc_line (c->key, key, sizeof key);
   output_format_doc_line (bound, got, sizeof got);
   if (!bson_iter_init (&b, bound) || !bson_iter_init (&k, c->key))
      return true;
   while (bson_iter_next (&b)) {
      if (!bson_iter_next (&k) || strcmp (bson_iter_key (&b), bson_iter_key (&k)) != 0) {
         sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, i), "%s is not a prefix of the shard key %s of %s", got, key,
                          c->ns);
         pf_code (err, 61, "ShardKeyNotFound");
         return false;
      }
      if (BSON_ITER_HOLDS_UTF8 (&k) && !strcmp (bson_iter_utf8 (&k, NULL), "hashed") && !BSON_ITER_HOLDS_INT64 (&b) &&
          !BSON_ITER_HOLDS_MINKEY (&b) && !BSON_ITER_HOLDS_MAXKEY (&b)) {
         sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, i),
                          "the hashed field '%s' of %s needs NumberLong(…), MinKey or MaxKey, got %s",
                          bson_iter_key (&b), c->ns, got);
         pf_code (err, 61, "ShardKeyNotFound");
         return false;
      }
   }
   if (bson_count_keys (bound) == 0) {
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, i), "an empty bound is not a prefix of the shard key %s", key);
      pf_code (err, 61, "ShardKeyNotFound");
      return false;
   }
   return true;
}

/* Pads a bound with MinKey for the shard key's missing trailing fields, as the server stores it. */
static void
pf_full_bound (const bson_t *bound, const pf_coll_t *c, bson_t *out)
{
   bson_iter_t k, b;
   bson_init (out);
   if (!c) {
      bson_copy_to_excluding_noinit (bound, out, "", NULL);
      return;
   }
   bson_iter_init (&k, c->key);
   while (bson_iter_next (&k)) {
      if (bson_iter_init_find (&b, bound, bson_iter_key (&k)))
         bson_append_value (out, bson_iter_key (&k), -1, bson_iter_value (&b));
      else
         BSON_APPEND_MINKEY (out, bson_iter_key (&k));
   }
}

static bool
pf_need_shard (preflight_t *pf, const sh_call_t *call, int i, const char *id, bool not_draining, sh_error_t *err)
{
   char list[1024];
   pf_shard_t *s = pf_model_shard (pf, id);
   if (!s) {
      pf_model_list (pf, false, list, sizeof list);
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, i), "shard %s does not exist; shards: %s", id ? id : "?", list);
      pf_code (err, 70, "ShardNotFound");
      return false;
   }
   if (not_draining && s->draining) {
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, i), "shard %s is draining: nothing can move to it", id);
      pf_code (err, 20, "IllegalOperation");
      return false;
   }
   return true;
}

static bool
pf_need_sharded (preflight_t *pf, const sh_call_t *call, int i, const char *ns, pf_coll_t **out, sh_error_t *err)
{
   *out = pf_model_coll (pf, ns);
   if (!*out) {
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, i), "%s is not a sharded collection", ns ? ns : "?");
      pf_code (err, 118, "NamespaceNotSharded");
      return false;
   }
   return true;
}

static bool
pf_zone_range (preflight_t *pf, const sh_call_t *call, int ns_i, const char *zone, bool remove, sh_error_t *err)
{
   const char *ns = args_str (call, ns_i);
   bson_t min0, max0, min, max;
   pf_coll_t *c;
   char a[256], b[256], list[1024];
   bool ok = true;
   if (!ns || !args_doc (call, ns_i + 1, &min0) || !args_doc (call, ns_i + 2, &max0))
      return true; /* the helper's own checks report it */
   c = pf_model_coll (pf, ns);
   if (c && (!pf_check_bound (call, ns_i + 1, &min0, c, err) || !pf_check_bound (call, ns_i + 2, &max0, c, err)))
      return false;
   pf_full_bound (&min0, c, &min);
   pf_full_bound (&max0, c, &max);
   a[0] = b[0] = '\0';
   if (pf->plan || pf->ctx->interactive || order_keys (&min, &max) >= 0) {
      output_format_doc_line (&min, a, sizeof a);
      output_format_doc_line (&max, b, sizeof b);
   }
   if (order_keys (&min, &max) >= 0) {
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, ns_i + 1), "min %s should be less than max %s", a, b);
      pf_code (err, 2, "BadValue");
      ok = false;
      goto done;
   }
   if (remove) {
      size_t i = pf_model_range_pos (pf, ns, &min);
      if (i < pf->nranges) {
         pf_range_t *r = &pf->ranges[i];
         if (!strcmp (r->ns, ns) && !order_keys (r->min, &min) && !order_keys (r->max, &max)) {
            if (pf->plan && !pf->ctx->opts->json)
               fprintf (pf->ctx->out_fp, "   range [%s, %s) of %s leaves zone %s\n", a, b, ns, r->zone);
            bson_snprintf (pf->effect, sizeof pf->effect, "remove range [%s, %s) of %s from zone %s", a, b, ns,
                           r->zone);
            pf_model_range_remove (pf, i);
            goto done;
         }
      }
      output_format_doc_line (&min, a, sizeof a);
      output_format_doc_line (&max, b, sizeof b);
      cmd_warn (pf->ctx,
                "%s:%d:%d: warning: no zone range of %s is exactly [%s, %s): the server answers ok and removes "
                "nothing",
                pf->file, call->pos.line, call->pos.col, ns, a, b);
      goto done;
   }
   if (!pf_model_zone_exists (pf, zone)) {
      pf_model_list (pf, true, list, sizeof list);
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, ns_i + 3), "zone %s does not exist; zones: %s", zone, list);
      pf_code (err, 177, "ZoneNotFound");
      ok = false;
      goto done;
   }
   /* only the neighbours in (ns, min) order can overlap: the one before and the one from min on */
   for (size_t i = pf_model_range_pos (pf, ns, &min), k = 0; k < 2; k++) {
      pf_range_t *r;
      char ra[256], rb[256];
      if ((k == 0 && i == 0) || (k == 1 && i >= pf->nranges))
         continue;
      r = &pf->ranges[k == 0 ? i - 1 : i];
      if (strcmp (r->ns, ns) != 0 || order_keys (&max, r->min) <= 0 || order_keys (r->max, &min) <= 0)
         continue;
      output_format_doc_line (&min, a, sizeof a);
      output_format_doc_line (&max, b, sizeof b);
      if (!order_keys (r->min, &min) && !order_keys (r->max, &max) && !strcmp (r->zone, zone))
         goto done; /* the same range again: accepted, nothing changes */
      output_format_doc_line (r->min, ra, sizeof ra);
      output_format_doc_line (r->max, rb, sizeof rb);
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, ns_i + 1),
                       "RangeOverlapConflict: zone range [%s, %s) of %s overlaps the range [%s, %s) of zone %s", a, b,
                       ns, ra, rb, r->zone);
      pf_code (err, 178, "RangeOverlapConflict");
      ok = false;
      goto done;
   }
   pf_model_range_add (pf, ns, &min, &max, zone);
   if (pf->plan && !pf->ctx->opts->json)
      fprintf (pf->ctx->out_fp, "   range [%s, %s) of %s joins zone %s\n", a, b, ns, zone);
   bson_snprintf (pf->effect, sizeof pf->effect, "range [%s, %s) of %s joins zone %s", a, b, ns, zone);
   if (c && pf->plan)
      ok = pf_plan_all (pf, ns, false, err);
done:
   bson_destroy (&min);
   bson_destroy (&max);
   return ok;
}

static bool
pf_shard_zone (preflight_t *pf, const sh_call_t *call, bool add, sh_error_t *err)
{
   const char *id = args_str (call, 0), *zone = args_str (call, 1);
   pf_shard_t *s;
   if (!id || !zone)
      return true;
   if (!pf_need_shard (pf, call, 0, id, false, err))
      return false;
   s = pf_model_shard (pf, id);
   if (add) {
      if (!pf_model_has_tag (s, zone)) {
         char key[16];
         bson_snprintf (key, sizeof key, "%u", bson_count_keys (s->tags));
         BSON_APPEND_UTF8 (s->tags, key, zone);
      }
      if (pf->plan && !pf->ctx->opts->json)
         fprintf (pf->ctx->out_fp, "   shard %s joins zone %s\n", id, zone);
      return !pf->plan || pf_plan_all (pf, NULL, false, err);
   }
   if (!pf_model_has_tag (s, zone)) {
      cmd_warn (pf->ctx, "%s:%d:%d: warning: shard %s is not in zone %s: the server answers ok and changes nothing",
                pf->file, call->pos.line, call->pos.col, id, zone);
      return true;
   }
   {
      int holders = 0;
      bson_t tags = BSON_INITIALIZER;
      bson_iter_t it;
      char key[16];
      uint32_t n = 0;
      for (size_t i = 0; i < pf->nshards; i++)
         holders += pf_model_has_tag (&pf->shards[i], zone);
      if (holders == 1 && pf_model_zone_in_use (pf, zone)) {
         sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, 1),
                          "ZoneStillInUse: shard %s is the last shard of zone %s, which still has ranges", id, zone);
         pf_code (err, 163, "ZoneStillInUse");
         bson_destroy (&tags);
         return false;
      }
      bson_iter_init (&it, s->tags);
      while (bson_iter_next (&it)) {
         if (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), zone))
            continue;
         bson_snprintf (key, sizeof key, "%u", n++);
         bson_append_value (&tags, key, -1, bson_iter_value (&it));
      }
      bson_destroy (s->tags);
      s->tags = bson_copy (&tags);
      bson_destroy (&tags);
   }
   if (pf->plan && !pf->ctx->opts->json)
      fprintf (pf->ctx->out_fp, "   shard %s leaves zone %s\n", id, zone);
   return !pf->plan || pf_plan_all (pf, NULL, false, err);
}

static bool
pf_move (preflight_t *pf, const sh_call_t *call, bool range, sh_error_t *err)
{
   const char *ns = args_str (call, 0), *to = args_str (call, range ? 1 : 2);
   bson_t q, min, max;
   pf_coll_t *c;
   pf_chunk_t *k = NULL;
   const char *zone;
   int64_t docs, bytes;
   if (!ns || !to)
      return true;
   if (!pf_need_sharded (pf, call, 0, ns, &c, err) || !pf_need_shard (pf, call, range ? 1 : 2, to, true, err))
      return false;
   if (!pf_model_load_chunks (pf, c, err))
      return false;
   if (range) {
      if (!args_doc (call, 2, &min))
         return true;
      if (!pf_check_bound (call, 2, &min, c, err))
         return false;
      k = pf_model_chunk_at (c, &min);
   } else if (args_doc (call, 1, &q)) {
      bson_t key;
      bson_iter_t f, v;
      bool all = true;
      bson_init (&key);
      bson_iter_init (&f, c->key);
      while (bson_iter_next (&f)) {
         if (BSON_ITER_HOLDS_UTF8 (&f) || !bson_iter_init_find (&v, &q, bson_iter_key (&f))) {
            all = false; /* hashed or partial: the server finds the chunk */
            break;
         }
         bson_append_value (&key, bson_iter_key (&f), -1, bson_iter_value (&v));
      }
      if (all)
         k = pf_model_chunk_at (c, &key);
      bson_destroy (&key);
   }
   if (!k) {
      /* the server finds the chunk (a hashed or partial key): it moves, its size unknown */
      if (!range && args_doc (call, 1, &q))
         pf_plan_move_unknown (pf, c, &q, to);
      return true;
   }
   zone = pf_model_zone_of (pf, ns, k->min, k->max);
   if (zone && !pf_model_has_tag (pf_model_shard (pf, to), zone)) {
      sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, range ? 1 : 2),
                       "shard %s is not in zone %s, the zone of the chunk: the server refuses the move", to, zone);
      pf_code (err, 20, "IllegalOperation");
      return false;
   }
   if (!strcmp (k->shard, to)) {
      cmd_warn (pf->ctx, "%s:%d:%d: warning: the chunk is already on %s", pf->file, call->pos.line, call->pos.col, to);
      return true;
   }
   bson_copy_to (k->max, &max);
   if (range && args_doc (call, 3, &q) && order_keys (&q, k->max) < 0) {
      bson_destroy (&max);
      bson_copy_to (&q, &max);
   }
   if (range) {
      pf_plan_split_at (pf, c, &min);
      pf_plan_split_at (pf, c, &max);
      k = pf_model_chunk_at (c, &min);
   }
   /* sizes only when they are shown: the plan, or a confirmation in a terminal */
   docs = bytes = -1;
   if (pf->plan || pf->ctx->interactive)
      pf_model_chunk_size (pf, c, k, &docs, &bytes);
   pf_plan_move (pf, c, k->min, k->max, k->shard, to, docs, bytes, true);
   bson_free (k->shard);
   k->shard = bson_strdup (to);
   bson_destroy (&max);
   return true;
}

/* { removeShard: id }: the shard exists (already draining: a warning); the model drains it; under --plan what it
 * has to drain, how long that takes, and the moves. */
static bool
pf_remove_shard (preflight_t *pf, const sh_call_t *call, const char *id, sh_error_t *err)
{
   pf_shard_t *s;
   if (!pf_need_shard (pf, call, 0, id, false, err))
      return false;
   s = pf_model_shard (pf, id);
   if (s->draining)
      cmd_warn (pf->ctx, "%s:%d:%d: warning: shard %s is already draining", pf->file, call->pos.line, call->pos.col,
                id);
   s->draining = true;
   if (!pf->plan)
      return true;
   return pf_plan_drain (pf, id, err);
}
/* db.adminCommand of a command naming a shard: removeShard and 8.3's startShardDraining drain it (pf_remove_shard);
 * stopShardDraining pauses the drain (the model's shard is no longer draining and the moves planned off it for the
 * drain leave the totals: pf_plan_pause; --plan says so);
 * commitShardRemoval needs a draining shard (117 as the commit coordinator's check; one the cluster does not know is
 * removed already: ok); shardDrainingStatus needs the shard. 8.3's start/stop/commit refuse the config server as the
 * server does (20: the transition commands drain it). Other commands are not checked. */
static bool
pf_raw_shard_command (preflight_t *pf, const sh_call_t *call, const char *command, const char *id, sh_error_t *err)
{
   static const char *const config_refused[][2] = {
      { "startShardDraining", "startTransitionToDedicatedConfigServer" },
      { "stopShardDraining", "stopTransitionToDedicatedConfigServer" },
      { "commitShardRemoval", "commitTransitionToDedicatedConfigServer" },
   };
   for (size_t i = 0; id && i < sizeof config_refused / sizeof config_refused[0]; i++) {
      if (!strcmp (command, config_refused[i][0]) && !strcmp (id, "config")) {
         sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, 0),
                          "%s cannot take the config server: use %s for the config shard", command,
                          config_refused[i][1]);
         pf_code (err, 20, "IllegalOperation");
         return false;
      }
   }
   if (!strcmp (command, "removeShard") || !strcmp (command, "startShardDraining"))
      return pf_remove_shard (pf, call, id, err);
   if (!strcmp (command, "stopShardDraining")) {
      pf_shard_t *s;
      if (!pf_need_shard (pf, call, 0, id, false, err))
         return false;
      s = pf_model_shard (pf, id);
      if (s->draining) {
         int nmoves, nstuck;
         pf_plan_pause (pf, id, &nmoves, &nstuck);
         if (pf->plan && !pf->ctx->opts->json) {
            fprintf (pf->ctx->out_fp, "   drain of %s paused: the balancer leaves %s alone from here", id, id);
            if (nmoves)
               fprintf (pf->ctx->out_fp, "; the total leaves out the %d move%s planned off it above", nmoves,
                        nmoves == 1 ? "" : "s");
            if (nstuck)
               fprintf (pf->ctx->out_fp, "%s %d chunk%s that would not move",
                        nmoves ? " and the" : "; the total leaves out the", nstuck, nstuck == 1 ? "" : "s");
            if (nmoves)
               fprintf (pf->ctx->out_fp, ": they happen only as far as the balancer gets before this");
            fprintf (pf->ctx->out_fp, " (resume with startShardDraining)\n");
         }
      }
      s->draining = false;
      return true;
   }
   if (!strcmp (command, "commitShardRemoval")) {
      pf_shard_t *s = id ? pf_model_shard (pf, id) : NULL;
      if (s && !s->draining) {
         sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, 0), "Shard %s is not currently draining", id);
         pf_code (err, 117, "ConflictingOperationInProgress");
         return false;
      }
      return true;
   }
   if (!strcmp (command, "shardDrainingStatus"))
      return pf_need_shard (pf, call, 0, id, false, err);
   return true;
}

/* True when index (a key pattern) supports the shard key: the key's fields are its first fields, in order, ranged
 * fields ascending or descending and a hashed field hashed. */
static bool
pf_index_supports (const bson_t *index, const bson_t *key)
{
   bson_iter_t k, x;
   if (!bson_iter_init (&k, key) || !bson_iter_init (&x, index))
      return false;
   while (bson_iter_next (&k)) {
      bool hashed = BSON_ITER_HOLDS_UTF8 (&k) && !strcmp (bson_iter_utf8 (&k, NULL), "hashed");
      if (!bson_iter_next (&x) || strcmp (bson_iter_key (&k), bson_iter_key (&x)) != 0)
         return false;
      if (hashed != (BSON_ITER_HOLDS_UTF8 (&x) && !strcmp (bson_iter_utf8 (&x, NULL), "hashed")))
         return false;
      if (!hashed && !BSON_ITER_HOLDS_NUMBER (&x))
         return false;
   }
   return true;
}

/* sh.shardCollection of an unsharded ns: an existing, non-empty collection needs an index that supports the key
 * (listIndexes; an index created earlier in the script counts). A missing or empty collection gets its index from
 * the server. */
static bool
pf_supported_key (preflight_t *pf, const sh_call_t *call, const char *ns, const bson_t *key, sh_error_t *err)
{
   const char *dot = strchr (ns, '.');
   char db[256], kj[256];
   bson_t cmd = BSON_INITIALIZER, docs, reply;
   bson_iter_t it;
   sh_error_t e;
   bool supported = false, ok = true;
   int64_t n = 0;
   if (!dot || (size_t) (dot - ns) >= sizeof db)
      return true;
   bson_strncpy (db, ns, (size_t) (dot - ns) + 1);
   if (bson_iter_init (&it, &pf->new_indexes)) {
      while (bson_iter_next (&it)) {
         bson_t idx;
         if (!strcmp (bson_iter_key (&it), ns) && docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &idx) &&
             pf_index_supports (&idx, key))
            return true;
      }
   }
   sh_error_clear (&e);
   BSON_APPEND_UTF8 (&cmd, "listIndexes", dot + 1);
   if (!conn_run_docs (pf->ctx, db, &cmd, CONN_READ, 1000, &docs, NULL, &e)) {
      bson_destroy (&cmd);
      bson_destroy (&docs);
      if (e.kind == SH_ERR_SERVER && e.code == 26)
         return true; /* NamespaceNotFound: the server creates the collection and its index */
      *err = e;
      return false;
   }
   if (bson_iter_init (&it, &docs)) {
      while (bson_iter_next (&it) && !supported) {
         bson_t d, k;
         if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d) && docget_sub (&d, "key", BSON_TYPE_DOCUMENT, &k))
            supported = pf_index_supports (&k, key);
      }
   }
   bson_destroy (&docs);
   if (!supported) {
      bson_reinit (&cmd);
      BSON_APPEND_UTF8 (&cmd, "count", dot + 1);
      sh_error_clear (&e);
      if (conn_run (pf->ctx, db, &cmd, CONN_READ, &reply, &e))
         n = BSON_MAX (docget_int (&reply, "n", 0), 0);
      bson_destroy (&reply);
      if (n > 0) {
         output_format_doc_line (key, kj, sizeof kj);
         sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, 1),
                          "no index of %s supports the shard key %s and it holds %lld documents", ns, kj,
                          (long long) n);
         pf_code (err, 72, "InvalidOptions");
         sh_error_hint (err, "create one first: db.getSiblingDB(\"%s\").%s.createIndex(%s)", db, dot + 1, kj);
         ok = false;
      }
   }
   bson_destroy (&cmd);
   return ok;
}

/* The statements that change the balancer's state, its window or a collection's balancing, in the model: what the
 * balancer would move is then counted as when it runs, or not while it is stopped (pf_plan_move). True when call is
 * one of them. */
static bool
pf_balancer_stmt (preflight_t *pf, const sh_call_t *call, const char *name)
{
   bson_iter_t it;
   bson_t doc;
   const char *cmd = NULL;
   if (!strcmp (name, "db.adminCommand") || !strcmp (name, "db.runCommand")) {
      if (args_doc (call, 0, &doc) && bson_iter_init (&it, &doc) && bson_iter_next (&it))
         cmd = bson_iter_key (&it);
      else
         cmd = args_str (call, 0);
   }
   if (!strcmp (name, "sh.stopBalancer") || (cmd && !strcmp (cmd, "balancerStop"))) {
      pf->balancer_off = true;
   } else if (!strcmp (name, "sh.startBalancer") || (cmd && !strcmp (cmd, "balancerStart"))) {
      pf->balancer_off = false;
   } else if (!strcmp (name, "sh.setBalancerState") && args_get (call, 0, &it) && BSON_ITER_HOLDS_BOOL (&it)) {
      pf->balancer_off = !bson_iter_bool (&it);
   } else if (!strcmp (name, "sh.setBalancerWindow") && args_str (call, 0) && args_str (call, 1)) {
      bson_snprintf (pf->window, sizeof pf->window, "%s-%s", args_str (call, 0), args_str (call, 1));
   } else if ((!strcmp (name, "sh.disableBalancing") || !strcmp (name, "sh.enableBalancing")) && args_str (call, 0) &&
              pf_model_coll (pf, args_str (call, 0))) {
      pf_model_coll (pf, args_str (call, 0))->no_balance = name[3] == 'd';
   } else {
      return false;
   }
   return true;
}

/* Whether the plan models what call (a write) changes: the sh.* helpers and shard commands preflight_call follows, and
 * the data writes of db.* (they change no placement). Another sh.* helper or command is "not planned". */
static bool
pf_modelled (const sh_call_t *call, const char *name)
{
   static const char *const sh_known[] = { "sh.updateZoneKeyRange",
                                           "sh.removeRangeFromZone",
                                           "sh.moveChunk",
                                           "sh.moveRange",
                                           "sh.splitAt",
                                           "sh.splitFind",
                                           "sh.shardCollection",
                                           "sh.stopBalancer",
                                           "sh.startBalancer",
                                           "sh.setBalancerState",
                                           "sh.setBalancerWindow",
                                           "sh.disableBalancing",
                                           "sh.enableBalancing",
                                           "sh.enableSharding",
                                           NULL };
   static const char *const cmd_known[] = {
      "removeShard", "startShardDraining", "stopShardDraining", "commitShardRemoval", "balancerStop", "balancerStart",
      NULL
   };
   const char *const *known = sh_known;
   const char *what = name;
   bson_t doc;
   bson_iter_t it;
   if (!strcmp (name, "db.adminCommand") || !strcmp (name, "db.runCommand")) {
      known = cmd_known;
      what = args_doc (call, 0, &doc) && bson_iter_init (&it, &doc) && bson_iter_next (&it) ? bson_iter_key (&it)
                                                                                            : args_str (call, 0);
   } else if (strncmp (name, "sh.", 3) != 0) {
      return true;
   }
   for (size_t i = 0; what && known[i]; i++) {
      if (!strcmp (what, known[i]))
         return true;
   }
   return false;
}

/* The canonical name of an entry (an alias's target). */
static const char *
pf_name (const sh_call_t *call)
{
   return (call->cmd->flags & CMD_ALIAS) && call->cmd->alias_of ? call->cmd->alias_of : call->cmd->name;
}

bool
preflight_call (preflight_t *pf, const sh_call_t *call, bool writes, const char *file, const char *stmt_text,
                sh_error_t *err)
{
   const char *name = pf_name (call);
   bool ok = true;
   pf_coll_t *c0;
   pf->effect[0] = '\0';
   pf->file = file;
   if (call->cmd->since && !dispatch_version_at_least (pf->version, call->cmd->since)) {
      sh_error_set_at (err, SH_ERR_VERSION, call->pos, "%s needs MongoDB %s and the cluster runs %d.%d.%d",
                       call->cmd->name, call->cmd->since, pf->version[0], pf->version[1], pf->version[2]);
      pf_code (err, 59, "CommandNotFound");
      return false;
   }
   if (pf->plan && writes && !pf->ctx->opts->json) {
      char *shown = secret_redact_source_str (stmt_text); /* the plan line never shows a password */
      fprintf (pf->ctx->out_fp, "%s:%d %s\n", file, call->pos.line, shown);
      bson_free (shown);
   }
   if (pf_balancer_stmt (pf, call, name)) {
      /* its effect is on when the balancer moves, counted with the moves (an unsharded namespace is the run's) */
      if (!strcmp (name, "sh.disableBalancing") || !strcmp (name, "sh.enableBalancing"))
         ok = pf_need_sharded (pf, call, 0, args_str (call, 0), &c0, err);
   } else if (!strcmp (name, "sh.addShardToZone") || !strcmp (name, "sh.removeShardFromZone")) {
      ok = pf_shard_zone (pf, call, name[3] == 'a', err);
   } else if (!strcmp (name, "sh.updateZoneKeyRange")) {
      bson_iter_t z;
      bool has = args_get (call, 3, &z);
      if (has && BSON_ITER_HOLDS_UTF8 (&z))
         ok = pf_zone_range (pf, call, 0, bson_iter_utf8 (&z, NULL), false, err);
      else if (has && BSON_ITER_HOLDS_NULL (&z))
         ok = pf_zone_range (pf, call, 0, NULL, true, err);
   } else if (!strcmp (name, "sh.removeRangeFromZone")) {
      ok = pf_zone_range (pf, call, 0, NULL, true, err);
   } else if (!strcmp (name, "sh.moveChunk")) {
      ok = pf_move (pf, call, false, err);
   } else if (!strcmp (name, "sh.moveRange")) {
      ok = pf_move (pf, call, true, err);
   } else if (!strcmp (name, "sh.splitAt") || !strcmp (name, "sh.splitFind") || !strcmp (name, "sh.disableBalancing") ||
              !strcmp (name, "sh.enableBalancing")) {
      pf_coll_t *c;
      ok = !args_str (call, 0) || pf_need_sharded (pf, call, 0, args_str (call, 0), &c, err);
   } else if (!strcmp (name, "sh.removeShard")) {
      ok = !args_str (call, 0) || pf_remove_shard (pf, call, args_str (call, 0), err);
   } else if (!strcmp (name, "db.adminCommand") || !strcmp (name, "db.runCommand")) {
      bson_t doc;
      bson_iter_t it;
      if (args_doc (call, 0, &doc) && bson_iter_init (&it, &doc) && bson_iter_next (&it) && BSON_ITER_HOLDS_UTF8 (&it))
         ok = pf_raw_shard_command (pf, call, bson_iter_key (&it), bson_iter_utf8 (&it, NULL), err);
   } else if (!strcmp (name, "sh.shardCollection")) {
      const char *ns = args_str (call, 0);
      bson_t key;
      pf_coll_t *c = pf_model_coll (pf, ns);
      if (ns && args_doc (call, 1, &key)) {
         if (c && !bson_equal (c->key, &key)) {
            char have[256];
            output_format_doc_line (c->key, have, sizeof have);
            sh_error_set_at (err, SH_ERR_USAGE, pf_at (call, 0), "%s is already sharded with the key %s", ns, have);
            pf_code (err, 23, "AlreadyInitialized");
            return false;
         }
         if (!c && !pf_supported_key (pf, call, ns, &key, err))
            return false;
         if (!c && pf->plan && !pf_plan_initial_chunks (pf, call, ns, &key, err))
            return false;
         if (!c)
            pf_model_coll_add (pf, ns, NULL, &key);
      }
   } else if ((!strcmp (name, "db.collection.createIndex") || !strcmp (name, "db.collection.ensureIndex")) &&
              call->coll) {
      bson_t key;
      char ns[512];
      if (args_doc (call, 0, &key)) {
         bson_snprintf (ns, sizeof ns, "%s.%s", call->db, call->coll);
         BSON_APPEND_DOCUMENT (&pf->new_indexes, ns, &key);
      }
   }
   if (ok && pf->plan && writes && !pf->ctx->opts->json && !pf->effect[0] && strcmp (name, "sh.removeShard") &&
       strcmp (name, "sh.addShardToZone") && strcmp (name, "sh.removeShardFromZone"))
      fprintf (pf->ctx->out_fp, pf_modelled (call, name)
                                   ? "   (nothing moves)\n"
                                   : "   (not planned: the plan does not model what it changes)\n");
   return ok;
}

const char *
preflight_effect (const preflight_t *pf, size_t input, size_t stmt)
{
   size_t k;
   if (!pf || !pf->effects || input >= pf->ninputs)
      return NULL;
   k = pf->effect_base[input] + stmt;
   return k < pf->neffects ? pf->effects[k] : NULL;
}

/* State of one pass over the scripts. */
typedef struct {
   preflight_t *pf;
   const sh_script_t *script;
   const sh_stmt_t *stmt;
   bool writes; /* the first pass: whether anything writes */
   bool wrote;  /* the second: a statement checked so far writes (it is in the model, not in the cluster) */
} pf_pass_t;

static bool
pf_check_one (void *data, const sh_call_t *call, bool writes, sh_error_t *err)
{
   pf_pass_t *p = data;
   const char *src = p->script->source;
   size_t a = p->stmt->pos.offset, b = p->stmt->end_pos.offset;
   char text[512];
   size_t len = b > a ? b - a : 0;
   /* the statement's secrets hidden before it is cut to fit, where a password's end could fall */
   char *masked = secret_redact_source (src + a, len, &len);
   if (len >= sizeof text)
      len = sizeof text - 1;
   if (masked)
      memcpy (text, masked, len);
   else
      len = 0;
   text[len] = '\0';
   free (masked);
   if (!strcmp (call->cmd->name, "use") && args_str (call, 0)) {
      /* as the run will: later statements resolve against this database (restored after the pre-flight) */
      bson_free (p->pf->ctx->db);
      p->pf->ctx->db = bson_strdup (args_str (call, 0));
      return true;
   }

   if (!preflight_call (p->pf, call, writes, p->script->name, text, err))
      return false;
   p->wrote |= writes;
   return true;
}

/* A db.auth before the script's first write, with its password given, runs before the pre-flight reads, as the run
 * will run it first: the cluster is read as the user the script names (a password to ask for waits for the run). */
static bool
pf_auth_first (void *data, const sh_call_t *call, bool writes, sh_error_t *err)
{
   sh_ctx_t *ctx = data;
   sh_result_t unseen; /* its result is not shown */
   bool ok = true;
   (void) writes;
   if (strcmp (call->cmd->name, "db.auth") != 0 || (call->argc < 2 && args_str (call, 0)))
      return true;
   sh_result_init (&unseen);
   ok = call->cmd->exec (ctx, call, &unseen, err);
   sh_result_destroy (&unseen);
   if (!ok && !err->has_pos) { /* reported at its statement, as the run would */
      err->has_pos = true;
      err->pos = call->pos;
   }
   return ok;
}

/* Runs pf_auth_first on the literal statements before the scripts' first write; false (reported) when one fails. */
static bool
pf_auth_before_reads (sh_ctx_t *ctx, const sh_script_t *const *scripts, size_t n)
{
   for (size_t i = 0; i < n && scripts[i]; i++) {
      for (size_t s = 0; s < scripts[i]->n; s++) {
         sh_error_t err;
         bool writes = false;
         sh_error_clear (&err);
         if (dispatch_stmt_writes (ctx, &scripts[i]->stmts[s], &writes, &err) && writes)
            return true;
         sh_error_clear (&err);
         if (!dispatch_with_call (ctx, &scripts[i]->stmts[s], pf_auth_first, ctx, &err) && err.kind != SH_ERR_NONE) {
            sh_error_hint (&err, "the script's db.auth, run before the pre-flight reads; nothing was written");
            sh_error_render (ctx->err_fp, &err, scripts[i]->name, scripts[i]->source, ctx->err_color);
            return false;
         }
      }
   }
   return true;
}

/* Puts back the current database the pre-flight's `use` statements moved; frees saved. */
static void
pf_restore_db (sh_ctx_t *ctx, char *saved)
{
   bson_free (ctx->db);
   ctx->db = saved;
}

int
preflight_scripts (sh_ctx_t *ctx, const sh_script_t *const *scripts, size_t n, const preflight_js_t *js,
                   preflight_t **out)
{
   char *saved_db;
   pf_pass_t p = { 0 };
   sh_error_t err;
   bool plan = ctx->opts && ctx->opts->plan;
   bool part = false; /* it stopped following a JavaScript input */
   *out = NULL;
   if (!ctx->opts || ctx->opts->dry_run || (ctx->opts->no_preflight && !plan))
      return 0;
   for (size_t i = 0; i < n && !p.writes; i++) {
      if (!scripts[i] && js && js->may_write (js->data, i))
         p.writes = true;
      for (size_t s = 0; scripts[i] && s < scripts[i]->n && !p.writes; s++) {
         bool writes = false;
         sh_error_clear (&err);
         if (dispatch_stmt_writes (ctx, &scripts[i]->stmts[s], &writes, &err))
            p.writes |= writes;
      }
   }
   if (!p.writes && !plan)
      return 0;
   if (!pf_auth_before_reads (ctx, scripts, n))
      return 1;
   sh_error_clear (&err);
   if (!(p.pf = preflight_new (ctx, plan, &err))) {
      if (plan)
         sh_error_hint (&err, "--plan reads the cluster; nothing was written");
      else
         sh_error_hint (&err, "the pre-flight reads the cluster before the first write; --no-preflight skips it");
      sh_error_render (ctx->err_fp, &err, NULL, NULL, ctx->err_color);
      return 1;
   }
   saved_db = bson_strdup (ctx->db);
   p.pf->ninputs = n;
   p.pf->effect_base = bson_malloc0 ((n ? n : 1) * sizeof *p.pf->effect_base);
   for (size_t i = 0; i < n; i++) {
      p.pf->effect_base[i] = p.pf->neffects;
      p.pf->neffects += scripts[i] ? scripts[i]->n : 0;
   }
   p.pf->effects = bson_malloc0 ((p.pf->neffects ? p.pf->neffects : 1) * sizeof *p.pf->effects);
   for (size_t i = 0; i < n; i++) {
      p.script = scripts[i];
      if (!scripts[i] && js) {
         int rc = js->check (js->data, i, p.pf, &p.wrote);
         if (rc == PREFLIGHT_PLAN_PART) {
            part = true; /* the model no longer knows what the inputs after this point meet */
            break;
         }
         if (rc != 0) {
            preflight_free (p.pf);
            pf_restore_db (ctx, saved_db);
            return rc;
         }
         continue;
      }
      for (size_t s = 0; scripts[i] && s < scripts[i]->n; s++) {
         p.stmt = &scripts[i]->stmts[s];
         sh_error_clear (&err);
         if (!dispatch_with_call (ctx, p.stmt, pf_check_one, &p, &err)) {
            if (err.kind == SH_ERR_NETWORK || err.kind == SH_ERR_SERVER) {
               sh_error_hint (&err, "the pre-flight could not read the cluster; nothing was written");
               sh_error_render (ctx->err_fp, &err, scripts[i]->name, scripts[i]->source, ctx->err_color);
               preflight_free (p.pf);
               pf_restore_db (ctx, saved_db);
               return 1;
            }
            if (!err.hint[0])
               sh_error_hint (&err, "found by the pre-flight: nothing was written (--no-preflight skips it)");
            sh_error_render (ctx->err_fp, &err, scripts[i]->name, scripts[i]->source, ctx->err_color);
            fflush (ctx->err_fp);
            preflight_free (p.pf);
            pf_restore_db (ctx, saved_db);
            return 2;
         }
         if (p.pf->effect[0])
            p.pf->effects[p.pf->effect_base[i] + s] = bson_strdup (p.pf->effect);
      }
   }
   pf_restore_db (ctx, saved_db);
   p.pf->partial = part;
   if (plan)
      preflight_plan_end (p.pf);
   fflush (ctx->out_fp);
   *out = p.pf;
   /* a plan with chunks that will not move (stuck: no shard can take them) exits 3, one that could not follow the
    * whole script 4 (docs/plan.md) */
   if (!plan)
      return 0;
   return p.pf->nstuck ? PREFLIGHT_PLAN_STUCK : part ? PREFLIGHT_PLAN_PART : 0;
}

bool
preflight_describe (sh_ctx_t *ctx, const sh_call_t *call, char *buf, size_t len)
{
   sh_error_t err;
   preflight_t *pf;
   bool ok;
   sh_error_clear (&err);
   buf[0] = '\0';
   if (!(pf = preflight_new (ctx, false, &err)))
      return false;
   pf->file = "<confirm>";
   ok = preflight_call (pf, call, true, "", "", &err);
   if (!ok)
      bson_snprintf (buf, len, "pre-flight: %s", err.message);
   else
      bson_strncpy (buf, pf->effect, len);
   preflight_free (pf);
   return buf[0] != '\0';
}

preflight_t *
preflight_new (sh_ctx_t *ctx, bool plan, sh_error_t *err)
{
   preflight_t *pf = bson_malloc0 (sizeof *pf);
   pf->ctx = ctx;
   pf->plan = plan;
   bson_init (&pf->moves);
   bson_init (&pf->stuck);
   bson_init (&pf->ranged_zones);
   bson_init (&pf->new_indexes);
   if (!pf_model_load (pf, err)) {
      preflight_free (pf);
      return NULL;
   }
   return pf;
}

void
preflight_free (preflight_t *pf)
{
   if (!pf)
      return;
   pf_model_destroy (pf);
   bson_destroy (&pf->moves);
   bson_destroy (&pf->stuck);
   bson_free (pf->move_drain);
   bson_free (pf->stuck_drain);
   bson_destroy (&pf->ranged_zones);
   for (size_t i = 0; i < pf->neffects; i++)
      bson_free (pf->effects[i]);
   bson_free (pf->effects);
   bson_free (pf->effect_base);
   bson_destroy (&pf->new_indexes);
   bson_free (pf);
}
