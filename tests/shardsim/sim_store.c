/* shardsim's document store: named collections of raw BSON documents, partitioned by one field where equality
 * lookups on it are frequent (config.chunks by uuid/ns, config.tags by ns), with matching through the simq engine.
 * Every change goes through the hooks of sim_index.c, which keep the _id and range indexes current. Callers hold
 * sim_g.lock. */
#include "tests/shardsim/sim.h"

#include <stdlib.h>
#include <string.h>

static void
sim_raw_push (sim_raw_t *r, uint8_t *doc)
{
   if (r->n == r->cap) {
      r->cap = r->cap ? r->cap * 2 : 16;
      r->v = bson_realloc (r->v, r->cap * sizeof *r->v);
   }
   r->v[r->n++] = doc;
}

static uint32_t
sim_raw_len (const uint8_t *doc)
{
   return (uint32_t) doc[0] | (uint32_t) doc[1] << 8 | (uint32_t) doc[2] << 16 | (uint32_t) doc[3] << 24;
}

/* The partition key text of a value: hex for binary, "s:" + text for strings, "" otherwise. */
static void
sim_part_key_of_value (const bson_value_t *v, char *out, size_t outlen)
{
   out[0] = '\0';
   if (v->value_type == BSON_TYPE_BINARY) {
      static const char hex[] = "0123456789abcdef";
      size_t o = 0;
      for (uint32_t i = 0; i < v->value.v_binary.data_len && o + 3 < outlen; i++) {
         out[o++] = hex[v->value.v_binary.data[i] >> 4];
         out[o++] = hex[v->value.v_binary.data[i] & 15];
      }
      out[o] = '\0';
   } else if (v->value_type == BSON_TYPE_UTF8) {
      bson_snprintf (out, outlen, "s:%s", v->value.v_utf8.str);
   }
}

static void
sim_part_key_of_doc (const sim_coll_t *c, const bson_t *doc, char *out, size_t outlen)
{
   bson_iter_t it;
   out[0] = '\0';
   if (c->part_field && bson_iter_init_find (&it, doc, c->part_field)) {
      sim_part_key_of_value (bson_iter_value (&it), out, outlen);
   }
}

/* The partition a filter is confined to: true with key set when the filter has a top-level equality on the
 * partition field. */
static bool
sim_part_key_of_filter (const sim_coll_t *c, const bson_t *filter, char *out, size_t outlen)
{
   bson_iter_t it;
   if (!c->part_field || !filter || !bson_iter_init_find (&it, filter, c->part_field)) {
      return false;
   }
   const bson_value_t *v = bson_iter_value (&it);
   if (BSON_ITER_HOLDS_DOCUMENT (&it)) {
      bson_iter_t child;
      if (bson_iter_recurse (&it, &child) && bson_iter_next (&child) && !strcmp (bson_iter_key (&child), "$eq") &&
          !bson_iter_next (&child)) {
         bson_iter_recurse (&it, &child);
         bson_iter_next (&child);
         v = bson_iter_value (&child);
      } else {
         return false;
      }
   }
   if (v->value_type != BSON_TYPE_BINARY && v->value_type != BSON_TYPE_UTF8) {
      return false;
   }
   sim_part_key_of_value (v, out, outlen);
   return true;
}

static size_t
sim_part_index (sim_coll_t *c, const char *key, bool create)
{
   if (c->last_part < c->nparts && !strcmp (c->parts[c->last_part].key, key)) {
      return c->last_part;
   }
   for (size_t i = 0; i < c->nparts; i++) {
      if (!strcmp (c->parts[i].key, key)) {
         c->last_part = i;
         return i;
      }
   }
   if (!create) {
      return SIZE_MAX;
   }
   if (c->nparts == c->capparts) {
      c->capparts = c->capparts ? c->capparts * 2 : 4;
      c->parts = bson_realloc (c->parts, c->capparts * sizeof *c->parts);
   }
   c->parts[c->nparts].key = bson_strdup (key);
   memset (&c->parts[c->nparts].docs, 0, sizeof (sim_raw_t));
   c->parts[c->nparts].rindex = NULL;
   /* empty: its greatest lastmod is known (none), and the hooks keep it from the first insert on */
   c->parts[c->nparts].vmax_known = true;
   c->parts[c->nparts].vmax_t = c->parts[c->nparts].vmax_i = 0;
   c->parts[c->nparts].gen = ++sim_g.store_gen;
   c->last_part = c->nparts;
   return c->nparts++;
}

