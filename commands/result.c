/* The presenter (commands/result.h): the one place a command's result is shown, as the REPL, scripts and --json show
 * it, or stored as the call's value for the JavaScript engine. */
#include <string.h>

#include "commands/exec.h"
#include "commands/result.h"
#include "shell/core/output.h"

/* The capture mode: the value replaces any earlier one (the last result of a call is its value). */
static bool
capture_value (sh_ctx_t *ctx, const bson_value_t *value)
{
   if (!ctx->capture)
      return false;
   bson_reinit (ctx->capture);
   BSON_APPEND_VALUE (ctx->capture, "v", value);
   ctx->captured = true;
   return true;
}

static bool
capture_doc (sh_ctx_t *ctx, const bson_t *doc, bson_type_t type)
{
   bson_value_t v = { .value_type = type };
   v.value.v_doc.data = (uint8_t *) bson_get_data (doc);
   v.value.v_doc.data_len = doc->len;
   return capture_value (ctx, &v);
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

/* A batch of a cursor: an empty one is an empty line (a cursor's value) or "no cursor" (what "it" found), printed
 * even when the engine asks for values (its text becomes the call's value); the documents at full depth. */
static void
present_batch (sh_ctx_t *ctx, const sh_result_t *r)
{
   output_opts_t saved = ctx->out;
   sh_result_t docs = { .kind = SH_RESULT_ARRAY, .doc = r->doc };
   if (bson_empty (r->doc) && ctx->out.mode != OUTPUT_JSON) {
      fprintf (ctx->out_fp, "%s\n", r->iteration ? "no cursor" : "");
      return;
   }
   ctx->out.depth = -1; /* mongosh prints a cursor's documents at full depth */
   sh_result_present (ctx, &docs);
   ctx->out = saved;
   if (r->more && ctx->out.mode != OUTPUT_JSON)
      fprintf (ctx->out_fp, "%s\n", CMD_MORE_HINT);
}

/* A cursor mongosh hands back as a value, every document read: for the engine its documents with the cursor's kind
 * beside them ({ v: [...], cursor: "agg" | "cmd" }: the prelude makes a Cursor of them); shown, an AggregationCursor
 * prints as a batch (mongosh's formatCursor: an empty one is an empty line) and a RunCommandCursor, which mongosh's
 * formatter has no case for, as its iteration result { cursorHasMore: false, documents: [...] }. */
static void
present_cursor (sh_ctx_t *ctx, const sh_result_t *r)
{
   if (capture_doc (ctx, r->doc, BSON_TYPE_ARRAY)) {
      BSON_APPEND_UTF8 (ctx->capture, "cursor", r->run_command ? "cmd" : "agg");
      return;
   }
   if (ctx->results_unseen)
      return;
   if (r->run_command && ctx->out.mode != OUTPUT_JSON) {
      bson_t doc = BSON_INITIALIZER;
      BSON_APPEND_BOOL (&doc, "cursorHasMore", false);
      BSON_APPEND_ARRAY (&doc, "documents", r->doc);
      present_doc (ctx, &doc);
      bson_destroy (&doc);
      return;
   }
   {
      sh_result_t batch = { .kind = SH_RESULT_BATCH, .doc = r->doc };
      present_batch (ctx, &batch);
   }
}

void
sh_result_present (sh_ctx_t *ctx, const sh_result_t *r)
{
   switch (r->kind) {
   case SH_RESULT_DOC:
      if (!capture_doc (ctx, r->doc, BSON_TYPE_DOCUMENT) && !ctx->results_unseen)
         present_doc (ctx, r->doc);
      break;
   case SH_RESULT_VALUE:
      if (!capture_value (ctx, r->value) && !ctx->results_unseen)
         present_value (ctx, r->value);
      break;
   case SH_RESULT_ARRAY:
      if (!capture_doc (ctx, r->doc, BSON_TYPE_ARRAY) && !ctx->results_unseen)
         present_array (ctx, r->doc);
      break;
   case SH_RESULT_STATS:
      if (capture_doc (ctx, r->doc, BSON_TYPE_DOCUMENT)) {
         /* the engine prints the value back as a StatsResult */
         BSON_APPEND_UTF8 (ctx->capture, "stats", r->stats_key ? r->stats_key : "");
      } else if (!ctx->results_unseen) {
         present_stats (ctx, r->doc, r->stats_key);
      }
      break;
   case SH_RESULT_BATCH:
      present_batch (ctx, r);
      break;
   case SH_RESULT_CURSOR:
      present_cursor (ctx, r);
      break;
   }
}
