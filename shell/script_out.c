/* What one statement of a script shows: its result, shown or not or put in its --json object (dry-run requests print
 * as they are made, conn.c), the status line on stderr; and the same report for a JavaScript call.
 * See script_out.h and docs/plan.md. */
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>

#include "shell/core/output.h"
#include "commands/dispatch.h"
#include "shell/lib/ascii.h"
#include "shell/lib/secret.h"
#include "shell/script_out.h"

static bool
so_name_is (void *data, const sh_call_t *call, bool writes, sh_error_t *err)
{
   const char *n = call->cmd->name;
   script_out_t *so = data;
   (void) err;
   so->is_print = !strcmp (n, "print") || !strcmp (n, "printjson");
   so->writes = writes;
   return true;
}

/* True when stmt cannot be print or printjson without resolving it: use, show, help and exit, and the statements
 * rooted at db or sh, whose entries are db.* and sh.* (nearly every statement of a script). */
static bool
so_not_print (const sh_stmt_t *stmt)
{
   const char *root;
   if (stmt->kind != SH_STMT_CHAIN)
      return true;
   if (stmt->nsegs == 0 || stmt->segs[0].is_call)
      return false;
   root = stmt->segs[0].name;
   return (root[0] == 'd' && root[1] == 'b' && !root[2]) || (root[0] == 's' && root[1] == 'h' && !root[2]);
}

