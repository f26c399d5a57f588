/* The result (commands/result.h): its owned storage, the one presenter that shows it as the REPL, scripts and --json
 * show results, and its value for the JavaScript engine. */
#include <string.h>

#include "commands/result.h"
#include "shell/lib/secret.h"
#include "shell/core/conn.h"
#include "shell/core/output.h"

void
sh_result_init (sh_result_t *r)
{
   memset (r, 0, sizeof *r);
   bson_init (&r->doc);
}

void
sh_result_destroy (sh_result_t *r)
{
   bson_destroy (&r->doc);
   if (r->text)
      bson_string_free (r->text, true);
   bson_free (r->stats_key);
   conn_cursor_free (r->cursor);
   r->cursor = NULL;
   r->text = NULL;
   r->stats_key = NULL;
}

void
sh_result_reset (sh_result_t *r)
{
   bool stream = r->stream, as_value = r->as_value, want_cursor = r->want_cursor;
   sh_result_destroy (r);
   sh_result_init (r);
   r->as_value = as_value;
   r->want_cursor = want_cursor;
   r->stream = stream;
}

void
sh_result_set_doc (sh_result_t *r, const bson_t *doc)
{
   sh_result_reset (r);
   bson_destroy (&r->doc);
   bson_copy_to (doc, &r->doc);
   r->kind = SH_RESULT_DOC;
}

void
sh_result_set_array (sh_result_t *r, const bson_t *array)
{
   sh_result_set_doc (r, array);
   r->kind = SH_RESULT_ARRAY;
}

void
sh_result_set_value (sh_result_t *r, const bson_value_t *value)
{
   sh_result_reset (r);
   BSON_APPEND_VALUE (&r->doc, "v", value);
   r->kind = SH_RESULT_VALUE;
}

void
sh_result_take_stats (sh_result_t *r, bson_t *stats, const char *one_line_key)
{
   sh_result_reset (r);
   bson_destroy (&r->doc);
   bson_steal (&r->doc, stats);
   bson_init (stats);
   r->stats_key = one_line_key ? bson_strdup (one_line_key) : NULL;
   r->kind = SH_RESULT_STATS;
}

void
sh_result_set_batch (sh_result_t *r, const bson_t *docs, bool more, bool iteration)
{
   sh_result_set_doc (r, docs);
   r->kind = SH_RESULT_BATCH;
   r->more = more;
   r->iteration = iteration;
}

void
sh_result_set_docs (sh_result_t *r, const bson_t *docs, bool run_command)
{
   sh_result_set_doc (r, docs);
   r->kind = SH_RESULT_DOCS;
   r->run_command = run_command;
}

void
sh_result_set_cursor (sh_result_t *r, struct conn_cursor *c)
{
   sh_result_reset (r);
   r->cursor = c;
   r->kind = SH_RESULT_CURSOR;
}

struct conn_cursor *
sh_result_take_cursor (sh_result_t *r)
{
   struct conn_cursor *c = r->kind == SH_RESULT_CURSOR ? r->cursor : NULL;
   if (c) {
      r->cursor = NULL;
      r->kind = SH_RESULT_NONE;
   }
   return c;
}

bson_string_t *
sh_result_text (sh_result_t *r)
{
   if (r->kind != SH_RESULT_TEXT) {
      sh_result_reset (r);
      r->kind = SH_RESULT_TEXT;
      r->text = bson_string_new (NULL);
   }
   return r->text;
}

void
sh_result_note (sh_result_t *r, bson_string_t *note)
{
   if (r->text)
      bson_string_free (r->text, true);
   r->text = note;
}

void
sh_result_round (sh_ctx_t *ctx, sh_result_t *r)
{
   if (!r->stream)
      return;
   sh_result_present (ctx, r);
   fflush (ctx->out_fp);
   sh_result_reset (r);
}

/* The value of a VALUE result (stored as { v: <value> }), read through it (the value lives in the iterator). */
static const bson_value_t *
result_value_of (const sh_result_t *r, bson_iter_t *it)
{
   return bson_iter_init_find (it, &r->doc, "v") ? bson_iter_value (it) : NULL;
}

