/* Collection writes: insertOne, insertMany, updateOne, updateMany, replaceOne, deleteOne, deleteMany and
 * findOneAndUpdate, built field for field as the Node driver under mongosh 2.12 builds them, and printed as mongosh
 * prints InsertOneResult, InsertManyResult, UpdateResult and DeleteResult. A write to config.* (other than
 * config.settings, which the manual tells operators to edit) asks for confirmation in a terminal and warns. */
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "commands/writes.h"
#include "shell/lib/docget.h"

static sh_pos_t
wr_arg_pos (const sh_call_t *call, int i)
{
   return call->arg_pos && i < call->argc ? call->arg_pos[i] : call->close_pos;
}

/* Points opts at the options document (argument i), or at an empty document when it is absent. */
static bool
wr_options (const sh_call_t *call, int i, bson_t *opts, sh_error_t *err)
{
   if (!args_check (call, i, ARG_OBJECT, false, "Collection", args_method (call), err))
      return false;
   if (!args_doc (call, i, opts))
      bson_init (opts); /* empty: nothing to release */
   return true;
}

/* Appends opts[key] under key when present. */
static void
wr_copy (const bson_t *opts, const char *key, bson_t *dst)
{
   bson_iter_t it;
   if (bson_iter_init_find (&it, opts, key))
      bson_append_value (dst, key, -1, bson_iter_value (&it));
}

/* True when the update argument is a document whose first key is an operator ($set, ...). */
static bool
wr_has_operator (const bson_iter_t *it)
{
   bson_iter_t sub;
   return BSON_ITER_HOLDS_DOCUMENT (it) && bson_iter_recurse (it, &sub) && bson_iter_next (&sub) &&
          bson_iter_key (&sub)[0] == '$';
}

/* The driver's own checks: an update needs operators or a pipeline; a replacement must have none. */
static bool
wr_check_update (const sh_call_t *call, int i, bool replacement, sh_error_t *err)
{
   bson_iter_t it;
   if (!args_check (call, i, ARG_OBJECT, true, "Collection", args_method (call), err))
      return false;
   args_get (call, i, &it);
   if (replacement) {
      if (wr_has_operator (&it) || !BSON_ITER_HOLDS_DOCUMENT (&it)) {
         sh_error_set_at (err, SH_ERR_ARGS, wr_arg_pos (call, i),
                          "MongoInvalidArgumentError: Replacement document must not contain atomic operators");
         return false;
      }
      return true;
   }
   if (!BSON_ITER_HOLDS_ARRAY (&it) && !wr_has_operator (&it)) {
      sh_error_set_at (err, SH_ERR_ARGS, wr_arg_pos (call, i),
                       "MongoInvalidArgumentError: Update document requires atomic operators");
      return false;
   }
   return true;
}

/* config.settings is the one config collection the manual edits by hand. */
static bool
wr_config_write (const sh_call_t *call)
{
   return call->db && !strcmp (call->db, "config") && call->coll && strcmp (call->coll, "settings") != 0;
}

/* Appends doc with an _id: as the driver does, a document without one gets a new ObjectId as its last field. */
static void
wr_append_with_id (bson_t *dst, const char *key, const bson_iter_t *doc)
{
   bson_t in, out;
   docget_iter_sub (doc, BSON_TYPE_DOCUMENT, &in);
   BSON_APPEND_DOCUMENT_BEGIN (dst, key, &out);
   bson_concat (&out, &in);
   if (!bson_has_field (&in, "_id")) {
      bson_oid_t oid;
      bson_oid_init (&oid, NULL);
      BSON_APPEND_OID (&out, "_id", &oid);
   }
   bson_append_document_end (dst, &out);
}

