/* advisor_load: fills a collection with documents of known shard-key properties, for the shard-key advisor's
 * integration test (tests/integration/advisor_sim.sh) and benchmark (bench/advisor.sh). Through the wire with
 * libmongoc's insert_many, in batches, then createIndexes for one candidate per property:
 *   ts      ascending (insertion number)           index {ts: 1} and {ts: "hashed"}
 *   r       random 63-bit integer (unique)         index {r: 1}
 *   lvl     4 values ("DEBUG" … "FATAL")           index {lvl: 1}
 *   z       zipf over 100,000 values, s = 1.1      index {z: 1}
 *   coarse  16 values, fine ascending              index {coarse: 1, fine: 1}
 * _id is an ObjectId made here, in insertion order. Deterministic (fixed seed).
 *
 * usage: advisor_load URI DB COLL N [BATCH] */
#include <math.h>
#include <mongoc/mongoc.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t load_rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
load_rng (void)
{
   load_rng_state ^= load_rng_state << 13;
   load_rng_state ^= load_rng_state >> 7;
   load_rng_state ^= load_rng_state << 17;
   return load_rng_state;
}

#define ZIPF_DOMAIN 100000

static double *load_zipf_cdf;

static void
load_zipf_init (void)
{
   double sum = 0, acc = 0;
   load_zipf_cdf = malloc (sizeof *load_zipf_cdf * ZIPF_DOMAIN);
   for (int k = 1; k <= ZIPF_DOMAIN; k++)
      sum += 1.0 / pow (k, 1.1);
   for (int k = 1; k <= ZIPF_DOMAIN; k++) {
      acc += 1.0 / pow (k, 1.1) / sum;
      load_zipf_cdf[k - 1] = acc;
   }
}

static int
load_zipf (void)
{
   double u = (double) (load_rng () >> 11) / 9007199254740992.0;
   int lo = 0, hi = ZIPF_DOMAIN - 1;
   while (lo < hi) {
      int mid = (lo + hi) / 2;
      if (load_zipf_cdf[mid] < u)
         lo = mid + 1;
      else
         hi = mid;
   }
   return lo + 1;
}

static bool
load_indexes (mongoc_database_t *db, const char *coll, bson_error_t *error)
{
   static const char *const specs[] = {
      "{\"key\": {\"ts\": 1}, \"name\": \"ts_1\"}",
      "{\"key\": {\"ts\": \"hashed\"}, \"name\": \"ts_hashed\"}",
      "{\"key\": {\"r\": 1}, \"name\": \"r_1\"}",
      "{\"key\": {\"lvl\": 1}, \"name\": \"lvl_1\"}",
      "{\"key\": {\"z\": 1}, \"name\": \"z_1\"}",
      "{\"key\": {\"coarse\": 1, \"fine\": 1}, \"name\": \"coarse_1_fine_1\"}",
   };
   bson_t cmd = BSON_INITIALIZER, arr, reply;
   bool ok;
   BSON_APPEND_UTF8 (&cmd, "createIndexes", coll);
   BSON_APPEND_ARRAY_BEGIN (&cmd, "indexes", &arr);
   for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
      char k[16];
      const char *key;
      bson_t *spec = bson_new_from_json ((const uint8_t *) specs[i], -1, error);
      if (!spec) {
         bson_append_array_end (&cmd, &arr);
         bson_destroy (&cmd);
         return false;
      }
      bson_uint32_to_string ((uint32_t) i, &key, k, sizeof k);
      BSON_APPEND_DOCUMENT (&arr, key, spec);
      bson_destroy (spec);
   }
   bson_append_array_end (&cmd, &arr);
   ok = mongoc_database_write_command_with_opts (db, &cmd, NULL, &reply, error);
   bson_destroy (&reply);
   bson_destroy (&cmd);
   return ok;
}

int
main (int argc, char **argv)
{
   static const char *const levels[] = { "DEBUG", "INFO", "WARN", "ERROR" };
   mongoc_client_t *client = NULL;
   mongoc_database_t *db = NULL;
   mongoc_collection_t *coll = NULL;
   bson_t **docs = NULL;
   bson_error_t error;
   long n, batch = 10000;
   int rc = 1;

   if (argc < 5) {
      fprintf (stderr, "usage: advisor_load URI DB COLL N [BATCH]\n");
      return 2;
   }
   n = atol (argv[4]);
   if (argc > 5)
      batch = atol (argv[5]);
   if (n < 0 || batch < 1) {
      fprintf (stderr, "advisor_load: bad N or BATCH\n");
      return 2;
   }
   mongoc_init ();
   load_zipf_init ();
   client = mongoc_client_new (argv[1]);
   if (!client) {
      fprintf (stderr, "advisor_load: bad URI %s\n", argv[1]);
      goto done;
   }
   db = mongoc_client_get_database (client, argv[2]);
   coll = mongoc_client_get_collection (client, argv[2], argv[3]);
   docs = calloc ((size_t) batch, sizeof *docs);
   for (long done_n = 0; done_n < n;) {
      long m = n - done_n < batch ? n - done_n : batch;
      bool ok;
      for (long j = 0; j < m; j++) {
         long i = done_n + j;
         bson_oid_t oid;
         bson_t *d = bson_new ();
         bson_oid_init (&oid, NULL);
         BSON_APPEND_OID (d, "_id", &oid);
         BSON_APPEND_INT64 (d, "ts", (int64_t) i);
         BSON_APPEND_INT64 (d, "r", (int64_t) (load_rng () >> 1));
         const char *lvl = levels[load_rng () % 4]; /* BSON_APPEND_UTF8 evaluates its value twice */
         BSON_APPEND_UTF8 (d, "lvl", lvl);
         BSON_APPEND_INT32 (d, "z", load_zipf ());
         BSON_APPEND_INT32 (d, "coarse", (int32_t) (load_rng () % 16));
         BSON_APPEND_INT64 (d, "fine", (int64_t) i);
         docs[j] = d;
      }
      ok = mongoc_collection_insert_many (coll, (const bson_t **) docs, (size_t) m, NULL, NULL, &error);
      for (long j = 0; j < m; j++)
         bson_destroy (docs[j]);
      if (!ok) {
         fprintf (stderr, "advisor_load: insert failed: %s\n", error.message);
         goto done;
      }
      done_n += m;
   }
   if (!load_indexes (db, argv[3], &error)) {
      fprintf (stderr, "advisor_load: createIndexes failed: %s\n", error.message);
      goto done;
   }
   rc = 0;
done:
   free (docs);
   free (load_zipf_cdf);
   mongoc_collection_destroy (coll);
   mongoc_database_destroy (db);
   mongoc_client_destroy (client);
   mongoc_cleanup ();
   return rc;
}
