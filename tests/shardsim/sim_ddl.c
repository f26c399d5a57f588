/* shardsim's catalog commands: listCollections, listIndexes, createIndexes, dropIndexes, drop, create, collMod,
 * dropDatabase, dbStats, and the currentOp and killOp commands. Callers hold sim_g.lock. */
#include "tests/shardsim/sim_admin.h"
#include "tests/shardsim/sim_crud.h"

#include <stdlib.h>
#include <string.h>

void
sim_cmd_list_collections (sim_ctx_t *ctx, bson_t *reply)
{
   bson_t filter;
   bool have_filter = docget_sub (ctx->cmd, "filter", BSON_TYPE_EOD, &filter) && !bson_empty (&filter);
   bool name_only = docget_bool (ctx->cmd, "nameOnly");
   bson_t cursor;
   int64_t batch = docget_sub (ctx->cmd, "cursor", BSON_TYPE_EOD, &cursor) ? docget_int (&cursor, "batchSize", -1) : -1;
   simq_docs_t out;
   simq_docs_init (&out);
   for (size_t i = 0; i < sim_g.ncolls; i++) {
      sim_coll_t *c = sim_g.colls[i];
      if (strcmp (c->db, ctx->db) != 0) {
         continue;
      }
      bson_t *d = bson_new ();
      bson_t sub;
      BSON_APPEND_UTF8 (d, "name", c->name);
      BSON_APPEND_UTF8 (d, "type", "collection");
      if (!name_only) {
         BSON_APPEND_DOCUMENT_BEGIN (d, "options", &sub);
         bson_append_document_end (d, &sub);
         BSON_APPEND_DOCUMENT_BEGIN (d, "info", &sub);
         BSON_APPEND_BOOL (&sub, "readOnly", false);
         BSON_APPEND_BINARY (&sub, "uuid", BSON_SUBTYPE_UUID, c->uuid, 16);
         bson_append_document_end (d, &sub);
         BSON_APPEND_DOCUMENT (d, "idIndex", c->indexes.v[0]);
      }
      bool keep = true;
      bson_error_t err;
      if (have_filter && !simq_match (d, &filter, &keep, &err)) {
         keep = false;
      }
      if (keep) {
         simq_docs_push_owned (&out, d);
      } else {
         bson_destroy (d);
      }
   }
   char *ns = bson_strdup_printf ("%s.$cmd.listCollections", ctx->db);
   sim_reply_cursor (reply, ns, &out, batch, false);
   bson_free (ns);
   simq_docs_clear (&out);
}

void
sim_cmd_list_indexes (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   if (!sim_target (ctx, reply, &name)) {
      return;
   }
   sim_coll_t *c = sim_coll_get (ctx->db, name);
   if (!c) {
      sim_reply_error (reply, 26, "ns does not exist: %s.%s", ctx->db, name);
      return;
   }
   simq_docs_t out;
   simq_docs_init (&out);
   for (size_t i = 0; i < c->indexes.n; i++) {
      simq_docs_push_copy (&out, c->indexes.v[i]);
   }
   sim_reply_cursor (reply, c->ns, &out, -1, false);
   simq_docs_clear (&out);
}

static void
sim_index_remove (sim_coll_t *c, int i)
{
   bson_destroy (c->indexes.v[i]);
   memmove (&c->indexes.v[i], &c->indexes.v[i + 1], (c->indexes.n - (size_t) i - 1) * sizeof c->indexes.v[0]);
   c->indexes.n--;
}

/* The fields an index specification may hold (index_key_validate.cpp validateIndexSpec's allowedFieldNames). */
static const char *const sim_index_fields[] = { "key",
                                                "name",
                                                "v",
                                                "unique",
                                                "sparse",
                                                "background",
                                                "ns",
                                                "partialFilterExpression",
                                                "expireAfterSeconds",
                                                "storageEngine",
                                                "collation",
                                                "weights",
                                                "default_language",
                                                "language_override",
                                                "textIndexVersion",
                                                "2dsphereIndexVersion",
                                                "bits",
                                                "min",
                                                "max",
                                                "bucketSize",
                                                "hidden",
                                                "wildcardProjection",
                                                "dropDups",
                                                "coarsestIndexedLevel",
                                                "finestIndexedLevel",
                                                "prepareUnique",
                                                "clustered",
                                                "originalSpec" };

static bool
sim_index_field_known (const char *k)
{
   for (size_t i = 0; i < sizeof sim_index_fields / sizeof sim_index_fields[0]; i++) {
      if (!strcmp (k, sim_index_fields[i])) {
         return true;
      }
   }
   return false;
}

/* Whether option k is part of an index's signature (IndexDescriptor::compareIndexOptions): the collation always;
 * unique, sparse, partialFilterExpression and wildcardProjection from FCV 4.7/4.9/5.0 (5.0 here). */
