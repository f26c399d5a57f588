/* shardsim's write commands: insert, update (operators, replacements, upserts, multi), delete and findAndModify,
 * routed to the owning shard with the write errors and counters a mongos reports. Callers hold sim_g.lock. */
#include "tests/shardsim/sim_crud.h"

#include <stdlib.h>
#include <string.h>

/* Copies doc into out with an _id first (a new ObjectId when doc has none). */
static void
sim_with_id (const bson_t *doc, bson_t *out)
{
   bson_iter_t it;
   bson_init (out);
   if (bson_iter_init_find (&it, doc, "_id")) {
      BSON_APPEND_VALUE (out, "_id", bson_iter_value (&it));
   } else {
      bson_oid_t oid;
      bson_oid_init (&oid, NULL);
      BSON_APPEND_OID (out, "_id", &oid);
   }
   bson_iter_init (&it, doc);
   while (bson_iter_next (&it)) {
      if (strcmp (bson_iter_key (&it), "_id") != 0) {
         bson_append_value (out, bson_iter_key (&it), -1, bson_iter_value (&it));
      }
   }
}

/* write_ops.idl's fields of insert, update and delete (strict in every version). */
static const char *const sim_insert_fields[] = { "documents",
                                                 "ordered",
                                                 "bypassDocumentValidation",
                                                 "stmtIds",
                                                 "collectionUUID",
                                                 "isTimeseriesNamespace",
                                                 "encryptionInformation",
                                                 "let",
                                                 "rawData",
                                                 NULL };
static const char *const sim_update_fields[] = { "updates",
                                                 "ordered",
                                                 "bypassDocumentValidation",
                                                 "stmtIds",
                                                 "collectionUUID",
                                                 "isTimeseriesNamespace",
                                                 "encryptionInformation",
                                                 "let",
                                                 "runtimeConstants",
                                                 "rawData",
                                                 NULL };
static const char *const sim_delete_fields[] = { "deletes",
                                                 "ordered",
                                                 "bypassDocumentValidation",
                                                 "stmtIds",
                                                 "collectionUUID",
                                                 "isTimeseriesNamespace",
                                                 "encryptionInformation",
                                                 "let",
                                                 "rawData",
                                                 NULL };

/* The one builder of a writeErrors entry, as WriteErrorDetail::toBSON writes it: { index, code, codeName, errmsg }
 * and, for a duplicate key (dup not NULL, coll its collection), the E11000 text with keyPattern and keyValue. */
static void
sim_write_error_full (bson_t *errors, uint32_t *nerr, uint32_t index, int code, const char *msg, const sim_coll_t *coll,
                      const sim_dupkey_t *dup)
{
   bson_t e;
   char key[16];
   const char *kp;
   char *dupmsg = dup ? sim_dupkey_errmsg (coll, dup) : NULL;
   bson_uint32_to_string ((*nerr)++, &kp, key, sizeof key);
   BSON_APPEND_DOCUMENT_BEGIN (errors, kp, &e);
   BSON_APPEND_INT32 (&e, "index", (int32_t) index);
   BSON_APPEND_INT32 (&e, "code", dup ? 11000 : code);
   BSON_APPEND_UTF8 (&e, "codeName", sim_code_name (dup ? 11000 : code));
   BSON_APPEND_UTF8 (&e, "errmsg", dup ? dupmsg : msg);
   if (dup) {
      sim_dupkey_append_info (&e, dup);
   }
   bson_append_document_end (errors, &e);
   bson_free (dupmsg);
}

static void
sim_write_error (bson_t *errors, uint32_t *nerr, uint32_t index, int code, const char *msg)
{
   sim_write_error_full (errors, nerr, index, code, msg, NULL, NULL);
}

/* Inserts one document (with _id) after the duplicate-key checks (_id and the unique indexes); false with the
 * duplicate in dup (initialised by the caller). */
static bool
sim_insert_checked (sim_coll_t *coll, const bson_t *doc, sim_dupkey_t *dup)
{
   if (!sim_coll_dup_check (coll, doc, NULL, dup)) {
      return false;
   }
   sim_coll_insert (coll, doc);
   char shard[64];
   sim_shcoll_t sc;
   bool sharded = sim_shcoll_load (coll->ns, &sc);
   if (sim_route_doc (coll->ns, sharded ? &sc : NULL, doc, shard)) {
      sim_touch (coll->ns, 1, shard);
   }
   sim_shcoll_destroy (&sc);
   return true;
}

