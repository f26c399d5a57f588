/* The engine plugin's plain-C helpers: errors, a syntax error's place, the memory limit (js_util.h). Compiled into
 * the plugin beside the prelude. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shell/js/js_util.h"

void
js_err_clear (sh_error_t *err)
{
   memset (err, 0, sizeof *err);
}

void
js_err_set (sh_error_t *err, sh_err_kind_t kind, const char *fmt, ...)
{
   va_list ap;
   js_err_clear (err);
   err->kind = kind;
   va_start (ap, fmt);
   vsnprintf (err->message, sizeof err->message, fmt, ap);
   va_end (ap);
}

void
js_util_clamp_to_text (sh_error_t *err, const char *text, size_t len)
{
   int line = 1, col = 1, end_line = 1, end_col = 1;
   for (size_t i = 0; i < len; i++) {
      unsigned char c = (unsigned char) text[i];
      if (c == '\n') {
         line++;
         col = 1;
         continue;
      }
      if ((c & 0xc0) != 0x80)
         col++;
      if (c != ' ' && c != '\t' && c != '\r') {
         end_line = line;
         end_col = col;
      }
   }
   if (err->has_pos && (err->pos.line > end_line || (err->pos.line == end_line && err->pos.col > end_col))) {
      err->pos.line = end_line;
      err->pos.col = end_col;
   }
}

size_t
js_util_memory_limit_mb (void)
{
   const char *v = getenv ("SHARDSH_JS_MEMORY_MB");
   char *end = NULL;
   unsigned long long mb;
   if (!v || !*v)
      return JS_UTIL_MEMORY_MB;
   mb = strtoull (v, &end, 10);
   if (*end || mb < 64 || mb > 1048576)
      return JS_UTIL_MEMORY_MB;
   return (size_t) mb;
}

size_t
js_util_rss_mb (void)
{
   unsigned long long size = 0, resident = 0;
   long page = sysconf (_SC_PAGESIZE);
   FILE *f = fopen ("/proc/self/statm", "r");
   if (!f)
      return 0;
   if (fscanf (f, "%llu %llu", &size, &resident) != 2)
      resident = 0;
   fclose (f);
   return page > 0 ? (size_t) (resident * (unsigned long long) page / (1024 * 1024)) : 0;
}