static bool
sim_index_identifying (const char *k)
{
   return !strcmp (k, "collation") ||
          (sim_ver_ge (50) && (!strcmp (k, "unique") || !strcmp (k, "sparse") ||
                               !strcmp (k, "partialFilterExpression") || !strcmp (k, "wildcardProjection")));
}

/* Whether option k of a and b differ: unique and sparse by truth value, the others by value (absent differs). */
static bool
sim_index_opt_differs (const bson_t *a, const bson_t *b, const char *k)
{
   bson_iter_t x, y;
   bool hx = bson_iter_init_find (&x, a, k), hy = bson_iter_init_find (&y, b, k);
   if (!strcmp (k, "unique") || !strcmp (k, "sparse")) {
      return (hx && bson_iter_as_bool (&x)) != (hy && bson_iter_as_bool (&y));
   }
   return hx != hy || (hx && order_values (bson_iter_value (&x), bson_iter_value (&y)) != 0);
}

/* IndexDescriptor::compareIndexOptions of a candidate spec against an existing one: 0 kDifferent (another key or
 * identifying option), 1 kEquivalent, 2 kIdentical (every other option too; v, key, name, ns, background aside). */
static int
sim_index_compare (const bson_t *cand, const bson_t *existing)
{
   static const char *const ident[] = { "collation", "unique", "sparse", "partialFilterExpression",
                                        "wildcardProjection" };
   bson_t k1, k2;
   bson_iter_t it;
   if (!docget_sub (cand, "key", BSON_TYPE_DOCUMENT, &k1) || !docget_sub (existing, "key", BSON_TYPE_DOCUMENT, &k2) ||
       !bson_equal (&k1, &k2)) {
      return 0;
   }
   for (size_t i = 0; i < sizeof ident / sizeof ident[0]; i++) {
      if (sim_index_identifying (ident[i]) && sim_index_opt_differs (cand, existing, ident[i])) {
         return 0;
      }
   }
   size_t nc = 0, ne = 0;
   for (int pass = 0; pass < 2; pass++) {
      bson_iter_init (&it, pass ? existing : cand);
      while (bson_iter_next (&it)) {
         const char *k = bson_iter_key (&it);
         if (!strcmp (k, "v") || !strcmp (k, "key") || !strcmp (k, "name") || !strcmp (k, "ns") ||
             !strcmp (k, "background") || sim_index_identifying (k)) {
            continue;
         }
         *(pass ? &ne : &nc) += 1;
         if (!pass && sim_index_opt_differs (cand, existing, k)) {
            return 1;
         }
      }
   }
   return nc == ne ? 2 : 1;
}

/* The conflict error of createIndexes (IndexCatalogImpl::_doesSpecConflictWithExisting) into errmsg and *code. */
static void
sim_index_conflict (const bson_t *cand, const bson_t *existing, int kind, char *errmsg, size_t errlen, int *code)
{
   char *a = sim_bson_str (cand), *b = sim_bson_str (existing);
   if (kind == 0) {
      *code = 86;
      bson_snprintf (errmsg, errlen,
                     "An existing index has the same name as the requested index. %sRequested index: %s, existing "
                     "index: %s",
                     sim_ver_ge (60) ? "When index names are not specified, they are auto generated and can cause "
                                       "conflicts. Please refer to our documentation. "
                                     : "",
                     a, b);
   } else if (kind == 1) {
      *code = 85;
      bson_snprintf (errmsg, errlen,
                     "An equivalent index already exists with the same name but different options. Requested index: "
                     "%s, existing index: %s",
                     a, b);
   } else if (kind == 3) {
      *code = 85;
      bson_snprintf (errmsg, errlen,
                     "An equivalent index already exists with a different name and options. Requested index: %s, "
                     "existing index: %s",
                     a, b);
   } else {
      *code = 85;
      bson_snprintf (errmsg, errlen, "Index already exists with a different name: %s",
                     docget_utf8 (existing, "name", ""));
   }
   bson_free (a);
   bson_free (b);
}

/* Adds an index spec to c; true without a change when an identical index exists; false with the server's message
 * and code on a spec it refuses: an unknown field (197), the same name with another key or signature (86), the same
 * name and signature with other options (85), the same signature under another name (85). */
