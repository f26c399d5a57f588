/* shardsim's workload generator and bulk loader. A workload inserts real documents into a collection at a rate,
 * routed by its shard key, with reads and updates at configurable shares; the kind decides the shard-key values
 * (ascending, descending, random, hashed, zipf, lowcard, compound, location). Every document also carries one field
 * of each kind (ts, seq, uuid, user, level, region, ip), so a loaded collection can be analysed for any candidate
 * key. Values come from a per-workload generator seeded by --seed, so the n-th document of a run is always the same.
 * Callers hold sim_g.lock. */
#include "tests/shardsim/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIM_WL_BASE_MS 1717200000000LL /* 2024-06-01T00:00:00Z: the first ascending date of an empty collection */
#define SIM_ZIPF_N 1000
#define SIM_WL_MAX_PER_TICK 20000

static const char *sim_kind_names[] = { "ascending", "descending", "random",   "hashed",
                                        "zipf",      "lowcard",    "compound", "location" };

/* The key a workload shards an unsharded collection with, per kind (JSON). */
static const char *sim_kind_keys[] = { "{\"ts\": 1}",
                                       "{\"ts\": 1}",
                                       "{\"uuid\": 1}",
                                       "{\"seq\": "
                                       "\"hashed\"}",
                                       "{\"user\": 1}",
                                       "{\"level\": 1}",
                                       "{\"region\": 1, \"ts\": 1}",
                                       "{\"ip\": 1}" };

static const char *sim_levels[] = { "DEBUG", "INFO", "WARN", "ERROR", "FATAL" };
static const int sim_level_weights[] = { 20, 50, 18, 10, 2 };
static const char *sim_regions[] = { "ap-east", "ap-south",   "eu-central", "eu-west",
                                     "sa-east", "us-central", "us-east",    "us-west" };

typedef struct {
   sim_wl_kind_t kind;
   uint64_t rng;
   int64_t seq;
   int64_t asc_base_ms;  /* ascending dates start here */
   int64_t desc_base_ms; /* descending dates start here */
   int32_t doc_bytes;
   uint8_t proc[5]; /* ObjectId middle bytes */
   char f1[128];    /* the shard key's first field (gets the kind's value) */
   char f2[128];    /* the second field ("" if none) */
} sim_wlgen_t;

typedef struct {
   char shard[64];
   int64_t inserts;
} sim_wlshard_t;

typedef struct sim_workload {
   int32_t id;
   char ns[256];
   char db[128];
   char coll[128];
   sim_wlgen_t gen;
   double rate;
   double read_share;
   double update_share;
   int64_t start_ms;
   int64_t ops_done;
   int64_t inserts;
   int64_t reads;
   int64_t updates;
   bool running;
   sim_wlshard_t per[64];
   int nper;
} sim_workload_t;

bool
sim_wl_kind_parse (const char *name, sim_wl_kind_t *out)
{
   for (int i = 0; i < (int) (sizeof sim_kind_names / sizeof sim_kind_names[0]); i++) {
      if (!strcmp (name, sim_kind_names[i])) {
         *out = (sim_wl_kind_t) i;
         return true;
      }
   }
   return false;
}

/* ---- the generator ---- */

static uint64_t
sim_wl_rand (sim_wlgen_t *g)
{
   uint64_t z = (g->rng += 0x9E3779B97F4A7C15ull);
   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
   z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
   return z ^ (z >> 31);
}

static double
sim_wl_unit (sim_wlgen_t *g)
{
   return (double) (sim_wl_rand (g) >> 11) / 9007199254740992.0;
}

/* Rank of a Zipf(s = 1.1) draw over SIM_ZIPF_N values. */
static int
sim_wl_zipf (sim_wlgen_t *g)
{
   static double cdf[SIM_ZIPF_N];
   static bool ready;
   if (!ready) {
      double sum = 0;
      for (int i = 0; i < SIM_ZIPF_N; i++) {
         sum += 1.0 / pow ((double) (i + 1), 1.1);
         cdf[i] = sum;
      }
      for (int i = 0; i < SIM_ZIPF_N; i++) {
         cdf[i] /= sum;
      }
      ready = true;
   }
   double u = sim_wl_unit (g);
   int lo = 0, hi = SIM_ZIPF_N - 1;
   while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (cdf[mid] < u) {
         lo = mid + 1;
      } else {
         hi = mid;
      }
   }
   return lo;
}

