/* shardsim's scenarios: the cluster a run starts with. "empty" is config metadata and N shards; "demo" is a small
 * three-shard cluster with zones, ranged/hashed/compound/zoned collections, real documents and a history of splits
 * and migrations, built through the same operations the admin commands use; "large" builds thousands of shards and
 * collections and a million chunks directly. Runs before the server accepts connections. */
#include "tests/shardsim/sim.h"

#include <string.h>

static void
sim_shard_name (int i, int total, char *out, size_t outlen)
{
   bson_snprintf (out, outlen, total < 100 ? "shard%02d" : "shard%04d", i);
}

static void
sim_shard_host (int i, const char *name, char *out, size_t outlen)
{
   int port = 27018 + 3 * (i - 1);
   bson_snprintf (out, outlen, "%s/127.0.0.1:%d,127.0.0.1:%d,127.0.0.1:%d", name, port, port + 1, port + 2);
}

static void
sim_add_shards (int n)
{
   sim_coll_t *shards = sim_coll_ensure ("config", "shards");
   for (int i = 1; i <= n; i++) {
      char name[32], host[160];
      bson_t doc = BSON_INITIALIZER;
      sim_shard_name (i, n, name, sizeof name);
      sim_shard_host (i, name, host, sizeof host);
      sim_shard_doc (name, host, NULL, &doc);
      sim_coll_insert (shards, &doc);
      bson_destroy (&doc);
   }
   sim_g.nshards = n;
}

/* What every scenario has: config.version, the config collections, this router's config.mongos entry and the
 * sharded config.system.sessions. */
static bool
sim_base (int nshards, char *errbuf, size_t errlen)
{
   static const char *colls[] = { "version",   "shards",   "databases", "collections", "chunks",
                                  "tags",      "settings", "mongos",    "migrations",  "changelog",
                                  "actionlog", "locks",    "lockpings", NULL };
   for (int i = 0; colls[i]; i++) {
      sim_coll_ensure ("config", colls[i]);
   }
   bson_t v = BSON_INITIALIZER;
   BSON_APPEND_INT32 (&v, "_id", 1);
   if (!sim_ver_ge (70)) {
      BSON_APPEND_INT32 (&v, "minCompatibleVersion", 5);
      BSON_APPEND_INT32 (&v, "currentVersion", 6);
   }
   BSON_APPEND_OID (&v, "clusterId", &sim_g.cluster_id);
   sim_coll_insert (sim_coll_get ("config", "version"), &v);
   bson_destroy (&v);
   sim_add_shards (nshards);
   sim_mongos_ping ();
   bson_t key = BSON_INITIALIZER;
   bson_error_t err;
   BSON_APPEND_INT32 (&key, "_id", 1);
   bool ok = sim_op_shard_collection ("config.system.sessions", &key, false, 0, false, &err);
   bson_destroy (&key);
   if (!ok) {
      bson_snprintf (errbuf, errlen, "config.system.sessions: %s", err.message);
   }
   return ok;
}

static void
sim_add_db (const char *db, const char *primary)
{
   bson_t doc = BSON_INITIALIZER;
   sim_database_doc (db, primary, true, &doc);
   sim_coll_insert (sim_coll_ensure ("config", "databases"), &doc);
   bson_destroy (&doc);
}

