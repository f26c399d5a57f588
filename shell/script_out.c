/* What one statement of a script shows: its output held back and sorted (prints, dry-run requests, results), the
 * status line on stderr, the --json object. See script_out.h and docs/plan.md. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "shell/core/output.h"
#include "shell/dispatch.h"
#include "shell/script_out.h"

#define DRY_PREFIX "[dry-run] "
#define DRY_JSON_PREFIX "{\"dryRun\": true, "

static bool
so_name_is (void *data, const sh_call_t *call, bool writes, sh_error_t *err)
{
   const char *n = call->cmd->name;
   (void) writes;
   (void) err;
   *(bool *) data = !strcmp (n, "print") || !strcmp (n, "printjson");
   return true;
}

void
script_out_stmt_text (const char *source, const sh_stmt_t *stmt, char *buf, size_t len)
{
   size_t b = stmt->end_pos.offset, i = stmt->pos.offset, o = 0;
   bool space = false;
   for (; source && i < b && source[i] && o + 6 < len; i++) {
      if (isspace ((unsigned char) source[i])) {
         space = o > 0;
         continue;
      }
      if (space)
         buf[o++] = ' ';
      space = false;
      buf[o++] = source[i];
   }
   if (source && i < b && source[i]) {
      memcpy (buf + o, "...", 3);
      o += 3;
   }
   buf[o] = '\0';
}

/* Where the output of a statement that shows none of it goes (a -f statement that is not a print, without dry-run
 * lines): dropped as it is written, with nothing allocated per statement. One for the process. */
static ssize_t
so_drop (void *cookie, const char *buf, size_t size)
{
   (void) cookie;
   (void) buf;
   return (ssize_t) size;
}

static FILE *
so_sink (void)
{
   static FILE *sink;
   if (!sink)
      sink = fopencookie (NULL, "w", (cookie_io_functions_t){ .write = so_drop });
   return sink;
}

void
script_out_begin (script_out_t *so, sh_ctx_t *ctx, script_show_t show, bool status, const char *file,
                  const char *source, const sh_stmt_t *stmt)
{
   sh_error_t err;
   bool hold = show != SCRIPT_SHOW_ALL || (ctx->opts && ctx->opts->dry_run);
   memset (so, 0, sizeof *so);
   so->ctx = ctx;
   so->show = show;
   so->status = status;
   so->file = file;
   so->source = source;
   so->stmt = stmt;
   sh_error_clear (&err);
   dispatch_with_call (ctx, stmt, so_name_is, &so->is_print, &err);
   fflush (ctx->out_fp);
   if (hold) {
      bool drop = show == SCRIPT_SHOW_PRINTS && !so->is_print && !(ctx->opts && ctx->opts->dry_run);
      FILE *mem = drop ? so_sink () : open_memstream (&so->buf, &so->len);
      if (mem) {
         so->saved_out = ctx->out_fp;
         ctx->out_fp = mem;
      }
   }
   bson_init (&so->capture);
   if (show == SCRIPT_SHOW_JSON && !so->is_print) {
      so->saved_capture = ctx->capture;
      so->saved_captured = ctx->captured;
      so->capturing = true;
      ctx->capture = &so->capture;
      ctx->captured = false;
   }
}

/* file as a JSON string's contents (quotes, backslashes and control characters escaped). */
static void
so_json_escape (bson_string_t *s, const char *file)
{
   for (const char *p = file; *p; p++) {
      if (*p == '"' || *p == '\\')
         bson_string_append_printf (s, "\\%c", *p);
      else if ((unsigned char) *p < 0x20)
         bson_string_append_printf (s, "\\u%04x", (unsigned char) *p);
      else
         bson_string_append_c (s, *p);
   }
}

/* One request line of conn.c's --dry-run printing, with file:line: "[dry-run] FILE:LINE DB {relaxed}" or, under
 * --json, the object with "file" and "line" (its command stays canonical). */
static void
so_dry_run_line (script_out_t *so, const char *line, size_t n, FILE *out)
{
   int at = so->stmt->pos.line;
   if (n >= strlen (DRY_JSON_PREFIX) && !strncmp (line, DRY_JSON_PREFIX, strlen (DRY_JSON_PREFIX))) {
      bson_string_t *s = bson_string_new (DRY_JSON_PREFIX "\"file\": \"");
      so_json_escape (s, so->file);
      bson_string_append_printf (s, "\", \"line\": %d, ", at);
      fprintf (out, "%s%.*s\n", s->str, (int) (n - strlen (DRY_JSON_PREFIX)), line + strlen (DRY_JSON_PREFIX));
      bson_string_free (s, true);
      return;
   }
   {
      const char *db = line + strlen (DRY_PREFIX), *sp = memchr (db, ' ', n - strlen (DRY_PREFIX));
      char *canonical = sp ? bson_strndup (sp + 1, n - (size_t) (sp + 1 - line)) : NULL;
      bson_t *doc = canonical ? bson_new_from_json ((const uint8_t *) canonical, -1, NULL) : NULL;
      char *relaxed = doc ? bson_as_relaxed_extended_json (doc, NULL) : NULL;
      if (sp)
         fprintf (out, DRY_PREFIX "%s:%d %.*s %s\n", so->file, at, (int) (sp - db), db, relaxed ? relaxed : canonical);
      else
         fprintf (out, "%.*s\n", (int) n, line);
      bson_free (relaxed);
      bson_destroy (doc);
      bson_free (canonical);
   }
}

