/* shardsim's argument checks of shardCollection and reshardCollection, made before any metadata changes, in the
 * order of the server's code (docs/shardsim.md, "Fidelity review against the server's source", names each source).
 * Callers hold sim_g.lock. */
#include "tests/shardsim/sim_ddlcheck.h"

#include <stdlib.h>
#include <string.h>

bool
sim_check_key_pattern (const bson_t *key, bool unique, int *nhashed_out, bson_error_t *err)
{
   int nfields = 0, nhashed = 0;
   bson_iter_t it;
   bool bad = false;
   bson_iter_init (&it, key);
   while (bson_iter_next (&it)) {
      nfields++;
      if (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), "hashed")) {
         nhashed++;
      } else if (!BSON_ITER_HOLDS_NUMBER (&it) || bson_iter_as_double (&it) != 1.0) {
         bad = true;
      }
   }
   if (nfields == 0) {
      SIM_ERR (err, 72, "cannot have empty shard key");
      return false;
   }
   if (bad || nhashed > 1) {
      char *s = sim_bson_str (key);
      SIM_ERR (err, 72,
               "Unsupported shard key pattern %s. Pattern must either be a single hashed field, or a list of "
               "ascending fields",
               s);
      bson_free (s);
      return false;
   }
   if (nhashed && unique) {
      SIM_ERR (err, 72,
               "Hashed shard keys cannot be declared unique. It's possible to ensure uniqueness on the hashed field by "
               "declaring an additional (non-hashed) unique index on the field.");
      return false;
   }
   *nhashed_out = nhashed;
   return true;
}

bool
sim_check_simple_collation (const bson_t *cmd, const char *what, bson_error_t *err)
{
   bson_t coll;
   if (!docget_sub (cmd, "collation", BSON_TYPE_DOCUMENT, &coll)) {
      return true;
   }
   const char *locale = docget_utf8 (&coll, "locale", NULL);
   if (locale && !strcmp (locale, "simple")) {
      return true; /* CollatorFactoryInterface::makeFromBSON: no collator */
   }
   char *s = sim_bson_str (&coll);
   SIM_ERR (err, 2, "The collation for %s must be {locale: 'simple'}, but found: %s", what, s);
   bson_free (s);
   return false;
}

bool
sim_is_system_ns (const char *ns)
{
   const char *dot = strchr (ns, '.');
   return dot && !strncmp (dot + 1, "system.", 7) && strcmp (ns, "config.system.sessions") != 0;
}

/* True when zone names a zone of some shard or of one of ns's ranges. */
static bool
sim_zone_known (const char *ns, const char *zone)
{
   bool known = false;
   simq_docs_t docs;
   simq_docs_init (&docs);
   sim_shards_list (&docs);
   for (size_t i = 0; i < docs.n && !known; i++) {
      known = sim_shard_in_zone (docget_utf8 (docs.v[i], "_id", NULL), zone);
   }
   simq_docs_clear (&docs);
   sim_coll_t *tags = sim_coll_get ("config", "tags");
   if (!known && tags) {
      bson_t f = BSON_INITIALIZER;
      bson_error_t e;
      BSON_APPEND_UTF8 (&f, "ns", ns);
      BSON_APPEND_UTF8 (&f, "tag", zone);
      sim_coll_collect (tags, &f, &docs, &e);
      known = docs.n > 0;
      simq_docs_clear (&docs);
      bson_destroy (&f);
   }
   return known;
}

/* How many config.tags ranges ns has. */
static size_t
sim_zone_ranges_count (const char *ns)
{
   size_t n = 0;
   sim_coll_t *tags = sim_coll_get ("config", "tags");
   if (tags) {
      simq_docs_t docs;
      bson_t f = BSON_INITIALIZER;
      bson_error_t e;
      simq_docs_init (&docs);
      BSON_APPEND_UTF8 (&f, "ns", ns);
      sim_coll_collect (tags, &f, &docs, &e);
      n = docs.n;
      simq_docs_clear (&docs);
      bson_destroy (&f);
   }
   return n;
}