#define SIM_TRY(call)                                                                                                  \
   do {                                                                                                                \
      if (!(call)) {                                                                                                   \
         bson_snprintf (errbuf, errlen, "demo scenario: %s: %s", #call, err.message);                                  \
         goto fail;                                                                                                    \
      }                                                                                                                \
   } while (0)

/* app.stores' 60 documents: zip codes in the NYC range, the SFO range or elsewhere, a name and whether it is open. */
/* The demo's i-th ObjectId: a fixed time (2026-01-01T00:00:00Z plus i seconds) and eight bytes of the seeded
 * generator, so that a hashed _id places the same documents on the same shards in every fresh demo cluster (an
 * inserted document without _id gets a time- and process-based ObjectId). */
static void
sim_demo_oid (int i, bson_oid_t *out)
{
   uint8_t b[12];
   uint32_t t = 1767225600u + (uint32_t) i;
   uint64_t r = sim_rand ();
   for (int k = 0; k < 4; k++) {
      b[k] = (uint8_t) (t >> (24 - 8 * k));
   }
   for (int k = 0; k < 8; k++) {
      b[4 + k] = (uint8_t) (r >> (56 - 8 * k));
   }
   bson_oid_init_from_data (out, b);
}

static void
sim_demo_stores (void)
{
   for (int i = 0; i < 60; i++) {
      char zip[8], name[32];
      int r = (int) (sim_rand () % 3);
      int z = r == 0   ? 10001 + (int) (sim_rand () % 280)
              : r == 1 ? 94102 + (int) (sim_rand () % 86)
                       : 30000 + (int) (sim_rand () % 40000);
      bson_snprintf (zip, sizeof zip, "%05d", z);
      bson_snprintf (name, sizeof name, "store%02d", i);
      bson_t *doc =
         BCON_NEW ("zipcode", BCON_UTF8 (zip), "name", BCON_UTF8 (name), "open", BCON_BOOL (sim_rand () % 5 != 0));
      sim_crud_insert_one ("app", "stores", doc);
      bson_destroy (doc);
   }
}

/* app.users' 200 documents: uid 1..200, a name, a city of cities (five) and an age. */
static void
sim_demo_users (const char *const *cities)
{
   for (int i = 1; i <= 200; i++) {
      char name[32];
      bson_snprintf (name, sizeof name, "user%03d", i);
      bson_t *doc =
         BCON_NEW ("uid", BCON_INT32 (i), "name", BCON_UTF8 (name), "city", BCON_UTF8 (cities[sim_rand () % 5]), "age",
                   BCON_INT32 ((int32_t) (18 + sim_rand () % 60)));
      sim_crud_insert_one ("app", "users", doc);
      bson_destroy (doc);
   }
}

/* The demo's history: one aborted migration of app.users in config.changelog and the balancer's five recent rounds
 * (the fourth failed) in config.actionlog. */
static void
sim_demo_history (void)
{
   int64_t now = clock_wall_ms ();
   bson_t *doc =
      BCON_NEW ("step 1 of 6", BCON_INT32 (0), "min", "{", "uid", BCON_MINKEY, "}", "max", "{", "uid", BCON_INT64 (0),
                "}", "to", BCON_UTF8 ("shard03"), "from", BCON_UTF8 ("shard01"), "note", BCON_UTF8 ("aborted"),
                "errmsg", BCON_UTF8 ("Data transfer error: recipient shard timed out"));
   sim_changelog (false, "moveChunk.from", "app.users", "shard01", doc, now - 3600 * 1000);
   bson_destroy (doc);
   const char *flag = sim_ver_ge (60) ? "errorOccurred" : "errorOccured";
   for (int i = 0; i < 5; i++) {
      doc = bson_new ();
      if (i == 3) {
         BSON_APPEND_INT64 (doc, "executionTimeMillis", 12 + i * 7);
         BSON_APPEND_BOOL (doc, flag, true);
         BSON_APPEND_UTF8 (doc, "errmsg", "could not acquire collection lock for app.orders to migrate chunks");
      } else {
         sim_round_details (doc, 12 + i * 7, i == 4 ? 1 : 0, i == 4 ? 1 : 0);
      }
      sim_changelog (true, "balancer.round", "", "config", doc, now - (5 - i) * 10000);
      bson_destroy (doc);
   }
}

static bool
sim_demo (char *errbuf, size_t errlen)
{
   bson_error_t err;
   bson_t *key = NULL, *mid = NULL, *doc = NULL, *lo = NULL, *hi = NULL;
   bool ok = false;
   int64_t base = clock_wall_ms () - 2 * 86400 * 1000;
   int64_t ts[120];
   static const char *types[] = { "view", "click", "purchase", "signup" };
   static const char *cities[] = { "New York", "San Francisco", "Chicago", "Austin", "Seattle" };

   if (!sim_base (3, errbuf, errlen)) {
      return false;
   }
   SIM_TRY (sim_op_add_shard_to_zone ("shard01", "NYC", &err));
   SIM_TRY (sim_op_add_shard_to_zone ("shard02", "SFO", &err));
   sim_add_db ("app", "shard01");
   sim_add_db ("logs", "shard02");

   /* app.events: ascending key { ts: 1 }, five chunks. */
   key = BCON_NEW ("ts", BCON_INT32 (1));
   SIM_TRY (sim_op_shard_collection ("app.events", key, false, 0, false, &err));
   for (int i = 0; i < 120; i++) {
      ts[i] = base + (int64_t) i * 15 * 60 * 1000;
      doc = BCON_NEW ("ts", BCON_DATE_TIME (ts[i]), "type", BCON_UTF8 (types[sim_rand () % 4]), "uid",
                      BCON_INT32 ((int32_t) (1 + sim_rand () % 200)));
      sim_crud_insert_one ("app", "events", doc);
      bson_destroy (doc);
      doc = NULL;
   }
   static const int cuts[] = { 30, 60, 90, 105 };
   for (int i = 0; i < 4; i++) {
      mid = BCON_NEW ("ts", BCON_DATE_TIME (ts[cuts[i]]));
      SIM_TRY (sim_op_split ("app.events", mid, &err));
      bson_destroy (mid);
      mid = NULL;
   }
   static const struct {
      int at;
      const char *to;
   } moves[] = { { 30, "shard02" }, { 60, "shard03" }, { 90, "shard02" } };
   for (int i = 0; i < 3; i++) {
      mid = BCON_NEW ("ts", BCON_DATE_TIME (ts[moves[i].at]));
      SIM_TRY (sim_op_move_chunk ("app.events", mid, moves[i].to, &err));
      bson_destroy (mid);
      mid = NULL;
   }
   bson_destroy (key);

   /* app.users: hashed key, pre-split two chunks per shard. */
   key = BCON_NEW ("uid", BCON_UTF8 ("hashed"));
   SIM_TRY (sim_op_shard_collection ("app.users", key, false, 0, false, &err));
   sim_demo_users (cities);
   bson_destroy (key);

   /* app.orders: compound key { customer: 1, ts: 1 }, four chunks. */
   key = BCON_NEW ("customer", BCON_INT32 (1), "ts", BCON_INT32 (1));
   SIM_TRY (sim_op_shard_collection ("app.orders", key, false, 0, false, &err));
   for (int i = 0; i < 150; i++) {
      char cust[16];
      bson_snprintf (cust, sizeof cust, "c%03d", (int) (1 + sim_rand () % 50));
      doc = BCON_NEW ("customer", BCON_UTF8 (cust), "ts", BCON_DATE_TIME (base + (int64_t) i * 600000), "total",
                      BCON_DOUBLE ((double) (sim_rand () % 50000) / 100.0), "items",
                      BCON_INT32 ((int32_t) (1 + sim_rand () % 5)));
      sim_crud_insert_one ("app", "orders", doc);
      bson_destroy (doc);
      doc = NULL;
   }
   static const char *ocuts[] = { "c013", "c025", "c038" };
   for (int i = 0; i < 3; i++) {
      mid = BCON_NEW ("customer", BCON_UTF8 (ocuts[i]), "ts", BCON_MINKEY);
      SIM_TRY (sim_op_split ("app.orders", mid, &err));
      bson_destroy (mid);
      mid = NULL;
   }
   mid = BCON_NEW ("customer", BCON_UTF8 ("c013"), "ts", BCON_MINKEY);
   SIM_TRY (sim_op_move_chunk ("app.orders", mid, "shard02", &err));
   bson_destroy (mid);
   mid = BCON_NEW ("customer", BCON_UTF8 ("c038"), "ts", BCON_MINKEY);
   SIM_TRY (sim_op_move_chunk ("app.orders", mid, "shard03", &err));
   bson_destroy (mid);
   mid = NULL;
   bson_destroy (key);

   /* app.stores: zoned on { zipcode: 1 } — NYC on shard01, SFO on shard02; chunks follow the zone ranges. */
   lo = BCON_NEW ("zipcode", BCON_UTF8 ("10001"));
   hi = BCON_NEW ("zipcode", BCON_UTF8 ("10281"));
   SIM_TRY (sim_op_update_zone_range ("app.stores", lo, hi, "NYC", &err));
   bson_destroy (lo);
   bson_destroy (hi);
   lo = BCON_NEW ("zipcode", BCON_UTF8 ("94102"));
   hi = BCON_NEW ("zipcode", BCON_UTF8 ("94188"));
   SIM_TRY (sim_op_update_zone_range ("app.stores", lo, hi, "SFO", &err));
   bson_destroy (lo);
   bson_destroy (hi);
   lo = hi = NULL;
   key = BCON_NEW ("zipcode", BCON_INT32 (1));
   SIM_TRY (sim_op_shard_collection ("app.stores", key, false, 0, false, &err));
   sim_demo_stores ();
   /* Move the non-zoned gaps off the primary so every shard holds a share. */
   mid = BCON_NEW ("zipcode", BCON_UTF8 ("10281"));
   SIM_TRY (sim_op_move_chunk ("app.stores", mid, "shard03", &err));
   bson_destroy (mid);
   mid = BCON_NEW ("zipcode", BCON_UTF8 ("94188"));
   SIM_TRY (sim_op_move_chunk ("app.stores", mid, "shard03", &err));
   bson_destroy (mid);
   mid = NULL;
   bson_destroy (key);

   /* logs.requests: hashed _id; logs.archive stays unsharded on the primary. */
   key = BCON_NEW ("_id", BCON_UTF8 ("hashed"));
   SIM_TRY (sim_op_shard_collection ("logs.requests", key, false, 0, false, &err));
   for (int i = 0; i < 100; i++) {
      static const char *paths[] = { "/", "/login", "/api/orders", "/api/users", "/health" };
      bson_oid_t id;
      sim_demo_oid (i, &id);
      doc = BCON_NEW ("_id", BCON_OID (&id), "path", BCON_UTF8 (paths[sim_rand () % 5]), "status",
                      BCON_INT32 (sim_rand () % 10 ? 200 : 500), "ms", BCON_INT32 ((int32_t) (sim_rand () % 900)));
      sim_crud_insert_one ("logs", "requests", doc);
      bson_destroy (doc);
      doc = NULL;
   }
   for (int i = 0; i < 20; i++) {
      doc = BCON_NEW ("day", BCON_INT32 (i), "requests", BCON_INT32 ((int32_t) (sim_rand () % 100000)));
      sim_crud_insert_one ("logs", "archive", doc);
      bson_destroy (doc);
      doc = NULL;
   }
   bson_destroy (key);
   key = NULL;

   /* History: one aborted migration and the balancer's recent rounds (one failed). */
   sim_demo_history ();
   doc = NULL;
   sim_g.balancer_rounds = 5;
   ok = true;
fail:
   bson_destroy (key);
   bson_destroy (mid);
   bson_destroy (doc);
   bson_destroy (lo);
   bson_destroy (hi);
   return ok;
}

static bool
sim_large (char *errbuf, size_t errlen)
{
   int nshards = sim_g.large_shards, ncolls = sim_g.large_collections;
   int64_t nchunks = sim_g.large_chunks;
   if (nchunks < ncolls) {
      bson_snprintf (errbuf, errlen, "--large-chunks (%lld) must be at least --large-collections (%d)",
                     (long long) nchunks, ncolls);
      return false;
   }
   if (!sim_base (nshards, errbuf, errlen)) {
      return false;
   }
   char (*names)[32] = bson_malloc ((size_t) nshards * sizeof *names);
   for (int i = 0; i < nshards; i++) {
      sim_shard_name (i + 1, nshards, names[i], sizeof names[i]);
   }
   sim_coll_t *colls = sim_coll_get ("config", "collections");
   sim_coll_t *chunks = sim_coll_get ("config", "chunks");
   int per_db = 10;
   for (int c = 0; c < ncolls; c++) {
      char db[32], cname[32], ns[80];
      bson_snprintf (db, sizeof db, "db%03d", c / per_db);
      bson_snprintf (cname, sizeof cname, "coll%03d", c % per_db);
      bson_snprintf (ns, sizeof ns, "%s.%s", db, cname);
      if (c % per_db == 0) {
         sim_add_db (db, names[(c / per_db) % nshards]);
      }
      sim_coll_t *coll = sim_coll_ensure (db, cname);
      bson_t key = BSON_INITIALIZER, cdoc = BSON_INITIALIZER, *idx;
      BSON_APPEND_INT32 (&key, "k", 1);
      idx = BCON_NEW ("v", BCON_INT32 (2), "key", "{", "k", BCON_INT32 (1), "}", "name", "k_1");
      simq_docs_push_owned (&coll->indexes, idx);
      sim_collection_doc (ns, &key, false, coll->uuid, &cdoc);
      sim_coll_insert (colls, &cdoc);
      sim_shcoll_t sc;
      sim_shcoll_load (ns, &sc);
      int64_t n = nchunks / ncolls + (c < nchunks % ncolls ? 1 : 0);
      uint32_t s, i;
      sim_tick (&s, &i);
      for (int64_t j = 0; j < n; j++) {
         bson_t min = BSON_INITIALIZER, max = BSON_INITIALIZER, chunk = BSON_INITIALIZER;
         if (j == 0) {
            BSON_APPEND_MINKEY (&min, "k");
         } else {
            BSON_APPEND_INT64 (&min, "k", j * 1000);
         }
         if (j == n - 1) {
            BSON_APPEND_MAXKEY (&max, "k");
         } else {
            BSON_APPEND_INT64 (&max, "k", (j + 1) * 1000);
         }
         sim_chunk_build (&sc, &min, &max, names[(j + c) % nshards], 1, (uint32_t) j, s, i, &chunk);
         sim_coll_insert (chunks, &chunk);
         bson_destroy (&min);
         bson_destroy (&max);
         bson_destroy (&chunk);
      }
      sim_shcoll_destroy (&sc);
      bson_destroy (&key);
      bson_destroy (&cdoc);
   }
   bson_free (names);
   return true;
}

bool
sim_scenario_build (char *errbuf, size_t errlen)
{
   sim_g.rng = sim_g.seed * 0x9E3779B97F4A7C15ull + 1;
   sim_g.start_ms = clock_wall_ms ();
   bson_oid_init (&sim_g.process_id, NULL);
   bson_oid_init (&sim_g.cluster_id, NULL);
   if (!strcmp (sim_g.scenario, "demo")) {
      return sim_demo (errbuf, errlen);
   }
   if (!strcmp (sim_g.scenario, "large")) {
      return sim_large (errbuf, errlen);
   }
   return sim_base (sim_g.nshards, errbuf, errlen);
}