void
sim_crud_insert_one (const char *db, const char *name, const bson_t *doc)
{
   bson_t with;
   char primary[64];
   sim_dupkey_t dup;
   sim_dupkey_init (&dup);
   sim_db_ensure (db, primary);
   sim_with_id (doc, &with);
   sim_insert_checked (sim_coll_ensure (db, name), &with, &dup);
   sim_dupkey_destroy (&dup);
   bson_destroy (&with);
}

static void
sim_finish_write (bson_t *reply, int64_t n, bool with_nmod, int64_t nmod, const bson_t *upserted, uint32_t nups,
                  const bson_t *errors, uint32_t nerr)
{
   BSON_APPEND_INT32 (reply, "n", (int32_t) n);
   if (with_nmod) {
      BSON_APPEND_INT32 (reply, "nModified", (int32_t) nmod);
   }
   if (nups) {
      BSON_APPEND_ARRAY (reply, "upserted", upserted);
   }
   if (nerr) {
      BSON_APPEND_ARRAY (reply, "writeErrors", errors);
   }
   uint32_t s, i;
   sim_tick (&s, &i);
   sim_reply_ok (reply);
}

void
sim_cmd_insert (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_iter_t it, a;
   bson_t errors = BSON_INITIALIZER;
   uint32_t nerr = 0;
   int64_t n = 0;
   char primary[64];
   if (!sim_target (ctx, reply, &name) || !sim_strict_fields (ctx, reply, sim_insert_fields, NULL)) {
      goto cleanup;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "documents") || !BSON_ITER_HOLDS_ARRAY (&it)) {
      sim_reply_error (reply, 40414, "BSON field 'insert.documents' is missing but a required field");
      goto cleanup;
   }
   bool ordered = !bson_iter_init_find (&a, ctx->cmd, "ordered") || bson_iter_as_bool (&a);
   if (!sim_db_ensure (ctx->db, primary)) {
      sim_reply_error (reply, 70, "Database %s could not be created :: caused by :: No shards found", ctx->db);
      goto cleanup;
   }
   sim_coll_t *coll = sim_coll_ensure (ctx->db, name);
   bson_iter_init_find (&it, ctx->cmd, "documents");
   bson_iter_recurse (&it, &a);
   uint32_t index = 0;
   while (bson_iter_next (&a)) {
      bson_t doc, with;
      uint32_t l;
      const uint8_t *d;
      if (!BSON_ITER_HOLDS_DOCUMENT (&a)) {
         sim_write_error (&errors, &nerr, index, 14, "document to insert must be an object");
         if (ordered) {
            break;
         }
         index++;
         continue;
      }
      bson_iter_document (&a, &l, &d);
      bson_init_static (&doc, d, l);
      sim_with_id (&doc, &with);
      sim_dupkey_t dup;
      sim_dupkey_init (&dup);
      bool inserted = sim_insert_checked (coll, &with, &dup);
      if (inserted) {
         n++;
      } else {
         sim_write_error_full (&errors, &nerr, index, 11000, NULL, coll, &dup);
      }
      sim_dupkey_destroy (&dup);
      bson_destroy (&with);
      if (!inserted && ordered) {
         break;
      }
      index++;
   }
   if (n && coll->ctab) {
      sim_autosplit (coll, 0.5, false); /* before 6.0: chunks that grew past the chunk size split */
   }
   sim_finish_write (reply, n, false, 0, NULL, 0, &errors, nerr);
cleanup:
   bson_destroy (&errors);
}

static bool
sim_is_replacement (const bson_t *u)
{
   bson_iter_t it;
   return !(bson_iter_init (&it, u) && bson_iter_next (&it) && bson_iter_key (&it)[0] == '$');
}