static bool
build_insert_one (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t opts, *cmd, docs;
   if (!args_check (call, 0, ARG_OBJECT, true, "Collection", "insertOne", err) || !wr_options (call, 1, &opts, err))
      return false;
   args_get (call, 0, &it);
   if (!BSON_ITER_HOLDS_DOCUMENT (&it)) {
      sh_error_set_at (err, SH_ERR_ARGS, wr_arg_pos (call, 0), "insertOne needs a document such as {a: 1}");
      return false;
   }
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   BSON_APPEND_UTF8 (cmd, "insert", call->coll);
   BSON_APPEND_ARRAY_BEGIN (cmd, "documents", &docs);
   wr_append_with_id (&docs, "0", &it);
   bson_append_array_end (cmd, &docs);
   BSON_APPEND_BOOL (cmd, "ordered", true);
   wr_copy (&opts, "bypassDocumentValidation", cmd);
   wr_copy (&opts, "comment", cmd);
   wr_copy (&opts, "writeConcern", cmd);
   return true;
}

bool
writes_build_insert_many (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it, el, o;
   bson_t opts, *cmd, docs;
   uint32_t n = 0;
   if (!args_check (call, 0, ARG_OBJECT, true, "Collection", "insertMany", err) || !wr_options (call, 1, &opts, err))
      return false;
   args_get (call, 0, &it);
   if (!BSON_ITER_HOLDS_ARRAY (&it)) {
      sh_error_set_at (err, SH_ERR_ARGS, wr_arg_pos (call, 0), "insertMany needs an array of documents");
      return false;
   }
   bson_iter_recurse (&it, &el);
   while (bson_iter_next (&el)) {
      if (!BSON_ITER_HOLDS_DOCUMENT (&el)) {
         sh_error_set_at (err, SH_ERR_ARGS, wr_arg_pos (call, 0), "insertMany: element %u is not a document", n);
         return false;
      }
      n++;
   }
   if (!n) {
      sh_error_set_at (err, SH_ERR_ARGS, wr_arg_pos (call, 0),
                       "MongoInvalidArgumentError: Invalid BulkOperation, Batch cannot be empty");
      return false;
   }
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   BSON_APPEND_UTF8 (cmd, "insert", call->coll);
   if (bson_iter_init_find (&o, &opts, "ordered") && BSON_ITER_HOLDS_BOOL (&o))
      BSON_APPEND_BOOL (cmd, "ordered", bson_iter_bool (&o));
   else
      BSON_APPEND_BOOL (cmd, "ordered", true);
   wr_copy (&opts, "writeConcern", cmd);
   wr_copy (&opts, "bypassDocumentValidation", cmd);
   wr_copy (&opts, "comment", cmd);
   BSON_APPEND_ARRAY_BEGIN (cmd, "documents", &docs);
   bson_iter_recurse (&it, &el);
   for (uint32_t i = 0; bson_iter_next (&el); i++) {
      char key[16];
      const char *k;
      bson_uint32_to_string (i, &k, key, sizeof key);
      wr_append_with_id (&docs, k, &el);
   }
   bson_append_array_end (cmd, &docs);
   return true;
}

/* update, updateMany, replaceOne: { update, updates: [ { q, u[, upsert][, multi][, hint][, arrayFilters]
 * [, collation] } ], ordered: true[, bypassDocumentValidation][, let][, comment][, writeConcern] } */
bool
writes_build_update (const sh_call_t *call, sh_requests_t *out, bool multi, bool replacement, sh_error_t *err)
{
   const char *method = args_method (call);
   bson_iter_t o;
   bson_t opts, *cmd, updates, u;
   if (!args_check (call, 0, ARG_OBJECT, true, "Collection", method, err) ||
       !wr_check_update (call, 1, replacement, err) || !wr_options (call, 2, &opts, err))
      return false;
   if (bson_iter_init_find (&o, &opts, "arrayFilters") && !BSON_ITER_HOLDS_ARRAY (&o)) {
      sh_error_set_at (err, SH_ERR_ARGS, wr_arg_pos (call, 2), "arrayFilters must be an array");
      return false;
   }
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   BSON_APPEND_UTF8 (cmd, "update", call->coll);
   BSON_APPEND_ARRAY_BEGIN (cmd, "updates", &updates);
   BSON_APPEND_DOCUMENT_BEGIN (&updates, "0", &u);
   args_append (call, 0, &u, "q");
   args_append (call, 1, &u, "u");
   if (bson_iter_init_find (&o, &opts, "upsert") && BSON_ITER_HOLDS_BOOL (&o))
      BSON_APPEND_BOOL (&u, "upsert", bson_iter_bool (&o));
   if (multi)
      BSON_APPEND_BOOL (&u, "multi", true);
   wr_copy (&opts, "hint", &u);
   wr_copy (&opts, "arrayFilters", &u);
   wr_copy (&opts, "collation", &u);
   bson_append_document_end (&updates, &u);
   bson_append_array_end (cmd, &updates);
   BSON_APPEND_BOOL (cmd, "ordered", true);
   wr_copy (&opts, "bypassDocumentValidation", cmd);
   wr_copy (&opts, "let", cmd);
   wr_copy (&opts, "comment", cmd);
   wr_copy (&opts, "writeConcern", cmd);
   return true;
}

