/* The chunk map's model (see chunkmap.h): ranges in key order with owners and marks, zones, and a replay of
 * changelog events over today's ranges. Bounds are kept in one growing byte buffer (offsets, not pointers), so a
 * map of many ranges costs their BSON bytes plus a few words each. */
#include "views/model/chunkmap.h"

#include <stdlib.h>
#include <string.h>

#include "shell/lib/order.h"

typedef struct {
   size_t min, max; /* offsets into the bound buffer */
   int zone;
   uint64_t shards;
} chunkmap_zone_t;

typedef struct {
   int64_t time_ms;
   chunkmap_kind_t kind;
   size_t min, max;
   int from, to;
   char *text;
   size_t *changed; /* while undone: the ranges it gave back to the donor, and their owners before */
   int *before;
   size_t nchanged;
} chunkmap_ev_t;

struct chunkmap {
   uint8_t *buf;
   size_t buf_len, buf_cap;
   size_t *min, *max; /* per range: offsets of its bounds */
   int *owner;
   unsigned *flags;
   size_t n, cap;
   chunkmap_zone_t *zones;
   size_t nzones;
   int max_zone;
   chunkmap_ev_t *ev;
   size_t nev;
   size_t pos;
   bool sorted;
};

chunkmap_t *
chunkmap_new (void)
{
   chunkmap_t *cm = bson_malloc0 (sizeof *cm);
   cm->max_zone = -1;
   cm->sorted = true;
   return cm;
}

void
chunkmap_free (chunkmap_t *cm)
{
   if (!cm) {
      return;
   }
   for (size_t i = 0; i < cm->nev; i++) {
      bson_free (cm->ev[i].text);
      bson_free (cm->ev[i].changed);
      bson_free (cm->ev[i].before);
   }
   bson_free (cm->ev);
   bson_free (cm->zones);
   bson_free (cm->buf);
   bson_free (cm->min);
   bson_free (cm->max);
   bson_free (cm->owner);
   bson_free (cm->flags);
   bson_free (cm);
}

/* Copies doc into the bound buffer; returns its offset. */
static size_t
chunkmap_keep (chunkmap_t *cm, const bson_t *doc)
{
   size_t off = cm->buf_len;
   if (cm->buf_len + doc->len > cm->buf_cap) {
      cm->buf_cap = (cm->buf_len + doc->len) * 2 + 256;
      cm->buf = bson_realloc (cm->buf, cm->buf_cap);
   }
   memcpy (cm->buf + off, bson_get_data (doc), doc->len);
   cm->buf_len += doc->len;
   return off;
}

/* Points b (in place: a static bson_t refers to itself and must not be copied) at the bound stored at off, valid
 * until the next add. */
static void
chunkmap_bound (const chunkmap_t *cm, size_t off, bson_t *b)
{
   uint32_t len;
   memcpy (&len, cm->buf + off, sizeof len);
   len = BSON_UINT32_FROM_LE (len);
   if (!bson_init_static (b, cm->buf + off, len)) {
      bson_init (b);
   }
}

static int
chunkmap_cmp_at (const chunkmap_t *cm, size_t off, const bson_t *key)
{
   bson_t b;
   chunkmap_bound (cm, off, &b);
   return order_keys (&b, key);
}

bool
chunkmap_add_range (chunkmap_t *cm, const bson_t *min, const bson_t *max, int shard, unsigned flags)
{
   if (shard < 0 || (cm->n && chunkmap_cmp_at (cm, cm->min[cm->n - 1], min) >= 0)) {
      return false;
   }
   if (cm->n == cm->cap) {
      cm->cap = cm->cap ? cm->cap * 2 : 64;
      cm->min = bson_realloc (cm->min, cm->cap * sizeof *cm->min);
      cm->max = bson_realloc (cm->max, cm->cap * sizeof *cm->max);
      cm->owner = bson_realloc (cm->owner, cm->cap * sizeof *cm->owner);
      cm->flags = bson_realloc (cm->flags, cm->cap * sizeof *cm->flags);
   }
   cm->min[cm->n] = chunkmap_keep (cm, min);
   cm->max[cm->n] = chunkmap_keep (cm, max);
   cm->owner[cm->n] = shard;
   cm->flags[cm->n] = flags;
   cm->n++;
   return true;
}

