/* Index methods of a collection: createIndex, createIndexes, dropIndex, dropIndexes, hideIndex and unhideIndex
 * (getIndexes is a read in crud.c). Documents as mongosh 2.12 sends them: an index spec is { ...options, name, key }
 * with mongosh's generated name (a_1_b_-1) unless the options name it. */
#include <math.h>
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "commands/writes.h"
#include "shell/lib/docget.h"

static sh_pos_t
ix_arg_pos (const sh_call_t *call, int i)
{
   return call->arg_pos && i < call->argc ? call->arg_pos[i] : call->close_pos;
}

/* mongosh's index name: "<field>_<value>" joined by "_", the value as JS prints it (1, -1, "hashed", "2dsphere"). */
static void
ix_name (const bson_t *key, bson_string_t *name)
{
   bson_iter_t it;
   bson_iter_init (&it, key);
   while (bson_iter_next (&it)) {
      if (name->len)
         bson_string_append (name, "_");
      bson_string_append_printf (name, "%s_", bson_iter_key (&it));
      switch (bson_iter_type (&it)) {
      case BSON_TYPE_UTF8:
         bson_string_append (name, bson_iter_utf8 (&it, NULL));
         break;
      case BSON_TYPE_INT32:
         bson_string_append_printf (name, "%d", bson_iter_int32 (&it));
         break;
      case BSON_TYPE_INT64:
         bson_string_append_printf (name, "%lld", (long long) bson_iter_int64 (&it));
         break;
      case BSON_TYPE_DOUBLE:
         bson_string_append_printf (name, "%.17g", bson_iter_double (&it));
         break;
      default:
         bson_string_append (name, "1");
         break;
      }
   }
}

/* A key pattern value must be a number or a string (an index type). */
static bool
ix_check_key (const sh_call_t *call, int i, const bson_t *key, sh_error_t *err)
{
   bson_iter_t it;
   if (bson_empty (key)) {
      sh_error_set_at (err, SH_ERR_ARGS, ix_arg_pos (call, i), "an index key pattern needs at least one field");
      return false;
   }
   bson_iter_init (&it, key);
   while (bson_iter_next (&it)) {
      if (!BSON_ITER_HOLDS_NUMBER (&it) && !BSON_ITER_HOLDS_UTF8 (&it)) {
         sh_error_set_at (err, SH_ERR_ARGS, ix_arg_pos (call, i),
                          "index key '%s' must be a number (1, -1) or an index type (\"hashed\", \"2dsphere\", ...)",
                          bson_iter_key (&it));
         return false;
      }
   }
   return true;
}

/* Options that become integers on the server: expireAfterSeconds (0 .. 2^31-1, the server's TTL bound). */
static bool
ix_check_options (const sh_call_t *call, int i, const bson_t *opts, sh_error_t *err)
{
   bson_iter_t it;
   if (!args_opt_int (call, i, "expireAfterSeconds", 0, INT32_MAX, NULL, err))
      return false;
   /* a name that is null or undefined (a script's {name: cfg.name} with none set) is left to the generated one, as
    * the Node driver does (name != null ? name : generated) */
   if (bson_iter_init_find (&it, opts, "name") && !BSON_ITER_HOLDS_UTF8 (&it) && !BSON_ITER_HOLDS_NULL (&it) &&
       !BSON_ITER_HOLDS_UNDEFINED (&it)) {
      sh_error_set_at (err, SH_ERR_ARGS, ix_arg_pos (call, i), "the index name must be a string");
      return false;
   }
   return true;
}

/* Appends { ...opts, name: <opts.name or generated>, key } under k. */
static void
ix_append_spec (bson_t *indexes, const char *k, const bson_t *key, const bson_t *opts)
{
   bson_t spec, base = BSON_INITIALIZER, merged = BSON_INITIALIZER;
   bson_iter_t it;
   bson_string_t *name = bson_string_new (NULL);
   if (bson_iter_init_find (&it, opts, "name") && BSON_ITER_HOLDS_UTF8 (&it))
      bson_string_append (name, bson_iter_utf8 (&it, NULL));
   else
      ix_name (key, name);
   /* { ...opts, name, key }: keys of opts keep their place and take the later value */
   BSON_APPEND_UTF8 (&base, "name", name->str);
   BSON_APPEND_DOCUMENT (&base, "key", key);
   args_spread (&merged, opts, &base);
   BSON_APPEND_DOCUMENT_BEGIN (indexes, k, &spec);
   bson_concat (&spec, &merged);
   bson_append_document_end (indexes, &spec);
   bson_destroy (&base);
   bson_destroy (&merged);
   bson_string_free (name, true);
}