static bool
build_update_one (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return writes_build_update (call, out, false, false, err);
}

static bool
build_update_many (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return writes_build_update (call, out, true, false, err);
}

static bool
build_replace_one (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return writes_build_update (call, out, false, true, err);
}

/* { delete, deletes: [ { q, limit[, collation][, hint] } ], ordered: true[, let][, comment][, writeConcern] } */
static bool
build_delete_common (const sh_call_t *call, sh_requests_t *out, int32_t limit, sh_error_t *err)
{
   bson_t opts, *cmd, deletes, d;
   bson_iter_t just_one;
   bool remove = !strcmp (args_method (call), "remove");
   if (!args_check (call, 0, ARG_OBJECT, true, "Collection", args_method (call), err))
      return false;
   /* remove(query, justOne) takes a boolean where the others take options */
   if (remove && args_get (call, 1, &just_one) && BSON_ITER_HOLDS_BOOL (&just_one)) {
      bson_init (&opts);
      limit = bson_iter_bool (&just_one) ? 1 : 0;
   } else if (!wr_options (call, 1, &opts, err)) {
      return false;
   } else if (remove && bson_iter_init_find (&just_one, &opts, "justOne")) {
      limit = bson_iter_as_bool (&just_one) ? 1 : 0;
   }
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   BSON_APPEND_UTF8 (cmd, "delete", call->coll);
   BSON_APPEND_ARRAY_BEGIN (cmd, "deletes", &deletes);
   BSON_APPEND_DOCUMENT_BEGIN (&deletes, "0", &d);
   args_append (call, 0, &d, "q");
   BSON_APPEND_INT32 (&d, "limit", limit);
   wr_copy (&opts, "collation", &d);
   wr_copy (&opts, "hint", &d);
   bson_append_document_end (&deletes, &d);
   bson_append_array_end (cmd, &deletes);
   BSON_APPEND_BOOL (cmd, "ordered", true);
   wr_copy (&opts, "let", cmd);
   wr_copy (&opts, "comment", cmd);
   wr_copy (&opts, "writeConcern", cmd);
   return true;
}

static bool
build_delete_one (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_delete_common (call, out, 1, err);
}

static bool
build_delete_many (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_delete_common (call, out, 0, err);
}

/* { findAndModify, query, remove, new, upsert[, sort][, fields][, maxTimeMS][, writeConcern][, collation][, hint]
 * [, update][, bypassDocumentValidation][, arrayFilters] }: the delete form (remove: true, new and upsert false, no
 * update) takes (filter[, options]), the others (filter, update[, options]). */