static void
sim_wl_oid (sim_wlgen_t *g, bool descending, bson_oid_t *oid)
{
   int64_t secs = g->asc_base_ms / 1000 + (g->seq >> 24);
   uint32_t counter = (uint32_t) (g->seq & 0xFFFFFF);
   if (descending) {
      secs = g->desc_base_ms / 1000 - (g->seq >> 24) - 1;
      counter = 0xFFFFFF - counter;
   }
   uint32_t s = (uint32_t) secs;
   oid->bytes[0] = (uint8_t) (s >> 24);
   oid->bytes[1] = (uint8_t) (s >> 16);
   oid->bytes[2] = (uint8_t) (s >> 8);
   oid->bytes[3] = (uint8_t) s;
   memcpy (oid->bytes + 4, g->proc, 5);
   oid->bytes[9] = (uint8_t) (counter >> 16);
   oid->bytes[10] = (uint8_t) (counter >> 8);
   oid->bytes[11] = (uint8_t) counter;
}

static void
sim_wl_hex (sim_wlgen_t *g, char *out)
{
   uint64_t a = sim_wl_rand (g), b = sim_wl_rand (g);
   bson_snprintf (out, 33, "%016llx%016llx", (unsigned long long) a, (unsigned long long) b);
}

static void
sim_wl_ip (sim_wlgen_t *g, char *out, size_t outlen)
{
   double u = sim_wl_unit (g);
   int first;
   if (u < 0.40) {
      first = 56;
   } else if (u < 0.65) {
      first = 17;
   } else {
      do {
         first = 1 + (int) (sim_wl_rand (g) % 223);
      } while (first == 17 || first == 56);
   }
   uint64_t r = sim_wl_rand (g);
   bson_snprintf (out, outlen, "%03d.%03d.%03d.%03d", first, (int) (r & 0xFF), (int) ((r >> 8) & 0xFF),
                  (int) ((r >> 16) & 0xFF));
}

static const char *
sim_wl_level (sim_wlgen_t *g)
{
   int r = (int) (sim_wl_rand (g) % 100);
   for (int i = 0; i < 5; i++) {
      if (r < sim_level_weights[i]) {
         return sim_levels[i];
      }
      r -= sim_level_weights[i];
   }
   return sim_levels[1];
}

/* Appends field name with the value of a standard field (ts, seq, uuid, user, level, region, ip) or, for any other
 * name, the insert counter. */
static void
sim_wl_standard (sim_wlgen_t *g, bson_t *doc, const char *name)
{
   char buf[64];
   if (!strcmp (name, "ts")) {
      BSON_APPEND_DATE_TIME (doc, name,
                             g->kind == SIM_WL_DESCENDING ? g->desc_base_ms - g->seq : g->asc_base_ms + g->seq);
   } else if (!strcmp (name, "uuid")) {
      sim_wl_hex (g, buf);
      BSON_APPEND_UTF8 (doc, name, buf);
   } else if (!strcmp (name, "user")) {
      bson_snprintf (buf, sizeof buf, "u%05d", sim_wl_zipf (g));
      BSON_APPEND_UTF8 (doc, name, buf);
   } else if (!strcmp (name, "level")) {
      const char *v = sim_wl_level (g); /* the append macros evaluate their value twice */
      BSON_APPEND_UTF8 (doc, name, v);
   } else if (!strcmp (name, "region")) {
      const char *v = sim_regions[sim_wl_rand (g) % 8];
      BSON_APPEND_UTF8 (doc, name, v);
   } else if (!strcmp (name, "ip")) {
      sim_wl_ip (g, buf, sizeof buf);
      BSON_APPEND_UTF8 (doc, name, buf);
   } else {
      BSON_APPEND_INT64 (doc, name, g->seq);
   }
}