static bool
sim_index_add (sim_coll_t *c, const bson_t *spec, char *errmsg, size_t errlen, int *code)
{
   bson_iter_t it;
   const char *name =
      bson_iter_init_find (&it, spec, "name") && BSON_ITER_HOLDS_UTF8 (&it) ? bson_iter_utf8 (&it, NULL) : NULL;
   bson_t key;
   if (!name || !docget_sub (spec, "key", BSON_TYPE_EOD, &key) || bson_empty (&key)) {
      bson_snprintf (errmsg, errlen, "Error in specification %s", name ? name : "(no name)");
      *code = 9;
      return false;
   }
   bson_iter_init (&it, spec);
   while (bson_iter_next (&it)) {
      if (!sim_index_field_known (bson_iter_key (&it))) {
         char *s = sim_bson_str (spec);
         bson_snprintf (errmsg, errlen,
                        "Error in specification %s :: caused by :: The field '%s' is not valid for an index "
                        "specification. Specification: %s",
                        s, bson_iter_key (&it), s);
         bson_free (s);
         *code = 197;
         return false;
      }
   }
   bson_t *d = bson_new ();
   BSON_APPEND_INT32 (d, "v", 2);
   BSON_APPEND_DOCUMENT (d, "key", &key);
   BSON_APPEND_UTF8 (d, "name", name);
   /* the options as given (unique, sparse, hidden, expireAfterSeconds, ...), as listIndexes shows them */
   bson_iter_init (&it, spec);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (strcmp (k, "key") != 0 && strcmp (k, "name") != 0 && strcmp (k, "v") != 0) {
         bson_append_value (d, k, -1, bson_iter_value (&it));
      }
   }
   int conflict = -1; /* 0, 1: same name (different, equivalent); 2, 3: other name (identical, equivalent) */
   size_t with = 0;
   for (size_t i = 0; i < c->indexes.n && conflict < 0; i++) {
      if (!strcmp (docget_utf8 (c->indexes.v[i], "name", ""), name)) {
         int cmp = sim_index_compare (d, c->indexes.v[i]);
         if (cmp == 2) {
            bson_destroy (d); /* "Identical index already exists": not an error */
            return true;
         }
         conflict = cmp;
         with = i;
      }
   }
   for (size_t i = 0; i < c->indexes.n && conflict < 0; i++) {
      int cmp = sim_index_compare (d, c->indexes.v[i]);
      if (cmp) {
         conflict = cmp == 2 ? 2 : 3;
         with = i;
      }
   }
   if (conflict >= 0) {
      sim_index_conflict (d, c->indexes.v[with], conflict, errmsg, errlen, code);
      bson_destroy (d);
      return false;
   }
   simq_docs_push_owned (&c->indexes, d);
   return true;
}

void
sim_cmd_create_indexes (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_iter_t it, a;
   char primary[64], errmsg[4096];
   if (!sim_target (ctx, reply, &name)) {
      return;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "indexes") || !BSON_ITER_HOLDS_ARRAY (&it)) {
      sim_reply_error (reply, 40414, "BSON field 'createIndexes.indexes' is missing but a required field");
      return;
   }
   if (!sim_db_ensure (ctx->db, primary)) {
      sim_reply_error (reply, 70, "No shards found");
      return;
   }
   bool created = !sim_coll_get (ctx->db, name);
   sim_coll_t *c = sim_coll_ensure (ctx->db, name);
   int before = (int) c->indexes.n;
   bson_iter_recurse (&it, &a);
   while (bson_iter_next (&a)) {
      bson_t spec;
      uint32_t l;
      const uint8_t *d;
      int code = 0;
      if (!BSON_ITER_HOLDS_DOCUMENT (&a)) {
         continue;
      }
      bson_iter_document (&a, &l, &d);
      bson_init_static (&spec, d, l);
      if (!sim_index_add (c, &spec, errmsg, sizeof errmsg, &code)) {
         while ((int) c->indexes.n > before) { /* all or nothing */
            sim_index_remove (c, (int) c->indexes.n - 1);
         }
         sim_reply_error (reply, code, "%s", errmsg);
         return;
      }
   }
   /* a unique index over documents that break it fails to build, and nothing of the command stays */
   sim_dupkey_t dup;
   sim_dupkey_init (&dup);
   if ((int) c->indexes.n > before && !sim_coll_unique_verify (c, &dup)) {
      while ((int) c->indexes.n > before) {
         sim_index_remove (c, (int) c->indexes.n - 1);
      }
      sim_reply_dupkey_error (reply, c, &dup, NULL);
      sim_dupkey_destroy (&dup);
      return;
   }
   sim_dupkey_destroy (&dup);
   sim_shard_stat_t *st = NULL;
   size_t n = sim_coll_shard_stats (c->ns, &st);
   bson_t raw;
   BSON_APPEND_DOCUMENT_BEGIN (reply, "raw", &raw);
   for (size_t i = 0; i < n; i++) {
      bson_t sdoc, r;
      char host[256];
      bson_strncpy (host, st[i].shard, sizeof host);
      if (sim_shard_get (st[i].shard, &sdoc)) {
         if (bson_iter_init_find (&it, &sdoc, "host") && BSON_ITER_HOLDS_UTF8 (&it)) {
            bson_strncpy (host, bson_iter_utf8 (&it, NULL), sizeof host);
         }
         bson_destroy (&sdoc);
      }
      BSON_APPEND_DOCUMENT_BEGIN (&raw, host, &r);
      BSON_APPEND_BOOL (&r, "createdCollectionAutomatically", created);
      BSON_APPEND_INT32 (&r, "numIndexesBefore", created ? 1 : before);
      BSON_APPEND_INT32 (&r, "numIndexesAfter", (int32_t) c->indexes.n);
      if (before == (int) c->indexes.n) {
         BSON_APPEND_UTF8 (&r, "note", "all indexes already exist");
      } else {
         BSON_APPEND_UTF8 (&r, "commitQuorum", "votingMembers");
      }
      BSON_APPEND_DOUBLE (&r, "ok", 1.0);
      bson_append_document_end (&raw, &r);
   }
   bson_append_document_end (reply, &raw);
   bson_free (st);
   sim_reply_ok (reply);
}

