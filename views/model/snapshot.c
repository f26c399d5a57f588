/* Snapshot ownership helpers (clear, copy; the shared, reference-counted cell and act arrays of a collection) and the
 * number formatting every view shares. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bson/bson.h>

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

/* ---- reference-counted cell and act arrays ---- */

static void *
vec_at (snap_vec_t *v, size_t i)
{
   return (char *) (v + 1) + i * v->elem;
}

static const void *
vec_cat (const snap_vec_t *v, size_t i)
{
   return (const char *) (v + 1) + i * v->elem;
}

static snap_vec_t *
vec_new (size_t elem, size_t cap)
{
   snap_vec_t *v;
   if (cap < 4)
      cap = 4;
   v = malloc (sizeof *v + cap * elem);
   if (!v)
      abort ();
   v->refs = 1;
   v->n = 0;
   v->cap = cap;
   v->elem = elem;
   v->sorted = true;
   return v;
}

static void
vec_unref (snap_vec_t **v)
{
   if (*v && --(*v)->refs == 0)
      free (*v);
   *v = NULL;
}

/* *v as its own, with room for extra more elements. */
static snap_vec_t *
vec_own (snap_vec_t **v, size_t elem, size_t extra)
{
   snap_vec_t *o = *v;
   if (!o) {
      *v = vec_new (elem, extra);
      return *v;
   }
   if (o->refs > 1 || o->n + extra > o->cap) {
      /* a quarter more each time: a collection's cells are built by appending, and snap_coll_tidy trims */
      size_t cap = o->n + extra > o->cap ? o->n + extra + (o->n + extra) / 4 + 4 : o->cap;
      snap_vec_t *w = vec_new (elem, cap);
      memcpy (w + 1, o + 1, o->n * elem);
      w->n = o->n;
      w->sorted = o->sorted;
      if (o->refs > 1)
         o->refs--;
      else
         free (o);
      *v = w;
   }
   return *v;
}

/* Gives back the room *v (its own) does not use. */
static void
vec_trim (snap_vec_t **v)
{
   snap_vec_t *w;
   if ((*v)->cap == (*v)->n)
      return;
   w = realloc (*v, sizeof **v + (*v)->n * (*v)->elem);
   if (!w)
      abort ();
   w->cap = w->n;
   *v = w;
}

/* Bisection over a sorted array whose elements start with an int32_t shard index. */
static const void *
vec_find (const snap_vec_t *v, int sh)
{
   size_t lo = 0, hi = v ? v->n : 0;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      int32_t k = *(const int32_t *) vec_cat (v, mid);
      if (k == sh)
         return vec_cat (v, mid);
      if (k < sh)
         lo = mid + 1;
      else
         hi = mid;
   }
   return NULL;
}

static int
cmp_shard (const void *a, const void *b)
{
   int32_t x = *(const int32_t *) a, y = *(const int32_t *) b;
   return (x > y) - (x < y);
}

const snap_cell_t *
snap_coll_cells (const snap_coll_t *co, size_t *n)
{
   *n = co->cells ? co->cells->n : 0;
   return *n ? vec_cat (co->cells, 0) : NULL;
}

const snap_act_t *
snap_coll_acts (const snap_coll_t *co, size_t *n)
{
   *n = co->acts ? co->acts->n : 0;
   return *n ? vec_cat (co->acts, 0) : NULL;
}

const snap_cell_t *
snap_coll_cell (const snap_coll_t *co, int sh)
{
   return vec_find (co->cells, sh);
}

const snap_act_t *
snap_coll_act (const snap_coll_t *co, int sh)
{
   return vec_find (co->acts, sh);
}

int64_t
snap_coll_chunks_on (const snap_coll_t *co, int sh)
{
   const snap_cell_t *c = snap_coll_cell (co, sh);
   return c ? c->chunks : 0;
}

bool
snap_coll_hot_on (const snap_coll_t *co, int sh)
{
   const snap_act_t *a = snap_coll_act (co, sh);
   return a && a->hot;
}