/* Appends the kind's value for the shard key's first field. */
static void
sim_wl_primary (sim_wlgen_t *g, bson_t *doc, const char *name)
{
   char buf[64];
   bool id = !strcmp (name, "_id");
   bson_oid_t oid;
   switch (g->kind) {
   case SIM_WL_ASCENDING:
   case SIM_WL_HASHED:
      if (id) {
         sim_wl_oid (g, false, &oid);
         BSON_APPEND_OID (doc, name, &oid);
      } else if (g->kind == SIM_WL_HASHED) {
         BSON_APPEND_INT64 (doc, name, g->seq);
      } else {
         BSON_APPEND_DATE_TIME (doc, name, g->asc_base_ms + g->seq);
      }
      break;
   case SIM_WL_DESCENDING:
      if (id) {
         sim_wl_oid (g, true, &oid);
         BSON_APPEND_OID (doc, name, &oid);
      } else {
         BSON_APPEND_DATE_TIME (doc, name, g->desc_base_ms - g->seq);
      }
      break;
   case SIM_WL_RANDOM:
      sim_wl_hex (g, buf);
      BSON_APPEND_UTF8 (doc, name, buf);
      break;
   case SIM_WL_ZIPF:
      bson_snprintf (buf, sizeof buf, "u%05d", sim_wl_zipf (g));
      BSON_APPEND_UTF8 (doc, name, buf);
      break;
   case SIM_WL_LOWCARD: {
      const char *v = sim_wl_level (g); /* the append macros evaluate their value twice */
      BSON_APPEND_UTF8 (doc, name, v);
      break;
   }
   case SIM_WL_COMPOUND: {
      const char *v = sim_regions[sim_wl_rand (g) % 8];
      BSON_APPEND_UTF8 (doc, name, v);
      break;
   }
   case SIM_WL_LOCATION:
   default:
      sim_wl_ip (g, buf, sizeof buf);
      BSON_APPEND_UTF8 (doc, name, buf);
      break;
   }
}

static bool
sim_doc_has (const bson_t *doc, const char *name)
{
   bson_iter_t it;
   return bson_iter_init_find (&it, doc, name);
}

/* Builds the next document (advancing seq) into out (initialised here): _id, the shard key fields, then the
 * standard fields not already present, then padding up to doc_bytes. */
static void
sim_wl_next (sim_wlgen_t *g, const bson_t *key, bson_t *out)
{
   static const char *standard[] = { "ts", "seq", "uuid", "user", "level", "region", "ip", NULL };
   bson_iter_t it;
   bson_init (out);
   if (!strcmp (g->f1, "_id")) {
      sim_wl_primary (g, out, "_id");
   } else {
      bson_oid_t oid;
      sim_wl_oid (g, false, &oid);
      BSON_APPEND_OID (out, "_id", &oid);
   }
   bson_iter_init (&it, key);
   while (bson_iter_next (&it)) {
      const char *f = bson_iter_key (&it);
      if (sim_doc_has (out, f) || strchr (f, '.')) {
         continue;
      }
      if (!strcmp (f, g->f1)) {
         sim_wl_primary (g, out, f);
      } else if (g->kind == SIM_WL_COMPOUND && !strcmp (f, g->f2)) {
         BSON_APPEND_DATE_TIME (out, f, g->asc_base_ms + g->seq);
      } else {
         sim_wl_standard (g, out, f);
      }
   }
   for (int i = 0; standard[i]; i++) {
      if (!sim_doc_has (out, standard[i])) {
         sim_wl_standard (g, out, standard[i]);
      }
   }
   int32_t pad = g->doc_bytes - (int32_t) out->len - 16;
   if (pad > 0) {
      char *p = bson_malloc ((size_t) pad + 1);
      memset (p, 'x', (size_t) pad);
      p[pad] = '\0';
      BSON_APPEND_UTF8 (out, "payload", p);
      bson_free (p);
   }
   g->seq++;
}