/* A document as mongosh prints it (pretty, or one relaxed Extended JSON line under --json). */
static void
present_doc (sh_ctx_t *ctx, const bson_t *doc)
{
   char *s = output_format_doc (doc, &ctx->out);
   fprintf (ctx->out_fp, "%s\n", s);
   bson_free (s);
}

static void
present_value (sh_ctx_t *ctx, const bson_value_t *value)
{
   char *s = output_format_value (value, &ctx->out);
   fprintf (ctx->out_fp, "%s\n", s);
   bson_free (s);
}

static void
present_array (sh_ctx_t *ctx, const bson_t *array)
{
   if (ctx->out.mode == OUTPUT_JSON) {
      /* --json: one document per line, so scripts can read results a line at a time */
      bson_iter_t it;
      bson_iter_init (&it, array);
      while (bson_iter_next (&it))
         present_value (ctx, bson_iter_value (&it));
      return;
   }
   {
      char *s = output_format_array (array, &ctx->out);
      fprintf (ctx->out_fp, "%s\n", s);
      bson_free (s);
   }
}

static void
present_stats (sh_ctx_t *ctx, const bson_t *stats, const char *one_line_key)
{
   output_opts_t o = ctx->out;
   bson_iter_t it;
   bool first = true;

   o.one_line_key = one_line_key;
   if (o.mode == OUTPUT_JSON) {
      char *s = output_format_doc (stats, &o);
      fprintf (ctx->out_fp, "%s\n", s);
      bson_free (s);
      return;
   }
   bson_iter_init (&it, stats);
   while (bson_iter_next (&it)) {
      fprintf (ctx->out_fp, "%s%s\n", first ? "" : "---\n", bson_iter_key (&it));
      /* undefined (a section mongosh leaves undefined) prints as the word, as util.inspect does; the rest is
       * written as it is formatted (a section can be hundreds of megabytes: sh.status on a large cluster) */
      if (BSON_ITER_HOLDS_UNDEFINED (&it))
         fputs ("undefined", ctx->out_fp);
      else
         output_write_value (ctx->out_fp, bson_iter_value (&it), &o);
      fputc ('\n', ctx->out_fp);
      first = false;
   }
}

/* A batch of a cursor: an empty one is an empty line (a cursor's value) or "no cursor" (what "it" found); the
 * documents at full depth. */
static void
present_batch (sh_ctx_t *ctx, const sh_result_t *r)
{
   output_opts_t saved = ctx->out;
   if (bson_empty (&r->doc) && ctx->out.mode != OUTPUT_JSON) {
      fprintf (ctx->out_fp, "%s\n", r->iteration ? "no cursor" : "");
      return;
   }
   ctx->out.depth = -1; /* mongosh prints a cursor's documents at full depth */
   present_array (ctx, &r->doc);
   ctx->out = saved;
   if (r->more && ctx->out.mode != OUTPUT_JSON)
      fprintf (ctx->out_fp, "%s\n", CMD_MORE_HINT);
}

/* A cursor mongosh hands back as a value, every document read (its value: sh_result_value); shown, an
 * AggregationCursor prints as a batch (mongosh's formatCursor: an empty one is an empty line) and a RunCommandCursor,
 * which mongosh's formatter has no case for, as its iteration result { cursorHasMore: false, documents: [...] }. */
static void
present_docs (sh_ctx_t *ctx, const sh_result_t *r)
{
   if (r->run_command && ctx->out.mode != OUTPUT_JSON) {
      bson_t doc = BSON_INITIALIZER;
      BSON_APPEND_BOOL (&doc, "cursorHasMore", false);
      BSON_APPEND_ARRAY (&doc, "documents", &r->doc);
      present_doc (ctx, &doc);
      bson_destroy (&doc);
      return;
   }
   present_batch (ctx, r);
}

