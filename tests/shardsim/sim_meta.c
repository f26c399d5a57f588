/* shardsim's routing metadata commands: getShardVersion (cluster_get_shard_version_cmd.cpp: a database's primary
 * shard and version, or a sharded collection's version, epoch, timestamp and, with fullMetadata, its chunks' bounds)
 * and checkMetadataConsistency (7.0+, cluster_check_metadata_consistency_cmd.cpp: a cursor of inconsistencies, which
 * shardsim's metadata never has). Callers hold sim_g.lock. */
#include "tests/shardsim/sim_crud.h"
#include "tests/shardsim/sim_ddlcheck.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

/* The config.databases document of db into out (initialised always); false when there is none. */
static bool
sim_meta_database (const char *db, bson_t *out)
{
   sim_pos_t pos;
   sim_coll_t *dbs = sim_coll_get ("config", "databases");
   bson_init (out);
   if (!dbs || !sim_find_by_sid (dbs, db, &pos)) {
      return false;
   }
   bson_t view;
   sim_coll_view (dbs, pos, &view);
   bson_copy_to_excluding_noinit (&view, out, "", NULL);
   return true;
}

/* getShardVersion of a sharded collection: version (Timestamp major|minor), versionEpoch, versionTimestamp (5.0+),
 * chunks [[min, max], ...] with fullMetadata. */
static void
sim_meta_collection_version (const sim_shcoll_t *sc, bool full, bson_t *reply)
{
   uint32_t major = 0, minor = 0, ts = 0, ti = 0;
   bson_iter_t it;
   sim_chunk_max_version (sc, &major, &minor);
   BSON_APPEND_TIMESTAMP (reply, "version", major, minor);
   BSON_APPEND_OID (reply, "versionEpoch", &sc->epoch);
   if (sim_ver_ge (50) && bson_iter_init_find (&it, &sc->doc, "timestamp") && BSON_ITER_HOLDS_TIMESTAMP (&it)) {
      bson_iter_timestamp (&it, &ts, &ti);
      BSON_APPEND_TIMESTAMP (reply, "versionTimestamp", ts, ti);
   }
   if (!full) {
      return;
   }
   simq_docs_t chunks;
   bson_t arr, pair;
   char key[16];
   const char *kp;
   simq_docs_init (&chunks);
   sim_chunks_of (sc, &chunks);
   BSON_APPEND_ARRAY_BEGIN (reply, "chunks", &arr);
   for (size_t i = 0; i < chunks.n; i++) {
      bson_t min, max;
      bson_uint32_to_string ((uint32_t) i, &kp, key, sizeof key);
      BSON_APPEND_ARRAY_BEGIN (&arr, kp, &pair);
      if (docget_sub (chunks.v[i], "min", BSON_TYPE_DOCUMENT, &min)) {
         BSON_APPEND_DOCUMENT (&pair, "0", &min);
      }
      if (docget_sub (chunks.v[i], "max", BSON_TYPE_DOCUMENT, &max)) {
         BSON_APPEND_DOCUMENT (&pair, "1", &max);
      }
      bson_append_array_end (&arr, &pair);
   }
   bson_append_array_end (reply, &arr);
   simq_docs_clear (&chunks);
}

void
sim_cmd_get_shard_version (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, ctx->cmd) || !bson_iter_next (&it) || !BSON_ITER_HOLDS_UTF8 (&it)) {
      bson_type_t t = bson_iter_type (&it);
      sim_reply_error (reply, 2, "namespace has invalid type %s", /* typeName() */
                       t == BSON_TYPE_INT32    ? "int"
                       : t == BSON_TYPE_INT64  ? "long"
                       : t == BSON_TYPE_DOUBLE ? "double"
                       : t == BSON_TYPE_BOOL   ? "bool"
                       : t == BSON_TYPE_NULL   ? "null"
                                               : "object");
      return;
   }
   const char *ns = bson_iter_utf8 (&it, NULL);
   bool full = bson_iter_init_find (&it, ctx->cmd, "fullMetadata") && bson_iter_as_bool (&it);
   const char *dot = strchr (ns, '.');
   if (!dot || !dot[1]) {
      /* a database: its primary shard and version */
      char db[128];
      bson_t doc, ver;
      bson_strncpy (db, ns, dot && (size_t) (dot - ns) < sizeof db ? (size_t) (dot - ns) + 1 : sizeof db);
      if (!sim_meta_database (db, &doc)) {
         bson_destroy (&doc);
         sim_reply_error (reply, 26, "database %s not found", db);
         return;
      }
      const char *primary = docget_utf8 (&doc, "primary", NULL);
      BSON_APPEND_UTF8 (reply, "primaryShard", primary ? primary : "");
      if (docget_sub (&doc, "version", BSON_TYPE_DOCUMENT, &ver)) {
         BSON_APPEND_DOCUMENT (reply, "version", &ver);
      }
      bson_destroy (&doc);
      sim_reply_ok (reply);
      return;
   }
   sim_shcoll_t sc;
   if (!sim_shcoll_load (ns, &sc) || docget_bool (&sc.doc, "unsplittable")) {
      sim_shcoll_destroy (&sc);
      sim_not_sharded (reply, ns); /* 118 "Collection <ns> is not sharded." (cm.isSharded()) */
      return;
   }
   sim_meta_collection_version (&sc, full, reply);
   sim_shcoll_destroy (&sc);
   sim_reply_ok (reply);
}