void
sim_cmd_drop (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   if (!sim_target (ctx, reply, &name)) {
      return;
   }
   /* 6.0+ DropCmd::typedRun: config and admin refused first; a database the catalog does not know is a success */
   if (sim_ver_ge (60) && (!strcmp (ctx->db, "config") || !strcmp (ctx->db, "admin"))) {
      sim_reply_error (reply, 20, "Cannot drop collection in '%s' database in sharded cluster", ctx->db);
      return;
   }
   sim_coll_t *c = sim_coll_get (ctx->db, name);
   char primary[64];
   sim_db_primary (ctx->db, primary);
   if (!c && sim_ver_ge (60) && !primary[0]) {
      BSON_APPEND_UTF8 (reply, "info", "database does not exist");
      sim_reply_ok (reply);
      return;
   }
   if (!c) {
      if (sim_ver_ge (70)) {
         /* 7.0+ treats dropping a missing collection as success. */
         char *ns = bson_strdup_printf ("%s.%s", ctx->db, name);
         BSON_APPEND_UTF8 (reply, "ns", ns);
         bson_free (ns);
         sim_reply_ok (reply);
         return;
      }
      sim_reply_error (reply, 26, "ns not found");
      return;
   }
   int32_t nidx = (int32_t) c->indexes.n;
   char *ns = bson_strdup (c->ns);
   sim_shcoll_t sc;
   if (sim_shcoll_load (ns, &sc)) {
      bson_t filter = BSON_INITIALIZER, empty = BSON_INITIALIZER;
      sim_hits_t hits = { 0 };
      bson_error_t err;
      sim_coll_t *chunks = sim_coll_get ("config", "chunks");
      sim_shcoll_chunk_filter (&sc, &filter);
      if (chunks && sim_coll_match (chunks, &filter, 0, &hits, &err)) {
         sim_coll_delete (chunks, &hits);
      }
      sim_hits_destroy (&hits);
      bson_reinit (&filter);
      BSON_APPEND_UTF8 (&filter, "_id", ns);
      sim_coll_t *colls = sim_coll_get ("config", "collections");
      if (colls && sim_coll_match (colls, &filter, 0, &hits, &err)) {
         sim_coll_delete (colls, &hits);
      }
      sim_hits_destroy (&hits);
      sim_changelog (false, "dropCollection.start", ns, "config", &empty, clock_wall_ms ());
      sim_changelog (false, "dropCollection", ns, "config", &empty, clock_wall_ms ());
      bson_destroy (&filter);
      bson_destroy (&empty);
   }
   sim_shcoll_destroy (&sc);
   sim_coll_drop (c);
   uint32_t s, i;
   sim_tick (&s, &i);
   BSON_APPEND_INT32 (reply, "nIndexesWas", nidx);
   BSON_APPEND_UTF8 (reply, "ns", ns);
   bson_free (ns);
   sim_reply_ok (reply);
}

/* currentOp, as CurrentOpCommandBase::run turns it into $currentOp { idleConnections: $all } then a $match on every
 * field but the first, $all, $ownOps, $truncateOps and the generic arguments, answered as { inprog: [...] }. */
void
sim_cmd_current_op (sim_ctx_t *ctx, bson_t *reply)
{
   simq_docs_t rows;
   bson_t filter = BSON_INITIALIZER, arr;
   bson_iter_t it;
   bson_error_t err;
   bool idle = bson_iter_init_find (&it, ctx->cmd, "$all") && bson_iter_as_bool (&it);
   bson_iter_init (&it, ctx->cmd);
   for (int idx = 0; bson_iter_next (&it); idx++) {
      const char *k = bson_iter_key (&it);
      if (idx && strcmp (k, "$all") != 0 && strcmp (k, "$ownOps") != 0 && strcmp (k, "$truncateOps") != 0 &&
          !sim_generic_arg (k)) {
         bson_append_value (&filter, k, -1, bson_iter_value (&it));
      }
   }
   simq_docs_init (&rows);
   sim_current_op_rows (ctx, idle, &rows);
   BSON_APPEND_ARRAY_BEGIN (reply, "inprog", &arr);
   uint32_t n = 0;
   bool ok = true;
   for (size_t i = 0; i < rows.n && ok; i++) {
      bool keep = true;
      ok = bson_empty (&filter) || simq_match (rows.v[i], &filter, &keep, &err);
      if (ok && keep) {
         char key[16];
         const char *kp;
         bson_uint32_to_string (n++, &kp, key, sizeof key);
         BSON_APPEND_DOCUMENT (&arr, kp, rows.v[i]);
      }
   }
   bson_append_array_end (reply, &arr);
   if (ok) {
      sim_reply_ok (reply);
   } else {
      bson_reinit (reply);
      sim_reply_simq_error (reply, &err);
   }
   simq_docs_clear (&rows);
   bson_destroy (&filter);
}