/* createIndex(keys[, options[, commitQuorum]]) and createIndexes([keys...][, options[, commitQuorum]]) */
bool
indexes_build_create (const sh_call_t *call, sh_requests_t *out, bool many, sh_error_t *err)
{
   const char *method = args_method (call);
   bson_iter_t it, el;
   bson_t key, opts, *cmd, indexes;
   if (!args_check (call, 0, ARG_OBJECT, true, "Collection", method, err) ||
       !args_check (call, 1, ARG_OBJECT, false, "Collection", method, err))
      return false;
   if (!args_doc (call, 1, &opts))
      bson_init (&opts);
   if (!ix_check_options (call, 1, &opts, err))
      return false;
   args_get (call, 0, &it);
   if (many) {
      if (!BSON_ITER_HOLDS_ARRAY (&it)) {
         sh_error_set_at (err, SH_ERR_ARGS, ix_arg_pos (call, 0),
                          "createIndexes needs an array of key patterns such as [ {a: 1}, {b: -1} ]");
         return false;
      }
      bson_iter_recurse (&it, &el);
      while (bson_iter_next (&el)) {
         if (!docget_iter_sub (&el, BSON_TYPE_DOCUMENT, &key)) {
            sh_error_set_at (err, SH_ERR_ARGS, ix_arg_pos (call, 0), "every key pattern must be a document");
            return false;
         }
         if (!ix_check_key (call, 0, &key, err))
            return false;
      }
   } else {
      if (!docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &key)) {
         sh_error_set_at (err, SH_ERR_ARGS, ix_arg_pos (call, 0),
                          "[COMMON-10001] Index specification must be an object, got %s instead",
                          BSON_ITER_HOLDS_ARRAY (&it) ? "array" : args_typeof (&it));
         return false;
      }
      if (!ix_check_key (call, 0, &key, err))
         return false;
   }
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   BSON_APPEND_UTF8 (cmd, "createIndexes", call->coll);
   BSON_APPEND_ARRAY_BEGIN (cmd, "indexes", &indexes);
   if (many) {
      bson_iter_recurse (&it, &el);
      for (uint32_t i = 0; bson_iter_next (&el); i++) {
         char kb[16];
         const char *k;
         bson_uint32_to_string (i, &k, kb, sizeof kb);
         docget_iter_sub (&el, BSON_TYPE_DOCUMENT, &key);
         ix_append_spec (&indexes, k, &key, &opts);
      }
   } else {
      ix_append_spec (&indexes, "0", &key, &opts);
   }
   bson_append_array_end (cmd, &indexes);
   if (args_get (call, 2, &it))
      args_append (call, 2, cmd, "commitQuorum");
   return true;
}

static bool
build_create_index (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return indexes_build_create (call, out, false, err);
}

static bool
build_create_indexes (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return indexes_build_create (call, out, true, err);
}

/* createIndex prints the name it created; createIndexes the list of names (from the request: the server's reply
 * does not name them). */
static bool
exec_create (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 };
   bson_t reply = BSON_INITIALIZER, names = BSON_INITIALIZER;
   bson_iter_t it, ix, f;
   bool ok = false, many = !strcmp (args_method (call), "createIndexes");

   if (!sh_requests_build (call, &reqs, err))
      goto done;
   bson_destroy (&reply);
   if (!conn_run (ctx, reqs.v[0].db, &reqs.v[0].cmd, reqs.v[0].path, &reply, err))
      goto done;
   ok = true;
   if (cmd_dry_run (ctx))
      goto done;
   if (bson_iter_init_find (&it, &reqs.v[0].cmd, "indexes") && bson_iter_recurse (&it, &ix)) {
      while (bson_iter_next (&ix)) {
         bson_iter_t spec;
         if (bson_iter_recurse (&ix, &spec) && bson_iter_find (&spec, "name")) {
            f = spec;
            BSON_APPEND_VALUE (&names, bson_iter_key (&ix), bson_iter_value (&f));
         }
      }
   }
   if (many) {
      sh_result_set_array (res, &names);
   } else if (bson_iter_init (&it, &names) && bson_iter_next (&it)) {
      sh_result_set_value (res, bson_iter_value (&it));
   }
done:
   bson_destroy (&reply);
   bson_destroy (&names);
   sh_requests_destroy (&reqs);
   return ok;
}

/* dropIndex(name | keyPattern): mongosh refuses "*" and arrays (dropIndexes takes those). */
static bool
build_drop_index (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING | ARG_OBJECT, true, "Collection", "dropIndex", err))
      return false;
   args_get (call, 0, &it);
   if (BSON_ITER_HOLDS_UTF8 (&it) && !strcmp (bson_iter_utf8 (&it, NULL), "*")) {
      sh_error_set_at (err, SH_ERR_ARGS, ix_arg_pos (call, 0),
                       "[COLL-10002] To drop indexes in the collection using '*', use db.collection.dropIndexes()");
      return false;
   }
   if (BSON_ITER_HOLDS_ARRAY (&it)) {
      sh_error_set_at (err, SH_ERR_ARGS, ix_arg_pos (call, 0),
                       "[COLL-10002] The index to drop must be either the index name or the index specification "
                       "document");
      return false;
   }
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   BSON_APPEND_UTF8 (cmd, "dropIndexes", call->coll);
   args_append (call, 0, cmd, "index");
   return true;
}