/* The IDL's numeric types: long, int, decimal, double (libbson's BSON_ITER_HOLDS_NUMBER leaves decimal out). */
static bool
sim_meta_is_numeric (const bson_iter_t *it)
{
   return BSON_ITER_HOLDS_NUMBER (it) || BSON_ITER_HOLDS_DECIMAL128 (it);
}

/* IDLParserContext::throwBadType: 14 "BSON field 'checkMetadataConsistency.<path>' is the wrong type '<type>',
 * expected types '[<types>]'" (the newest idl_parser.cpp closes with "]'"; 7.x-era revisions wrote "']"). */
static void
sim_meta_bad_type (const char *path, const bson_iter_t *it, const char *types, bson_t *reply)
{
   sim_reply_error (reply, 14, "BSON field 'checkMetadataConsistency.%s' is the wrong type '%s', expected types '[%s]'",
                    path, simq_type_name (bson_iter_type (it)), types);
}

/* BSONElement::exactNumberLong (parseIntegerElementToLong) of a numeric field: 9 FailedToParse "Expected an integer:
 * <field>: <value>" for a double with a fraction, "Cannot represent as a 64-bit integer: ..." out of range (a decimal
 * that is not an integer too). The value is written as StringBuilder::appendDoubleNice writes it ("%.16g", ".0" when
 * that has no '.', 'E' or 'N'). */
static bool
sim_meta_exact_long (const char *field, const bson_iter_t *it, int64_t *out, bson_t *reply)
{
   if (BSON_ITER_HOLDS_DOUBLE (it)) {
      double d = bson_iter_double (it);
      char text[64];
      bson_snprintf (text, sizeof text, "%.16g", d);
      if (!strchr (text, '.') && !strchr (text, 'E') && !strchr (text, 'N')) {
         bson_strncpy (text + strlen (text), ".0", sizeof text - strlen (text));
      }
      if (d != d) {
         sim_reply_error (reply, 9, "Expected an integer, but found NaN in: %s: %s", field, text);
         return false;
      }
      if (d >= 9223372036854775808.0 || d < -9223372036854775808.0) {
         sim_reply_error (reply, 9, "Cannot represent as a 64-bit integer: %s: %s", field, text);
         return false;
      }
      if (d != (double) (int64_t) d) {
         sim_reply_error (reply, 9, "Expected an integer: %s: %s", field, text);
         return false;
      }
      *out = (int64_t) d;
      return true;
   }
   if (BSON_ITER_HOLDS_DECIMAL128 (it)) {
      bson_decimal128_t dec;
      char text[BSON_DECIMAL128_STRING];
      char *end = NULL;
      bson_iter_decimal128 (it, &dec);
      bson_decimal128_to_string (&dec, text);
      errno = 0;
      long long v = strtoll (text, &end, 10);
      if (!end || *end || end == text || ((v == LLONG_MAX || v == LLONG_MIN) && errno == ERANGE)) {
         sim_reply_error (reply, 9, "Cannot represent as a 64-bit integer: %s: %s", field, text);
         return false;
      }
      *out = (int64_t) v;
      return true;
   }
   *out = bson_iter_as_int64 (it);
   return true;
}

/* checkMetadataConsistency's request as its IDL (check_metadata_consistency.idl, CommonCheckMetadataRequestFields in
 * metadata_consistency_types.idl) parses it on 9.0, field by field in the command's order: the first field a collection
 * name or 1 (IDLParserContext::checkAndAssertCollectionName: 2 "Invalid command format: ...", 14 for another type,
 * 2 before 9.0); checkIndexes and checkRangeDeletionIndexes safeBool; dbMetadataLockMaxTimeMS exactInt64 in
 * [0, 2^31 - 1] (51024 from the generated validator); cursor an object whose batchSize is a safeInt64 >= 0;
 * performStrictChunkChecksIfBelowThreshold a number (the 9.0 manual: an integer; its IDL was not found). Null and
 * undefined values count as absent (checkAndAssertTypes); other fields are not checked (strict: false). Writes the
 * namespace into ns and the batch size (-1: none) into batch; false with reply set on an error. */
