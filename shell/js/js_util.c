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

static bool
js_util_ident_char (char c)
{
   return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
          (unsigned char) c >= 0x80;
}

/* the index just past the string, template literal, comment or regular expression starting at i (i itself when
 * there is none there); prev is the last significant character before i (0 at the start) */
static size_t
js_util_skip_literal (const char *t, size_t len, size_t i, char prev)
{
   char q = t[i];
   if (q == '/' && i + 1 < len && t[i + 1] == '/') {
      while (i < len && t[i] != '\n')
         i++;
      return i;
   }
   if (q == '/' && i + 1 < len && t[i + 1] == '*') {
      for (i += 2; i + 1 < len && !(t[i] == '*' && t[i + 1] == '/'); i++)
         ;
      return i + 2 < len ? i + 2 : len;
   }
   if (q == '/' && !(prev && (js_util_ident_char (prev) || prev == ')' || prev == ']'))) {
      bool cls = false;
      for (i++; i < len && t[i] != '\n' && (cls || t[i] != '/'); i++) {
         if (t[i] == '\\')
            i++;
         else if (t[i] == '[' || t[i] == ']')
            cls = t[i] == '[';
      }
      return i < len ? i + 1 : len;
   }
   if (q == '"' || q == '\'' || q == '`') {
      for (i++; i < len && t[i] != q; i++)
         if (t[i] == '\\')
            i++;
      return i < len ? i + 1 : len;
   }
   return i;
}

bool
js_util_last_declaration (const char *t, size_t len, char *name, size_t cap)
{
   int depth = 0;
   bool pending = false, found = false, in_body = false;
   char prev = 0;
   size_t i = 0;

   name[0] = '\0';
   while (i < len) {
      size_t next = js_util_skip_literal (t, len, i, prev);
      char c = t[i];
      if (next != i) {
         if (c != '/' || (i + 1 < len && t[i + 1] != '/' && t[i + 1] != '*')) {
            prev = c == '/' ? '/' : 'x';
            found = false;
         }
         i = next;
         continue;
      }
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || (c == ';' && depth == 0)) {
         if (c == ';')
            prev = ';';
         i++;
         continue;
      }
      if (js_util_ident_char (c)) {
         size_t s = i;
         while (i < len && js_util_ident_char (t[i]))
            i++;
         if (depth == 0 && !pending && (!prev || prev == ';' || prev == '}' || prev == 'a') &&
             ((i - s == 8 && !memcmp (t + s, "function", 8)) || (i - s == 5 && !memcmp (t + s, "class", 5)))) {
            /* the name: after the keyword and a generator's star */
            while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '*'))
               i++;
            s = i;
            while (i < len && js_util_ident_char (t[i]))
               i++;
            if (i > s && i - s < cap) {
               memcpy (name, t + s, i - s);
               name[i - s] = '\0';
               pending = true;
               in_body = false;
            }
            found = false;
            prev = 'x';
            continue;
         }
         /* async before function keeps the statement start ('a') */
         prev = depth == 0 && (!prev || prev == ';' || prev == '}') && i - s == 5 && !memcmp (t + s, "async", 5) ? 'a'
                                                                                                                 : 'x';
         if (!pending)
            found = false;
         continue;
      }
      if (c == '{' || c == '(' || c == '[') {
         if (c == '{' && depth == 0 && pending)
            in_body = true;
         depth++;
      } else if (c == '}' || c == ')' || c == ']') {
         depth--;
         if (depth == 0 && c == '}' && pending && in_body) {
            pending = false;
            found = true;
            prev = '}';
            i++;
            continue;
         }
      }
      if (!pending)
         found = false;
      prev = c;
      i++;
   }
   if (!found)
      name[0] = '\0';
   return found;
}