/* The smallest and largest date in field of coll (for continuing ascending/descending sequences). */
static void
sim_wl_date_range (sim_coll_t *coll, const char *field, int64_t *lo, int64_t *hi)
{
   *lo = INT64_MAX;
   *hi = INT64_MIN;
   for (size_t p = 0; p < coll->nparts; p++) {
      for (size_t i = 0; i < coll->parts[p].docs.n; i++) {
         bson_t view;
         bson_iter_t it;
         sim_pos_t pos = { p, i };
         sim_coll_view (coll, pos, &view);
         if (bson_iter_init_find (&it, &view, field) && BSON_ITER_HOLDS_DATE_TIME (&it)) {
            int64_t v = bson_iter_date_time (&it);
            *lo = v < *lo ? v : *lo;
            *hi = v > *hi ? v : *hi;
         }
      }
   }
}

/* Sets up a generator for coll with shard key key; seed_index makes each workload's sequence distinct. */
static void
sim_wl_gen_init (sim_wlgen_t *g, sim_wl_kind_t kind, sim_coll_t *coll, const bson_t *key, int32_t doc_bytes,
                 uint64_t seed_index)
{
   bson_iter_t it;
   memset (g, 0, sizeof *g);
   g->kind = kind;
   g->rng = sim_g.seed * 0x2545F4914F6CDD1Dull + seed_index * 0x9E3779B97F4A7C15ull + 17;
   g->doc_bytes = doc_bytes;
   for (int i = 0; i < 5; i++) {
      g->proc[i] = (uint8_t) sim_wl_rand (g);
   }
   if (bson_iter_init (&it, key) && bson_iter_next (&it)) {
      bson_strncpy (g->f1, bson_iter_key (&it), sizeof g->f1);
      if (bson_iter_next (&it)) {
         bson_strncpy (g->f2, bson_iter_key (&it), sizeof g->f2);
      }
   }
   g->asc_base_ms = SIM_WL_BASE_MS;
   g->desc_base_ms = SIM_WL_BASE_MS;
   /* Continue after (or before) the dates already stored, so ascending values really only grow. */
   const char *datef = kind == SIM_WL_COMPOUND && g->f2[0] ? g->f2 : (g->f1[0] ? g->f1 : "ts");
   int64_t lo, hi;
   sim_wl_date_range (coll, datef, &lo, &hi);
   if (hi != INT64_MIN && hi + 1000 > g->asc_base_ms) {
      g->asc_base_ms = hi + 1000;
   }
   if (lo != INT64_MAX && lo - 1000 < g->desc_base_ms) {
      g->desc_base_ms = lo - 1000;
   }
   if (strcmp (datef, "ts") != 0) {
      sim_wl_date_range (coll, "ts", &lo, &hi);
      if (hi != INT64_MIN && hi + 1000 > g->asc_base_ms) {
         g->asc_base_ms = hi + 1000;
      }
      if (lo != INT64_MAX && lo - 1000 < g->desc_base_ms) {
         g->desc_base_ms = lo - 1000;
      }
   }
}

/* ---- starting ---- */

/* Prepares ns for a workload or a load: database, collection, shard key (sharding it with the kind's key when
 * asked). key receives the shard key (or the kind's key for an unsharded collection). */