static bool
sim_meta_parse (sim_ctx_t *ctx, char *ns, size_t nslen, int64_t *batch, bson_t *reply)
{
   bson_iter_t it, c;
   int64_t v;
   *batch = -1;
   if (!bson_iter_init (&it, ctx->cmd) || !bson_iter_next (&it)) {
      sim_reply_error (reply, 2, "checkMetadataConsistency needs a value");
      return false;
   }
   /* the namespace: <db>.$cmd.aggregate for the cluster (admin) and database levels, <db>.<coll> for a collection */
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      bson_snprintf (ns, nslen, "%s.%s", ctx->db, bson_iter_utf8 (&it, NULL));
   } else if (BSON_ITER_HOLDS_BINARY (&it) && sim_ver_ge (90)) {
      bson_subtype_t sub;
      uint32_t len;
      const uint8_t *data;
      bson_iter_binary (&it, &sub, &len, &data);
      if (sub == BSON_SUBTYPE_UUID) {
         sim_reply_error (reply, 2, "Collection name must be provided. UUID is not valid in this context");
         return false;
      }
      sim_reply_error (reply, 14, "collection name has invalid type binData");
      return false;
   } else if (sim_meta_is_numeric (&it)) {
      if (bson_iter_as_double (&it) != 1.0) {
         sim_reply_error (reply, 2,
                          "Invalid command format: the 'checkMetadataConsistency' field must specify a collection "
                          "name or 1");
         return false;
      }
      bson_snprintf (ns, nslen, "%s.$cmd.aggregate", ctx->db);
   } else {
      sim_reply_error (reply, sim_ver_ge (90) ? 14 : 2, "collection name has invalid type %s",
                       simq_type_name (bson_iter_type (&it)));
      return false;
   }
   while (bson_iter_next (&it)) {
      const char *key = bson_iter_key (&it);
      bool absent = BSON_ITER_HOLDS_NULL (&it) || BSON_ITER_HOLDS_UNDEFINED (&it);
      if (!strcmp (key, "cursor")) {
         if (absent) {
            continue;
         }
         if (!BSON_ITER_HOLDS_DOCUMENT (&it)) {
            sim_reply_error (reply, 14,
                             "BSON field 'checkMetadataConsistency.cursor' is the wrong type '%s', expected type "
                             "'object'",
                             simq_type_name (bson_iter_type (&it)));
            return false;
         }
         if (bson_iter_recurse (&it, &c) && bson_iter_find (&c, "batchSize") && !BSON_ITER_HOLDS_NULL (&c) &&
             !BSON_ITER_HOLDS_UNDEFINED (&c)) {
            if (!sim_meta_is_numeric (&c)) {
               if (sim_ver_ge (90)) {
                  sim_meta_bad_type ("cursor.batchSize", &c, "long, int, decimal, double", reply);
                  return false;
               }
               continue;
            }
            *batch = bson_iter_as_int64 (&c);
            if (*batch < 0 && sim_ver_ge (90)) {
               sim_reply_error (reply, 51024,
                                "BSON field 'checkMetadataConsistency.cursor.batchSize' value must be >= 0, actual "
                                "value '%lld'",
                                (long long) *batch);
               return false;
            }
         }
         continue;
      }
      if (!sim_ver_ge (90) || absent) {
         continue;
      }
      if (!strcmp (key, "checkIndexes") || !strcmp (key, "checkRangeDeletionIndexes")) {
         if (!sim_meta_is_numeric (&it) && !BSON_ITER_HOLDS_BOOL (&it)) {
            sim_meta_bad_type (key, &it, "bool, long, int, decimal, double", reply);
            return false;
         }
      } else if (!strcmp (key, "dbMetadataLockMaxTimeMS")) {
         if (!sim_meta_is_numeric (&it)) {
            sim_meta_bad_type (key, &it, "long, int, decimal, double", reply);
            return false;
         }
         if (!sim_meta_exact_long (key, &it, &v, reply)) {
            return false;
         }
         if (v < 0 || v > 2147483647) {
            sim_reply_error (reply, 51024,
                             "BSON field 'checkMetadataConsistency.dbMetadataLockMaxTimeMS' value must be %s %s, "
                             "actual value '%lld'",
                             v < 0 ? ">=" : "<=", v < 0 ? "0" : "2147483647", (long long) v);
            return false;
         }
      } else if (!strcmp (key, "performStrictChunkChecksIfBelowThreshold") && !sim_meta_is_numeric (&it)) {
         sim_meta_bad_type (key, &it, "long, int, decimal, double", reply);
         return false;
      }
   }
   return true;
}

void
sim_cmd_check_metadata_consistency (sim_ctx_t *ctx, bson_t *reply)
{
   char ns[300];
   int64_t batch;
   simq_docs_t none;
   if (!sim_meta_parse (ctx, ns, sizeof ns, &batch, reply)) {
      return;
   }
   if (!strcmp (ctx->db, "admin") && strcmp (ns, "admin.$cmd.aggregate") != 0) {
      sim_reply_error (reply, 73,
                       "checkMetadataConsistency command on admin database can only be run without collection "
                       "name. Found unexpected collection name: %s",
                       ns + strlen ("admin."));
      return;
   }
   if (strcmp (ctx->db, "admin") != 0) {
      bson_t doc;
      bool known = sim_meta_database (ctx->db, &doc);
      bson_destroy (&doc);
      if (!known) {
         sim_reply_error (reply, 26, "database %s not found", ctx->db);
         return;
      }
   }
   simq_docs_init (&none);
   sim_reply_cursor (reply, ns, &none, batch, true);
}