/* Writes the held-back output: dry-run requests always, the rest as show says; under SCRIPT_SHOW_JSON the rest is
 * collected into text instead. */
static void
so_flush (script_out_t *so, bson_string_t *text)
{
   FILE *out = so->ctx->out_fp;
   const char *p = so->buf, *end = so->buf + so->len;
   while (p && p < end) {
      const char *nl = memchr (p, '\n', (size_t) (end - p));
      size_t n = nl ? (size_t) (nl - p) : (size_t) (end - p);
      if ((n >= strlen (DRY_PREFIX) && !strncmp (p, DRY_PREFIX, strlen (DRY_PREFIX))) ||
          (n >= strlen (DRY_JSON_PREFIX) && !strncmp (p, DRY_JSON_PREFIX, strlen (DRY_JSON_PREFIX))))
         so_dry_run_line (so, p, n, out);
      else if (so->show == SCRIPT_SHOW_JSON)
         bson_string_append_printf (text, "%s%.*s", text->len ? "\n" : "", (int) n, p);
      else if (so->show == SCRIPT_SHOW_ALL || so->is_print)
         fprintf (out, "%.*s%s", (int) n, p, nl ? "\n" : "");
      p = nl ? nl + 1 : end;
   }
}

/* The statement's JSON object on stdout. */
static void
so_json (script_out_t *so, bool ok, const sh_error_t *err, const char *text)
{
   bson_t doc = BSON_INITIALIZER;
   bson_iter_t v;
   char stmt[4096];
   output_opts_t o = output_opts_default (OUTPUT_JSON, false);
   char *json;
   script_out_stmt_text (so->source, so->stmt, stmt, sizeof stmt);
   BSON_APPEND_UTF8 (&doc, "file", so->file);
   BSON_APPEND_INT32 (&doc, "line", so->stmt->pos.line);
   BSON_APPEND_INT32 (&doc, "col", so->stmt->pos.col);
   BSON_APPEND_UTF8 (&doc, "statement", stmt);
   BSON_APPEND_BOOL (&doc, "ok", ok);
   if (!ok && err->code)
      BSON_APPEND_INT32 (&doc, "code", err->code);
   else
      BSON_APPEND_NULL (&doc, "code");
   if (!ok && err->code_name[0])
      BSON_APPEND_UTF8 (&doc, "codeName", err->code_name);
   else
      BSON_APPEND_NULL (&doc, "codeName");
   if (!ok)
      BSON_APPEND_UTF8 (&doc, "errmsg", err->message);
   else
      BSON_APPEND_NULL (&doc, "errmsg");
   if (ok && so->capturing && so->ctx->captured && bson_iter_init_find (&v, &so->capture, "v"))
      BSON_APPEND_VALUE (&doc, "result", bson_iter_value (&v));
   else if (ok && text[0])
      BSON_APPEND_UTF8 (&doc, "result", text);
   else
      BSON_APPEND_NULL (&doc, "result");
   json = output_format_doc (&doc, &o);
   fprintf (so->ctx->out_fp, "%s\n", json);
   bson_free (json);
   bson_destroy (&doc);
}

/* "file:line ok <statement>" or "file:line error <code> <codeName>: <message>" on stderr. */
static void
so_status (script_out_t *so, bool ok, const sh_error_t *err)
{
   FILE *e = so->ctx->err_fp;
   int line = so->stmt->pos.line;
   if (ok) {
      char stmt[512];
      script_out_stmt_text (so->source, so->stmt, stmt, sizeof stmt);
      fprintf (e, "%s:%d ok %s\n", so->file, line, stmt);
   } else if (err->code && err->code_name[0]) {
      fprintf (e, "%s:%d error %d %s: %s\n", so->file, line, err->code, err->code_name, err->message);
   } else if (err->code) {
      fprintf (e, "%s:%d error %d: %s\n", so->file, line, err->code, err->message);
   } else {
      fprintf (e, "%s:%d error: %s\n", so->file, line, err->message);
   }
   /* flushed by the script runner: at once on a terminal, batched otherwise (shell/script.c) */
}

void
script_out_end (script_out_t *so, bool ok, const sh_error_t *err)
{
   sh_ctx_t *ctx = so->ctx;
   bson_string_t *text = bson_string_new (NULL);
   if (so->saved_out) {
      if (ctx->out_fp != so_sink ())
         fclose (ctx->out_fp);
      ctx->out_fp = so->saved_out;
      so_flush (so, text);
   }
   if (so->show == SCRIPT_SHOW_JSON)
      so_json (so, ok, err, text->str);
   fflush (ctx->out_fp);
   if (so->capturing) {
      ctx->capture = so->saved_capture;
      ctx->captured = so->saved_captured;
   }
   if (so->status)
      so_status (so, ok, err);
   bson_string_free (text, true);
   bson_destroy (&so->capture);
   free (so->buf); /* open_memstream's buffer is malloc'ed */
   so->buf = NULL;
}
