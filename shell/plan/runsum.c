/* The record of a script run that stopped before its end (a failure, a signal, quit(n)): which statements ran, which
 * failed, which may have been applied (unknown: the reply was lost), which did not run, and the dangerous state the
 * ones that ran left behind (balancer or auto-merger stopped, noBalance set, a zone with shards but no ranges, a shard
 * draining). See runsum.h. */
#include <string.h>

#include "commands/dispatch.h"
#include "shell/plan/runsum.h"

struct run_summary {
   bson_string_t *ran, *failed, *skipped, *unknown;
   int nran, nskipped, nunknown;
   int last_line; /* of the last statement or call noted */
   bool balancer_stopped, automerge_stopped;
   bool balancer_set, automerge_set; /* a statement set balancer_stopped / automerge_stopped (for appending) */
   bson_t no_balance;                /* ns -> true/false, last state */
   bson_t draining;                  /* shard -> true */
   bson_t zones;                     /* zone -> 1 (shard added) / 2 (range added) */
};

run_summary_t *
run_summary_new (void)
{
   run_summary_t *rs = bson_malloc0 (sizeof *rs);
   rs->ran = bson_string_new (NULL);
   rs->failed = bson_string_new (NULL);
   rs->skipped = bson_string_new (NULL);
   rs->unknown = bson_string_new (NULL);
   bson_init (&rs->no_balance);
   bson_init (&rs->draining);
   bson_init (&rs->zones);
   return rs;
}

void
run_summary_free (run_summary_t *rs)
{
   if (!rs)
      return;
   bson_string_free (rs->ran, true);
   bson_string_free (rs->failed, true);
   bson_string_free (rs->skipped, true);
   bson_string_free (rs->unknown, true);
   bson_destroy (&rs->no_balance);
   bson_destroy (&rs->draining);
   bson_destroy (&rs->zones);
   bson_free (rs);
}

/* Sets key of doc to v (the last value wins when read back with run_summary_get). */
static void
rs_set (bson_t *doc, const char *key, int32_t v)
{
   BSON_APPEND_INT32 (doc, key, v);
}

/* The last value set for key, 0 when none. */
static int32_t
rs_get (const bson_t *doc, const char *key)
{
   bson_iter_t it;
   int32_t v = 0;
   if (!bson_iter_init (&it, doc))
      return 0;
   while (bson_iter_next (&it)) {
      if (!strcmp (bson_iter_key (&it), key))
         v = bson_iter_int32 (&it);
   }
   return v;
}

/* The position of key's first element in doc (SIZE_MAX when there is none). */
static size_t
rs_first (const bson_t *doc, const char *key)
{
   bson_iter_t it;
   size_t i = 0;
   if (!bson_iter_init (&it, doc))
      return SIZE_MAX;
   while (bson_iter_next (&it)) {
      if (!strcmp (bson_iter_key (&it), key))
         return i;
      i++;
   }
   return SIZE_MAX;
}

static bool
rs_arg_bool (const sh_call_t *call, int i, bool *v)
{
   bson_iter_t it;
   if (!args_get (call, i, &it))
      return false;
   *v = bson_iter_as_bool (&it);
   return true;
}

/* A statement stopped (or started) the balancer. */
static void
rs_balancer (run_summary_t *rs, bool stopped)
{
   rs->balancer_stopped = stopped;
   rs->balancer_set = true;
}

/* A statement stopped (or started) the auto-merger. */
static void
rs_automerge (run_summary_t *rs, bool stopped)
{
   rs->automerge_stopped = stopped;
   rs->automerge_set = true;
}