void
script_out_stmt_text (const char *source, const sh_stmt_t *stmt, char *buf, size_t len)
{
   size_t b = stmt->end_pos.offset, i = stmt->pos.offset, o = 0;
   bool space = false;
   char *whole = NULL;
   if (!source) {
      buf[0] = '\0';
      return;
   }
   if (b - i + 7 > len && (whole = secret_redact_source (source + i, b - i, &b))) {
      /* it may be cut: its secrets are hidden in the whole text first, so a password cut in two is still seen */
      source = whole;
      i = 0;
   }
   for (; i < b && o + 6 < len; i++) {
      unsigned char c;
      /* eight bytes none of which is white space or NUL (no byte below 0x21: exact for the whole word), with room
       * for all of them: copied at once, as the byte loop would copy them one by one */
      if (!space && b - i >= 8 && o + 14 < len) {
         uint64_t v, below;
         size_t k = 8;
         memcpy (&v, source + i, 8);
         below = ascii_word_below (v, 0x21);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
         /* the lowest bit set is the first such byte (a borrow only runs upward, past it): the bytes before it too */
         if (below)
            k = (size_t) __builtin_ctzll (below) >> 3;
#else
         if (below)
            k = 0;
#endif
         if (k) {
            memcpy (buf + o, source + i, k);
            o += k;
            i += k - 1;
            continue;
         }
      }
      c = (unsigned char) source[i];
      if (c <= ' ' && (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v')) { /* isspace's */
         space = o > 0;
         continue;
      }
      if (c == '\0')
         break;
      if (space)
         buf[o++] = ' ';
      space = false;
      buf[o++] = (char) c;
   }
   /* the text as it is shown: status lines, --json, --dry-run never show a password (shell/lib/secret.h) */
   o = secret_mask_source (buf, o);
   if (i < b && source[i]) {
      memcpy (buf + o, "...", 3);
      o += 3;
   }
   buf[o] = '\0';
   free (whole);
}

/* fflush (f) when f holds bytes not written yet: a flush with nothing to write does nothing, and a -f statement
 * mostly writes nothing to stdout (__fpending costs a few instructions, fflush takes the stream's lock). */
static void
so_flush_pending (FILE *f)
{
   if (__fpending (f) > 0)
      fflush (f);
}

void
script_out_begin (script_out_t *so, sh_ctx_t *ctx, script_show_t show, bool status, const char *file,
                  const char *source, const sh_stmt_t *stmt)
{
   sh_error_t err;
   so->is_print = false;
   so->writes = true; /* a statement that does not resolve fails: its line is an error line */
   so->ctx = ctx;
   so->show = show;
   so->status = status;
   so->file = file;
   so->source = source;
   so->stmt = stmt;
   if (!so_not_print (stmt)) {
      sh_error_clear (&err);
      dispatch_with_call (ctx, stmt, so_name_is, so, &err);
   } else if (status) {
      /* a status line only for a statement that changes the cluster (or fails): reads get none, as in JavaScript
       * (a prepared statement's record knows, nothing is resolved again) */
      sh_error_clear (&err);
      if (!dispatch_stmt_writes (ctx, stmt, &so->writes, &err))
         so->writes = true;
   }
   so_flush_pending (ctx->out_fp);
   so->saved_place_file = ctx->place.file;
   so->saved_place_line = ctx->place.line;
   so->saved_place_col = ctx->place.col;
   ctx->place.file = file;
   ctx->place.line = stmt->pos.line;
   ctx->place.col = stmt->pos.col;
   sh_result_init (&so->result);
   /* a watch's rounds show as they come where results show; under --json the statement's value goes into its object */
   so->result.stream = show == SCRIPT_SHOW_ALL;
   so->result.as_value = show == SCRIPT_SHOW_JSON && !so->is_print;
}

bool
script_out_unseen (const script_out_t *so)
{
   return so->show == SCRIPT_SHOW_PRINTS && !so->is_print;
}

/* A text result's lines into text, as the --json object's result: joined by newlines, without the blank lines
 * before the first and the newline after the last. */
static void
so_text_lines (const bson_string_t *shown, bson_string_t *text)
{
   const char *p = shown->str, *end = p + shown->len;
   while (p < end) {
      const char *nl = memchr (p, '\n', (size_t) (end - p));
      size_t n = nl ? (size_t) (nl - p) : (size_t) (end - p);
      bson_string_append_printf (text, "%s%.*s", text->len ? "\n" : "", (int) n, p);
      p = nl ? nl + 1 : end;
   }
}

/* The statement's JSON object on out: result is its value (NULL: none), text what it printed. */
static void
so_json (FILE *out, const script_place_t *at, const char *stmt, bool ok, const sh_error_t *err,
         const bson_value_t *result, const char *text)
{
   bson_t doc = BSON_INITIALIZER;
   output_opts_t o = output_opts_default (OUTPUT_JSON, false);
   char *json;
   BSON_APPEND_UTF8 (&doc, "file", at->file);
   BSON_APPEND_INT32 (&doc, "line", at->line);
   BSON_APPEND_INT32 (&doc, "col", at->col);
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
   if (!ok) {
      char *msg = secret_redact_source_str (err->message);
      BSON_APPEND_UTF8 (&doc, "errmsg", msg);
      bson_free (msg);
   } else
      BSON_APPEND_NULL (&doc, "errmsg");
   if (ok && result)
      BSON_APPEND_VALUE (&doc, "result", result);
   else if (ok && text && text[0])
      BSON_APPEND_UTF8 (&doc, "result", text);
   else
      BSON_APPEND_NULL (&doc, "result");
   if (secret_doc_has_credentials (&doc)) {
      /* a user's salts and SCRAM keys (usersInfo with showCredentials) are never shown */
      bson_t shown = BSON_INITIALIZER;
      secret_redact_doc (&doc, &shown);
      json = output_format_doc (&shown, &o);
      bson_destroy (&shown);
   } else {
      json = output_format_doc (&doc, &o);
   }
   fprintf (out, "%s\n", json);
   bson_free (json);
   bson_destroy (&doc);
}

/* "file:line ok <statement>" or "file:line error <code> <codeName>: <message>" on e. */
static void
so_status (FILE *e, const script_place_t *at, const char *stmt, bool ok, const sh_error_t *err)
{
   if (ok) {
      /* "%s:%d ok %s\n" without fprintf's format parsing (one line per write of a -f script); a line number
       * is never negative */
      char num[16], line[1024];
      size_t i = sizeof num, f = strlen (at->file), s = strlen (stmt), n;
      unsigned v = at->line > 0 ? (unsigned) at->line : 0u;
      do {
         num[--i] = (char) ('0' + v % 10);
         v /= 10;
      } while (v);
      n = sizeof num - i;
      if (f + n + s + 6 > sizeof line) { /* a long file name: piece by piece */
         fputs_unlocked (at->file, e);
         putc_unlocked (':', e);
         fwrite_unlocked (num + i, 1, n, e);
         fputs_unlocked (" ok ", e);
         fputs_unlocked (stmt, e);
         putc_unlocked ('\n', e);
         return;
      }
      /* the line assembled here and written at once */
      memcpy (line, at->file, f);
      line[f] = ':';
      memcpy (line + f + 1, num + i, n);
      memcpy (line + f + 1 + n, " ok ", 4);
      memcpy (line + f + 5 + n, stmt, s);
      line[f + 5 + n + s] = '\n';
      fwrite_unlocked (line, 1, f + n + s + 6, e);
   } else {
      char *msg = secret_redact_source_str (err->message);
      if (err->code && err->code_name[0])
         fprintf (e, "%s:%d error %d %s: %s\n", at->file, at->line, err->code, err->code_name, msg);
      else if (err->code)
         fprintf (e, "%s:%d error %d: %s\n", at->file, at->line, err->code, msg);
      else
         fprintf (e, "%s:%d error: %s\n", at->file, at->line, msg);
      bson_free (msg);
   }
   /* a statement's line is flushed by the script runner: at once on a terminal, batched otherwise (shell/script.c) */
}

void
script_out_end (script_out_t *so, bool ok, const sh_error_t *err)
{
   sh_ctx_t *ctx = so->ctx;
   bson_string_t *text = so->show == SCRIPT_SHOW_JSON ? bson_string_new (NULL) : NULL; /* the JSON's result */
   script_place_t at = { so->file, so->stmt->pos.line, so->stmt->pos.col };
   bson_t value = BSON_INITIALIZER;
   bool has_value = false;
   char stmt[4096];
   bson_iter_t v;
   if (so->show == SCRIPT_SHOW_JSON) {
      if (so->result.kind == SH_RESULT_TEXT)
         so_text_lines (so->result.text, text);
      else if (so->result.as_value)
         has_value = sh_result_value (ctx, &so->result, &value);
   } else if (!script_out_unseen (so)) {
      sh_result_present (ctx, &so->result);
   }
   ctx->place.file = so->saved_place_file;
   ctx->place.line = so->saved_place_line;
   ctx->place.col = so->saved_place_col;
   /* a status line for a statement that changes the cluster (--quiet: none) and for every failure, a read's too (the
    * script did not catch it): a report that reads 500 collections prints none */
   bool line = so->status && (!ok || (so->writes && !(ctx->opts && ctx->opts->quiet)));
   /* the statement's text only where it is shown: the JSON object, or an ok status line */
   if (so->show == SCRIPT_SHOW_JSON || (line && ok))
      script_out_stmt_text (so->source, so->stmt, stmt, so->show == SCRIPT_SHOW_JSON ? sizeof stmt : 512);
   if (so->show == SCRIPT_SHOW_JSON)
      so_json (ctx->out_fp, &at, stmt, ok, err,
               has_value && bson_iter_init_find (&v, &value, "v") ? bson_iter_value (&v) : NULL, text->str);
   so_flush_pending (ctx->out_fp);
   if (line)
      so_status (ctx->err_fp, &at, stmt, ok, err);
   if (text)
      bson_string_free (text, true);
   bson_destroy (&value);
   sh_result_destroy (&so->result);
}

void
script_out_call (sh_ctx_t *ctx, script_show_t show, const script_place_t *at, const char *stmt, bool ok,
                 const sh_error_t *err, const bson_value_t *result, const char *text)
{
   char *shown = secret_redact_source_str (stmt); /* a JavaScript call's text, its secrets hidden */
   if (show == SCRIPT_SHOW_JSON) {
      so_json (ctx->out_fp, at, shown, ok, err, result, text);
      fflush (ctx->out_fp);
   } else {
      fflush (ctx->out_fp); /* its --dry-run request first */
      so_status (ctx->err_fp, at, shown, ok, err);
      fflush (ctx->err_fp); /* at once: the script's prints may follow on stdout at any call */
   }
   bson_free (shown);
}
