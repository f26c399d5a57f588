/* The legacy collection methods mongosh 2.x still has (packages/shell-api/src/collection.ts): insert, update,
 * findAndModify and ensureIndex. Each builds what the method mongosh maps it to builds (insertMany, updateOne or
 * updateMany, findOneAndUpdate, createIndexes), through the builders of writes.c and indexes.c, and prints what mongosh
 * returns (InsertManyResult, UpdateResult, the document, the index names). mongosh prints its deprecation warnings with
 * print(); shardsh writes them on stderr, as it writes every warning (docs/javascript.md). */
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "commands/writes.h"
#include "shell/lib/docget.h"

/* build() run on call with its arguments replaced by args (argc of them; the positions kept for the carets). */
static bool
lg_build_with (const sh_call_t *call, const bson_t *args, int argc,
               bool (*build) (const sh_call_t *, sh_requests_t *, sh_error_t *), sh_requests_t *out, sh_error_t *err)
{
   sh_call_t c = *call;
   c.args = args;
   c.argc = argc;
   c.built = NULL;
   if (argc > call->argc)
      c.arg_pos = NULL;
   return build (&c, out, err);
}

/* insert(document | documents[, options]): mongosh's insertMany of [document] or of the documents. */
static bool
build_insert (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t args = BSON_INITIALIZER, docs;
   bool ok;
   if (!args_check (call, 0, ARG_OBJECT, true, "Collection", "insert", err))
      return false;
   args_get (call, 0, &it);
   if (BSON_ITER_HOLDS_ARRAY (&it))
      return writes_build_insert_many (call, out, err);
   BSON_APPEND_ARRAY_BEGIN (&args, "0", &docs);
   BSON_APPEND_VALUE (&docs, "0", bson_iter_value (&it));
   bson_append_array_end (&args, &docs);
   if (args_get (call, 1, &it))
      BSON_APPEND_VALUE (&args, "1", bson_iter_value (&it));
   ok = lg_build_with (call, &args, call->argc, writes_build_insert_many, out, err);
   bson_destroy (&args);
   return ok;
}

static bool
lg_build_update_one (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return writes_build_update (call, out, false, false, err);
}

static bool
lg_build_update_many (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return writes_build_update (call, out, true, false, err);
}

/* update(filter, update[, options]): updateMany when options.multi, else updateOne. An options argument that is not
 * a document is spread by mongosh into nothing ({ ...true } is {}): update(q, u, true) is an updateOne without upsert,
 * as mongosh 2.x sends it. */
static bool
build_update (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t opts;
   bson_iter_t multi;
   bool is_multi = false;
   if (!args_check (call, 0, ARG_OBJECT, true, "Collection", "update", err) ||
       !args_check (call, 1, ARG_OBJECT, true, "Collection", "update", err))
      return false;
   if (args_doc (call, 2, &opts)) {
      is_multi = bson_iter_init_find (&multi, &opts, "multi") && bson_iter_as_bool (&multi);
      return is_multi ? lg_build_update_many (call, out, err) : lg_build_update_one (call, out, err);
   }
   return lg_build_with (call, call->args, call->argc < 2 ? call->argc : 2, lg_build_update_one, out, err);
}

/* Appends to opts the options of findAndModify's spec that findOneAndUpdate takes, as mongosh reduces them: without
 * query and update, fields as projection, new as returnDocument (processFindAndModifyOptions). */
static void
lg_fam_options (const bson_t *spec, bson_t *opts)
{
   bson_iter_t it;
   bool has_return = bson_has_field (spec, "returnDocument") || bson_has_field (spec, "returnNewDocument");
   bson_iter_init (&it, spec);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (!strcmp (k, "query") || !strcmp (k, "update") || !strcmp (k, "remove"))
         continue;
      if (!strcmp (k, "fields")) {
         if (!bson_has_field (spec, "projection"))
            BSON_APPEND_VALUE (opts, "projection", bson_iter_value (&it));
      } else if (!strcmp (k, "new")) {
         if (!has_return)
            BSON_APPEND_UTF8 (opts, "returnDocument", bson_iter_as_bool (&it) ? "after" : "before");
      } else {
         BSON_APPEND_VALUE (opts, k, bson_iter_value (&it));
      }
   }
}

static bool
lg_build_fam_update (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return writes_build_find_and_modify (call, out, WRITES_FAM_UPDATE, err);
}

static bool
lg_build_fam_replace (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return writes_build_find_and_modify (call, out, WRITES_FAM_REPLACE, err);
}