static void
result_present_kind (sh_ctx_t *ctx, const sh_result_t *r)
{
   bson_iter_t it;
   switch (r->kind) {
   case SH_RESULT_NONE:
   case SH_RESULT_CURSOR:
      break;
   case SH_RESULT_DOC:
      if (r->text)
         fwrite (r->text->str, 1, r->text->len, ctx->out_fp);
      present_doc (ctx, &r->doc);
      break;
   case SH_RESULT_VALUE:
      if (result_value_of (r, &it))
         present_value (ctx, bson_iter_value (&it));
      break;
   case SH_RESULT_ARRAY:
      present_array (ctx, &r->doc);
      if (r->more && ctx->out.mode != OUTPUT_JSON)
         fprintf (ctx->out_fp, "%s\n", CMD_MORE_HINT);
      break;
   case SH_RESULT_TEXT:
      fwrite (r->text->str, 1, r->text->len, ctx->out_fp);
      break;
   case SH_RESULT_STATS:
      present_stats (ctx, &r->doc, r->stats_key);
      break;
   case SH_RESULT_BATCH:
      present_batch (ctx, r);
      break;
   case SH_RESULT_DOCS:
      present_docs (ctx, r);
      break;
   }
}

void
sh_result_present (sh_ctx_t *ctx, const sh_result_t *r)
{
   if (r->kind != SH_RESULT_TEXT && r->kind != SH_RESULT_CURSOR && r->kind != SH_RESULT_NONE &&
       secret_doc_has_credentials (&r->doc)) {
      /* a user's salts and SCRAM keys (usersInfo with showCredentials) are never shown; its value keeps them */
      sh_result_t shown = *r;
      bson_init (&shown.doc);
      secret_redact_doc (&r->doc, &shown.doc);
      result_present_kind (ctx, &shown);
      bson_destroy (&shown.doc);
      return;
   }
   result_present_kind (ctx, r);
}

static void
value_of_doc (bson_t *holder, const bson_t *doc, bson_type_t type)
{
   bson_value_t v = { .value_type = type };
   v.value.v_doc.data = (uint8_t *) bson_get_data (doc);
   v.value.v_doc.data_len = doc->len;
   BSON_APPEND_VALUE (holder, "v", &v);
}

bool
sh_result_value (sh_ctx_t *ctx, const sh_result_t *r, bson_t *holder)
{
   bson_iter_t it;
   size_t len;
   bson_reinit (holder);
   switch (r->kind) {
   case SH_RESULT_NONE:
   case SH_RESULT_CURSOR:
      return false;
   case SH_RESULT_DOC:
      value_of_doc (holder, &r->doc, BSON_TYPE_DOCUMENT);
      break;
   case SH_RESULT_VALUE:
      if (!result_value_of (r, &it))
         return false;
      BSON_APPEND_VALUE (holder, "v", bson_iter_value (&it));
      break;
   case SH_RESULT_ARRAY:
      value_of_doc (holder, &r->doc, BSON_TYPE_ARRAY);
      break;
   case SH_RESULT_TEXT:
      if (!r->text->len)
         return false;
      len = r->text->len;
      while (len > 0 && r->text->str[len - 1] == '\n')
         len--;
      bson_append_utf8 (holder, "v", 1, r->text->str, (int) len);
      break;
   case SH_RESULT_STATS:
      value_of_doc (holder, &r->doc, BSON_TYPE_DOCUMENT);
      BSON_APPEND_UTF8 (holder, "stats", r->stats_key ? r->stats_key : ""); /* shown back as a StatsResult */
      break;
   case SH_RESULT_DOCS:
      /* the prelude makes a Cursor of them: { v: [...], cursor: "agg" | "cmd" } */
      value_of_doc (holder, &r->doc, BSON_TYPE_ARRAY);
      BSON_APPEND_UTF8 (holder, "cursor", r->run_command ? "cmd" : "agg");
      break;
   case SH_RESULT_BATCH:
      if (bson_empty (&r->doc) && ctx->out.mode != OUTPUT_JSON)
         BSON_APPEND_UTF8 (holder, "v", r->iteration ? "no cursor" : "");
      else
         value_of_doc (holder, &r->doc, BSON_TYPE_ARRAY);
      break;
   }
   return true;
}