bool
writes_build_find_and_modify (const sh_call_t *call, sh_requests_t *out, writes_fam_t kind, sh_error_t *err)
{
   bson_iter_t o;
   bson_t opts, *cmd;
   bool is_new = false, upsert = false, del = kind == WRITES_FAM_DELETE;
   if (!args_check (call, 0, ARG_OBJECT, true, "Collection", args_method (call), err) ||
       (!del && !wr_check_update (call, 1, kind == WRITES_FAM_REPLACE, err)) ||
       !wr_options (call, del ? 1 : 2, &opts, err))
      return false;
   if (del) {
      /* findOneAndDelete: neither a new document nor an upsert */
   } else if (bson_iter_init_find (&o, &opts, "returnDocument")) {
      if (!BSON_ITER_HOLDS_UTF8 (&o) ||
          (strcmp (bson_iter_utf8 (&o, NULL), "after") != 0 && strcmp (bson_iter_utf8 (&o, NULL), "before") != 0)) {
         sh_error_set_at (err, SH_ERR_ARGS, wr_arg_pos (call, 2),
                          "MongoInvalidArgumentError: returnDocument must be either 'before' or 'after'");
         return false;
      }
      is_new = !strcmp (bson_iter_utf8 (&o, NULL), "after");
   } else if (bson_iter_init_find (&o, &opts, "returnNewDocument")) {
      is_new = bson_iter_as_bool (&o);
   }
   if (!del && bson_iter_init_find (&o, &opts, "upsert"))
      upsert = bson_iter_as_bool (&o);
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   BSON_APPEND_UTF8 (cmd, "findAndModify", call->coll);
   args_append (call, 0, cmd, "query");
   BSON_APPEND_BOOL (cmd, "remove", del);
   BSON_APPEND_BOOL (cmd, "new", is_new);
   BSON_APPEND_BOOL (cmd, "upsert", upsert);
   wr_copy (&opts, "sort", cmd);
   if (bson_iter_init_find (&o, &opts, "projection"))
      BSON_APPEND_VALUE (cmd, "fields", bson_iter_value (&o));
   wr_copy (&opts, "maxTimeMS", cmd);
   wr_copy (&opts, "writeConcern", cmd);
   wr_copy (&opts, "collation", cmd);
   wr_copy (&opts, "hint", cmd);
   if (!del)
      args_append (call, 1, cmd, "update");
   wr_copy (&opts, "bypassDocumentValidation", cmd);
   wr_copy (&opts, "arrayFilters", cmd);
   return true;
}

bool
writes_build_find_one_and_update (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return writes_build_find_and_modify (call, out, WRITES_FAM_UPDATE, err);
}

/* A count field of a write reply (n, nModified), 0 when absent. */
static int32_t
wr_count (const bson_t *reply, const char *key)
{
   bson_iter_t it;
   if (bson_iter_init_find (&it, reply, key) && BSON_ITER_HOLDS_NUMBER (&it))
      return (int32_t) bson_iter_as_int64 (&it);
   return 0;
}

void
writes_warn_deprecation (sh_ctx_t *ctx, const char *method)
{
   /* mongosh 2.12's collection.ts; printDeprecationWarning keeps the set of those shown (shell-instance-state.ts) */
   static const char *const warnings[][2] = {
      { "insert", "Collection.insert() is deprecated. Use insertOne, insertMany, or bulkWrite." },
      { "update", "Collection.update() is deprecated. Use updateOne, updateMany, or bulkWrite." },
      { "remove", "Collection.remove() is deprecated. Use deleteOne, deleteMany, findOneAndDelete, or bulkWrite." },
      { "count", "Collection.count() is deprecated. Use countDocuments or estimatedDocumentCount." },
   };
   for (unsigned i = 0; i < sizeof warnings / sizeof warnings[0]; i++) {
      if (!strcmp (method, warnings[i][0]) && !(ctx->warned_legacy & (1u << i))) {
         ctx->warned_legacy |= 1u << i;
         cmd_warn (ctx, "DeprecationWarning: %s", warnings[i][1]);
      }
   }
}