static bool
lg_build_fam_delete (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return writes_build_find_and_modify (call, out, WRITES_FAM_DELETE, err);
}

/* findAndModify({ query[, update | remove: true][, new][, upsert][, sort][, fields] }): as mongosh, findOneAndDelete
 * with remove, findOneAndUpdate with update operators or a pipeline, findOneAndReplace with a replacement. */
static bool
build_find_and_modify (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t spec, args = BSON_INITIALIZER, opts;
   bson_iter_t it, u, first;
   bool ok, remove;
   if (!args_check (call, 0, ARG_OBJECT, true, "Collection", "findAndModify", err))
      return false;
   if (!args_doc (call, 0, &spec)) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "findAndModify needs a document such as {query, update}");
      return false;
   }
   if (!bson_has_field (&spec, "query")) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                       "[COMMON-10001] Missing required property: \"query\" (Collection.findAndModify)");
      return false;
   }
   if (bson_has_field (&spec, "fields") && bson_has_field (&spec, "projection")) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                       "[COMMON-10001] Cannot specify both .fields and .projection for findAndModify()");
      return false;
   }
   remove = bson_iter_init_find (&it, &spec, "remove") && bson_iter_as_bool (&it);
   if (!remove && !bson_iter_init_find (&u, &spec, "update")) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                       "[COMMON-10001] Must specify options.update or options.remove");
      return false;
   }
   bson_iter_init_find (&it, &spec, "query");
   BSON_APPEND_VALUE (&args, "0", bson_iter_value (&it));
   if (!remove)
      BSON_APPEND_VALUE (&args, "1", bson_iter_value (&u));
   BSON_APPEND_DOCUMENT_BEGIN (&args, remove ? "1" : "2", &opts);
   lg_fam_options (&spec, &opts);
   bson_append_document_end (&args, &opts);
   if (remove) {
      ok = lg_build_with (call, &args, 2, lg_build_fam_delete, out, err);
   } else {
      /* an array (a pipeline) or a first key with $ is an update; anything else a replacement */
      bool update = BSON_ITER_HOLDS_ARRAY (&u) || (BSON_ITER_HOLDS_DOCUMENT (&u) && bson_iter_recurse (&u, &first) &&
                                                   bson_iter_next (&first) && bson_iter_key (&first)[0] == '$');
      ok = lg_build_with (call, &args, 3, update ? lg_build_fam_update : lg_build_fam_replace, out, err);
   }
   bson_destroy (&args);
   return ok;
}

/* ensureIndex(keys[, options[, commitQuorum]]): createIndex's request (mongosh's _createIndexes([keys], ...)). */
static bool
build_ensure_index (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return indexes_build_create (call, out, false, err);
}

/* The result mongosh returns, from the request sent and the reply: InsertManyResult for insert, the names of the
 * indexes for ensureIndex, the document (or null) for findAndModify. Appended to result as { v: <value> }. */
static void
lg_result (const char *method, const bson_t *cmd, const bson_t *reply, bson_t *result)
{
   bson_iter_t it, d, f;
   bson_t sub;
   if (!strcmp (method, "findAndModify")) {
      if (bson_iter_init_find (&it, reply, "value"))
         BSON_APPEND_VALUE (result, "v", bson_iter_value (&it));
      else
         BSON_APPEND_NULL (result, "v");
      return;
   }
   if (!strcmp (method, "insert")) {
      bson_t ids;
      BSON_APPEND_DOCUMENT_BEGIN (result, "v", &sub);
      BSON_APPEND_BOOL (&sub, "acknowledged", true);
      BSON_APPEND_DOCUMENT_BEGIN (&sub, "insertedIds", &ids);
      if (bson_iter_init_find (&it, cmd, "documents") && bson_iter_recurse (&it, &d)) {
         while (bson_iter_next (&d)) {
            if (bson_iter_recurse (&d, &f) && bson_iter_find (&f, "_id"))
               BSON_APPEND_VALUE (&ids, bson_iter_key (&d), bson_iter_value (&f));
         }
      }
      bson_append_document_end (&sub, &ids);
      bson_append_document_end (result, &sub);
      return;
   }
   /* ensureIndex: the names of the specs sent */
   BSON_APPEND_ARRAY_BEGIN (result, "v", &sub);
   if (bson_iter_init_find (&it, cmd, "indexes") && bson_iter_recurse (&it, &d)) {
      while (bson_iter_next (&d)) {
         if (bson_iter_recurse (&d, &f) && bson_iter_find (&f, "name"))
            BSON_APPEND_VALUE (&sub, bson_iter_key (&d), bson_iter_value (&f));
      }
   }
   bson_append_array_end (result, &sub);
}