size_t
sim_coll_find_part (sim_coll_t *coll, const bson_value_t *v)
{
   char key[128];
   sim_part_key_of_value (v, key, sizeof key);
   return sim_part_index (coll, key, false);
}

size_t
sim_coll_part_of (sim_coll_t *coll, const uint8_t *raw)
{
   char key[128];
   bson_t doc;
   bson_init_static (&doc, raw, sim_raw_len (raw));
   sim_part_key_of_doc (coll, &doc, key, sizeof key);
   return sim_part_index (coll, key, false);
}

sim_coll_t *
sim_coll_get (const char *db, const char *name)
{
   for (size_t i = 0; i < sim_g.ncolls; i++) {
      if (!strcmp (sim_g.colls[i]->db, db) && !strcmp (sim_g.colls[i]->name, name)) {
         return sim_g.colls[i];
      }
   }
   return NULL;
}

sim_coll_t *
sim_coll_get_ns (const char *ns)
{
   for (size_t i = 0; i < sim_g.ncolls; i++) {
      if (!strcmp (sim_g.colls[i]->ns, ns)) {
         return sim_g.colls[i];
      }
   }
   return NULL;
}

sim_coll_t *
sim_coll_ensure (const char *db, const char *name)
{
   sim_coll_t *c = sim_coll_get (db, name);
   if (c) {
      return c;
   }
   c = bson_malloc0 (sizeof *c);
   c->db = bson_strdup (db);
   c->name = bson_strdup (name);
   c->ns = bson_strdup_printf ("%s.%s", db, name);
   sim_uuid_new (c->uuid);
   simq_docs_init (&c->indexes);
   if (!strcmp (db, "config") && (!strcmp (name, "chunks") || !strcmp (name, "tags"))) {
      c->part_field = !strcmp (name, "tags") ? "ns" : (sim_ver_ge (50) ? "uuid" : "ns");
   }
   bson_t *idx = BCON_NEW ("v", BCON_INT32 (2), "key", "{", "_id", BCON_INT32 (1), "}", "name", "_id_");
   simq_docs_push_owned (&c->indexes, idx);
   if (sim_g.ncolls == sim_g.capcolls) {
      sim_g.capcolls = sim_g.capcolls ? sim_g.capcolls * 2 : 32;
      sim_g.colls = bson_realloc (sim_g.colls, sim_g.capcolls * sizeof *sim_g.colls);
   }
   sim_g.colls[sim_g.ncolls++] = c;
   return c;
}

static void
sim_coll_free (sim_coll_t *c)
{
   sim_index_free (c);
   for (size_t i = 0; i < c->nparts; i++) {
      for (size_t j = 0; j < c->parts[i].docs.n; j++) {
         bson_free (c->parts[i].docs.v[j]);
      }
      bson_free (c->parts[i].docs.v);
      bson_free (c->parts[i].key);
   }
   bson_free (c->parts);
   sim_ctab_free (c->ctab);
   simq_docs_clear (&c->indexes);
   bson_free (c->ops);
   bson_free (c->db);
   bson_free (c->name);
   bson_free (c->ns);
   bson_free (c);
}

void
sim_coll_drop (sim_coll_t *coll)
{
   for (size_t i = 0; i < sim_g.ncolls; i++) {
      if (sim_g.colls[i] == coll) {
         memmove (&sim_g.colls[i], &sim_g.colls[i + 1], (sim_g.ncolls - i - 1) * sizeof *sim_g.colls);
         sim_g.ncolls--;
         break;
      }
   }
   sim_coll_free (coll);
}