static sim_coll_t *
sim_wl_prepare (const char *ns, sim_wl_kind_t kind, bool shard, bson_t *key, bson_error_t *err)
{
   char db[128], primary[64];
   const char *dot = strchr (ns, '.');
   bson_init (key);
   if (!dot || dot == ns || !dot[1] || (size_t) (dot - ns) >= sizeof db) {
      bson_set_error (err, SIMQ_ERROR_DOMAIN, 73, "Invalid namespace specified '%s'", ns);
      return NULL;
   }
   memcpy (db, ns, (size_t) (dot - ns));
   db[dot - ns] = '\0';
   if (!strcmp (db, "config") || !strcmp (db, "admin") || !strcmp (db, "local")) {
      bson_set_error (err, SIMQ_ERROR_DOMAIN, 20, "workloads cannot write to the %s database", db);
      return NULL;
   }
   if (!sim_db_ensure (db, primary)) {
      bson_set_error (err, SIMQ_ERROR_DOMAIN, 70, "No shards found");
      return NULL;
   }
   sim_shcoll_t sc;
   bool sharded = sim_shcoll_load (ns, &sc);
   if (sharded) {
      bson_concat (key, &sc.key);
   }
   sim_shcoll_destroy (&sc);
   if (!sharded) {
      bson_error_t jerr;
      bson_t *k = bson_new_from_json ((const uint8_t *) sim_kind_keys[kind], -1, &jerr);
      bson_concat (key, k);
      bson_destroy (k);
      sim_coll_ensure (db, dot + 1);
      if (shard && !sim_ver_ge (60)) {
         sim_db_enable_sharding (db);
      }
      if (shard && !sim_op_shard_collection (ns, key, false, 0, false, err)) {
         return NULL;
      }
   }
   bson_iter_t it;
   if (bson_iter_init (&it, key) && bson_iter_next (&it) && !strcmp (bson_iter_key (&it), "_id") &&
       (kind == SIM_WL_ZIPF || kind == SIM_WL_LOWCARD || kind == SIM_WL_COMPOUND || kind == SIM_WL_LOCATION)) {
      bson_set_error (err, SIMQ_ERROR_DOMAIN, 72, "workload kind %s repeats values, which an _id shard key cannot hold",
                      sim_kind_names[kind]);
      return NULL;
   }
   return sim_coll_ensure (db, dot + 1);
}

int32_t
sim_workload_start (const char *ns, sim_wl_kind_t kind, double rate, double read_share, double update_share,
                    int32_t doc_bytes, bool shard, bson_error_t *err)
{
   bson_t key;
   if (rate <= 0 || read_share < 0 || update_share < 0 || read_share + update_share > 1.0) {
      bson_set_error (err, SIMQ_ERROR_DOMAIN, 2,
                      "a workload needs rate > 0 and read/update shares between 0 and 1 (sum at most 1)");
      return -1;
   }
   sim_coll_t *coll = sim_wl_prepare (ns, kind, shard, &key, err);
   if (!coll) {
      bson_destroy (&key);
      return -1;
   }
   sim_workload_t *w = bson_malloc0 (sizeof *w);
   w->id = ++sim_dyn.next_wl_id;
   bson_strncpy (w->ns, ns, sizeof w->ns);
   bson_strncpy (w->db, coll->db, sizeof w->db);
   bson_strncpy (w->coll, coll->name, sizeof w->coll);
   sim_wl_gen_init (&w->gen, kind, coll, &key, doc_bytes > 0 ? doc_bytes : sim_dyn.doc_bytes, (uint64_t) w->id);
   w->rate = rate;
   w->read_share = read_share;
   w->update_share = update_share;
   w->start_ms = clock_wall_ms ();
   w->running = true;
   sim_dyn.wls = bson_realloc (sim_dyn.wls, (sim_dyn.nwls + 1) * sizeof *sim_dyn.wls);
   sim_dyn.wls[sim_dyn.nwls++] = w;
   if (!sim_dyn.live) {
      /* A cluster under load has its balancer running. */
      sim_dyn.live = true;
      sim_dyn.next_round_ms =
         clock_wall_ms () + (sim_dyn.balancer_interval_ms > 0 ? sim_dyn.balancer_interval_ms : 10000);
   }
   bson_destroy (&key);
   return w->id;
}

bool
sim_workload_load (const char *ns, sim_wl_kind_t kind, int64_t count, int32_t doc_bytes, bool shard, bson_error_t *err)
{
   bson_t key;
   if (count < 0) {
      bson_set_error (err, SIMQ_ERROR_DOMAIN, 2, "count must be >= 0");
      return false;
   }
   sim_coll_t *coll = sim_wl_prepare (ns, kind, shard, &key, err);
   if (!coll) {
      bson_destroy (&key);
      return false;
   }
   sim_wlgen_t g;
   sim_wl_gen_init (&g, kind, coll, &key, doc_bytes > 0 ? doc_bytes : sim_dyn.doc_bytes, 1000000 + sim_g.ncolls);
   /* Documents go straight into the store; the chunk table is rebuilt once afterwards instead of per document. */
   sim_ctab_free (coll->ctab);
   coll->ctab = NULL;
   for (int64_t i = 0; i < count && !sim_g.shutting_down; i++) {
      bson_t doc;
      sim_wl_next (&g, &key, &doc);
      sim_coll_insert (coll, &doc);
      bson_destroy (&doc);
   }
   if (!sim_g.shutting_down) {
      sim_autosplit (coll, 0.5, true);
   }
   bson_destroy (&key);
   return true;
}

