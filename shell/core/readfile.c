/* readfile_all (readfile.h): one byte-exact reader for scripts and spec files. */
#include <errno.h>
#include <string.h>

#include <bson/bson.h>

#include "shell/core/readfile.h"

char *
readfile_all (const char *path, size_t max, const char *what, size_t *len, sh_error_t *err)
{
   bool is_stdin = !strcmp (path, "-") || !strcmp (path, "<stdin>");
   FILE *f = is_stdin ? stdin : fopen (path, "rb");
   char chunk[8192];
   char *buf = NULL;
   size_t cap = 0, used = 0, n;

   if (!f) {
      if (what)
         sh_error_set (err, SH_ERR_IO, "cannot read %s %s: %s", what, path, strerror (errno));
      else
         sh_error_set (err, SH_ERR_IO, "cannot read '%s': %s", path, strerror (errno));
      return NULL;
   }
   while ((n = fread (chunk, 1, sizeof chunk, f)) > 0) {
      if (max && used + n > max) {
         sh_error_set (err, SH_ERR_IO, "%s %s is over %zu MiB", what ? what : "the file", path, max / (1024 * 1024));
         bson_free (buf);
         buf = NULL;
         goto done;
      }
      if (used + n + 1 > cap) {
         cap = (used + n + 1) * 2;
         buf = bson_realloc (buf, cap);
      }
      memcpy (buf + used, chunk, n);
      used += n;
   }
   if (ferror (f)) {
      sh_error_set (err, SH_ERR_IO, "cannot read '%s': %s", path, strerror (errno));
      bson_free (buf);
      buf = NULL;
      goto done;
   }
   if (!buf)
      buf = bson_malloc (1);
   buf[used] = '\0';
   *len = used;
done:
   if (!is_stdin)
      fclose (f);
   return buf;
}