void
sim_store_free (void)
{
   for (size_t i = 0; i < sim_g.ncolls; i++) {
      sim_coll_free (sim_g.colls[i]);
   }
   bson_free (sim_g.colls);
   sim_g.colls = NULL;
   sim_g.ncolls = sim_g.capcolls = 0;
}

void
sim_coll_insert (sim_coll_t *coll, const bson_t *doc)
{
   char key[128];
   sim_part_key_of_doc (coll, doc, key, sizeof key);
   size_t p = sim_part_index (coll, key, true);
   uint8_t *raw = bson_malloc (doc->len);
   memcpy (raw, bson_get_data (doc), doc->len);
   sim_raw_push (&coll->parts[p].docs, raw);
   coll->parts[p].gen = ++sim_g.store_gen;
   sim_index_added (coll, p, raw);
   sim_ctab_note (coll, doc, 1);
}

void
sim_coll_view (sim_coll_t *coll, sim_pos_t pos, bson_t *out)
{
   const uint8_t *raw = coll->parts[pos.part].docs.v[pos.idx];
   bson_init_static (out, raw, sim_raw_len (raw));
}

static void
sim_coll_remove_at (sim_coll_t *coll, sim_pos_t pos)
{
   sim_raw_t *r = &coll->parts[pos.part].docs;
   bson_t old;
   if (coll->ctab) {
      bson_init_static (&old, r->v[pos.idx], sim_raw_len (r->v[pos.idx]));
      sim_ctab_note (coll, &old, -1);
   }
   coll->parts[pos.part].gen = ++sim_g.store_gen;
   sim_index_removing (coll, pos.part, r->v[pos.idx]);
   bson_free (r->v[pos.idx]);
   memmove (&r->v[pos.idx], &r->v[pos.idx + 1], (r->n - pos.idx - 1) * sizeof *r->v);
   r->n--;
}

void
sim_coll_replace (sim_coll_t *coll, sim_pos_t pos, const bson_t *doc)
{
   char key[128];
   sim_part_key_of_doc (coll, doc, key, sizeof key);
   if (strcmp (key, coll->parts[pos.part].key) != 0) {
      sim_coll_remove_at (coll, pos);
      sim_coll_insert (coll, doc);
      return;
   }
   uint8_t *raw = bson_malloc (doc->len);
   memcpy (raw, bson_get_data (doc), doc->len);
   if (coll->ctab) {
      bson_t old;
      const uint8_t *o = coll->parts[pos.part].docs.v[pos.idx];
      bson_init_static (&old, o, sim_raw_len (o));
      sim_ctab_note (coll, &old, -1);
      sim_ctab_note (coll, doc, 1);
   }
   coll->parts[pos.part].gen = ++sim_g.store_gen;
   sim_index_replaced (coll, pos.part, coll->parts[pos.part].docs.v[pos.idx], raw);
   bson_free (coll->parts[pos.part].docs.v[pos.idx]);
   coll->parts[pos.part].docs.v[pos.idx] = raw;
}

static int
sim_pos_cmp_desc (const void *a, const void *b)
{
   const sim_pos_t *x = a, *y = b;
   if (x->part != y->part) {
      return x->part < y->part ? 1 : -1;
   }
   return x->idx < y->idx ? 1 : (x->idx > y->idx ? -1 : 0);
}

void
sim_coll_delete (sim_coll_t *coll, sim_hits_t *hits)
{
   if (!hits->n) {
      return;
   }
   qsort (hits->v, hits->n, sizeof *hits->v, sim_pos_cmp_desc);
   for (size_t i = 0; i < hits->n; i++) {
      sim_coll_remove_at (coll, hits->v[i]);
   }
}

static void
sim_hits_push (sim_hits_t *h, sim_pos_t p)
{
   if (h->n == h->cap) {
      h->cap = h->cap ? h->cap * 2 : 16;
      h->v = bson_realloc (h->v, h->cap * sizeof *h->v);
   }
   h->v[h->n++] = p;
}

void
sim_hits_destroy (sim_hits_t *hits)
{
   bson_free (hits->v);
   memset (hits, 0, sizeof *hits);
}

