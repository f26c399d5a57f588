/* js_sys_op (js_sys.h): the plain-C side of the prelude's Node.js modules (fs, os, process) and of the BSON
 * constructors' libbson values. Files are read with the plugin's one byte-exact reader (js_util_read_file). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <bson/bson.h>

#include "shell/js/js_sys.h"
#include "shell/js/js_util.h"

extern char **environ;

/* node's codes and libuv's messages (uv_strerror) for what file operations meet */
static const struct {
   int num;
   const char *name, *message;
} errnos[] = {
   { EPERM, "EPERM", "operation not permitted" },
   { ENOENT, "ENOENT", "no such file or directory" },
   { EIO, "EIO", "i/o error" },
   { EBADF, "EBADF", "bad file descriptor" },
   { ENOMEM, "ENOMEM", "not enough memory" },
   { EACCES, "EACCES", "permission denied" },
   { EBUSY, "EBUSY", "resource busy or locked" },
   { EEXIST, "EEXIST", "file already exists" },
   { ENOTDIR, "ENOTDIR", "not a directory" },
   { EISDIR, "EISDIR", "illegal operation on a directory" },
   { EINVAL, "EINVAL", "invalid argument" },
   { EMFILE, "EMFILE", "too many open files" },
   { EFBIG, "EFBIG", "file too large" },
   { ENOSPC, "ENOSPC", "no space left on device" },
   { EROFS, "EROFS", "read-only file system" },
   { ENAMETOOLONG, "ENAMETOOLONG", "name too long" },
   { ENOTEMPTY, "ENOTEMPTY", "directory not empty" },
   { ELOOP, "ELOOP", "too many symbolic links encountered" },
};

/* a malloc'd copy of n bytes, NUL-terminated */
static char *
dup_bytes (const char *s, size_t n, size_t *len)
{
   char *out = malloc (n + 1);
   if (!out)
      return NULL;
   memcpy (out, s, n);
   out[n] = '\0';
   *len = n;
   return out;
}

static char *
dup_str (const char *s, size_t *len)
{
   return dup_bytes (s, strlen (s), len);
}

static int
name_order (const struct dirent **x, const struct dirent **y)
{
   return strcmp ((*x)->d_name, (*y)->d_name);
}

static int
not_dots (const struct dirent *d)
{
   return strcmp (d->d_name, ".") && strcmp (d->d_name, "..");
}

/* the names in directory path, each followed by a NUL byte, in strcmp order (libuv's scandir sorts so) */
static char *
read_dir (const char *path, size_t *len)
{
   struct dirent **list = NULL;
   size_t total = 0, at = 0;
   char *out;
   int n = scandir (path, &list, not_dots, name_order);
   if (n < 0)
      return NULL;
   for (int i = 0; i < n; i++)
      total += strlen (list[i]->d_name) + 1;
   out = malloc (total + 1);
   for (int i = 0; i < n; i++) {
      size_t k = strlen (list[i]->d_name) + 1;
      if (out)
         memcpy (out + at, list[i]->d_name, k);
      at += k;
      free (list[i]);
   }
   free (list);
   if (!out) {
      errno = ENOMEM;
      return NULL;
   }
   out[total] = '\0';
   *len = total;
   return out;
}

/* b written to path, replacing it (mode "wb") or at its end ("ab") */
static char *
write_file (const char *path, const char *mode, const char *b, size_t blen, size_t *len)
{
   FILE *f = fopen (path, mode);
   int saved = 0;
   if (!f)
      return NULL;
   if (fwrite (b, 1, blen, f) != blen)
      saved = errno ? errno : EIO;
   if (fclose (f) != 0 && !saved)
      saved = errno ? errno : EIO;
   if (saved) {
      errno = saved;
      return NULL;
   }
   return dup_str ("", len);
}

/* the bytes of a file of /proc (its size is not known before it is read) */
static char *
read_proc (const char *path, size_t *len)
{
   return js_util_read_file (path, len);
}

static char *
home_dir (size_t *len)
{
   const char *h = getenv ("HOME");
   struct passwd pw, *res = NULL;
   char buf[4096];
   if (h && *h)
      return dup_str (h, len);
   if (getpwuid_r (getuid (), &pw, buf, sizeof buf, &res) != 0 || !res) {
      errno = ENOENT;
      return NULL;
   }
   return dup_str (pw.pw_dir, len);
}

/* the environment, NAME=value NUL ... */
static char *
environment (size_t *len)
{
   size_t total = 0, at = 0;
   char *out;
   for (char **e = environ; e && *e; e++)
      total += strlen (*e) + 1;
   if (!(out = malloc (total + 1))) {
      errno = ENOMEM;
      return NULL;
   }
   for (char **e = environ; e && *e; e++) {
      size_t k = strlen (*e) + 1;
      memcpy (out + at, *e, k);
      at += k;
   }
   out[total] = '\0';
   *len = total;
   return out;
}

/* node's Stats fields of path (lstat: of a link itself), as numbers separated by spaces: dev mode nlink uid gid rdev
 * blksize ino size blocks, then atime mtime ctime birthtime as seconds and nanoseconds (birthtime from statx; 0 0
 * where the file system does not keep it) */