/* validateZones: every zone of the zones array exists (2 "Zone must already exist"), then, sorted by min, no range
 * starts before the previous one ends (checkForOverlappingZones, 2 "Zone ranges must not overlap"). */
static bool
sim_reshard_check_zones (const char *ns, const bson_t *zones, bson_t *reply)
{
   bson_iter_t z;
   simq_docs_t ranges;
   bool ok = true;
   simq_docs_init (&ranges);
   bson_iter_init (&z, zones);
   while (ok && bson_iter_next (&z)) {
      bson_t zd, zmin, zmax;
      uint32_t l;
      const uint8_t *d;
      if (!BSON_ITER_HOLDS_DOCUMENT (&z)) {
         sim_reply_error (reply, 14, "BSON field 'zones.%s' is the wrong type, expected type 'object'",
                          bson_iter_key (&z));
         ok = false;
         break;
      }
      bson_iter_document (&z, &l, &d);
      bson_init_static (&zd, d, l);
      const char *zone = docget_utf8 (&zd, "zone", NULL);
      if (!zone || !docget_sub (&zd, "min", BSON_TYPE_DOCUMENT, &zmin) ||
          !docget_sub (&zd, "max", BSON_TYPE_DOCUMENT, &zmax)) {
         sim_reply_error (reply, 40414, "BSON field 'ReshardingZoneType.%s' is missing but a required field",
                          !zone                                                 ? "zone"
                          : !docget_sub (&zd, "min", BSON_TYPE_DOCUMENT, &zmin) ? "min"
                                                                                : "max");
         ok = false;
      } else if (!sim_zone_known (ns, zone)) {
         sim_reply_error (reply, 2, "Zone must already exist");
         ok = false;
      } else {
         simq_docs_push_owned (&ranges, bson_copy (&zd));
      }
   }
   if (ok && ranges.n > 1) {
      qsort (ranges.v, ranges.n, sizeof *ranges.v, sim_doc_ptr_cmp_min);
      for (size_t i = 1; i < ranges.n && ok; i++) {
         bson_t pmax, cmin;
         docget_sub (ranges.v[i - 1], "max", BSON_TYPE_DOCUMENT, &pmax);
         docget_sub (ranges.v[i], "min", BSON_TYPE_DOCUMENT, &cmin);
         if (order_docs (&pmax, &cmin) > 0) {
            sim_reply_error (reply, 2, "Zone ranges must not overlap");
            ok = false;
         }
      }
   }
   simq_docs_clear (&ranges);
   return ok;
}

bool
sim_reshard_check (const bson_t *cmd, const char *ns, const bson_t *cur_key, const bson_t *newkey, bool *noop,
                   bson_t *reply)
{
   bson_iter_t it;
   bson_error_t err;
   bson_t zones;
   int nhashed;
   *noop = false;
   if (bson_iter_init_find (&it, cmd, "unique") && bson_iter_as_bool (&it)) {
      sim_reply_error (reply, 2, "The unique field must be false");
      return false;
   }
   if (!sim_check_simple_collation (cmd, "reshardCollection", &err)) {
      sim_admin_error (reply, &err);
      return false;
   }
   bool have_zones = docget_sub (cmd, "zones", BSON_TYPE_ARRAY, &zones);
   if (!have_zones && sim_zone_ranges_count (ns) > 0) {
      sim_reply_error (reply, 2, "Must specify value for zones field");
      return false;
   }
   if (!sim_check_key_pattern (newkey, false, &nhashed, &err)) {
      sim_admin_error (reply, &err);
      return false;
   }
   bool force = bson_iter_init_find (&it, cmd, "forceRedistribution") && bson_iter_as_bool (&it);
   if (bson_equal (newkey, cur_key) && !(force && sim_ver_ge (80))) {
      *noop = true; /* the existing shard key matches: no resharding operation */
      return true;
   }
   return !have_zones || sim_reshard_check_zones (ns, &zones, reply);
}