static bool
sim_coll_match_parts (sim_coll_t *coll, const bson_t *filter, bool empty_filter, size_t first, size_t last,
                      bson_t *const *sel, size_t limit, sim_hits_t *hits, bson_error_t *error);

/* sel[p] of sim_or_partitions: the branches naming partition p, appended in filter order as the elements of an
 * array document, then wrapped into {$or: [...]} by sim_or_finish. */
static void
sim_or_append (bson_t *f, const bson_t *branch)
{
   char kb[16];
   const char *ks;
   bson_uint32_to_string (bson_count_keys (f), &ks, kb, sizeof kb);
   bson_append_document (f, ks, -1, branch);
}

static void
sim_or_finish (bson_t *f)
{
   bson_t arr;
   bson_copy_to (f, &arr);
   bson_reinit (f);
   bson_append_array (f, "$or", 3, &arr);
   bson_destroy (&arr);
}

/* Whether branch (one clause of an $or) asks for lastmod: {$gt: Timestamp(t, i)} and nothing else on lastmod. */
static bool
sim_branch_lastmod_gt (const bson_t *branch, uint32_t *t, uint32_t *i)
{
   bson_iter_t it, op;
   if (!bson_iter_init_find (&it, branch, "lastmod") || !BSON_ITER_HOLDS_DOCUMENT (&it) ||
       !bson_iter_recurse (&it, &op) || !bson_iter_next (&op) || strcmp (bson_iter_key (&op), "$gt") != 0 ||
       !BSON_ITER_HOLDS_TIMESTAMP (&op)) {
      return false;
   }
   bson_iter_timestamp (&op, t, i);
   return !bson_iter_next (&op);
}

/* The partitions a filter {$or: [b0, b1, ...]} can match in, when every branch has a top-level equality on the
 * partition field (the $or of per-collection clauses a catalog refresh sends): sel[p] becomes {$or: [the branches
 * naming partition p]} (owned), except for a branch that also asks for lastmod greater than the partition's
 * greatest lastmod (no document there can match it: what a real server's { uuid: 1, lastmod: 1 } index bounds
 * give). A document of partition p can match no branch naming another partition, so matching each selected
 * partition's documents against its own branches, partitions in order, gives the full scan's hits in the full
 * scan's order. (A malformed branch whose partition holds no document is not evaluated, so not reported.) Returns
 * false (sel untouched) when the filter has another shape. */
static bool
sim_or_partitions (sim_coll_t *coll, const bson_t *filter, bson_t **sel)
{
   bson_iter_t it, br;
   if (!coll->part_field || !filter || !bson_iter_init (&it, filter) || !bson_iter_next (&it) ||
       strcmp (bson_iter_key (&it), "$or") != 0 || !BSON_ITER_HOLDS_ARRAY (&it) || bson_iter_next (&it)) {
      return false;
   }
   bson_iter_init_find (&it, filter, "$or");
   if (!bson_iter_recurse (&it, &br)) {
      return false;
   }
   while (bson_iter_next (&br)) {
      char key[128];
      uint32_t len;
      const uint8_t *data;
      bson_t branch;
      if (!BSON_ITER_HOLDS_DOCUMENT (&br)) {
         return false;
      }
      bson_iter_document (&br, &len, &data);
      if (!bson_init_static (&branch, data, len) || !sim_part_key_of_filter (coll, &branch, key, sizeof key)) {
         return false;
      }
   }
   bson_iter_recurse (&it, &br);
   while (bson_iter_next (&br)) {
      char key[128];
      uint32_t len, t, i, vt, vi;
      const uint8_t *data;
      bson_t branch;
      size_t p;
      bson_iter_document (&br, &len, &data);
      bson_init_static (&branch, data, len);
      sim_part_key_of_filter (coll, &branch, key, sizeof key);
      if ((p = sim_part_index (coll, key, false)) == SIZE_MAX) {
         continue;
      }
      if (sim_branch_lastmod_gt (&branch, &t, &i)) {
         sim_part_max_lastmod (coll, p, &vt, &vi);
         if (vt < t || (vt == t && vi <= i)) {
            continue;
         }
      }
      if (!sel[p]) {
         sel[p] = bson_new ();
      }
      sim_or_append (sel[p], &branch);
   }
   for (size_t p = 0; p < coll->nparts; p++) {
      if (sel[p]) {
         sim_or_finish (sel[p]);
      }
   }
   return true;
}