bool
chunkmap_add_zone (chunkmap_t *cm, const bson_t *min, const bson_t *max, int zone, uint64_t shards)
{
   if (zone < 0 || order_keys (min, max) >= 0) {
      return false;
   }
   cm->zones = bson_realloc (cm->zones, (cm->nzones + 1) * sizeof *cm->zones);
   cm->zones[cm->nzones].min = chunkmap_keep (cm, min);
   cm->zones[cm->nzones].max = chunkmap_keep (cm, max);
   cm->zones[cm->nzones].zone = zone;
   cm->zones[cm->nzones].shards = shards;
   cm->nzones++;
   if (zone > cm->max_zone) {
      cm->max_zone = zone;
   }
   return true;
}

/* The first range whose lower bound sorts at or after key (n when none). */
static size_t
chunkmap_lower (const chunkmap_t *cm, const bson_t *key)
{
   size_t lo = 0, hi = cm->n;
   while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (chunkmap_cmp_at (cm, cm->min[mid], key) < 0) {
         lo = mid + 1;
      } else {
         hi = mid;
      }
   }
   return lo;
}

/* The ranges [*first, *last) whose lower bound lies in [min, max); with max NULL, the one range holding min; with min
 * NULL, the one range holding the keys just below max (the range that ends at max). */
static void
chunkmap_span (const chunkmap_t *cm, const bson_t *min, const bson_t *max, size_t *first, size_t *last)
{
   size_t i;
   if (!min) {
      i = max ? chunkmap_lower (cm, max) : 0;
      *first = i ? i - 1 : 0;
      *last = max && i ? i : *first;
      return;
   }
   i = chunkmap_lower (cm, min);
   if (!max) {
      if (i < cm->n && chunkmap_cmp_at (cm, cm->min[i], min) == 0) {
         *first = i;
      } else {
         *first = i ? i - 1 : 0;
      }
      *last = cm->n ? *first + 1 : 0;
      return;
   }
   *first = i;
   *last = chunkmap_lower (cm, max);
   if (*last < *first) {
      *last = *first;
   }
}

void
chunkmap_mark (chunkmap_t *cm, const bson_t *min, const bson_t *max, unsigned flags)
{
   size_t a, b;
   chunkmap_span (cm, min, max, &a, &b);
   for (size_t i = a; i < b; i++) {
      cm->flags[i] |= flags;
   }
}

size_t
chunkmap_cells_mark (const chunkmap_t *cm, chunkmap_cell_t *cells, size_t width, const bson_t *min, const bson_t *max,
                     unsigned flags)
{
   size_t a, b;
   if (!cm->n || !width || (!min && !max)) {
      return 0;
   }
   chunkmap_span (cm, min, max, &a, &b);
   if (a == b && min && max) { /* a range inside one of the map's (a sampled map): the one holding min */
      chunkmap_span (cm, min, NULL, &a, &b);
   }
   if (a >= b) {
      return 0;
   }
   /* cell k covers [k * n / width, (k + 1) * n / width), at least one range (as chunkmap_cells) */
   for (size_t k = 0; k < width; k++) {
      size_t lo = k * cm->n / width, hi = (k + 1) * cm->n / width;
      if (hi <= lo) {
         hi = lo + 1;
      }
      if (lo < b && a < hi) {
         cells[k].flags |= flags;
      }
   }
   return b - a;
}

size_t
chunkmap_cells_mark_json (const chunkmap_t *cm, chunkmap_cell_t *cells, size_t width, const char *min_json,
                          const char *max_json, unsigned flags)
{
   bson_t *min = min_json && min_json[0] ? bson_new_from_json ((const uint8_t *) min_json, -1, NULL) : NULL;
   bson_t *max = max_json && max_json[0] ? bson_new_from_json ((const uint8_t *) max_json, -1, NULL) : NULL;
   size_t n = 0;
   /* a bound that was given but does not parse marks nothing rather than a guess */
   if ((min || !(min_json && min_json[0])) && (max || !(max_json && max_json[0]))) {
      n = chunkmap_cells_mark (cm, cells, width, min, max, flags);
   }
   if (min) {
      bson_destroy (min);
   }
   if (max) {
      bson_destroy (max);
   }
   return n;
}