/* Keeps _id first and from before (a replacement may omit it). out is initialised here. */
static void
sim_keep_id (const bson_t *before, const bson_t *nd, bson_t *out)
{
   bson_iter_t it;
   bson_init (out);
   if (bson_iter_init_find (&it, before, "_id")) {
      BSON_APPEND_VALUE (out, "_id", bson_iter_value (&it));
   }
   bson_iter_init (&it, nd);
   while (bson_iter_next (&it)) {
      if (strcmp (bson_iter_key (&it), "_id") != 0) {
         bson_append_value (out, bson_iter_key (&it), -1, bson_iter_value (&it));
      }
   }
}

/* The document a replacement-style upsert inserts (db/update/object_replace_executor.cpp applyReplacementUpdate on
 * the upsert's seed, which for a replacement holds only the query's _id:
 * UpdateDriver::populateDocumentWithQueryFields): the replacement's own _id when it has one (66 ImmutableField when the
 * query's _id differs), else the query's. out is initialised here; false with err set on an error. */
static bool
sim_upsert_replacement (const bson_t *seed, const bson_t *u, bson_t *out, bson_error_t *err)
{
   bson_t idseed = BSON_INITIALIZER;
   bson_iter_t it;
   bool modified;
   if (bson_iter_init_find (&it, seed, "_id")) {
      BSON_APPEND_VALUE (&idseed, "_id", bson_iter_value (&it));
   }
   bool ok = simq_apply_update (&idseed, u, false, out, &modified, err);
   bson_destroy (&idseed);
   return ok;
}

/* Applies the update u of statement index to the documents at hits (each checked against the unique indexes), counting
 * into *n and *nmod; false with a write error appended when one fails (the documents before it stay updated). */
static bool
sim_update_hits (sim_coll_t *coll, const sim_hits_t *hits, const bson_t *u, uint32_t index, bson_t *errors,
                 uint32_t *nerr, int64_t *n, int64_t *nmod)
{
   bson_error_t err;
   for (size_t i = 0; i < hits->n; i++) {
      bson_t view, nd, fixed;
      bool modified = false;
      sim_coll_view (coll, hits->v[i], &view);
      bson_t before;
      bson_copy_to (&view, &before);
      if (!simq_apply_update (&before, u, false, &nd, &modified, &err)) {
         bson_destroy (&nd);
         bson_destroy (&before);
         sim_write_error (errors, nerr, index, (int) (err.code ? err.code : 2), err.message);
         return false;
      }
      if (modified) {
         /* Keep the original _id (a replacement may omit it). */
         if (bson_has_field (&before, "_id")) {
            sim_keep_id (&before, &nd, &fixed);
         } else {
            bson_copy_to (&nd, &fixed);
         }
         sim_dupkey_t dup;
         sim_dupkey_init (&dup);
         if (!sim_coll_dup_check (coll, &fixed, bson_get_data (&view), &dup)) {
            sim_write_error_full (errors, nerr, index, 11000, NULL, coll, &dup);
            sim_dupkey_destroy (&dup);
            bson_destroy (&fixed);
            bson_destroy (&nd);
            bson_destroy (&before);
            return false;
         }
         sim_dupkey_destroy (&dup);
         sim_coll_replace (coll, hits->v[i], &fixed);
         bson_destroy (&fixed);
         (*nmod)++;
      }
      (*n)++;
      bson_destroy (&nd);
      bson_destroy (&before);
   }
   return true;
}