snap_cell_t *
snap_coll_cell_add (snap_coll_t *co, int sh)
{
   snap_vec_t *v = vec_own (&co->cells, sizeof (snap_cell_t), 1);
   snap_cell_t *c = vec_at (v, v->n);
   memset (c, 0, sizeof *c);
   c->shard = sh;
   if (v->n && ((snap_cell_t *) vec_at (v, v->n - 1))->shard >= sh)
      v->sorted = false;
   v->n++;
   return c;
}

snap_act_t *
snap_coll_act_add (snap_coll_t *co, int sh)
{
   snap_vec_t *v = vec_own (&co->acts, sizeof (snap_act_t), 1);
   snap_act_t *a = vec_at (v, v->n);
   memset (a, 0, sizeof *a);
   a->shard = sh;
   if (v->n && ((snap_act_t *) vec_at (v, v->n - 1))->shard >= sh)
      v->sorted = false;
   v->n++;
   return a;
}

snap_cell_t *
snap_coll_cells_mut (snap_coll_t *co, size_t *n)
{
   *n = co->cells ? co->cells->n : 0;
   return *n ? vec_at (vec_own (&co->cells, sizeof (snap_cell_t), 0), 0) : NULL;
}

snap_act_t *
snap_coll_acts_mut (snap_coll_t *co, size_t *n)
{
   *n = co->acts ? co->acts->n : 0;
   return *n ? vec_at (vec_own (&co->acts, sizeof (snap_act_t), 0), 0) : NULL;
}

static bool
cell_empty (const snap_cell_t *c)
{
   return !c->chunks && !c->data_bytes && !c->docs;
}

static bool
act_empty (const snap_act_t *a)
{
   return !a->jumbo && !a->writes_ops && !a->reads_ops && a->writes_ps == 0 && a->reads_ps == 0 && !a->hot;
}

/* Whether v (elements of elem bytes) is sorted and holds no empty entry already: then tidying would change nothing,
 * and a shared array is left shared. */
static bool
tidy_already (const snap_vec_t *v, bool (*empty) (const void *))
{
   if (!v)
      return true;
   if (!v->sorted)
      return false;
   for (size_t i = 0; i < v->n; i++)
      if (empty (vec_cat (v, i)))
         return false;
   return true;
}

static bool
cell_empty_v (const void *p)
{
   return cell_empty (p);
}

static bool
act_empty_v (const void *p)
{
   return act_empty (p);
}

static void
tidy_cells (snap_coll_t *co)
{
   size_t n, k = 0;
   snap_cell_t *c;
   if (tidy_already (co->cells, cell_empty_v))
      return;
   c = snap_coll_cells_mut (co, &n);
   if (!co->cells->sorted)
      qsort (c, n, sizeof *c, cmp_shard);
   for (size_t i = 0; i < n; i++) {
      if (k && c[k - 1].shard == c[i].shard) {
         c[k - 1].chunks += c[i].chunks;
         c[k - 1].data_bytes += c[i].data_bytes;
         c[k - 1].docs += c[i].docs;
      } else {
         c[k++] = c[i];
      }
   }
   n = k;
   k = 0;
   for (size_t i = 0; i < n; i++)
      if (!cell_empty (&c[i]))
         c[k++] = c[i];
   co->cells->n = k;
   co->cells->sorted = true;
   if (!k)
      vec_unref (&co->cells);
   else
      vec_trim (&co->cells);
}

