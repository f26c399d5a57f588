/* Errors as values: filling an sh_error_t, and rendering one for people as "file:line:col: error: message" with the
 * source line and a caret under the offending token. */
#include "shell/core/errors.h"
#include "shell/core/ctx.h"
#include "shell/lib/secret.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ERR_BOLD "\033[1m"
#define ERR_RED "\033[1;31m"
#define ERR_GREEN "\033[1;32m"
#define ERR_CYAN "\033[1;36m"
#define ERR_RESET "\033[0m"

void
sh_error_clear (sh_error_t *err)
{
   /* the fields one by one, not a memset of the whole 1.4 KB (twice per statement of a script): the strings are read
    * only up to their NUL, and every setter (error_vset) starts from a zeroed error */
   if (err) {
      err->kind = SH_ERR_NONE;
      err->code = 0;
      err->code_name[0] = '\0';
      err->message[0] = '\0';
      err->hint[0] = '\0';
      err->has_pos = false;
      memset (&err->pos, 0, sizeof err->pos);
   }
}

static void
error_vset (sh_error_t *err, sh_err_kind_t kind, const char *fmt, va_list ap)
{
   memset (err, 0, sizeof *err);
   err->kind = kind;
   vsnprintf (err->message, sizeof err->message, fmt, ap);
}

void
sh_error_set (sh_error_t *err, sh_err_kind_t kind, const char *fmt, ...)
{
   va_list ap;

   if (!err) {
      return;
   }
   va_start (ap, fmt);
   error_vset (err, kind, fmt, ap);
   va_end (ap);
}

void
sh_error_set_at (sh_error_t *err, sh_err_kind_t kind, sh_pos_t pos, const char *fmt, ...)
{
   va_list ap;

   if (!err) {
      return;
   }
   va_start (ap, fmt);
   error_vset (err, kind, fmt, ap);
   va_end (ap);
   err->has_pos = true;
   err->pos = pos;
}

void
sh_error_hint (sh_error_t *err, const char *fmt, ...)
{
   va_list ap;

   if (!err) {
      return;
   }
   va_start (ap, fmt);
   vsnprintf (err->hint, sizeof err->hint, fmt, ap);
   va_end (ap);
}

/* Finds line number `line` (1-based) of source; returns its start and sets *len to its length without the line
 * break. NULL when the source has fewer lines. */
static const char *
error_find_line (const char *source, int line, size_t *len)
{
   const char *p = source;
   int n;

   for (n = 1; n < line; n++) {
      p = strchr (p, '\n');
      if (!p) {
         return NULL;
      }
      p++;
   }
   *len = strcspn (p, "\n");
   if (*len > 0 && p[*len - 1] == '\r') {
      (*len)--;
   }
   return p;
}

/* Writes text safe for a terminal: no control character reaches it (an escape sequence in a zone name or a server's
 * errmsg would drive the terminal). line: the source line under a caret, each control character and byte that is
 * not UTF-8 shown as '?' so the terminal shows exactly one column for each character the lexer counted; otherwise a
 * message (from the cluster, often): newlines and tabs kept, other controls (C0, DEL, C1) shown as \xNN as mongosh
 * shows them in strings, bytes that are not UTF-8 as '?'. */
static void
error_put_safe (FILE *out, const char *text, size_t len, bool line)
{
   size_t i = 0;

   while (i < len) {
      unsigned char c = (unsigned char) text[i];
      size_t n = 1, k;

      if (c == '\t' || (c >= 0x20 && c < 0x7f) || (c == '\n' && !line)) {
         fputc (c, out);
      } else if (c >= 0xc2 && c <= 0xf4) {
         n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
         for (k = 1; k < n; k++) {
            if (i + k >= len || ((unsigned char) text[i + k] & 0xc0) != 0x80) {
               break;
            }
         }
         if (k != n) {
            n = 1;
            fputc ('?', out);
         } else if (c == 0xc2 && (unsigned char) text[i + 1] < 0xa0) {
            /* U+0080..U+009F: C1 controls (0x9b alone is a CSI on some terminals) */
            if (line)
               fputc ('?', out);
            else
               fprintf (out, "\\x%02X", (unsigned char) text[i + 1]);
         } else {
            fwrite (text + i, 1, n, out);
         }
      } else if (!line && (c < 0x20 || c == 0x7f)) {
         fprintf (out, "\\x%02X", c);
      } else {
         fputc ('?', out);
      }
      i += n;
   }
}