void
sim_cmd_update (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_iter_t it, a;
   bson_t errors = BSON_INITIALIZER, upserted = BSON_INITIALIZER;
   uint32_t nerr = 0, nups = 0;
   int64_t n = 0, nmod = 0;
   char primary[64];
   bson_error_t err;
   if (!sim_target (ctx, reply, &name) || !sim_strict_fields (ctx, reply, sim_update_fields, NULL)) {
      goto cleanup;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "updates") || !BSON_ITER_HOLDS_ARRAY (&it)) {
      sim_reply_error (reply, 40414, "BSON field 'update.updates' is missing but a required field");
      goto cleanup;
   }
   bool ordered = !bson_iter_init_find (&a, ctx->cmd, "ordered") || bson_iter_as_bool (&a);
   sim_coll_t *coll = sim_coll_get (ctx->db, name);
   bson_iter_init_find (&it, ctx->cmd, "updates");
   bson_iter_recurse (&it, &a);
   uint32_t index = 0;
   for (; bson_iter_next (&a); index++) {
      bson_t stmt, q, u;
      uint32_t l;
      const uint8_t *d;
      if (!BSON_ITER_HOLDS_DOCUMENT (&a)) {
         continue;
      }
      bson_iter_document (&a, &l, &d);
      bson_init_static (&stmt, d, l);
      if (!docget_sub (&stmt, "q", BSON_TYPE_EOD, &q) || !docget_sub (&stmt, "u", BSON_TYPE_EOD, &u)) {
         sim_write_error (&errors, &nerr, index, 9, "BSON field 'update.updates.q' is missing but a required field");
         if (ordered) {
            break;
         }
         continue;
      }
      bool multi = docget_bool (&stmt, "multi");
      bool upsert = docget_bool (&stmt, "upsert");
      sim_hits_t hits = { 0 };
      if (coll && !sim_coll_match (coll, &q, multi ? 0 : 1, &hits, &err)) {
         sim_hits_destroy (&hits);
         sim_write_error (&errors, &nerr, index, (int) (err.code ? err.code : 2), err.message);
         if (ordered) {
            break;
         }
         continue;
      }
      bool failed = false;
      if (hits.n) {
         sim_touch_hits (coll, &hits, 1);
      }
      if (hits.n && !sim_update_hits (coll, &hits, &u, index, &errors, &nerr, &n, &nmod)) {
         failed = true;
      }
      size_t matched = hits.n; /* sim_hits_destroy clears n: an upsert must not follow a match */
      sim_hits_destroy (&hits);
      if (failed) {
         if (ordered) {
            break;
         }
         continue;
      }
      if (!matched && upsert) {
         bson_t seed, nd, with;
         bool modified;
         simq_upsert_seed (&q, &seed);
         if (sim_is_replacement (&u) ? !sim_upsert_replacement (&seed, &u, &nd, &err)
                                     : !simq_apply_update (&seed, &u, true, &nd, &modified, &err)) {
            bson_destroy (&nd);
            bson_destroy (&seed);
            sim_write_error (&errors, &nerr, index, (int) (err.code ? err.code : 2), err.message);
            if (ordered) {
               break;
            }
            continue;
         }
         bson_destroy (&seed);
         sim_with_id (&nd, &with);
         bson_destroy (&nd);
         if (!sim_db_ensure (ctx->db, primary)) {
            bson_destroy (&with);
            sim_write_error (&errors, &nerr, index, 70, "No shards found");
            break;
         }
         coll = sim_coll_ensure (ctx->db, name);
         sim_dupkey_t dup;
         sim_dupkey_init (&dup);
         bool inserted = sim_insert_checked (coll, &with, &dup);
         if (!inserted) {
            sim_write_error_full (&errors, &nerr, index, 11000, NULL, coll, &dup);
         }
         sim_dupkey_destroy (&dup);
         if (!inserted) {
            bson_destroy (&with);
            if (ordered) {
               break;
            }
            continue;
         }
         bson_t e;
         char key[16];
         const char *kp;
         bson_iter_t idit;
         bson_uint32_to_string (nups++, &kp, key, sizeof key);
         BSON_APPEND_DOCUMENT_BEGIN (&upserted, kp, &e);
         BSON_APPEND_INT32 (&e, "index", (int32_t) index);
         if (bson_iter_init_find (&idit, &with, "_id")) {
            BSON_APPEND_VALUE (&e, "_id", bson_iter_value (&idit));
         }
         bson_append_document_end (&upserted, &e);
         bson_destroy (&with);
         n++;
      }
   }
   sim_finish_write (reply, n, true, nmod, &upserted, nups, &errors, nerr);
cleanup:
   bson_destroy (&errors);
   bson_destroy (&upserted);
}