/* The index of c named name (a string) or with key pattern key (a document); -1 when none. */
static int
sim_index_find (sim_coll_t *c, const bson_iter_t *which)
{
   for (size_t i = 0; i < c->indexes.n; i++) {
      bson_iter_t f;
      bson_t key, want;
      if (BSON_ITER_HOLDS_UTF8 (which)) {
         if (bson_iter_init_find (&f, c->indexes.v[i], "name") && BSON_ITER_HOLDS_UTF8 (&f) &&
             !strcmp (bson_iter_utf8 (&f, NULL), bson_iter_utf8 (which, NULL))) {
            return (int) i;
         }
      } else if (BSON_ITER_HOLDS_DOCUMENT (which)) {
         uint32_t l;
         const uint8_t *d;
         bson_iter_document (which, &l, &d);
         bson_init_static (&want, d, l);
         if (docget_sub (c->indexes.v[i], "key", BSON_TYPE_EOD, &key) && bson_equal (&key, &want)) {
            return (int) i;
         }
      }
   }
   return -1;
}

static void
sim_index_describe (const bson_iter_t *which, char *buf, size_t len)
{
   if (BSON_ITER_HOLDS_UTF8 (which)) {
      bson_snprintf (buf, len, "%s", bson_iter_utf8 (which, NULL));
   } else {
      bson_t want;
      uint32_t l;
      const uint8_t *d;
      bson_iter_document (which, &l, &d);
      bson_init_static (&want, d, l);
      char *j = bson_as_relaxed_extended_json (&want, NULL);
      bson_snprintf (buf, len, "%s", j);
      bson_free (j);
   }
}

void
sim_cmd_drop_indexes (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_iter_t it, a;
   char what[512];
   if (!sim_target (ctx, reply, &name)) {
      return;
   }
   sim_coll_t *c = sim_coll_get (ctx->db, name);
   if (!c) {
      sim_reply_error (reply, 26, "ns not found %s.%s", ctx->db, name);
      return;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "index")) {
      sim_reply_error (reply, 40414, "BSON field 'dropIndexes.index' is missing but a required field");
      return;
   }
   int32_t was = (int32_t) c->indexes.n;
   if (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), "*")) {
      /* every index but _id_ and, on a sharded collection, the shard key's */
      sim_shcoll_t sc;
      bool sharded = sim_shcoll_load (c->ns, &sc);
      for (int i = (int) c->indexes.n - 1; i >= 1; i--) {
         bson_t key;
         if (sharded && docget_sub (c->indexes.v[i], "key", BSON_TYPE_EOD, &key) && bson_equal (&key, &sc.key)) {
            continue;
         }
         sim_index_remove (c, i);
      }
      sim_shcoll_destroy (&sc);
   } else if (BSON_ITER_HOLDS_ARRAY (&it)) {
      /* all or none: every name must exist first */
      bson_iter_recurse (&it, &a);
      while (bson_iter_next (&a)) {
         if (!BSON_ITER_HOLDS_UTF8 (&a)) {
            sim_reply_error (reply, 14, "dropIndexes index names must be strings");
            return;
         }
         if (sim_index_find (c, &a) < 0) {
            sim_reply_error (reply, 27, "index not found with name [%s]", bson_iter_utf8 (&a, NULL));
            return;
         }
         if (!strcmp (bson_iter_utf8 (&a, NULL), "_id_")) {
            sim_reply_error (reply, 72, "cannot drop _id index");
            return;
         }
      }
      bson_iter_recurse (&it, &a);
      while (bson_iter_next (&a)) {
         int i = sim_index_find (c, &a);
         if (i > 0) {
            sim_index_remove (c, i);
         }
      }
   } else if (BSON_ITER_HOLDS_UTF8 (&it) || BSON_ITER_HOLDS_DOCUMENT (&it)) {
      int i = sim_index_find (c, &it);
      sim_index_describe (&it, what, sizeof what);
      if (i < 0) {
         if (BSON_ITER_HOLDS_UTF8 (&it)) {
            sim_reply_error (reply, 27, "index not found with name [%s]", what);
         } else {
            sim_reply_error (reply, 27, "can't find index with key: %s", what);
         }
         return;
      }
      if (i == 0) {
         sim_reply_error (reply, 72, "cannot drop _id index");
         return;
      }
      sim_index_remove (c, i);
   } else {
      sim_reply_error (reply, 14, "dropIndexes 'index' must be a string, an array of strings or a document");
      return;
   }
   BSON_APPEND_INT32 (reply, "nIndexesWas", was);
   sim_reply_ok (reply);
}

