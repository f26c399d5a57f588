/* Snapshot ownership helpers (clear, deep copy) and the number formatting every view shares. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/model/snapshot.h"

/* Out of memory is the one failure the dashboard does not survive. */
static void *
snap_dup (const void *src, size_t size)
{
   void *p;
   if (!src || !size)
      return NULL;
   p = malloc (size);
   if (!p)
      abort ();
   memcpy (p, src, size);
   return p;
}

void
snapshot_destroy (snapshot_t *snap)
{
   for (size_t i = 0; i < snap->ncolls; i++)
      free (snap->colls[i].cells);
   free (snap->colls);
   free (snap->shards);
   memset (snap, 0, sizeof *snap);
}

void
snapshot_copy (snapshot_t *dst, const snapshot_t *src)
{
   *dst = *src;
   dst->shards = snap_dup (src->shards, src->nshards * sizeof *src->shards);
   dst->colls = snap_dup (src->colls, src->ncolls * sizeof *src->colls);
   for (size_t i = 0; i < src->ncolls; i++)
      dst->colls[i].cells = snap_dup (src->colls[i].cells, src->nshards * sizeof *src->colls[i].cells);
}

int
snapshot_shard_index (const snapshot_t *snap, const char *name)
{
   for (size_t i = 0; i < snap->nshards; i++)
      if (!strcmp (snap->shards[i].name, name))
         return (int) i;
   return -1;
}

void
snap_chunks_destroy (snap_chunks_t *chunks)
{
   free (chunks->chunks);
   free (chunks->zones);
   memset (chunks, 0, sizeof *chunks);
}

char *
snap_fmt_bytes (int64_t bytes, char *buf, size_t len)
{
   static const char *units[] = { "B", "KB", "MB", "GB", "TB", "PB" };
   double v = (double) bytes;
   int u = 0;
   while (v >= 1024.0 && u < 5) {
      v /= 1024.0;
      u++;
   }
   if (u == 0)
      snprintf (buf, len, "%lld B", (long long) bytes);
   else
      snprintf (buf, len, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
   return buf;
}

char *
snap_fmt_rate_bytes (double bytes_ps, char *buf, size_t len)
{
   char b[32];
   if (bytes_ps < 0)
      snprintf (buf, len, "-");
   else /* a rate beyond an exabyte per second is not one to show exactly (and the cast stays in range) */
      snprintf (buf, len, "%s/s",
                snap_fmt_bytes (bytes_ps < 1e18 ? (int64_t) (bytes_ps + 0.5) : INT64_MAX, b, sizeof b));
   return buf;
}

char *
snap_fmt_duration (int64_t secs, char *buf, size_t len)
{
   if (secs < 0)
      snprintf (buf, len, "?");
   else if (secs < 60)
      snprintf (buf, len, "%llds", (long long) secs);
   else if (secs < 3600)
      snprintf (buf, len, "%lldm%02llds", (long long) (secs / 60), (long long) (secs % 60));
   else if (secs < 86400)
      snprintf (buf, len, "%lldh%02lldm", (long long) (secs / 3600), (long long) (secs % 3600 / 60));
   else
      snprintf (buf, len, "%lldd%02lldh", (long long) (secs / 86400), (long long) (secs % 86400 / 3600));
   return buf;
}

/* Appends n bytes of s to buf (len, *pos), truncating; buf stays terminated. */
static void
put_n (char *buf, size_t len, size_t *pos, const char *s, size_t n)
{
   if (!len || *pos >= len - 1)
      return;
   if (n > len - 1 - *pos)
      n = len - 1 - *pos;
   memcpy (buf + *pos, s, n);
   *pos += n;
   buf[*pos] = '\0';
}

/* Whether ref holds an ISODate of day (10 characters, "YYYY-MM-DD"). */
static bool
has_day (const char *ref, const char *day)
{
   const char *p = ref;
   while (p && (p = strstr (p, "ISODate(")) != NULL) {
      p += 8;
      if ((*p == '\'' || *p == '"') && strlen (p + 1) >= 10 && !strncmp (p + 1, day, 10))
         return true;
   }
   return false;
}

char *
snap_short_dates (const char *s, const char *ref, char *buf, size_t len)
{
   size_t pos = 0;
   if (!len)
      return buf;
   buf[0] = '\0';
   while (*s) {
      const char *d = strstr (s, "ISODate(");
      const char *v, *end;
      char q;
      size_t vl;
      if (!d) {
         put_n (buf, len, &pos, s, strlen (s));
         break;
      }
      put_n (buf, len, &pos, s, (size_t) (d - s));
      q = d[8];
      v = d + 9;
      end = (q == '\'' || q == '"') ? strchr (v, q) : NULL;
      vl = end ? (size_t) (end - v) : 0;
      /* YYYY-MM-DDTHH:MM:SS[.mmm]Z only; anything else is copied as it is */
      if (!end || end[1] != ')' || vl < 20 || v[10] != 'T' || v[vl - 1] != 'Z') {
         put_n (buf, len, &pos, d, 8);
         s = d + 8;
         continue;
      }
      if (!ref || !has_day (ref, v)) {
         put_n (buf, len, &pos, v, 10);
         put_n (buf, len, &pos, " ", 1);
      }
      vl -= 11 + 1; /* the time, without the 'Z' */
      if (vl >= 12 && !strncmp (v + 11 + 8, ".000", 4))
         vl = 8;
      put_n (buf, len, &pos, v + 11, vl);
      s = end + 2;
   }
   return buf;
}

char *
snap_fmt_range (const char *min, const char *max, const char *arrow, char *buf, size_t len)
{
   char a[SNAP_TEXT], b[SNAP_TEXT];
   snprintf (buf, len, "%s %s %s", snap_short_dates (min, NULL, a, sizeof a), arrow,
             snap_short_dates (max, min, b, sizeof b));
   return buf;
}

char *
snap_fmt_count (double n, char *buf, size_t len)
{
   if (n < 0)
      snprintf (buf, len, "-");
   else if (n < 10)
      snprintf (buf, len, n == (double) (long long) n ? "%.0f" : "%.1f", n);
   else if (n < 10000)
      snprintf (buf, len, "%.0f", n);
   else if (n < 1e6)
      snprintf (buf, len, "%.1fk", n / 1e3);
   else if (n < 1e9)
      snprintf (buf, len, "%.1fM", n / 1e6);
   else
      snprintf (buf, len, "%.1fG", n / 1e9);
   return buf;
}

char *
snap_fmt_op (const snap_op_t *o, char *buf, size_t len)
{
   char pct[16] = "", rate[40] = "", eta[40] = "", left[32];
   if (o->percent >= 0)
      snprintf (pct, sizeof pct, " %.0f%%", o->percent);
   if (o->bytes_ps >= 0) {
      rate[0] = ' ';
      snap_fmt_rate_bytes (o->bytes_ps, rate + 1, sizeof rate - 1);
   }
   if (o->eta_s >= 0)
      snprintf (eta, sizeof eta, " %s left", snap_fmt_duration (o->eta_s, left, sizeof left));
   snprintf (buf, len, "%s %s%s%s%s%s%s%s%s%s", o->type, o->ns[0] ? o->ns : o->shard,
             o->ns[0] && o->shard[0] ? " on " : "", o->ns[0] ? o->shard : "", o->phase[0] ? " " : "", o->phase, pct,
             rate, eta, "");
   if (o->caveat[0]) {
      size_t n = strlen (buf);
      snprintf (buf + n, len - n, " (%s)", o->caveat);
   }
   return buf;
}