void
sim_cmd_delete (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_iter_t it, a;
   bson_t errors = BSON_INITIALIZER;
   uint32_t nerr = 0;
   int64_t n = 0;
   bson_error_t err;
   if (!sim_target (ctx, reply, &name) || !sim_strict_fields (ctx, reply, sim_delete_fields, NULL)) {
      goto cleanup;
   }
   if (!bson_iter_init_find (&it, ctx->cmd, "deletes") || !BSON_ITER_HOLDS_ARRAY (&it)) {
      sim_reply_error (reply, 40414, "BSON field 'delete.deletes' is missing but a required field");
      goto cleanup;
   }
   bool ordered = !bson_iter_init_find (&a, ctx->cmd, "ordered") || bson_iter_as_bool (&a);
   sim_coll_t *coll = sim_coll_get (ctx->db, name);
   bson_iter_init_find (&it, ctx->cmd, "deletes");
   bson_iter_recurse (&it, &a);
   uint32_t index = 0;
   for (; bson_iter_next (&a); index++) {
      bson_t stmt, q;
      uint32_t l;
      const uint8_t *d;
      if (!BSON_ITER_HOLDS_DOCUMENT (&a)) {
         continue;
      }
      bson_iter_document (&a, &l, &d);
      bson_init_static (&stmt, d, l);
      if (!docget_sub (&stmt, "q", BSON_TYPE_EOD, &q)) {
         sim_write_error (&errors, &nerr, index, 40414,
                          "BSON field 'delete.deletes.q' is missing but a required field");
         if (ordered) {
            break;
         }
         continue;
      }
      int64_t limit = docget_int (&stmt, "limit", 0);
      if (!coll) {
         continue;
      }
      sim_hits_t hits = { 0 };
      if (!sim_coll_match (coll, &q, limit ? 1 : 0, &hits, &err)) {
         sim_hits_destroy (&hits);
         sim_write_error (&errors, &nerr, index, (int) (err.code ? err.code : 2), err.message);
         if (ordered) {
            break;
         }
         continue;
      }
      n += (int64_t) hits.n;
      if (hits.n) {
         sim_touch_hits (coll, &hits, 1);
      }
      sim_coll_delete (coll, &hits);
      sim_hits_destroy (&hits);
   }
   sim_finish_write (reply, n, false, 0, NULL, 0, &errors, nerr);
cleanup:
   bson_destroy (&errors);
}

/* Appends value under "value": the document (projected by fields when given) or null. */
static void
sim_fam_value (bson_t *reply, const bson_t *doc, const bson_t *fields)
{
   bson_error_t err;
   bson_t p;
   if (!doc) {
      BSON_APPEND_NULL (reply, "value");
   } else if (fields && !bson_empty (fields) && simq_project (doc, fields, &p, &err)) {
      BSON_APPEND_DOCUMENT (reply, "value", &p);
      bson_destroy (&p);
   } else {
      BSON_APPEND_DOCUMENT (reply, "value", doc);
   }
}

/* findAndModify's update of the document at pos into doc: true when doc breaks a unique index, reply then holding
 * only the command's error (the server's "Plan executor error" context, keyPattern, keyValue). */
static bool
sim_fam_dup (bson_t *reply, bson_t *leo, sim_coll_t *coll, sim_pos_t pos, const bson_t *doc)
{
   sim_dupkey_t dup;
   bson_t view;
   sim_dupkey_init (&dup);
   sim_coll_view (coll, pos, &view);
   bool clash = !sim_coll_dup_check (coll, doc, bson_get_data (&view), &dup);
   if (clash) {
      bson_append_document_end (reply, leo);
      bson_reinit (reply);
      sim_reply_dupkey_error (reply, coll, &dup, "Plan executor error during findAndModify :: caused by :: ");
   }
   sim_dupkey_destroy (&dup);
   return clash;
}

/* Whether query names the whole shard key of sc by equality (a value, or { $eq: value }), as
 * ShardKeyPattern::extractShardKeyFromQuery needs it to target one shard. */
static bool
sim_fam_has_shard_key (const sim_shcoll_t *sc, const bson_t *query)
{
   bson_iter_t it, q;
   bson_iter_init (&it, &sc->key);
   while (bson_iter_next (&it)) {
      bson_value_t v;
      const char *f = bson_iter_key (&it);
      if (bson_iter_init_find (&q, query, f)) {
         v = *bson_iter_value (&q);
      } else if (!simq_get_path (query, f, &v)) {
         return false;
      }
      if (v.value_type == BSON_TYPE_DOCUMENT) {
         bson_t sub;
         bson_iter_t s;
         if (bson_init_static (&sub, v.value.v_doc.data, v.value.v_doc.data_len) && bson_iter_init (&s, &sub) &&
             bson_iter_next (&s) && bson_iter_key (&s)[0] == '$' && strcmp (bson_iter_key (&s), "$eq") != 0) {
            return false;
         }
      }
   }
   return true;
}