static char *
stat_text (const char *path, bool link, size_t *len)
{
   struct statx sx;
   char buf[512];
   int flags = AT_STATX_SYNC_AS_STAT | (link ? AT_SYMLINK_NOFOLLOW : 0);
   if (statx (AT_FDCWD, path, flags, STATX_BASIC_STATS | STATX_BTIME, &sx) != 0)
      return NULL;
   if (!(sx.stx_mask & STATX_BTIME))
      sx.stx_btime.tv_sec = 0, sx.stx_btime.tv_nsec = 0;
   snprintf (buf, sizeof buf, "%llu %u %u %u %u %llu %u %llu %llu %llu %lld %u %lld %u %lld %u %lld %u",
             (unsigned long long) makedev (sx.stx_dev_major, sx.stx_dev_minor), (unsigned) sx.stx_mode,
             (unsigned) sx.stx_nlink, (unsigned) sx.stx_uid, (unsigned) sx.stx_gid,
             (unsigned long long) makedev (sx.stx_rdev_major, sx.stx_rdev_minor), (unsigned) sx.stx_blksize,
             (unsigned long long) sx.stx_ino, (unsigned long long) sx.stx_size, (unsigned long long) sx.stx_blocks,
             (long long) sx.stx_atime.tv_sec, (unsigned) sx.stx_atime.tv_nsec, (long long) sx.stx_mtime.tv_sec,
             (unsigned) sx.stx_mtime.tv_nsec, (long long) sx.stx_ctime.tv_sec, (unsigned) sx.stx_ctime.tv_nsec,
             (long long) sx.stx_btime.tv_sec, (unsigned) sx.stx_btime.tv_nsec);
   return dup_str (buf, len);
}

static char *
errno_text (const char *a, size_t *len)
{
   char buf[256];
   int num = atoi (a);
   for (size_t i = 0; i < sizeof errnos / sizeof errnos[0]; i++) {
      if (errnos[i].num == num) {
         snprintf (buf, sizeof buf, "%s %s", errnos[i].name, errnos[i].message);
         return dup_str (buf, len);
      }
   }
   snprintf (buf, sizeof buf, "UNKNOWN %s", strerror (num));
   return dup_str (buf, len);
}

char *
js_sys_op (const char *op, const char *a, size_t alen, const char *b, size_t blen, size_t *len, int *errnum)
{
   char buf[PATH_MAX + 64];
   char *out = NULL;
   *len = 0;
   errno = 0;
   if (!strcmp (op, "read")) {
      out = js_util_read_file (a, len);
   } else if (!strcmp (op, "write") || !strcmp (op, "append")) {
      out = write_file (a, op[0] == 'w' ? "wb" : "ab", b, blen, len);
   } else if (!strcmp (op, "exists")) {
      struct stat st;
      out = dup_str (stat (a, &st) != 0 ? "" : S_ISDIR (st.st_mode) ? "d" : "1", len);
   } else if (!strcmp (op, "readdir")) {
      out = read_dir (a, len);
   } else if (!strcmp (op, "stat") || !strcmp (op, "lstat")) {
      out = stat_text (a, op[0] == 'l', len);
   } else if (!strcmp (op, "unlink")) {
      out = unlink (a) == 0 ? dup_str ("", len) : NULL;
   } else if (!strcmp (op, "rmdir")) {
      out = rmdir (a) == 0 ? dup_str ("", len) : NULL;
   } else if (!strcmp (op, "rename")) {
      out = rename (a, b) == 0 ? dup_str ("", len) : NULL;
   } else if (!strcmp (op, "pid")) {
      snprintf (buf, sizeof buf, "%ld %ld", (long) getpid (), (long) getppid ());
      out = dup_str (buf, len);
   } else if (!strcmp (op, "mkdir")) {
      out = mkdir (a, 0777) == 0 ? dup_str ("", len) : NULL;
   } else if (!strcmp (op, "cwd")) {
      out = getcwd (buf, sizeof buf) ? dup_str (buf, len) : NULL;
   } else if (!strcmp (op, "env")) {
      out = environment (len);
   } else if (!strcmp (op, "argv")) {
      out = read_proc ("/proc/self/cmdline", len);
   } else if (!strcmp (op, "exe")) {
      ssize_t n = readlink ("/proc/self/exe", buf, sizeof buf - 1);
      out = n >= 0 ? dup_bytes (buf, (size_t) n, len) : NULL;
   } else if (!strcmp (op, "hostname")) {
      buf[sizeof buf - 1] = '\0';
      out = gethostname (buf, sizeof buf - 1) == 0 ? dup_str (buf, len) : NULL;
   } else if (!strcmp (op, "homedir")) {
      out = home_dir (len);
   } else if (!strcmp (op, "hrtime")) {
      struct timespec ts;
      clock_gettime (CLOCK_MONOTONIC, &ts);
      snprintf (buf, sizeof buf, "%lld %ld", (long long) ts.tv_sec, (long) ts.tv_nsec);
      out = dup_str (buf, len);
   } else if (!strcmp (op, "out") || !strcmp (op, "err")) {
      FILE *fp = op[0] == 'o' ? stdout : stderr;
      out = fwrite (a, 1, alen, fp) == alen ? dup_str ("", len) : NULL;
   } else if (!strcmp (op, "oid")) {
      bson_oid_t oid;
      bson_oid_init (&oid, NULL);
      bson_oid_to_string (&oid, buf);
      out = dup_str (buf, len);
   } else if (!strcmp (op, "decimal")) {
      bson_decimal128_t dec;
      out = dup_str (alen <= INT_MAX && bson_decimal128_from_string_w_len (a, (int) alen, &dec) ? "1" : "", len);
   } else if (!strcmp (op, "errno")) {
      out = errno_text (a, len);
   } else {
      errno = EINVAL;
   }
   if (!out)
      *errnum = errno ? errno : EIO;
   return out;
}