/* collMod: the index form { index: { name | keyPattern, hidden } } (the one hideIndex/unhideIndex send), as
 * db/catalog/coll_mod.cpp answers it. */
void
sim_cmd_coll_mod (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_t index;
   bson_iter_t it;
   if (!sim_target (ctx, reply, &name)) {
      return;
   }
   sim_coll_t *c = sim_coll_get (ctx->db, name);
   if (!c) {
      sim_reply_error (reply, 26, "ns does not exist: %s.%s", ctx->db, name);
      return;
   }
   if (!docget_sub (ctx->cmd, "index", BSON_TYPE_EOD, &index)) {
      sim_reply_ok (reply); /* no change asked */
      return;
   }
   bson_iter_t which;
   if (!(bson_iter_init_find (&which, &index, "name") || bson_iter_init_find (&which, &index, "keyPattern"))) {
      sim_reply_error (reply, 72, "must specify either index name or key pattern for collMod");
      return;
   }
   if (!bson_iter_init_find (&it, &index, "hidden")) {
      sim_reply_error (reply, 72, "no expireAfterSeconds, hidden or prepareUnique field");
      return;
   }
   bool hidden = bson_iter_as_bool (&it);
   int i = sim_index_find (c, &which);
   if (i < 0) {
      char what[512];
      sim_index_describe (&which, what, sizeof what);
      sim_reply_error (reply, 27, "cannot find index %s for ns %s", what, c->ns);
      return;
   }
   bool old = docget_bool (c->indexes.v[i], "hidden");
   /* coll_mod.cpp: 5.0+ refuses the _id index before the no-op test, 4.4 (parseCollModRequest) drops a no-op
    * hidden first; hidden_old/hidden_new only when the state changes */
   if (i == 0 && (old != hidden || sim_ver_ge (50))) {
      sim_reply_error (reply, 2, "can't hide _id index");
      return;
   }
   if (old != hidden) {
      bson_t *d = bson_new ();
      bson_iter_init (&it, c->indexes.v[i]);
      while (bson_iter_next (&it)) {
         if (strcmp (bson_iter_key (&it), "hidden") != 0) {
            bson_append_value (d, bson_iter_key (&it), -1, bson_iter_value (&it));
         }
      }
      if (hidden) {
         BSON_APPEND_BOOL (d, "hidden", true);
      }
      bson_destroy (c->indexes.v[i]);
      c->indexes.v[i] = d;
      BSON_APPEND_BOOL (reply, "hidden_old", old);
      BSON_APPEND_BOOL (reply, "hidden_new", hidden);
   }
   sim_reply_ok (reply);
}

/* create: an unsharded collection on the database's primary shard. */
void
sim_cmd_create (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   char primary[64];
   if (!sim_target (ctx, reply, &name)) {
      return;
   }
   if (sim_coll_get (ctx->db, name)) {
      if (sim_ver_ge (50)) {
         sim_reply_error (reply, 48, "Collection %s.%s already exists.", ctx->db, name);
      } else {
         sim_reply_error (reply, 48, "a collection '%s.%s' already exists", ctx->db, name);
      }
      return;
   }
   if (!sim_db_ensure (ctx->db, primary)) {
      sim_reply_error (reply, 70, "No shards found");
      return;
   }
   sim_coll_ensure (ctx->db, name);
   sim_reply_ok (reply);
}

/* dropDatabase: every collection of the database (as drop does, with its sharding metadata), then the database's
 * config.databases entry. admin and config cannot be dropped through a mongos. */