/* dropIndexes([name | keyPattern | [names]]): every index but _id_ when none is given ("*"). */
static bool
build_drop_indexes (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING | ARG_OBJECT, false, "Collection", "dropIndexes", err))
      return false;
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   BSON_APPEND_UTF8 (cmd, "dropIndexes", call->coll);
   if (args_get (call, 0, &it))
      args_append (call, 0, cmd, "index");
   else
      BSON_APPEND_UTF8 (cmd, "index", "*");
   return true;
}

/* hideIndex / unhideIndex: { collMod: <coll>, index: { name | keyPattern, hidden } } */
static bool
build_hide_common (const sh_call_t *call, sh_requests_t *out, bool hidden, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd, index;
   if (!args_check (call, 0, ARG_STRING | ARG_OBJECT, true, "Collection", args_method (call), err))
      return false;
   args_get (call, 0, &it);
   if (!BSON_ITER_HOLDS_UTF8 (&it) && !BSON_ITER_HOLDS_DOCUMENT (&it)) {
      sh_error_set_at (err, SH_ERR_ARGS, ix_arg_pos (call, 0), "%s needs an index name or a key pattern",
                       args_method (call));
      return false;
   }
   cmd = sh_requests_add (out, call->db, CONN_ADMIN);
   BSON_APPEND_UTF8 (cmd, "collMod", call->coll);
   BSON_APPEND_DOCUMENT_BEGIN (cmd, "index", &index);
   args_append (call, 0, &index, BSON_ITER_HOLDS_UTF8 (&it) ? "name" : "keyPattern");
   BSON_APPEND_BOOL (&index, "hidden", hidden);
   bson_append_document_end (cmd, &index);
   return true;
}

static bool
build_hide_index (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_hide_common (call, out, true, err);
}

static bool
build_unhide_index (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_hide_common (call, out, false, err);
}

const sh_cmd_t cmd_db_coll_create_index = {
   .name = "db.collection.createIndex",
   .usage = "db.<collection>.createIndex(keys[, options[, commitQuorum]])",
   .summary = "Build an index (needed before sharding a non-empty collection on its key); prints its name",
   .sends = "<db> { createIndexes: <coll>, indexes: [ { ...options, name, key: <keys> } ][, commitQuorum] }",
   .example = "db.getSiblingDB(\"app\").users.createIndex({region: 1, uid: 1})",
   .build = build_create_index,
   .exec = exec_create,
};
const sh_cmd_t cmd_db_coll_create_indexes = {
   .name = "db.collection.createIndexes",
   .usage = "db.<collection>.createIndexes([keys, ...][, options[, commitQuorum]])",
   .summary = "Build several indexes with the same options; prints their names",
   .sends = "<db> { createIndexes: <coll>, indexes: [ { ...options, name, key }, ... ][, commitQuorum] }",
   .example = "db.getSiblingDB(\"app\").users.createIndexes([{region: 1}, {plan: 1}])",
   .build = build_create_indexes,
   .exec = exec_create,
};
const sh_cmd_t cmd_db_coll_drop_index = {
   .name = "db.collection.dropIndex",
   .usage = "db.<collection>.dropIndex(name | keyPattern)",
   .summary = "Drop one index",
   .sends = "<db> { dropIndexes: <coll>, index: <name | keyPattern> }",
   .example = "db.getSiblingDB(\"app\").users.dropIndex(\"region_1_uid_1\")",
   .build = build_drop_index,
};
const sh_cmd_t cmd_db_coll_drop_indexes = {
   .name = "db.collection.dropIndexes",
   .usage = "db.<collection>.dropIndexes([name | keyPattern | [names]])",
   .summary = "Drop the named indexes, or every index but _id_",
   .sends = "<db> { dropIndexes: <coll>, index: <argument or \"*\"> }",
   .example = "db.getSiblingDB(\"app\").users.dropIndexes([\"region_1\", \"plan_1\"])",
   .build = build_drop_indexes,
};
const sh_cmd_t cmd_db_coll_hide_index = {
   .name = "db.collection.hideIndex",
   .usage = "db.<collection>.hideIndex(name | keyPattern)",
   .summary = "Hide an index from the query planner (it is still maintained)",
   .sends = "<db> { collMod: <coll>, index: { name | keyPattern: <argument>, hidden: true } }",
   .example = "db.getSiblingDB(\"app\").users.hideIndex(\"region_1_uid_1\")",
   .build = build_hide_index,
};
const sh_cmd_t cmd_db_coll_unhide_index = {
   .name = "db.collection.unhideIndex",
   .usage = "db.<collection>.unhideIndex(name | keyPattern)",
   .summary = "Make a hidden index visible to the query planner again",
   .sends = "<db> { collMod: <coll>, index: { name | keyPattern: <argument>, hidden: false } }",
   .example = "db.getSiblingDB(\"app\").users.unhideIndex({region: 1, uid: 1})",
   .build = build_unhide_index,
};