static void
tidy_acts (snap_coll_t *co)
{
   size_t n, k = 0;
   snap_act_t *a;
   if (tidy_already (co->acts, act_empty_v))
      return;
   a = snap_coll_acts_mut (co, &n);
   if (!co->acts->sorted)
      qsort (a, n, sizeof *a, cmp_shard);
   for (size_t i = 0; i < n; i++) {
      if (k && a[k - 1].shard == a[i].shard) {
         a[k - 1].jumbo += a[i].jumbo;
         a[k - 1].writes_ops += a[i].writes_ops;
         a[k - 1].reads_ops += a[i].reads_ops;
         a[k - 1].writes_ps += a[i].writes_ps;
         a[k - 1].reads_ps += a[i].reads_ps;
         a[k - 1].hot = a[k - 1].hot || a[i].hot;
      } else {
         a[k++] = a[i];
      }
   }
   n = k;
   k = 0;
   for (size_t i = 0; i < n; i++)
      if (!act_empty (&a[i]))
         a[k++] = a[i];
   co->acts->n = k;
   co->acts->sorted = true;
   if (!k)
      vec_unref (&co->acts);
   else
      vec_trim (&co->acts);
}

void
snap_coll_tidy (snap_coll_t *co)
{
   tidy_cells (co);
   tidy_acts (co);
}

void
snap_coll_drop_cells (snap_coll_t *co)
{
   vec_unref (&co->cells);
}

void
snap_coll_drop_acts (snap_coll_t *co)
{
   vec_unref (&co->acts);
}

void
snap_coll_share_cells (snap_coll_t *dst, const snap_coll_t *src)
{
   snap_vec_t *v = src->cells;
   if (v)
      v->refs++;
   vec_unref (&dst->cells);
   dst->cells = v;
}

void
snap_coll_share_acts (snap_coll_t *dst, const snap_coll_t *src)
{
   snap_vec_t *v = src->acts;
   if (v)
      v->refs++;
   vec_unref (&dst->acts);
   dst->acts = v;
}

/* ---- snapshots ---- */

static void
ends_unref (snap_ends_t **e)
{
   if (*e && --(*e)->refs == 0)
      free (*e);
   *e = NULL;
}

const char *
snap_coll_end (const snap_coll_t *co, snap_end_text_t which)
{
   return co->ends && which < SNAP_END_TEXTS ? co->ends->text[which] : "";
}

void
snap_coll_set_ends (snap_coll_t *co, const char *const text[SNAP_END_TEXTS])
{
   size_t len[SNAP_END_TEXTS], total = sizeof (snap_ends_t);
   snap_ends_t *e;
   char *p;
   for (int k = 0; k < SNAP_END_TEXTS; k++) {
      len[k] = text[k] ? strlen (text[k]) : 0;
      total += len[k] + 1;
   }
   e = malloc (total);
   if (!e)
      abort ();
   e->refs = 1;
   p = (char *) (e + 1);
   for (int k = 0; k < SNAP_END_TEXTS; k++) {
      memcpy (p, len[k] ? text[k] : "", len[k] + 1);
      e->text[k] = p;
      p += len[k] + 1;
   }
   ends_unref (&co->ends);
   co->ends = e;
}

void
snap_coll_share_ends (snap_coll_t *dst, const snap_coll_t *src)
{
   if (dst->ends == src->ends)
      return;
   ends_unref (&dst->ends);
   dst->ends = src->ends;
   if (dst->ends)
      dst->ends->refs++;
}

static bool
hot_at_top (const snap_coll_t *co)
{
   return !strcmp (co->hot_range_end, "MaxKey");
}

const char *
snap_coll_hot_min_json (const snap_coll_t *co)
{
   return co->has_hot_range ? snap_coll_end (co, hot_at_top (co) ? SNAP_TOP_MIN_JSON : SNAP_BOTTOM_MIN_JSON) : "";
}

const char *
snap_coll_hot_max_json (const snap_coll_t *co)
{
   return co->has_hot_range ? snap_coll_end (co, hot_at_top (co) ? SNAP_TOP_MAX_JSON : SNAP_BOTTOM_MAX_JSON) : "";
}

void
snap_coll_hot_range (const snap_coll_t *co, char *buf, size_t len)
{
   bool top = hot_at_top (co);
   if (!co->has_hot_range) {
      if (len)
         buf[0] = '\0';
      return;
   }
   snprintf (buf, len, "%s -> %s", snap_coll_end (co, top ? SNAP_TOP_MIN : SNAP_BOTTOM_MIN),
             snap_coll_end (co, top ? SNAP_TOP_MAX : SNAP_BOTTOM_MAX));
}

