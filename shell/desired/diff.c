/* --diff (docs/desired-state.md): the spec against the live cluster's export, every difference written as the
 * mongosh statement that fixes it, in an order the server accepts (shards join a zone before ranges point at it,
 * ranges are removed before the overlapping new ones are added, a shard leaves a zone after its ranges are gone), then
 * handed to --plan's pass for the move estimate. Fields the spec leaves out are not compared. */
#include <stdio.h>
#include <string.h>

#include "shell/core/output.h"
#include "shell/desired/desired.h"
#include "shell/desired/diff_int.h"
#include "shell/lib/docget.h"
#include "shell/lib/order.h"

static void
diff_balancer_settings (diff_t *d, const bson_t *want, const bson_t *have)
{
   bson_t w;
   const char *upd = "db.getSiblingDB('config').settings.updateOne";
   if (diff_differs (want, have, "activeWindow")) {
      if (docget_sub (want, "activeWindow", BSON_TYPE_DOCUMENT, &w))
         diff_add (d, false, NULL,
                   "%s({ _id: 'balancer' }, { $set: { activeWindow: { start: '%s', stop: '%s' } } }, { upsert: true })",
                   upd, docget_utf8 (&w, "start", ""), docget_utf8 (&w, "stop", ""));
      else
         diff_add (d, false, NULL, "%s({ _id: 'balancer' }, { $unset: { activeWindow: true } })", upd);
   }
   if (diff_differs (want, have, "chunkSizeMB"))
      diff_add (d, false, NULL, "%s({ _id: 'chunksize' }, { $set: { value: %d } }, { upsert: true })", upd,
                (int) docget_int (want, "chunkSizeMB", 0));
   if (diff_differs (want, have, "secondaryThrottle"))
      diff_add (d, false, NULL, "%s({ _id: 'balancer' }, { $set: { _secondaryThrottle: %s } }, { upsert: true })", upd,
                docget_bool (want, "secondaryThrottle") ? "true" : "false");
   if (diff_differs (want, have, "waitForDelete"))
      diff_add (d, false, NULL, "%s({ _id: 'balancer' }, { $set: { _waitForDelete: %s } }, { upsert: true })", upd,
                docget_bool (want, "waitForDelete") ? "true" : "false");
}

/* The shards' zone joins (leave false) or leaves (leave true). */
static void
diff_shard_zones (diff_t *d, const bson_t *want, const bson_t *have, bool leave)
{
   bson_iter_t s;
   bson_iter_init (&s, want);
   while (bson_iter_next (&s)) {
      bson_t ws, hs, from, to;
      bson_iter_t z;
      const char *id = bson_iter_key (&s);
      if (!docget_iter_sub (&s, BSON_TYPE_DOCUMENT, &ws) || !diff_field (have, id, BSON_TYPE_DOCUMENT, &hs))
         continue;
      if (!docget_sub (&ws, "zones", BSON_TYPE_ARRAY, leave ? &to : &from) ||
          !docget_sub (&hs, "zones", BSON_TYPE_ARRAY, leave ? &from : &to))
         continue;
      /* every zone of `from` that `to` lacks */
      bson_iter_init (&z, &from);
      while (bson_iter_next (&z)) {
         bson_iter_t t;
         bool found = false;
         bson_iter_init (&t, &to);
         while (!found && bson_iter_next (&t))
            found = !strcmp (bson_iter_utf8 (&t, NULL), bson_iter_utf8 (&z, NULL));
         if (!found)
            diff_add (d, false, NULL, "sh.%s('%s', '%s')", leave ? "removeShardFromZone" : "addShardToZone", id,
                      bson_iter_utf8 (&z, NULL));
      }
   }
}

static void
diff_shards_missing_or_draining (diff_t *d, const bson_t *want, const bson_t *have, bool missing)
{
   bson_iter_t s;
   bson_iter_init (&s, want);
   while (bson_iter_next (&s)) {
      bson_t ws, hs;
      const char *id = bson_iter_key (&s);
      char note[512];
      if (!docget_iter_sub (&s, BSON_TYPE_DOCUMENT, &ws))
         continue;
      if (!diff_field (have, id, BSON_TYPE_DOCUMENT, &hs)) {
         if (missing) {
            bson_snprintf (note, sizeof note, "shard %s is not in the cluster (adding shards is not managed)", id);
            diff_add (d, false, note, NULL);
         }
         continue;
      }
      if (missing || !diff_differs (&ws, &hs, "draining"))
         continue;
      if (docget_bool (&ws, "draining")) {
         char *stmt = bson_strdup_printf ("db.adminCommand({ removeShard: '%s' })", id);
         diff_cost_drain (d, id, note, sizeof note);
         diff_add_expensive (d, docget_bool (&ws, "allowDrain"), "allowDrain: true", note, stmt);
         bson_free (stmt);
      } else {
         bson_snprintf (note, sizeof note,
                        "shard %s is draining and the spec says it should not be: no statement stops "
                        "a drain once started",
                        id);
         diff_add (d, false, note, NULL);
      }
   }
}

/* Builds the statements of want against have into d (in the order they must run). */
void
diff_build (diff_t *d, const bson_t *want, const bson_t *have)
{
   bson_t wb, hb, ws, hs, wc, hc;
   bool has_wb =
      docget_sub (want, "balancer", BSON_TYPE_DOCUMENT, &wb) && docget_sub (have, "balancer", BSON_TYPE_DOCUMENT, &hb);
   bool has_ws =
      docget_sub (want, "shards", BSON_TYPE_DOCUMENT, &ws) && docget_sub (have, "shards", BSON_TYPE_DOCUMENT, &hs);
   bool has_wc = docget_sub (want, "collections", BSON_TYPE_DOCUMENT, &wc) &&
                 docget_sub (have, "collections", BSON_TYPE_DOCUMENT, &hc);
   bool stop = has_wb && diff_differs (&wb, &hb, "stopped") && docget_bool (&wb, "stopped");
   int removals = 0;
   bool wrap;
   if (has_wc)
      diff_ranges (d, &wc, &hc, &removals);
   /* ranges replaced while the balancer runs: it could move chunks for the state in between */
   wrap = removals && !stop && !docget_bool (have, "balancer.stopped");
   if (stop)
      diff_add (d, false, NULL, "sh.stopBalancer()");
   if (has_ws) {
      diff_shards_missing_or_draining (d, &ws, &hs, true);
      diff_shard_zones (d, &ws, &hs, false);
   }
   if (wrap)
      diff_add (d, false, "the balancer is stopped while zone ranges are replaced, and started again after",
                "sh.stopBalancer()");
   if (has_wc)
      diff_ranges (d, &wc, &hc, NULL);
   if (wrap)
      diff_add (d, false, NULL, "sh.startBalancer()");
   if (has_ws)
      diff_shard_zones (d, &ws, &hs, true);
   if (has_wc)
      diff_collections (d, &wc, &hc);
   if (has_wb) {
      diff_balancer_settings (d, &wb, &hb);
      if (diff_differs (&wb, &hb, "stopped") && !stop)
         diff_add (d, false, NULL, "sh.startBalancer()");
   }
   if (has_ws)
      diff_shards_missing_or_draining (d, &ws, &hs, false);
}