/* 4.4 to 6.0 (s/commands/cluster_find_and_modify_cmd.cpp getShardKey): the query of a sharded collection must target
 * one shard by its shard key, else 61 ShardKeyNotFound; from 7.0 such a findAndModify runs as a write without shard
 * key. True when the reply holds that error. */
static bool
sim_fam_untargetable (sim_ctx_t *ctx, const char *name, const bson_t *query, bson_t *reply)
{
   char ns[512];
   sim_shcoll_t sc;
   if (sim_ver_ge (70)) {
      return false;
   }
   bson_snprintf (ns, sizeof ns, "%s.%s", ctx->db, name);
   bool refuse =
      sim_shcoll_load (ns, &sc) && !docget_bool (&sc.doc, "unsplittable") && !sim_fam_has_shard_key (&sc, query);
   sim_shcoll_destroy (&sc);
   if (refuse) {
      sim_reply_error (reply, 61, "Query for sharded findAndModify must contain the shard key");
   }
   return refuse;
}

/* The argument checks of findAndModify (write_ops_parsers / find_and_modify validate, in its order): true with the
 * error in reply when the arguments conflict. */
static bool
sim_fam_arg_error (bool remove, bool have_update, bool upsert, bool is_new, bson_t *reply)
{
   if (remove == have_update) {
      sim_reply_error (reply, 9,
                       remove ? "Cannot specify both an update and remove=true"
                              : "Either an update or remove=true must be specified");
   } else if (remove && upsert) {
      sim_reply_error (reply, 9, "Cannot specify both upsert=true and remove=true");
   } else if (remove && is_new) {
      sim_reply_error (reply, 9,
                       "Cannot specify both new=true and remove=true; 'remove' always returns the deleted "
                       "document");
   } else {
      return false;
   }
   return true;
}