bool
chunkmap_add_event (chunkmap_t *cm, int64_t time_ms, chunkmap_kind_t kind, const bson_t *min, const bson_t *max,
                    int from, int to, const char *text)
{
   chunkmap_ev_t *e;
   if (cm->pos != 0) {
      return false;
   }
   cm->ev = bson_realloc (cm->ev, (cm->nev + 1) * sizeof *cm->ev);
   e = &cm->ev[cm->nev++];
   memset (e, 0, sizeof *e);
   e->time_ms = time_ms;
   e->kind = kind;
   e->min = chunkmap_keep (cm, min);
   e->max = chunkmap_keep (cm, max);
   e->from = from;
   e->to = to;
   e->text = bson_strdup (text ? text : "");
   cm->sorted = false;
   return true;
}

static int
chunkmap_ev_cmp (const void *a, const void *b)
{
   const chunkmap_ev_t *x = a, *y = b;
   return x->time_ms < y->time_ms ? -1 : x->time_ms > y->time_ms;
}

size_t
chunkmap_events (const chunkmap_t *cm)
{
   return cm->nev;
}

size_t
chunkmap_position (const chunkmap_t *cm)
{
   return cm->pos;
}

/* Undoes event e: a migration's ranges go back to the donor (their owners before are kept for the redo). */
static void
chunkmap_undo (chunkmap_t *cm, chunkmap_ev_t *e)
{
   bson_t min, max;
   size_t a, b;
   if (e->kind != CHUNKMAP_MOVE || e->from < 0) {
      return;
   }
   chunkmap_bound (cm, e->min, &min);
   chunkmap_bound (cm, e->max, &max);
   chunkmap_span (cm, &min, &max, &a, &b);
   e->nchanged = b - a;
   e->changed = bson_malloc ((e->nchanged ? e->nchanged : 1) * sizeof *e->changed);
   e->before = bson_malloc ((e->nchanged ? e->nchanged : 1) * sizeof *e->before);
   for (size_t i = a; i < b; i++) {
      e->changed[i - a] = i;
      e->before[i - a] = cm->owner[i];
      cm->owner[i] = e->from;
   }
}

static void
chunkmap_redo (chunkmap_t *cm, chunkmap_ev_t *e)
{
   for (size_t k = 0; k < e->nchanged; k++) {
      cm->owner[e->changed[k]] = e->before[k];
   }
   bson_free (e->changed);
   bson_free (e->before);
   e->changed = NULL;
   e->before = NULL;
   e->nchanged = 0;
}

size_t
chunkmap_step (chunkmap_t *cm, long delta)
{
   if (!cm->sorted) {
      qsort (cm->ev, cm->nev, sizeof *cm->ev, chunkmap_ev_cmp);
      cm->sorted = true;
   }
   while (delta < 0 && cm->pos < cm->nev) {
      chunkmap_undo (cm, &cm->ev[cm->nev - 1 - cm->pos]);
      cm->pos++;
      delta++;
   }
   while (delta > 0 && cm->pos > 0) {
      cm->pos--;
      chunkmap_redo (cm, &cm->ev[cm->nev - 1 - cm->pos]);
      delta--;
   }
   return cm->pos;
}

bool
chunkmap_current_event (const chunkmap_t *cm, chunkmap_event_t *ev)
{
   const chunkmap_ev_t *e;
   if (cm->pos == 0) {
      return false;
   }
   e = &cm->ev[cm->nev - cm->pos];
   ev->time_ms = e->time_ms;
   ev->kind = e->kind;
   chunkmap_bound (cm, e->min, &ev->min);
   chunkmap_bound (cm, e->max, &ev->max);
   ev->from = e->from;
   ev->to = e->to;
   ev->text = e->text;
   return true;
}

size_t
chunkmap_ranges (const chunkmap_t *cm)
{
   return cm->n;
}

int
chunkmap_owner (const chunkmap_t *cm, size_t i)
{
   return i < cm->n ? cm->owner[i] : -1;
}

/* The zone holding the lower bound of range i (-1: none), and whether its owner is allowed there. */
static int
chunkmap_zone_of (const chunkmap_t *cm, size_t i, bool *outside)
{
   bson_t min;
   chunkmap_bound (cm, cm->min[i], &min);
   *outside = false;
   for (size_t z = 0; z < cm->nzones; z++) {
      if (chunkmap_cmp_at (cm, cm->zones[z].min, &min) <= 0 && chunkmap_cmp_at (cm, cm->zones[z].max, &min) > 0) {
         int o = cm->owner[i];
         *outside = o < 64 && !(cm->zones[z].shards & ((uint64_t) 1 << o));
         return cm->zones[z].zone;
      }
   }
   return -1;
}