/* What a statement that ran leaves behind. */
static void
rs_state (run_summary_t *rs, const sh_call_t *call)
{
   const char *n = (call->cmd->flags & CMD_ALIAS) && call->cmd->alias_of ? call->cmd->alias_of : call->cmd->name;
   const char *a0 = args_str (call, 0), *a1 = args_str (call, 1);
   bool b;
   if (!strcmp (n, "sh.stopBalancer"))
      rs_balancer (rs, true);
   else if (!strcmp (n, "sh.startBalancer"))
      rs_balancer (rs, false);
   else if (!strcmp (n, "sh.setBalancerState") && rs_arg_bool (call, 0, &b))
      rs_balancer (rs, !b);
   else if (!strcmp (n, "sh.stopAutoMerger") || !strcmp (n, "sh.disableAutoMerger"))
      rs_automerge (rs, true);
   else if (!strcmp (n, "sh.startAutoMerger") || !strcmp (n, "sh.enableAutoMerger"))
      rs_automerge (rs, false);
   else if (!strcmp (n, "sh.disableBalancing") && a0)
      rs_set (&rs->no_balance, a0, 1);
   else if (!strcmp (n, "sh.enableBalancing") && a0)
      rs_set (&rs->no_balance, a0, 2);
   else if (!strcmp (n, "sh.removeShard") && a0)
      rs_set (&rs->draining, a0, 1);
   else if (!strcmp (n, "sh.addShardToZone") && a1 && !rs_get (&rs->zones, a1))
      rs_set (&rs->zones, a1, 1);
   else if (!strcmp (n, "sh.updateZoneKeyRange")) {
      const char *z = args_str (call, 3);
      if (z)
         rs_set (&rs->zones, z, 2);
   } else if (!strcmp (n, "db.adminCommand")) {
      /* the command's name: a string argument ("balancerStop" is { balancerStop: 1 }) or the document's first key */
      bson_t doc;
      bson_iter_t it;
      const char *cmd = a0, *value = NULL;
      if (!cmd && args_doc (call, 0, &doc) && bson_iter_init (&it, &doc) && bson_iter_next (&it)) {
         cmd = bson_iter_key (&it);
         value = BSON_ITER_HOLDS_UTF8 (&it) ? bson_iter_utf8 (&it, NULL) : NULL;
      }
      if (!cmd)
         return;
      if ((!strcmp (cmd, "removeShard") || !strcmp (cmd, "startShardDraining")) && value)
         rs_set (&rs->draining, value, 1);
      else if ((!strcmp (cmd, "stopShardDraining") || !strcmp (cmd, "commitShardRemoval")) && value)
         rs_set (&rs->draining, value, 2); /* paused (8.3), or removed */
      else if (!strcmp (cmd, "balancerStop"))
         rs_balancer (rs, true);
      else if (!strcmp (cmd, "balancerStart"))
         rs_balancer (rs, false);
   }
}

void
run_summary_note (run_summary_t *rs, const char *file, int line, const sh_call_t *call, bool ok)
{
   rs->last_line = line;
   if (ok) {
      bson_string_append_printf (rs->ran, "%s%s:%d", rs->nran++ ? ", " : "", file, line);
      if (call)
         rs_state (rs, call);
   } else {
      bson_string_append_printf (rs->failed, "%s%s:%d", rs->failed->len ? ", " : "", file, line);
   }
}

bool
run_summary_reply_lost (const sh_error_t *err)
{
   if (!err)
      return false;
   if (err->kind == SH_ERR_INTERRUPTED)
      return !strncmp (err->message, "interrupted: stopped waiting for the reply", 42);
   /* "cannot reach HOST" (server selection failed): nothing was sent */
   return err->kind == SH_ERR_NETWORK && strncmp (err->message, "cannot reach ", 13) != 0 &&
          strncmp (err->message, "authentication failed", 21) != 0 && strncmp (err->message, "TLS:", 4) != 0;
}

void
run_summary_unknown (run_summary_t *rs, const char *file, int line, const sh_call_t *call)
{
   rs->last_line = line;
   bson_string_append_printf (rs->unknown, "%s%s:%d", rs->nunknown++ ? ", " : "", file, line);
   if (call)
      rs_state (rs, call);
}

void
run_summary_note_call (run_summary_t *rs, const char *file, int line, const sh_call_t *call, bool ok,
                       const sh_error_t *err)
{
   if (!ok && call && run_summary_reply_lost (err) && dispatch_call_writes (call))
      run_summary_unknown (rs, file, line, call);
   else
      run_summary_note (rs, file, line, call, ok);
}

void
run_summary_rest (run_summary_t *rs, const char *file, int line)
{
   /* line 0: it stopped before any call (a signal in a loop of plain JavaScript) */
   if (line > 0)
      bson_string_append_printf (rs->skipped, "%s%s after line %d", rs->nskipped++ ? ", " : "", file, line);
   else
      bson_string_append_printf (rs->skipped, "%s%s from where it stopped", rs->nskipped++ ? ", " : "", file);
}

void
run_summary_at (run_summary_t *rs, int line)
{
   rs->last_line = line;
}

int
run_summary_last_line (const run_summary_t *rs)
{
   return rs->last_line;
}

bool
run_summary_has_failed (const run_summary_t *rs)
{
   return rs->failed->len > 0 || rs->nunknown > 0;
}

/* Appends every element of from to doc (later elements win when read back with rs_get). zones: a zone doc already
 * holds keeps its state against from's "given shards" (1), as sh.addShardToZone records it (rs_state). */