void
sim_cmd_drop_database (sim_ctx_t *ctx, bson_t *reply)
{
   if (!strcmp (ctx->db, "admin") || !strcmp (ctx->db, "config")) {
      sim_reply_error (reply, 20, "Cannot drop '%s' database via mongos", ctx->db);
      return;
   }
   for (;;) {
      sim_coll_t *c = NULL;
      for (size_t i = 0; i < sim_g.ncolls && !c; i++) {
         if (!strcmp (sim_g.colls[i]->db, ctx->db)) {
            c = sim_g.colls[i];
         }
      }
      if (!c) {
         break;
      }
      bson_t cmd = BSON_INITIALIZER, r = BSON_INITIALIZER;
      BSON_APPEND_UTF8 (&cmd, "drop", c->name);
      sim_ctx_t sub = *ctx;
      sub.cmd = &cmd;
      sim_cmd_drop (&sub, &r);
      bson_destroy (&cmd);
      bson_destroy (&r);
   }
   sim_coll_t *dbs = sim_coll_get ("config", "databases");
   if (dbs) {
      bson_t filter = BSON_INITIALIZER;
      sim_hits_t hits = { 0 };
      bson_error_t err;
      BSON_APPEND_UTF8 (&filter, "_id", ctx->db);
      if (sim_coll_match (dbs, &filter, 0, &hits, &err)) {
         sim_coll_delete (dbs, &hits);
      }
      sim_hits_destroy (&hits);
      bson_destroy (&filter);
   }
   /* 4.4's mongos appends the name (cluster_drop_database_cmd.cpp); from 5.0 the reply is { ok: 1 } alone */
   if (!sim_ver_ge (50))
      BSON_APPEND_UTF8 (reply, "dropped", ctx->db);
   sim_reply_ok (reply);
}

/* BSONObjBuilder::appendNumber (long long): int32 when |v| < 2^30, else int64. */
static void
sim_append_number (bson_t *b, const char *key, int64_t v)
{
   if (v > -(1LL << 30) && v < (1LL << 30)) {
      BSON_APPEND_INT32 (b, key, (int32_t) v);
   } else {
      BSON_APPEND_INT64 (b, key, v);
   }
}

typedef struct {
   int64_t colls, objects, data, indexes;
} sim_dbstat_t;

/* One dbStats document's figures from its counts, divided by scale: 5.0+ in the order and types of the shard's
 * reply and of the mongos's aggregateResults (counts appendNumber, sizes double, scaleFactor int32, totalSize and the
 * file system figures: 100 GiB per shard, 10 GiB used besides the data); 4.4 the older field set. */
static void
sim_dbstat_append (bson_t *out, const sim_dbstat_t *a, int64_t nshards, int64_t scale, bool mongos)
{
   double sc = (double) scale;
   double storage = (double) (a->data / 2 + 4096 * a->colls) / sc;
   double index = (double) (4096 * a->indexes) / sc;
   double avg = a->objects ? (double) a->data / (double) a->objects : 0;
   if (!sim_ver_ge (50)) {
      BSON_APPEND_INT64 (out, "collections", a->colls);
      BSON_APPEND_INT64 (out, "views", 0);
      BSON_APPEND_INT64 (out, "objects", a->objects);
      BSON_APPEND_DOUBLE (out, "avgObjSize", avg);
      BSON_APPEND_DOUBLE (out, "dataSize", (double) a->data / sc);
      BSON_APPEND_DOUBLE (out, "storageSize", storage);
      BSON_APPEND_INT64 (out, "indexes", a->indexes);
      BSON_APPEND_DOUBLE (out, "indexSize", index);
      BSON_APPEND_DOUBLE (out, "scaleFactor", sc);
      return;
   }
   sim_append_number (out, "collections", a->colls);
   sim_append_number (out, "views", 0);
   sim_append_number (out, "objects", a->objects);
   BSON_APPEND_DOUBLE (out, "avgObjSize", avg);
   BSON_APPEND_DOUBLE (out, "dataSize", (double) a->data / sc);
   BSON_APPEND_DOUBLE (out, "storageSize", storage);
   if (mongos) {
      BSON_APPEND_DOUBLE (out, "totalSize", storage + index);
   }
   sim_append_number (out, "indexes", a->indexes);
   BSON_APPEND_DOUBLE (out, "indexSize", index);
   if (!mongos) {
      BSON_APPEND_DOUBLE (out, "totalSize", storage + index);
   }
   BSON_APPEND_INT32 (out, "scaleFactor", (int32_t) scale);
   BSON_APPEND_DOUBLE (out, "fsUsedSize", ((double) nshards * 10737418240.0 + (storage + index) * sc) / sc);
   BSON_APPEND_DOUBLE (out, "fsTotalSize", (double) nshards * 107374182400.0 / sc);
}

/* dbStats: the database's collections summed per shard (raw) and in total, divided by scale (5.0+:
 * s/commands/cluster_db_stats_cmd.cpp CmdDBStats, "Scale must be greater than zero"). */
