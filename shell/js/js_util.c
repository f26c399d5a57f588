/* The engine plugin's plain-C helpers: errors, a syntax error's place, the memory limit, the files load() reads
 * (js_util.h). Compiled into the plugin beside the prelude. */
#include <errno.h>
#include <limits.h>
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

char *
js_util_read_file (const char *path, size_t *len)
{
   FILE *f = fopen (path, "rb");
   char *buf = NULL;
   size_t cap = 0, n = 0, got;
   int saved;
   if (!f)
      return NULL;
   errno = 0;
   do {
      if (n + 4096 + 1 > cap) {
         char *b = realloc (buf, cap = (cap ? cap * 2 : 8192));
         if (!b) {
            free (buf);
            fclose (f);
            errno = ENOMEM;
            return NULL;
         }
         buf = b;
      }
      got = fread (buf + n, 1, cap - n - 1, f);
      n += got;
   } while (got > 0);
   saved = ferror (f) ? (errno ? errno : EIO) : 0; /* a directory: EISDIR, as node's read */
   fclose (f);
   if (saved) {
      free (buf);
      errno = saved;
      return NULL;
   }
   buf[n] = '\0';
   *len = n;
   return buf;
}

char *
js_util_resolve_path (const char *path)
{
   char cwd[PATH_MAX];
   size_t plen = strlen (path), clen, n = 0;
   char *joined, *out, *seg, *save = NULL;
   if (path[0] != '/' && !getcwd (cwd, sizeof cwd))
      snprintf (cwd, sizeof cwd, "/");
   clen = path[0] == '/' ? 0 : strlen (cwd);
   joined = malloc (clen + plen + 2);
   out = malloc (clen + plen + 2);
   if (!joined || !out) {
      free (joined);
      free (out);
      return NULL;
   }
   snprintf (joined, clen + plen + 2, "%s/%s", path[0] == '/' ? "" : cwd, path);
   out[0] = '\0';
   for (seg = strtok_r (joined, "/", &save); seg; seg = strtok_r (NULL, "/", &save)) {
      if (!strcmp (seg, "."))
         continue;
      if (!strcmp (seg, "..")) {
         while (n > 0 && out[n - 1] != '/')
            n--;
         n = n > 0 ? n - 1 : 0;
         out[n] = '\0';
         continue;
      }
      n += (size_t) sprintf (out + n, "/%s", seg);
   }
   if (n == 0)
      strcpy (out, "/");
   free (joined);
   return out;
}