/* The index with the most votes among counts[0, n) (ties: the lowest), -1 when all are zero; clears counts. */
static int
chunkmap_vote (int64_t *counts, int n)
{
   int best = -1;
   for (int k = 0; k < n; k++) {
      if (counts[k] > 0 && (best < 0 || counts[k] > counts[best])) {
         best = k;
      }
   }
   memset (counts, 0, (size_t) n * sizeof *counts);
   return best;
}

bool
chunkmap_cells (const chunkmap_t *cm, chunkmap_cell_t *cells, size_t width, int shards)
{
   int64_t *votes, *zvotes;
   int nz = cm->max_zone + 1;
   size_t ev_a = 0, ev_b = 0;
   int prev_zone = -2;

   if (!cm->n || !width || shards <= 0) {
      return false;
   }
   if (cm->pos > 0) {
      const chunkmap_ev_t *e = &cm->ev[cm->nev - cm->pos];
      bson_t min, max;
      chunkmap_bound (cm, e->min, &min);
      chunkmap_bound (cm, e->max, &max);
      chunkmap_span (cm, &min, &max, &ev_a, &ev_b);
      if (ev_a == ev_b) {
         chunkmap_span (cm, &min, NULL, &ev_a, &ev_b);
      }
   }
   votes = bson_malloc0 ((size_t) shards * sizeof *votes);
   zvotes = bson_malloc0 ((size_t) (nz > 0 ? nz : 1) * sizeof *zvotes);
   for (size_t k = 0; k < width; k++) {
      size_t a = k * cm->n / width, b = (k + 1) * cm->n / width;
      chunkmap_cell_t *c = &cells[k];
      if (b <= a) {
         b = a + 1; /* fewer ranges than cells: this range spreads over several */
      }
      memset (c, 0, sizeof *c);
      c->ranges = (int64_t) (b - a);
      for (size_t i = a; i < b; i++) {
         bool outside;
         int z = chunkmap_zone_of (cm, i, &outside);
         if (cm->owner[i] < shards) {
            votes[cm->owner[i]]++;
         }
         if (z >= 0) {
            zvotes[z]++;
         }
         if (prev_zone != -2 && z != prev_zone && i > 0) {
            c->flags |= CHUNKMAP_ZONE_EDGE;
         }
         prev_zone = z;
         c->flags |= cm->flags[i] | (outside ? CHUNKMAP_OUT_OF_ZONE : 0);
         if (i >= ev_a && i < ev_b) {
            c->flags |= CHUNKMAP_EVENT;
         }
      }
      prev_zone = -2; /* a new cell starts at its own first range: its edge belongs to the cell before */
      if (b < cm->n && a + 1 <= b) {
         bool o;
         int zl = chunkmap_zone_of (cm, b - 1, &o), zn = chunkmap_zone_of (cm, b, &o);
         if (zl != zn) {
            c->flags |= CHUNKMAP_ZONE_EDGE;
         }
      }
      c->shard = chunkmap_vote (votes, shards);
      c->zone = nz > 0 ? chunkmap_vote (zvotes, nz) : -1;
   }
   bson_free (votes);
   bson_free (zvotes);
   return true;
}

bool
chunkmap_bounds (const chunkmap_t *cm, size_t i, bson_t *min, bson_t *max)
{
   if (i >= cm->n) {
      return false;
   }
   chunkmap_bound (cm, cm->min[i], min);
   chunkmap_bound (cm, cm->max[i], max);
   return true;
}

void
chunkmap_data_destroy (chunkmap_data_t *d)
{
   chunkmap_free (d->map);
   for (size_t i = 0; i < d->nshards; i++) {
      bson_free (d->shards[i]);
   }
   for (size_t i = 0; i < d->nzones; i++) {
      bson_free (d->zones[i]);
   }
   bson_free (d->shards);
   bson_free (d->zones);
   bson_free (d->key);
   bson_free (d->low);
   bson_free (d->high);
   memset (d, 0, sizeof *d);
}