static void
rs_append_doc (bson_t *doc, const bson_t *from, bool zones)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, from))
      return;
   while (bson_iter_next (&it)) {
      if (zones && bson_iter_int32 (&it) == 1 && rs_get (doc, bson_iter_key (&it)) != 0)
         continue;
      rs_set (doc, bson_iter_key (&it), bson_iter_int32 (&it));
   }
}

void
run_summary_append (run_summary_t *rs, const run_summary_t *from)
{
   if (from->nran)
      bson_string_append_printf (rs->ran, "%s%s", rs->nran ? ", " : "", from->ran->str);
   rs->nran += from->nran;
   if (from->failed->len)
      bson_string_append_printf (rs->failed, "%s%s", rs->failed->len ? ", " : "", from->failed->str);
   if (from->nunknown)
      bson_string_append_printf (rs->unknown, "%s%s", rs->nunknown ? ", " : "", from->unknown->str);
   rs->nunknown += from->nunknown;
   if (from->last_line)
      rs->last_line = from->last_line;
   if (from->nskipped)
      bson_string_append_printf (rs->skipped, "%s%s", rs->nskipped ? ", " : "", from->skipped->str);
   rs->nskipped += from->nskipped;
   if (from->balancer_set)
      rs_balancer (rs, from->balancer_stopped);
   if (from->automerge_set)
      rs_automerge (rs, from->automerge_stopped);
   rs_append_doc (&rs->no_balance, &from->no_balance, false);
   rs_append_doc (&rs->draining, &from->draining, false);
   rs_append_doc (&rs->zones, &from->zones, true);
}

void
run_summary_skipped (run_summary_t *rs, const char *file, int line)
{
   bson_string_append_printf (rs->skipped, "%s%s:%d", rs->nskipped++ ? ", " : "", file, line);
}

bool
run_summary_worth (const run_summary_t *rs)
{
   return rs->nran > 0 || rs->nskipped > 0 || rs->nunknown > 0;
}

void
run_summary_print (sh_ctx_t *ctx, const run_summary_t *rs, const preflight_t *pf)
{
   FILE *e = ctx->err_fp;
   bson_iter_t it;
   fprintf (e, "summary: ran %s; failed %s; %s%s%sdid not run: %s\n", rs->nran ? rs->ran->str : "nothing",
            rs->failed->len ? rs->failed->str : "nothing", rs->nunknown ? "unknown \u2014 check the cluster: " : "",
            rs->nunknown ? rs->unknown->str : "", rs->nunknown ? "; " : "",
            rs->nskipped ? rs->skipped->str : "nothing");
   if (ctx->opts && ctx->opts->dry_run) {
      /* nothing was sent: no state was left behind */
      fprintf (e, "--dry-run: nothing was sent\n");
      fflush (e);
      return;
   }
   if (rs->balancer_stopped)
      fprintf (e, "WARNING: the balancer is stopped: nothing balances until sh.startBalancer()\n");
   if (rs->automerge_stopped)
      fprintf (e, "WARNING: the auto-merger is stopped: sh.startAutoMerger() turns it back on\n");
   if (bson_iter_init (&it, &rs->no_balance)) {
      while (bson_iter_next (&it)) {
         if (rs_get (&rs->no_balance, bson_iter_key (&it)) == 1 && bson_iter_int32 (&it) == 1)
            fprintf (e, "WARNING: noBalance is set on %s: sh.enableBalancing(\"%s\") clears it\n", bson_iter_key (&it),
                     bson_iter_key (&it));
      }
   }
   if (bson_iter_init (&it, &rs->draining)) {
      size_t i = 0;
      while (bson_iter_next (&it)) {
         /* once per shard (a drain started twice is one drain), and not when it was paused or removed after */
         if (rs_get (&rs->draining, bson_iter_key (&it)) == 1 && rs_first (&rs->draining, bson_iter_key (&it)) == i)
            fprintf (e, "WARNING: shard %s is draining (removeShard or startShardDraining ran)\n", bson_iter_key (&it));
         i++;
      }
   }
   if (bson_iter_init (&it, &rs->zones)) {
      while (bson_iter_next (&it)) {
         if (bson_iter_int32 (&it) == 1 && rs_get (&rs->zones, bson_iter_key (&it)) == 1 &&
             !preflight_zone_has_ranges (pf, bson_iter_key (&it)))
            fprintf (e, "WARNING: zone %s has shards but no ranges\n", bson_iter_key (&it));
      }
   }
   fflush (e);
}