/* error_put_safe of a NUL-terminated message. */
static void
error_put_text (FILE *out, const char *text)
{
   error_put_safe (out, text, strlen (text), false);
}

/* Writes the indentation that puts a caret under character number col (1-based) of the line: a tab for each tab
 * before it, a space for every other character. */
static void
error_put_indent (FILE *out, const char *line, size_t len, int col)
{
   size_t i = 0;
   int chars = 0;

   while (chars < col - 1) {
      if (i < len && line[i] == '\t') {
         fputc ('\t', out);
      } else {
         fputc (' ', out);
      }
      if (i < len) {
         /* Skip the continuation bytes of a multi-byte character. */
         i++;
         while (i < len && ((unsigned char) line[i] & 0xc0) == 0x80) {
            i++;
         }
      }
      chars++;
   }
}

void
sh_error_render (FILE *out, const sh_error_t *err, const char *file, const char *source, bool color)
{
   const char *line = NULL;
   size_t line_len = 0;
   char *message;

   if (!out || !err) {
      return;
   }
   if (err->has_pos) {
      fputs (color ? ERR_BOLD : "", out);
      if (file) {
         fprintf (out, "%s:", file);
      }
      fprintf (out, "%d:%d:", err->pos.line, err->pos.col);
      fputs (color ? ERR_RESET " " : " ", out);
   }
   /* a message may quote the statement (an unknown method, a bad argument): its secrets are hidden too */
   message = secret_redact_source_str (err->message);
   /* message, codeName and hint often hold the cluster's text (errmsg, zone and shard names): written safe */
   if (err->kind == SH_ERR_SERVER) {
      fprintf (out, "%sMongoServerError", color ? ERR_RED : "");
      if (err->code_name[0]) {
         fputc ('[', out);
         error_put_text (out, err->code_name);
         fputc (']', out);
      }
      fprintf (out, ":%s ", color ? ERR_RESET : "");
      error_put_text (out, message);
      if (err->code) {
         fprintf (out, " (code %d)", err->code);
      }
      fputc ('\n', out);
   } else {
      fprintf (out, "%serror:%s ", color ? ERR_RED : "", color ? ERR_RESET : "");
      error_put_text (out, message);
      fputc ('\n', out);
   }
   bson_free (message);
   if (err->has_pos && source && err->pos.line > 0) {
      line = error_find_line (source, err->pos.line, &line_len);
   }
   if (line) {
      size_t masked_len;
      char *masked = secret_redact_source (line, line_len, &masked_len);
      fputs ("  ", out);
      if (masked)
         error_put_safe (out, masked, masked_len, true);
      free (masked);
      fputs ("\n  ", out);
      error_put_indent (out, line, line_len, err->pos.col);
      fprintf (out, "%s^%s\n", color ? ERR_GREEN : "", color ? ERR_RESET : "");
   }
   if (err->hint[0]) {
      fprintf (out, "%shint:%s ", color ? ERR_CYAN : "", color ? ERR_RESET : "");
      error_put_text (out, err->hint);
      fputc ('\n', out);
   }
}

void
sh_error_report (const struct sh_ctx *ctx, const sh_error_t *err, const char *name, const char *source)
{
   sh_error_render (ctx->err_fp, err, name, source, ctx->err_color);
   fflush (ctx->err_fp);
}