static void
sim_workload_free (sim_workload_t *w)
{
   bson_free (w);
}

void
sim_workload_free_all (void)
{
   for (size_t i = 0; i < sim_dyn.nwls; i++) {
      sim_workload_free (sim_dyn.wls[i]);
   }
   bson_free (sim_dyn.wls);
   sim_dyn.wls = NULL;
   sim_dyn.nwls = 0;
}

/* ---- running ---- */

static void
sim_wl_count_shard (sim_workload_t *w, const char *shard)
{
   for (int i = 0; i < w->nper; i++) {
      if (!strcmp (w->per[i].shard, shard)) {
         w->per[i].inserts++;
         return;
      }
   }
   if (w->nper < 64) {
      bson_strncpy (w->per[w->nper].shard, shard, sizeof w->per[0].shard);
      w->per[w->nper++].inserts = 1;
   }
}

/* The shard owning doc of coll (t: its chunk table, NULL when unsharded). */
static void
sim_wl_shard_of (sim_coll_t *coll, sim_ctab_t *t, const bson_t *doc, char *shard)
{
   shard[0] = '\0';
   if (t) {
      size_t i = sim_ctab_locate_doc (t, doc);
      if (i != SIZE_MAX) {
         bson_strncpy (shard, t->v[i].shard, 64);
      }
      return;
   }
   sim_db_primary (coll->db, shard);
}

/* A random existing document's position; false when the collection is empty. */
static bool
sim_wl_pick (sim_workload_t *w, sim_coll_t *coll, sim_pos_t *pos)
{
   size_t n = sim_coll_count (coll);
   if (!n) {
      return false;
   }
   size_t k = (size_t) (sim_wl_rand (&w->gen) % n);
   for (size_t p = 0; p < coll->nparts; p++) {
      if (k < coll->parts[p].docs.n) {
         pos->part = p;
         pos->idx = k;
         return true;
      }
      k -= coll->parts[p].docs.n;
   }
   return false;
}

static void
sim_wl_run (sim_workload_t *w, int64_t ops)
{
   sim_coll_t *coll = sim_coll_get (w->db, w->coll);
   if (!coll) {
      return; /* dropped: the workload idles until it is stopped */
   }
   sim_ctab_t *t = sim_ctab_get (coll);
   bson_t key = BSON_INITIALIZER;
   if (t) {
      bson_concat (&key, &t->sc.key);
   } else {
      bson_error_t jerr;
      bson_t *k = bson_new_from_json ((const uint8_t *) sim_kind_keys[w->gen.kind], -1, &jerr);
      bson_concat (&key, k);
      bson_destroy (k);
   }
   char shard[64];
   for (int64_t i = 0; i < ops; i++) {
      double u = sim_wl_unit (&w->gen);
      sim_pos_t pos;
      if (u < w->read_share + w->update_share && sim_wl_pick (w, coll, &pos)) {
         bson_t view;
         sim_coll_view (coll, pos, &view);
         sim_wl_shard_of (coll, t, &view, shard);
         if (u < w->read_share) {
            sim_g.op_query++;
            sim_cmd_count_traffic ("find");
            w->reads++;
            if (shard[0]) {
               sim_coll_count_op (coll, shard, 0, 50);
            }
            continue;
         }
         bson_iter_t it;
         int64_t n = 0;
         if (bson_iter_init_find (&it, &view, "updates") && BSON_ITER_HOLDS_INT64 (&it)) {
            n = bson_iter_int64 (&it);
         }
         bson_t upd = BSON_INITIALIZER;
         bson_copy_to_excluding_noinit (&view, &upd, "updates", NULL);
         BSON_APPEND_INT64 (&upd, "updates", n + 1);
         sim_coll_replace (coll, pos, &upd);
         bson_destroy (&upd);
         sim_g.op_update++;
         sim_cmd_count_traffic ("update");
         w->updates++;
         if (shard[0]) {
            sim_coll_count_op (coll, shard, 1, 50);
         }
         continue;
      }
      bson_t doc;
      sim_wl_next (&w->gen, &key, &doc);
      sim_coll_insert (coll, &doc);
      sim_wl_shard_of (coll, t, &doc, shard);
      bson_destroy (&doc);
      sim_g.op_insert++;
      sim_cmd_count_traffic ("insert");
      w->inserts++;
      if (shard[0]) {
         sim_coll_count_op (coll, shard, 1, 50);
         sim_wl_count_shard (w, shard);
      }
   }
   bson_destroy (&key);
   if (t) {
      sim_autosplit (coll, 0.5, false);
   }
}