/* Sends the single request of build(), warning first about a direct config.* write; renders per method. */
static bool
exec_write (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 };
   bson_t reply = BSON_INITIALIZER, result = BSON_INITIALIZER;
   const char *method = args_method (call);
   bool ok = false;

   if (!sh_requests_build (call, &reqs, err))
      goto done;
   writes_warn_deprecation (ctx, method); /* remove's, once a session */
   if (wr_config_write (call))
      cmd_warn (ctx, "Warning: %s writes config.%s directly: the cluster's own metadata, which the servers maintain",
                args_method (call), call->coll);
   bson_destroy (&reply);
   if (!conn_run (ctx, reqs.v[0].db, &reqs.v[0].cmd, reqs.v[0].path, &reply, err))
      goto done;
   if (cmd_dry_run (ctx)) {
      ok = true;
      goto done;
   }
   if (!cmd_check_write_errors (&reply, err))
      goto done;
   BSON_APPEND_BOOL (&result, "acknowledged", true);
   if (!strcmp (method, "insertOne")) {
      bson_iter_t it;
      bson_iter_init (&it, &reqs.v[0].cmd);
      if (bson_iter_find_descendant (&it, "documents.0._id", &it))
         BSON_APPEND_VALUE (&result, "insertedId", bson_iter_value (&it));
   } else if (!strcmp (method, "insertMany")) {
      bson_iter_t it, d;
      bson_t ids;
      BSON_APPEND_DOCUMENT_BEGIN (&result, "insertedIds", &ids);
      if (bson_iter_init_find (&it, &reqs.v[0].cmd, "documents") && bson_iter_recurse (&it, &d)) {
         while (bson_iter_next (&d)) {
            bson_iter_t id;
            if (bson_iter_recurse (&d, &id) && bson_iter_find (&id, "_id"))
               BSON_APPEND_VALUE (&ids, bson_iter_key (&d), bson_iter_value (&id));
         }
      }
      bson_append_document_end (&result, &ids);
   } else if (!strncmp (method, "delete", 6) || !strcmp (method, "remove")) {
      BSON_APPEND_INT32 (&result, "deletedCount", wr_count (&reply, "n"));
   } else {
      /* UpdateResult */
      bson_iter_t it, up, id;
      int32_t n = wr_count (&reply, "n"), upserted = 0;
      bool have_id = false;
      if (bson_iter_init_find (&it, &reply, "upserted") && bson_iter_recurse (&it, &up)) {
         while (bson_iter_next (&up)) {
            upserted++;
            if (!have_id && bson_iter_recurse (&up, &id) && bson_iter_find (&id, "_id")) {
               BSON_APPEND_VALUE (&result, "insertedId", bson_iter_value (&id));
               have_id = true;
            }
         }
      }
      if (!have_id)
         BSON_APPEND_NULL (&result, "insertedId");
      BSON_APPEND_INT32 (&result, "matchedCount", (int32_t) ((int64_t) n - upserted)); /* n is any int32 */
      BSON_APPEND_INT32 (&result, "modifiedCount", wr_count (&reply, "nModified"));
      BSON_APPEND_INT32 (&result, "upsertedCount", upserted);
   }
   sh_result_set_doc (res, &result);
   ok = true;
done:
   bson_destroy (&reply);
   bson_destroy (&result);
   sh_requests_destroy (&reqs);
   return ok;
}

/* findAndModify answers { lastErrorObject, value, ok }: mongosh prints the value (a document, or null). */
static bool
exec_find_and_modify (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t reply;
   bson_iter_t it;
   bool ok;
   if (wr_config_write (call))
      cmd_warn (ctx, "Warning: %s writes config.%s directly: the cluster's own metadata, which the servers maintain",
                args_method (call), call->coll);
   ok = cmd_run_build (ctx, call, &reply, err);
   if (ok && !cmd_dry_run (ctx)) {
      if (bson_iter_init_find (&it, &reply, "value")) {
         sh_result_set_value (res, bson_iter_value (&it));
      } else {
         bson_value_t null = { .value_type = BSON_TYPE_NULL };
         sh_result_set_value (res, &null);
      }
   }
   bson_destroy (&reply);
   return ok;
}

#define WRITE_ENTRY(var, nm, use, sum, snd, ex, b, e)                                                                  \
   const sh_cmd_t var = {                                                                                              \
      .name = nm, .usage = use, .summary = sum, .sends = snd, .example = ex, .build = b, .exec = e, .arg_kinds = NULL  \
   }

WRITE_ENTRY (cmd_db_coll_insert_one, "db.collection.insertOne", "db.<collection>.insertOne(document[, options])",
             "Insert one document (an _id ObjectId is added when it has none); options: writeConcern",
             "<db> { insert: <coll>, documents: [ <document> ], ordered: true[, writeConcern] }",
             "db.getSiblingDB(\"app\").notes.insertOne({_id: 1, text: \"maintenance window\"})", build_insert_one,
             exec_write);
WRITE_ENTRY (cmd_db_coll_insert_many, "db.collection.insertMany", "db.<collection>.insertMany(documents[, options])",
             "Insert an array of documents; options: ordered, writeConcern",
             "<db> { insert: <coll>, ordered: true[, writeConcern], documents: [ ... ] }",
             "db.getSiblingDB(\"app\").notes.insertMany([{_id: 2}, {_id: 3}])", writes_build_insert_many, exec_write);