void
snap_destroy (snap_t *snap)
{
   if (snap->share && --*snap->share > 0) {
      memset (snap, 0, sizeof *snap); /* another snapshot still uses them */
      return;
   }
   free (snap->share);
   for (size_t i = 0; i < snap->ncolls; i++) {
      vec_unref (&snap->colls[i].cells);
      vec_unref (&snap->colls[i].acts);
      ends_unref (&snap->colls[i].ends);
   }
   free (snap->colls);
   free (snap->shards);
   memset (snap, 0, sizeof *snap);
}

void
snap_copy (snap_t *dst, const snap_t *src)
{
   *dst = *src;
   dst->share = NULL;
   dst->shards = snap_dup (src->shards, src->nshards * sizeof *src->shards);
   dst->colls = snap_dup (src->colls, src->ncolls * sizeof *src->colls);
   for (size_t i = 0; i < src->ncolls; i++) {
      if (dst->colls[i].cells)
         dst->colls[i].cells->refs++;
      if (dst->colls[i].acts)
         dst->colls[i].acts->refs++;
      if (dst->colls[i].ends)
         dst->colls[i].ends->refs++;
   }
}

void
snap_share (snap_t *dst, snap_t *src)
{
   if (!src->share) {
      src->share = malloc (sizeof *src->share);
      if (!src->share)
         abort ();
      *src->share = 1;
   }
   ++*src->share;
   *dst = *src;
}

int
snap_shard_index (const snap_t *snap, const char *name)
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

void
snap_op_parts (const snap_op_t *o, snap_op_parts_t *p)
{
   char left[32];
   memset (p, 0, sizeof *p);
   snprintf (p->what, sizeof p->what, "%s %s%s%s", o->type, o->ns[0] ? o->ns : o->shard,
             o->ns[0] && o->shard[0] ? " on " : "", o->ns[0] ? o->shard : "");
   snprintf (p->phase, sizeof p->phase, "%s%s", o->phase[0] ? " " : "", o->phase);
   if (o->percent >= 0)
      snprintf (p->pct, sizeof p->pct, " %.0f%%", o->percent);
   if (o->bytes_ps >= 0) {
      p->rate[0] = ' ';
      snap_fmt_rate_bytes (o->bytes_ps, p->rate + 1, sizeof p->rate - 1);
   }
   if (o->stuck[0])
      snprintf (p->eta, sizeof p->eta, " STUCK");
   else if (!strncmp (o->phase, "paused:", 7)) /* sh.progress's paused drain (stopShardDraining) */
      snprintf (p->eta, sizeof p->eta, " PAUSED");
   else if (o->eta_s >= 0)
      snprintf (p->eta, sizeof p->eta, " %s left", snap_fmt_duration (o->eta_s, left, sizeof left));
   if (o->stuck[0])
      snprintf (p->caveat, sizeof p->caveat, ": %s; fix: %s", o->stuck, o->fix);
   else if (o->caveat[0])
      snprintf (p->caveat, sizeof p->caveat, " (%s)", o->caveat);
}

char *
snap_fmt_op (const snap_op_t *o, char *buf, size_t len)
{
   snap_op_parts_t p;
   snap_op_parts (o, &p);
   snprintf (buf, len, "%s%s%s%s%s%s", p.what, p.phase, p.pct, p.rate, p.eta, p.caveat);
   return buf;
}

void
snap_event_detail_destroy (snap_event_detail_t *d)
{
   bson_free (d->doc);
   memset (d, 0, sizeof *d);
}

const snap_op_t *
snap_drain_op (const snap_t *s, const char *name)
{
   for (size_t i = 0; i < s->nops; i++)
      if ((!strcmp (s->ops[i].type, "drain") || !strcmp (s->ops[i].type, "configShardTransition")) &&
          !strcmp (s->ops[i].shard, name))
         return &s->ops[i];
   return NULL;
}