void
sim_workload_tick (int64_t now)
{
   for (size_t i = 0; i < sim_dyn.nwls; i++) {
      sim_workload_t *w = sim_dyn.wls[i];
      if (!w->running) {
         continue;
      }
      int64_t due = (int64_t) ((double) (now - w->start_ms) * w->rate / 1000.0);
      int64_t ops = due - w->ops_done;
      if (ops <= 0) {
         continue;
      }
      if (ops > SIM_WL_MAX_PER_TICK) {
         ops = SIM_WL_MAX_PER_TICK; /* fall behind rather than hold the lock for long */
      }
      w->ops_done += ops;
      sim_wl_run (w, ops);
   }
}

/* ---- flags and the admin command ---- */

bool
sim_workload_flag (const char *spec, bool load, char *errbuf, size_t errlen)
{
   char buf[512], *parts[6] = { NULL };
   int n = 0;
   bson_error_t err;
   sim_wl_kind_t kind;
   bson_strncpy (buf, spec, sizeof buf);
   for (char *s = buf, *save = NULL; n < 6 && (s = strtok_r (n ? NULL : s, ":", &save));) {
      parts[n++] = s;
   }
   if (n < 3 || !sim_wl_kind_parse (parts[1], &kind)) {
      bson_snprintf (errbuf, errlen,
                     "bad %s %s (NS:KIND:%s; kinds: ascending, descending, random, hashed, zipf, "
                     "lowcard, compound, location)",
                     load ? "--load" : "--workload", spec, load ? "COUNT[:unsharded]" : "RATE[:READS[:UPDATES]]");
      return false;
   }
   if (load) {
      char *end;
      long long count = strtoll (parts[2], &end, 10);
      if (*end || count < 0) {
         bson_snprintf (errbuf, errlen, "bad --load count %s", parts[2]);
         return false;
      }
      bool shard = !(n > 3 && !strcmp (parts[3], "unsharded"));
      if (!sim_workload_load (parts[0], kind, count, 0, shard, &err)) {
         bson_snprintf (errbuf, errlen, "--load %s: %s", spec, err.message);
         return false;
      }
      return true;
   }
   char *end;
   double rate = strtod (parts[2], &end);
   double reads = n > 3 ? strtod (parts[3], NULL) : 0.0;
   double updates = n > 4 ? strtod (parts[4], NULL) : 0.0;
   if (*end || sim_workload_start (parts[0], kind, rate, reads, updates, 0, true, &err) < 0) {
      bson_snprintf (errbuf, errlen, "--workload %s: %s", spec, *end ? "bad rate" : err.message);
      return false;
   }
   return true;
}