WRITE_ENTRY (cmd_db_coll_update_one, "db.collection.updateOne", "db.<collection>.updateOne(filter, update[, options])",
             "Update the first matching document; options: upsert, arrayFilters, collation, hint, writeConcern",
             "<db> { update: <coll>, updates: [ { q: <filter>, u: <update>[, upsert][, hint][, arrayFilters]"
             "[, collation] } ], ordered: true[, writeConcern] }",
             "db.getSiblingDB(\"config\").settings.updateOne({_id: \"chunksize\"}, {$set: {value: 64}}, {upsert: "
             "true})",
             build_update_one, exec_write);
WRITE_ENTRY (cmd_db_coll_update_many, "db.collection.updateMany",
             "db.<collection>.updateMany(filter, update[, options])",
             "Update every matching document; options: upsert, arrayFilters, collation, hint, writeConcern",
             "<db> { update: <coll>, updates: [ { q: <filter>, u: <update>[, upsert], multi: true[, hint]"
             "[, arrayFilters][, collation] } ], ordered: true[, writeConcern] }",
             "db.getSiblingDB(\"app\").users.updateMany({plan: \"trial\"}, {$set: {plan: \"free\"}})",
             build_update_many, exec_write);
WRITE_ENTRY (cmd_db_coll_replace_one, "db.collection.replaceOne",
             "db.<collection>.replaceOne(filter, replacement[, options])",
             "Replace the first matching document; options: upsert, collation, hint, writeConcern",
             "<db> { update: <coll>, updates: [ { q: <filter>, u: <replacement>[, upsert][, hint][, collation] } ], "
             "ordered: true[, writeConcern] }",
             "db.getSiblingDB(\"app\").notes.replaceOne({_id: 1}, {text: \"done\"})", build_replace_one, exec_write);
WRITE_ENTRY (cmd_db_coll_delete_one, "db.collection.deleteOne", "db.<collection>.deleteOne(filter[, options])",
             "Delete the first matching document; options: collation, hint, writeConcern",
             "<db> { delete: <coll>, deletes: [ { q: <filter>, limit: 1[, collation][, hint] } ], ordered: true"
             "[, writeConcern] }",
             "db.getSiblingDB(\"app\").notes.deleteOne({_id: 1})", build_delete_one, exec_write);
WRITE_ENTRY (cmd_db_coll_delete_many, "db.collection.deleteMany", "db.<collection>.deleteMany(filter[, options])",
             "Delete every matching document; options: collation, hint, writeConcern",
             "<db> { delete: <coll>, deletes: [ { q: <filter>, limit: 0[, collation][, hint] } ], ordered: true"
             "[, writeConcern] }",
             "db.getSiblingDB(\"app\").notes.deleteMany({text: \"done\"})", build_delete_many, exec_write);
WRITE_ENTRY (cmd_db_coll_remove, "db.collection.remove", "db.<collection>.remove(query[, justOne])",
             "Deprecated: delete the matching documents (justOne: true or { justOne: true } deletes the first); "
             "options: collation, hint, writeConcern",
             "<db> { delete: <coll>, deletes: [ { q: <query>, limit: 0 or 1[, collation][, hint] } ], ordered: true"
             "[, writeConcern] }",
             "db.getSiblingDB(\"app\").notes.remove({text: \"done\"}, true)", build_delete_many, exec_write);
WRITE_ENTRY (cmd_db_coll_find_one_and_update, "db.collection.findOneAndUpdate",
             "db.<collection>.findOneAndUpdate(filter, update[, options])",
             "Update one document and print it (before the update unless returnDocument: \"after\"); options: "
             "upsert, sort, projection, arrayFilters, collation, writeConcern",
             "<db> { findAndModify: <coll>, query: <filter>, remove: false, new: <bool>, upsert: <bool>[, sort]"
             "[, fields], update: <update>[, arrayFilters] }",
             "db.getSiblingDB(\"app\").notes.findOneAndUpdate({_id: 1}, {$inc: {n: 1}}, {returnDocument: \"after\"})",
             writes_build_find_one_and_update, exec_find_and_modify);