bool
sim_coll_match (sim_coll_t *coll, const bson_t *filter, size_t limit, sim_hits_t *hits, bson_error_t *error)
{
   char key[128];
   size_t first = 0, last = coll->nparts;
   bool empty_filter = !filter || bson_empty (filter);
   bson_t **sel = NULL;
   if (sim_part_key_of_filter (coll, filter, key, sizeof key)) {
      size_t p = sim_part_index (coll, key, false);
      if (p == SIZE_MAX) {
         return true;
      }
      first = p;
      last = p + 1;
   } else if (coll->nparts > 1) {
      sel = bson_malloc0 (coll->nparts * sizeof *sel);
      if (!sim_or_partitions (coll, filter, sel)) {
         bson_free (sel);
         sel = NULL;
      }
   }
   bool ok = sim_coll_match_parts (coll, filter, empty_filter, first, last, sel, limit, hits, error);
   for (size_t p = 0; sel && p < coll->nparts; p++) {
      if (sel[p]) {
         bson_destroy (sel[p]);
      }
   }
   bson_free (sel);
   return ok;
}

/* What a partition's selection asks when it is {$or: [{<partition field>: v}]} or {$or: [{<partition field>: v,
 * lastmod: {$gt: Timestamp(t, i)}}]} (in either order), v binary or a string: what a recount, or the search for the
 * chunks changed since a version, sends for one collection. */
typedef struct {
   bson_value_t v; /* borrowed from the selection */
   bool gt;        /* and lastmod above (t, i) */
   uint32_t t, i;
} sim_sole_t;

static bool
sim_sel_sole (const sim_coll_t *coll, const bson_t *sel, sim_sole_t *so)
{
   bson_iter_t it, br, f;
   bool have_v = false;
   if (!bson_iter_init_find (&it, sel, "$or") || !bson_iter_recurse (&it, &br) || !bson_iter_next (&br) ||
       !BSON_ITER_HOLDS_DOCUMENT (&br) || bson_iter_next (&br)) {
      return false;
   }
   bson_iter_init_find (&it, sel, "$or");
   bson_iter_recurse (&it, &br);
   bson_iter_next (&br);
   bson_iter_recurse (&br, &f);
   so->gt = false;
   while (bson_iter_next (&f)) {
      if (!have_v && !strcmp (bson_iter_key (&f), coll->part_field) &&
          (BSON_ITER_HOLDS_BINARY (&f) || BSON_ITER_HOLDS_UTF8 (&f))) {
         so->v = *bson_iter_value (&f);
         have_v = true;
      } else if (!so->gt && !strcmp (bson_iter_key (&f), "lastmod") && BSON_ITER_HOLDS_DOCUMENT (&f)) {
         bson_iter_t op;
         if (!bson_iter_recurse (&f, &op) || !bson_iter_next (&op) || strcmp (bson_iter_key (&op), "$gt") != 0 ||
             !BSON_ITER_HOLDS_TIMESTAMP (&op)) {
            return false;
         }
         bson_iter_timestamp (&op, &so->t, &so->i);
         if (bson_iter_next (&op)) {
            return false;
         }
         so->gt = true;
      } else {
         return false;
      }
   }
   return have_v;
}

/* Whether doc answers so in place: false when it cannot tell (then the matcher decides), else true with *matched set.
 * A document whose partition field (the first of that name) holds so->v exactly (the same type, binary subtype and
 * bytes) matches the equality; its lastmod, when asked about and a timestamp, is compared as the matcher would
 * (time, then increment). */