void
sim_cmd_db_stats (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   int64_t scale = 1;
   if (bson_iter_init_find (&it, ctx->cmd, "scale")) {
      if (!BSON_ITER_HOLDS_NUMBER (&it)) {
         sim_reply_error (reply, 14,
                          "BSON field 'dbStats.scale' is the wrong type '%s', expected types '[long, int, decimal, "
                          "double]'",
                          simq_type_name (bson_iter_type (&it)));
         return;
      }
      if (bson_iter_as_int64 (&it) <= 0 || bson_iter_as_int64 (&it) > INT32_MAX) {
         sim_reply_error (reply, 2, sim_ver_ge (50) ? "Scale must be greater than zero" : "scale has to be >= 1");
         return;
      }
      scale = bson_iter_as_int64 (&it);
   }
   typedef struct {
      char shard[64];
      sim_dbstat_t st;
   } acc_t;
   acc_t *acc = NULL;
   size_t nacc = 0;
   sim_dbstat_t all = { 0 };
   for (size_t i = 0; i < sim_g.ncolls; i++) {
      sim_coll_t *c = sim_g.colls[i];
      if (strcmp (c->db, ctx->db) != 0) {
         continue;
      }
      all.colls++;
      all.indexes += (int64_t) c->indexes.n;
      sim_shard_stat_t *st = NULL;
      size_t n = sim_coll_shard_stats (c->ns, &st);
      for (size_t s = 0; s < n; s++) {
         size_t a;
         for (a = 0; a < nacc && strcmp (acc[a].shard, st[s].shard) != 0; a++) {
         }
         if (a == nacc) {
            acc = bson_realloc (acc, (nacc + 1) * sizeof *acc);
            memset (&acc[a], 0, sizeof *acc);
            bson_strncpy (acc[a].shard, st[s].shard, sizeof acc[a].shard);
            nacc++;
         }
         acc[a].st.colls++;
         acc[a].st.objects += st[s].count;
         acc[a].st.data += st[s].size;
         acc[a].st.indexes += (int64_t) c->indexes.n;
         all.objects += st[s].count;
         all.data += st[s].size;
      }
      bson_free (st);
   }
   bson_t raw;
   BSON_APPEND_DOCUMENT_BEGIN (reply, "raw", &raw);
   for (size_t a = 0; a < nacc; a++) {
      bson_t r, sdoc;
      char host[256];
      bson_strncpy (host, acc[a].shard, sizeof host);
      if (sim_shard_get (acc[a].shard, &sdoc)) {
         if (bson_iter_init_find (&it, &sdoc, "host") && BSON_ITER_HOLDS_UTF8 (&it)) {
            bson_strncpy (host, bson_iter_utf8 (&it, NULL), sizeof host);
         }
         bson_destroy (&sdoc);
      }
      BSON_APPEND_DOCUMENT_BEGIN (&raw, host, &r);
      BSON_APPEND_UTF8 (&r, "db", ctx->db);
      sim_dbstat_append (&r, &acc[a].st, 1, scale, false);
      BSON_APPEND_INT32 (&r, "ok", 1);
      bson_append_document_end (&raw, &r);
   }
   bson_append_document_end (reply, &raw);
   BSON_APPEND_UTF8 (reply, "db", ctx->db);
   sim_dbstat_append (reply, &all, (int64_t) nacc, scale, true);
   bson_free (acc);
   sim_reply_ok (reply);
}

/* killOp on a mongos: a number is one of its own operations (always ok once authorised); "shard:opid" is forwarded to
 * that shard, whose answer is ignored (ok with shard and shardid). The simulated shards' operations are the balancer's
 * migrations. */
void
sim_cmd_kill_op (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   if (!bson_iter_init_find (&it, ctx->cmd, "op")) {
      sim_reply_error (reply, 50759, "Did not provide \"op\" field");
      return;
   }
   if (BSON_ITER_HOLDS_NUMBER (&it)) {
      double v = bson_iter_as_double (&it);
      if (v < INT32_MIN || v > INT32_MAX) {
         sim_reply_error (reply, 26823, "invalid op : %.0f. Op ID cannot be represented with 32 bits", v);
         return;
      }
      sim_reply_ok (reply);
      return;
   }
   if (!BSON_ITER_HOLDS_UTF8 (&it)) {
      sim_reply_error (reply, 50760, "\"op\" field was of unsupported type %d", (int) bson_iter_type (&it));
      return;
   }
   const char *op = bson_iter_utf8 (&it, NULL);
   const char *colon = strchr (op, ':');
   if (strlen (op) < 3 || !colon || colon == op || !colon[1]) {
      sim_reply_error (reply, 28625, "The op argument to killOp must be of the format shardid:opid but found \"%s\"",
                       op);
      return;
   }
   char shard[64];
   bson_snprintf (shard, sizeof shard, "%.*s", (int) (colon - op), op);
   if (!sim_shard_get (shard, NULL)) {
      sim_reply_error (reply, 70, "Shard %s not found", shard);
      return;
   }
   char *end = NULL;
   long long id = strtoll (colon + 1, &end, 10);
   if (!end || *end || id < INT32_MIN || id > INT32_MAX) {
      sim_reply_error (reply, 9, "Failed to parse number '%s' in NumberParser", colon + 1);
      return;
   }
   sim_balancer_kill_op (shard, id);
   BSON_APPEND_UTF8 (reply, "shard", shard);
   BSON_APPEND_INT32 (reply, "shardid", (int32_t) id);
   sim_reply_ok (reply);
}