/* Warns as mongosh does, then runs the call: update through the shared executor (an UpdateResult), the others by
 * their one request, res filled as lg_result says. */
static bool
exec_legacy (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 };
   bson_t reply = BSON_INITIALIZER, result = BSON_INITIALIZER;
   const char *method = args_method (call);
   bson_iter_t v;
   bool ok = false;

   writes_warn_deprecation (ctx, method);
   if (call->cmd->ret == CMD_RET_UPDATE)
      return cmd_exec_requests (ctx, call, res, err);
   if (!sh_requests_build (call, &reqs, err))
      goto done;
   bson_destroy (&reply);
   if (!conn_run (ctx, reqs.v[0].db, &reqs.v[0].cmd, reqs.v[0].path, &reply, err))
      goto done;
   ok = true;
   if (cmd_dry_run (ctx))
      goto done;
   if (strcmp (method, "ensureIndex") != 0 && !(ok = cmd_check_write_errors (&reply, err)))
      goto done;
   lg_result (method, &reqs.v[0].cmd, &reply, &result);
   if (bson_iter_init_find (&v, &result, "v")) {
      if (!strcmp (method, "ensureIndex")) {
         bson_t names;
         docget_iter_sub (&v, BSON_TYPE_ARRAY, &names);
         sh_result_set_array (res, &names);
      } else {
         sh_result_set_value (res, bson_iter_value (&v));
      }
   }
done:
   bson_destroy (&reply);
   bson_destroy (&result);
   sh_requests_destroy (&reqs);
   return ok;
}

const sh_cmd_t cmd_db_coll_insert = {
   .name = "db.collection.insert",
   .usage = "db.<collection>.insert(document | documents[, options])",
   .summary = "Deprecated: insert a document or an array of documents (mongosh's insertMany); options: ordered, "
              "writeConcern",
   .sends = "<db> { insert: <coll>, ordered: true[, writeConcern], documents: [ ... ] }",
   .example = "db.getSiblingDB(\"app\").notes.insert({_id: 5, text: \"legacy\"})",
   .build = build_insert,
   .exec = exec_legacy,
};

const sh_cmd_t cmd_db_coll_update = {
   .name = "db.collection.update",
   .usage = "db.<collection>.update(filter, update[, options])",
   .summary = "Deprecated: update the first matching document, or every one with {multi: true} (mongosh ignores an "
              "options argument that is not a document); options: upsert, multi, arrayFilters, collation, hint, "
              "writeConcern",
   .sends = "<db> { update: <coll>, updates: [ { q: <filter>, u: <update>[, upsert][, multi: true]... } ], "
            "ordered: true[, writeConcern] }",
   .example = "db.getSiblingDB(\"config\").settings.update({_id: \"balancer\"}, {$set: {stopped: true}}, true)",
   .ret = CMD_RET_UPDATE,
   .build = build_update,
   .exec = exec_legacy,
};

const sh_cmd_t cmd_db_coll_find_and_modify = {
   .name = "db.collection.findAndModify",
   .usage = "db.<collection>.findAndModify({query, update | remove: true[, new][, upsert][, sort][, fields]})",
   .summary = "Deprecated: update, replace or remove one document and print it (before the update unless new: "
              "true); mongosh's findOneAndUpdate, findOneAndReplace or findOneAndDelete",
   .sends = "<db> { findAndModify: <coll>, query: <query>, remove: <bool>, new: <bool>, upsert: <bool>[, sort]"
            "[, fields][, update: <update>] }",
   .example = "db.getSiblingDB(\"app\").notes.findAndModify({query: {_id: 1}, update: {$inc: {n: 1}}, new: true})",
   .build = build_find_and_modify,
   .exec = exec_legacy,
};

const sh_cmd_t cmd_db_coll_ensure_index = {
   .name = "db.collection.ensureIndex",
   .usage = "db.<collection>.ensureIndex(keys[, options[, commitQuorum]])",
   .summary = "Create an index as createIndex does, printing the list of names (mongosh's ensureIndex)",
   .sends = "<db> { createIndexes: <coll>, indexes: [ { ...options, name, key } ][, commitQuorum] }",
   .example = "db.getSiblingDB(\"app\").notes.ensureIndex({text: 1})",
   .build = build_ensure_index,
   .exec = exec_legacy,
};