static bool
sim_doc_sole (const bson_t *doc, const char *field, const sim_sole_t *so, bool *matched)
{
   bson_iter_t it;
   const bson_value_t *d, *v = &so->v;
   uint32_t t, i;
   if (!bson_iter_init_find (&it, doc, field) || (d = bson_iter_value (&it))->value_type != v->value_type) {
      return false;
   }
   if (v->value_type == BSON_TYPE_BINARY
          ? d->value.v_binary.subtype != v->value.v_binary.subtype ||
               d->value.v_binary.data_len != v->value.v_binary.data_len ||
               memcmp (d->value.v_binary.data, v->value.v_binary.data, v->value.v_binary.data_len) != 0
          : d->value.v_utf8.len != v->value.v_utf8.len ||
               memcmp (d->value.v_utf8.str, v->value.v_utf8.str, v->value.v_utf8.len) != 0) {
      return false;
   }
   if (!so->gt) {
      *matched = true;
      return true;
   }
   if (!bson_iter_init_find (&it, doc, "lastmod") || !BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      return false;
   }
   bson_iter_timestamp (&it, &t, &i);
   *matched = t > so->t || (t == so->t && i > so->i);
   return true;
}

/* The scan of sim_coll_match over partitions [first, last), only those set in sel when sel is not NULL. A partition
 * selected by one clause of the shapes sim_sel_sole knows answers it in place where it can (what the { uuid: 1 } and
 * { uuid: 1, lastmod: 1 } indexes give a server), the matcher deciding the rest. */
static bool
sim_coll_match_parts (sim_coll_t *coll, const bson_t *filter, bool empty_filter, size_t first, size_t last,
                      bson_t *const *sel, size_t limit, sim_hits_t *hits, bson_error_t *error)
{
   for (size_t p = first; p < last; p++) {
      const bson_t *f = filter;
      sim_sole_t so = { 0 };
      bool sole;
      if (sel && !(f = sel[p])) {
         continue;
      }
      sole = sel && sim_sel_sole (coll, f, &so);
      for (size_t i = 0; i < coll->parts[p].docs.n; i++) {
         sim_pos_t pos = { p, i };
         bool matched = true;
         if (sim_should_stop (error)) {
            return false;
         }
         if (!empty_filter) {
            bson_t view;
            sim_coll_view (coll, pos, &view);
            if (!(sole && sim_doc_sole (&view, coll->part_field, &so, &matched)) &&
                !simq_match (&view, f, &matched, error)) {
               return false;
            }
         }
         if (matched) {
            sim_hits_push (hits, pos);
            if (limit && hits->n >= limit) {
               return true;
            }
         }
      }
   }
   return true;
}

size_t
sim_coll_count (const sim_coll_t *coll)
{
   size_t n = 0;
   for (size_t p = 0; p < coll->nparts; p++) {
      n += coll->parts[p].docs.n;
   }
   return n;
}

bool
sim_coll_collect (sim_coll_t *coll, const bson_t *filter, simq_docs_t *out, bson_error_t *error)
{
   sim_hits_t hits = { 0 };
   bool ok = sim_coll_match (coll, filter, 0, &hits, error);
   for (size_t i = 0; ok && i < hits.n; i++) {
      bson_t view;
      sim_coll_view (coll, hits.v[i], &view);
      simq_docs_push_copy (out, &view);
   }
   sim_hits_destroy (&hits);
   return ok;
}

void
sim_coll_count_op (sim_coll_t *coll, const char *shard, int kind, int64_t micros)
{
   sim_opstat_t *s = NULL;
   for (size_t i = 0; i < coll->nops; i++) {
      if (!strcmp (coll->ops[i].shard, shard)) {
         s = &coll->ops[i];
      }
   }
   if (!s) {
      coll->ops = bson_realloc (coll->ops, (coll->nops + 1) * sizeof *coll->ops);
      s = &coll->ops[coll->nops++];
      memset (s, 0, sizeof *s);
      bson_strncpy (s->shard, shard, sizeof s->shard);
   }
   if (kind == 0) {
      s->reads++;
      s->read_us += micros;
   } else if (kind == 1) {
      s->writes++;
      s->write_us += micros;
   } else {
      s->commands++;
      s->command_us += micros;
   }
}
