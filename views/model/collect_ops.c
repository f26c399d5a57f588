/* The dashboard's Operations panel data: one reading of the cluster's long operations per sample, taken and computed
 * exactly as sh.progress() takes and computes it (commands/progress.h), then formatted into the snapshot. The reading
 * is kept for the next sample's rates. */
#include <stdlib.h>
#include <string.h>

#include "shell/lib/docget.h"
#include "views/model/collect_int.h"

/* One operation document of progress_compute into a snapshot row. */
static void
collect_ops_row (const bson_t *op, snap_op_t *o)
{
   bool present;
   double v;
   memset (o, 0, sizeof *o);
   bson_strncpy (o->type, docget_utf8 (op, "type", "?"), sizeof o->type);
   bson_strncpy (o->ns, docget_utf8 (op, "ns", ""), sizeof o->ns);
   bson_strncpy (o->shard, docget_utf8 (op, "shard", ""), sizeof o->shard);
   bson_strncpy (o->phase, docget_utf8 (op, "phase", ""), sizeof o->phase);
   bson_strncpy (o->caveat, docget_utf8 (op, "caveat", ""), sizeof o->caveat);
   bson_strncpy (o->stuck, docget_utf8 (op, "stuck", ""), sizeof o->stuck);
   bson_strncpy (o->fix, docget_utf8 (op, "fix", ""), sizeof o->fix);
   v = docget_double (op, "percent", -1, &present);
   o->percent = present ? v : -1;
   v = docget_double (op, "bytesPerSec", -1, &present);
   o->bytes_ps = present ? v : -1;
   v = docget_double (op, "etaSec", -1, &present);
   o->eta_s = present ? v : -1;
}

bool
collect_sample_operations (collect_t *c, snap_t *s, sh_error_t *err)
{
   progress_reading_t *now = collect_calloc (1, sizeof *now);
   bson_t ops = BSON_INITIALIZER, op;
   bson_iter_t it;
   bool ok;

   progress_reading_init (now);
   ok = cmd_progress_gather (c->ctx, now, err);
   /* its reads: the four of sh.progress's build(), eight more while shards drain (and a few per zone range no shard
    * can take or jumbo chunk left), one per defragmenting collection */
   c->round_trips += now->reads;
   if (!ok) {
      progress_reading_destroy (now);
      free (now);
      bson_destroy (&ops);
      return false;
   }
   progress_track_stalls (now, c->ops_prev);
   progress_compute (now, c->ops_prev, &ops);
   s->nops = 0;
   s->ops_total = 0;
   if (bson_iter_init (&it, &ops)) {
      while (bson_iter_next (&it)) {
         if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &op)) {
            if (s->nops < SNAP_OPS) {
               collect_ops_row (&op, &s->ops[s->nops++]);
            }
            s->ops_total++;
         }
      }
   }
   bson_destroy (&ops);
   if (c->ops_prev) {
      progress_reading_destroy (c->ops_prev);
      free (c->ops_prev);
   }
   c->ops_prev = now;
   return true;
}