static void
sim_wl_status (bson_t *reply)
{
   bson_t arr;
   BSON_APPEND_ARRAY_BEGIN (reply, "workloads", &arr);
   for (size_t i = 0; i < sim_dyn.nwls; i++) {
      sim_workload_t *w = sim_dyn.wls[i];
      bson_t e, per;
      char k[16];
      const char *kp;
      bson_uint32_to_string ((uint32_t) i, &kp, k, sizeof k);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, kp, &e);
      BSON_APPEND_INT32 (&e, "id", w->id);
      BSON_APPEND_UTF8 (&e, "ns", w->ns);
      BSON_APPEND_UTF8 (&e, "kind", sim_kind_names[w->gen.kind]);
      BSON_APPEND_BOOL (&e, "running", w->running);
      BSON_APPEND_DOUBLE (&e, "rate", w->rate);
      BSON_APPEND_DOUBLE (&e, "readShare", w->read_share);
      BSON_APPEND_DOUBLE (&e, "updateShare", w->update_share);
      BSON_APPEND_INT64 (&e, "inserts", w->inserts);
      BSON_APPEND_INT64 (&e, "reads", w->reads);
      BSON_APPEND_INT64 (&e, "updates", w->updates);
      BSON_APPEND_DOCUMENT_BEGIN (&e, "insertsByShard", &per);
      for (int s = 0; s < w->nper; s++) {
         BSON_APPEND_INT64 (&per, w->per[s].shard, w->per[s].inserts);
      }
      bson_append_document_end (&e, &per);
      bson_append_document_end (&arr, &e);
   }
   bson_append_array_end (reply, &arr);
}

/* { simWorkload: "start" | "stop" | "status" | "load", ns, kind, rate, readShare, updateShare, docBytes, count,
 * shard, id } */
void
sim_cmd_sim_workload (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   bson_error_t err;
   sim_wl_kind_t kind = SIM_WL_ASCENDING;
   bson_iter_init (&it, ctx->cmd);
   bson_iter_next (&it);
   const char *what = BSON_ITER_HOLDS_UTF8 (&it) ? bson_iter_utf8 (&it, NULL) : "status";
   const char *ns = docget_utf8 (ctx->cmd, "ns", NULL);
   const char *kname = docget_utf8 (ctx->cmd, "kind", NULL);
   bool shard = !bson_iter_init_find (&it, ctx->cmd, "shard") || bson_iter_as_bool (&it);
   int32_t doc_bytes = (int32_t) docget_double (ctx->cmd, "docBytes", 0, NULL);
   if (!strcmp (what, "start") || !strcmp (what, "load")) {
      if (!ns || !kname || !sim_wl_kind_parse (kname, &kind)) {
         sim_reply_error (reply, 2,
                          "simWorkload %s needs ns and kind (ascending, descending, random, hashed, zipf, "
                          "lowcard, compound, location)",
                          what);
         return;
      }
      if (!strcmp (what, "start")) {
         int32_t id = sim_workload_start (ns, kind, docget_double (ctx->cmd, "rate", 100, NULL),
                                          docget_double (ctx->cmd, "readShare", 0, NULL),
                                          docget_double (ctx->cmd, "updateShare", 0, NULL), doc_bytes, shard, &err);
         if (id < 0) {
            sim_reply_error (reply, (int) err.code, "%s", err.message);
            return;
         }
         BSON_APPEND_INT32 (reply, "id", id);
      } else {
         int64_t t0 = clock_wall_ms ();
         int64_t count = (int64_t) docget_double (ctx->cmd, "count", 0, NULL);
         if (!sim_workload_load (ns, kind, count, doc_bytes, shard, &err)) {
            sim_reply_error (reply, (int) err.code, "%s", err.message);
            return;
         }
         BSON_APPEND_INT64 (reply, "inserted", count);
         BSON_APPEND_INT64 (reply, "millis", clock_wall_ms () - t0);
      }
   } else if (!strcmp (what, "stop")) {
      int32_t id = (int32_t) docget_double (ctx->cmd, "id", 0, NULL);
      int32_t stopped = 0;
      /* Stopped workloads stay listed (with their final counts) until shutdown. */
      for (size_t i = 0; i < sim_dyn.nwls; i++) {
         sim_workload_t *w = sim_dyn.wls[i];
         if (w->running && (!id || w->id == id) && (!ns || !strcmp (w->ns, ns))) {
            w->running = false;
            stopped++;
         }
      }
      BSON_APPEND_INT32 (reply, "stopped", stopped);
   } else if (strcmp (what, "status") != 0) {
      sim_reply_error (reply, 2, "simWorkload: unknown action '%s' (start, stop, status, load)", what);
      return;
   }
   sim_wl_status (reply);
   sim_reply_ok (reply);
}
