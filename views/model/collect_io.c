/* The collector's bottom layer, shared by every step of a sample (collect.c and collect_*.c): the three ways a
 * command goes to the router (each counts a round trip and enforces the sample's deadline), which errors spoil a
 * whole sample, and small helpers. */
#include <mongoc/mongoc.h>
#include <stdlib.h>
#include <string.h>

#include "shell/lib/clock.h"
#include "views/model/collect_int.h"

/* ---- small helpers ---- */

void *
collect_calloc (size_t n, size_t size)
{
   void *p = calloc (n ? n : 1, size ? size : 1);
   if (!p)
      abort ();
   return p;
}

void
collect_fmt_json (const bson_t *doc, char *buf, size_t len)
{
   char *s = bson_as_relaxed_extended_json (doc, NULL);
   bson_strncpy (buf, s ? s : "null", len);
   bson_free (s);
}

/* The type of the first field of doc, or BSON_TYPE_EOD. */
bson_type_t
collect_first_type (const bson_t *doc)
{
   bson_iter_t it;
   if (bson_iter_init (&it, doc) && bson_iter_next (&it))
      return bson_iter_type (&it);
   return BSON_TYPE_EOD;
}

/* ---- the collector's own commands, counted per name ---- */

void
collect_own_count (collect_t *c, const char *name)
{
   for (int i = 0; i < c->nown; i++) {
      if (!strcmp (c->own_name[i], name)) {
         c->own_n[i]++;
         return;
      }
   }
   if (c->nown == COLLECT_OWN_NAMES || strlen (name) >= sizeof c->own_name[0]) {
      c->own_overflow = true; /* counted nowhere: the quiet test then fails */
      return;
   }
   bson_strncpy (c->own_name[c->nown], name, sizeof c->own_name[0]);
   c->own_n[c->nown++] = 1;
}

/* The driver's command-started event (every command the client sends, getMore and killCursors included; not its
 * handshake and server checks). */
static void
own_started (const mongoc_apm_command_started_t *event)
{
   collect_own_count (mongoc_apm_command_started_get_context (event),
                      mongoc_apm_command_started_get_command_name (event));
}

/* Makes sure the session's client reports every command it sends to this collector (collect_own_count) before one
 * is sent: the client is created here when missing (conn_ensure: no I/O), and the callbacks are set again before
 * every command, so a client the connection replaced, or one another collector used meanwhile, counts for this one
 * (the other's commands are not this one's). The client stays the connection's: only its APM callbacks are set, and
 * collect_unwatch clears them. Under --dry-run or the canned transport nothing is counted (no client): c->own_ok is
 * false. */
static void
collect_watch (collect_t *c)
{
   sh_error_t err;
   c->own_ok = false;
   if (c->ctx->opts && c->ctx->opts->dry_run)
      return;
   sh_error_clear (&err);
   if (!c->ctx->client && !conn_ensure (c->ctx, &err))
      return;
   if (!c->ctx->client)
      return;
   if (!c->apm) {
      c->apm = mongoc_apm_callbacks_new ();
      mongoc_apm_set_command_started_cb (c->apm, own_started);
   }
   c->own_ok = mongoc_client_set_apm_callbacks (c->ctx->client, c->apm, c);
   c->apm_client = c->own_ok ? c->ctx->client : NULL;
}

void
collect_unwatch (collect_t *c)
{
   if (c->apm_client && c->ctx->client == c->apm_client)
      mongoc_client_set_apm_callbacks (c->ctx->client, NULL, NULL);
   c->apm_client = NULL;
   if (c->apm)
      mongoc_apm_callbacks_destroy (c->apm);
   c->apm = NULL;
}

/* ---- round trips ---- */

/* Every command of a sample goes through these two: they count round trips and enforce the sample's deadline. */
static bool
over_deadline (collect_t *c, sh_error_t *err)
{
   if (clock_mono_ms () <= c->deadline_mono_ms)
      return false;
   sh_error_set (err, SH_ERR_NETWORK, "refresh took longer than half the interval (%.1fs); raise it with +",
                 c->opts.interval_s);
   return true;
}

bool
collect_run_cmd (collect_t *c, const char *db, const bson_t *cmd, bson_t *reply, sh_error_t *err)
{
   if (over_deadline (c, err)) {
      bson_init (reply);
      return false;
   }
   collect_watch (c);
   c->round_trips++;
   return conn_run (c->ctx, db, cmd, CONN_ADMIN, reply, err);
}

bool
collect_run_docs (collect_t *c, const char *db, const bson_t *cmd, size_t max, bson_t *docs, sh_error_t *err)
{
   if (over_deadline (c, err)) {
      bson_init (docs);
      return false;
   }
   collect_watch (c);
   c->round_trips++;
   return conn_run_docs (c->ctx, db, cmd, CONN_ADMIN, max, docs, NULL, err);
}

/* Runs a cursor command and hands each document to fn as it arrives, batch documents at a time (the first batch and
 * every getMore ask for that many), so that no more than one small batch of a long reply is in memory: a server's
 * default getMore batch is 16 MB. */
bool
collect_run_each (collect_t *c, const char *db, const bson_t *cmd, int64_t batch, conn_doc_fn fn, void *data,
                  sh_error_t *err)
{
   bson_t sized = BSON_INITIALIZER, cursor;
   conn_cursor_t *cur;
   const bson_t *doc;
   int r = 0;
   if (over_deadline (c, err))
      return false;
   collect_watch (c);
   c->round_trips++;
   if (batch < 1)
      batch = 1;
   bson_copy_to_excluding_noinit (cmd, &sized, "cursor", NULL);
   BSON_APPEND_DOCUMENT_BEGIN (&sized, "cursor", &cursor);
   BSON_APPEND_INT64 (&cursor, "batchSize", batch);
   bson_append_document_end (&sized, &cursor);
   cur = conn_cursor_open (c->ctx, db, &sized, CONN_ADMIN, batch, 0, err);
   bson_destroy (&sized);
   if (!cur)
      return false;
   while ((r = conn_cursor_next (cur, &doc, err)) == 1)
      if (!fn (data, doc))
         break;
   conn_cursor_free (cur);
   return r >= 0;
}

bool
collect_fatal (const sh_error_t *err)
{
   return err->kind != SH_ERR_SERVER;
}