void
sim_cmd_find_and_modify (sim_ctx_t *ctx, bson_t *reply)
{
   const char *name;
   bson_t query = BSON_INITIALIZER, sort, fields, update, leo;
   bson_error_t err;
   simq_docs_t docs;
   char primary[64];
   simq_docs_init (&docs);
   if (!sim_target (ctx, reply, &name)) {
      goto done;
   }
   bson_t q;
   if (docget_sub (ctx->cmd, "query", BSON_TYPE_EOD, &q)) {
      bson_destroy (&query);
      bson_copy_to (&q, &query);
   }
   bool have_sort = docget_sub (ctx->cmd, "sort", BSON_TYPE_EOD, &sort);
   bool have_fields = docget_sub (ctx->cmd, "fields", BSON_TYPE_EOD, &fields);
   bool remove = docget_bool (ctx->cmd, "remove");
   bool is_new = docget_bool (ctx->cmd, "new");
   bool upsert = docget_bool (ctx->cmd, "upsert");
   bool have_update = docget_sub (ctx->cmd, "update", BSON_TYPE_EOD, &update);
   if (sim_fam_untargetable (ctx, name, &query, reply)) {
      goto done;
   }
   if (sim_fam_arg_error (remove, have_update, upsert, is_new, reply)) {
      goto done;
   }
   sim_coll_t *coll = sim_coll_get (ctx->db, name);
   if (coll && !sim_coll_collect (coll, &query, &docs, &err)) {
      sim_reply_simq_error (reply, &err);
      goto done;
   }
   if (have_sort && docs.n > 1 && !simq_sort (&docs, &sort, &err)) {
      sim_reply_simq_error (reply, &err);
      goto done;
   }
   const bson_t *before = docs.n ? docs.v[0] : NULL;
   bson_t idf = BSON_INITIALIZER;
   bson_iter_t it;
   sim_hits_t hits = { 0 };
   if (before && bson_iter_init_find (&it, before, "_id")) {
      BSON_APPEND_VALUE (&idf, "_id", bson_iter_value (&it));
      if (!sim_coll_match (coll, &idf, 1, &hits, &err)) {
         hits.n = 0;
      }
   }
   if (before && hits.n) {
      BSON_APPEND_DOCUMENT_BEGIN (reply, "lastErrorObject", &leo);
      BSON_APPEND_INT32 (&leo, "n", 1);
      if (remove) {
         bson_append_document_end (reply, &leo);
         sim_fam_value (reply, before, have_fields ? &fields : NULL);
         sim_touch_hits (coll, &hits, 1);
         sim_coll_delete (coll, &hits);
      } else {
         bson_t nd, fixed;
         bool modified = false;
         if (!simq_apply_update (before, &update, false, &nd, &modified, &err)) {
            bson_destroy (&nd);
            bson_append_document_end (reply, &leo);
            bson_reinit (reply);
            sim_reply_simq_error (reply, &err);
            sim_hits_destroy (&hits);
            bson_destroy (&idf);
            goto done;
         }
         sim_keep_id (before, &nd, &fixed);
         if (modified && sim_fam_dup (reply, &leo, coll, hits.v[0], &fixed)) {
            bson_destroy (&fixed);
            bson_destroy (&nd);
            sim_hits_destroy (&hits);
            bson_destroy (&idf);
            goto done;
         }
         BSON_APPEND_BOOL (&leo, "updatedExisting", true);
         bson_append_document_end (reply, &leo);
         sim_fam_value (reply, is_new ? &fixed : before, have_fields ? &fields : NULL);
         sim_touch_hits (coll, &hits, 1);
         if (modified) {
            sim_coll_replace (coll, hits.v[0], &fixed);
         }
         bson_destroy (&fixed);
         bson_destroy (&nd);
      }
   } else if (upsert) {
      bson_t seed, nd, with;
      bool modified;
      simq_upsert_seed (&query, &seed);
      if (sim_is_replacement (&update) ? !sim_upsert_replacement (&seed, &update, &nd, &err)
                                       : !simq_apply_update (&seed, &update, true, &nd, &modified, &err)) {
         bson_destroy (&nd);
         bson_destroy (&seed);
         sim_reply_simq_error (reply, &err);
         sim_hits_destroy (&hits);
         bson_destroy (&idf);
         goto done;
      }
      bson_destroy (&seed);
      sim_with_id (&nd, &with);
      bson_destroy (&nd);
      sim_dupkey_t dup;
      sim_dupkey_init (&dup);
      if (!sim_db_ensure (ctx->db, primary)) {
         sim_reply_error (reply, 70, "No shards found");
      } else if (!sim_insert_checked (sim_coll_ensure (ctx->db, name), &with, &dup)) {
         sim_reply_dupkey_error (reply, sim_coll_get (ctx->db, name), &dup, NULL);
      } else {
         BSON_APPEND_DOCUMENT_BEGIN (reply, "lastErrorObject", &leo);
         BSON_APPEND_INT32 (&leo, "n", 1);
         BSON_APPEND_BOOL (&leo, "updatedExisting", false);
         if (bson_iter_init_find (&it, &with, "_id")) {
            BSON_APPEND_VALUE (&leo, "upserted", bson_iter_value (&it));
         }
         bson_append_document_end (reply, &leo);
         sim_fam_value (reply, is_new ? &with : NULL, have_fields ? &fields : NULL);
         sim_reply_ok (reply);
      }
      sim_dupkey_destroy (&dup);
      bson_destroy (&with);
      sim_hits_destroy (&hits);
      bson_destroy (&idf);
      goto done;
   } else {
      BSON_APPEND_DOCUMENT_BEGIN (reply, "lastErrorObject", &leo);
      BSON_APPEND_INT32 (&leo, "n", 0);
      if (!remove) {
         BSON_APPEND_BOOL (&leo, "updatedExisting", false);
      }
      bson_append_document_end (reply, &leo);
      BSON_APPEND_NULL (reply, "value");
   }
   sim_hits_destroy (&hits);
   bson_destroy (&idf);
   sim_reply_ok (reply);
done:
   bson_destroy (&query);
   simq_docs_clear (&docs);
}
