/* Sharding a database or collection and changing where a collection lives: sh.enableSharding, sh.shardCollection,
 * sh.reshardCollection (+ commit/abort), sh.shardAndDistributeCollection, sh.moveCollection, sh.unshardCollection
 * (+ their aborts) and shardsh's sh.refineCollectionShardKey, with mongosh's argument folding (a document in the
 * unique position is the options; options spread over the base). */
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "shell/lib/docget.h"

/* Builds { <name>: ns, key[, unique][, ...options] } into cmd, as mongosh's _runShardCollection does. */
static bool
build_shard_collection_doc (const sh_call_t *call, const char *name, const char *method, bson_t *cmd, sh_error_t *err)
{
   bson_t base = BSON_INITIALIZER;
   bson_t opts;
   bson_iter_t uit, oit;
   bool have_opts = false, have_unique = false, ok = false;
   int opts_arg = 3;

   if (!args_check (call, 0, ARG_STRING, true, "Shard", method, err) ||
       !args_check (call, 1, ARG_OBJECT, true, "Shard", method, err) ||
       !args_check (call, 2, ARG_BOOL | ARG_OBJECT, false, "Shard", method, err) ||
       !args_check (call, 3, ARG_OBJECT, false, "Shard", method, err))
      goto done;
   have_unique = args_get (call, 2, &uit);
   if (have_unique && BSON_ITER_HOLDS_DOCUMENT (&uit)) {
      /* a non-null object in the unique position is the options */
      oit = uit;
      opts_arg = 2;
      have_opts = true;
      have_unique = false;
   } else if (args_get (call, 3, &oit) && BSON_ITER_HOLDS_DOCUMENT (&oit)) {
      have_opts = true;
   }
   args_append (call, 0, &base, name);
   args_append (call, 1, &base, "key");
   if (have_unique)
      bson_append_value (&base, "unique", -1, bson_iter_value (&uit));
   if (have_opts && !docget_iter_sub (&oit, BSON_TYPE_DOCUMENT, &opts)) {
      sh_error_set_at (err, SH_ERR_ARGS, call->pos, "invalid options document");
      goto done;
   }
   /* the options go out unchanged; an integer option must still be one (the server limits numInitialChunks further) */
   if (have_opts && !args_opt_int (call, opts_arg, "numInitialChunks", 0, INT32_MAX, NULL, err))
      goto done;
   args_spread (cmd, &base, have_opts ? &opts : NULL);
   ok = true;
done:
   bson_destroy (&base);
   return ok;
}

static bool
build_shard_collection (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_shard_collection_doc (call, "shardCollection", "shardCollection",
                                      sh_requests_add (out, "admin", CONN_ADMIN), err);
}

static bool
build_reshard_collection (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_shard_collection_doc (call, "reshardCollection", "reshardCollection",
                                      sh_requests_add (out, "admin", CONN_ADMIN), err);
}

/* (a) exactly shardCollection's document; (b) { reshardCollection: ns, key, forceRedistribution: true
 * [, numInitialChunks][, collation] } with only those two options copied (mongosh 2.4.1+). */
static bool
build_shard_and_distribute (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it, f;
   bson_t *cmd;
   bson_t opts;
   bool have_opts = false;

   if (!build_shard_collection_doc (call, "shardCollection", "shardCollection",
                                    sh_requests_add (out, "admin", CONN_ADMIN), err))
      return false;
   /* typeof unique === 'object' (null included) makes it the options */
   if (args_get (call, 2, &it) && (BSON_ITER_HOLDS_DOCUMENT (&it) || BSON_ITER_HOLDS_NULL (&it)))
      have_opts = args_doc (call, 2, &opts);
   else
      have_opts = args_doc (call, 3, &opts);
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   args_append (call, 0, cmd, "reshardCollection");
   args_append (call, 1, cmd, "key");
   BSON_APPEND_BOOL (cmd, "forceRedistribution", true);
   if (have_opts && bson_iter_init_find (&f, &opts, "numInitialChunks") && !BSON_ITER_HOLDS_UNDEFINED (&f))
      bson_append_value (cmd, "numInitialChunks", -1, bson_iter_value (&f));
   if (have_opts && bson_iter_init_find (&f, &opts, "collation") && !BSON_ITER_HOLDS_UNDEFINED (&f))
      bson_append_value (cmd, "collation", -1, bson_iter_value (&f));
   return true;
}

/* shardsh's own: { refineCollectionShardKey: <ns>, key: <key> }, what users type into db.adminCommand in mongosh */
static bool
build_refine_shard_key (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING, true, "Shard", "refineCollectionShardKey", err) ||
       !args_check (call, 1, ARG_OBJECT, true, "Shard", "refineCollectionShardKey", err))
      return false;
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   args_append (call, 0, cmd, "refineCollectionShardKey");
   args_append (call, 1, cmd, "key");
   return true;
}

static bool
build_enable_sharding (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING, true, "Shard", "enableSharding", err) ||
       !args_check (call, 1, ARG_STRING, false, "Shard", "enableSharding", err))
      return false;
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   args_append (call, 0, cmd, "enableSharding");
   if (args_str (call, 1))
      args_append (call, 1, cmd, "primaryShard");
   return true;
}

const sh_cmd_t cmd_sh_enable_sharding = {
   .name = "sh.enableSharding",
   .usage = "sh.enableSharding(database[, primaryShard])",
   .summary = "Enable sharding on a database (from 6.0 it just creates the database)",
   .sends = "admin { enableSharding: <database>[, primaryShard: <shard>] }",
   .example = "sh.enableSharding(\"app\")",
   .build = build_enable_sharding,
   .arg_kinds = "db,shard",
   .not_found_hint = ". Are you connected to mongos?",
};

const sh_cmd_t cmd_sh_shard_collection = {
   .name = "sh.shardCollection",
   .usage = "sh.shardCollection(namespace, key[, unique][, options])",
   .summary = "Shard a collection on a key (range, hashed or compound); cannot be undone",
   .sends = "admin { shardCollection: <ns>, key: <key>[, unique: <unique>][, ...options] }",
   .example = "sh.shardCollection(\"app.users\", {uid: \"hashed\"})",
   .build = build_shard_collection,
   .arg_kinds = "ns",
   .not_found_hint = ". Are you connected to mongos?",
};

/* reshardCollection, moveCollection and unshardCollection block until they commit. Ctrl-C stops the wait, not the
 * operation: the server goes on with it, so the error says so and how to follow or abort it. */
static bool
exec_resharding (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bool ok = cmd_exec_requests (ctx, call, res, err);
   if (!ok && err->kind == SH_ERR_INTERRUPTED) {
      const char *name = call->cmd->name + 3; /* after "sh." */
      const char *ns = args_str (call, 0) ? args_str (call, 0) : "<namespace>";
      sh_error_hint (err,
                     "the %s goes on on the server: follow it with sh.progress(), abort it with "
                     "sh.abort%c%s(\"%s\")",
                     name, name[0] - 'a' + 'A', name + 1, ns);
   }
   return ok;
}

const sh_cmd_t cmd_sh_reshard_collection = {
   .name = "sh.reshardCollection",
   .usage = "sh.reshardCollection(namespace, key[, unique][, options])",
   .summary = "Reshard a collection onto a new shard key",
   .sends = "admin { reshardCollection: <ns>, key: <key>[, unique: <unique>][, ...options] }",
   .example = "sh.reshardCollection(\"app.users\", {uid: 1, ts: 1})",
   .since = "5.0",
   .build = build_reshard_collection,
   .exec = exec_resharding,
   .arg_kinds = "ns",
   .not_found_hint = ". Are you connected to mongos?",
};

const sh_cmd_t cmd_sh_commit_reshard_collection = {
   .name = "sh.commitReshardCollection",
   .usage = "sh.commitReshardCollection(namespace)",
   .summary = "Make a running resharding operation finish now (blocks writes briefly)",
   .sends = "admin { commitReshardCollection: <ns> }",
   .example = "sh.commitReshardCollection(\"app.users\")",
   .since = "5.0",
   .build = args_build_method_string,
   .arg_kinds = "ns",
};

const sh_cmd_t cmd_sh_abort_reshard_collection = {
   .name = "sh.abortReshardCollection",
   .usage = "sh.abortReshardCollection(namespace)",
   .summary = "Abort a running resharding operation",
   .sends = "admin { abortReshardCollection: <ns> }",
   .example = "sh.abortReshardCollection(\"app.users\")",
   .since = "5.0",
   .build = args_build_method_string,
   .arg_kinds = "ns",
};

const sh_cmd_t cmd_sh_shard_and_distribute_collection = {
   .name = "sh.shardAndDistributeCollection",
   .usage = "sh.shardAndDistributeCollection(namespace, key[, unique][, options])",
   .summary = "Shard a collection, then reshard it on the same key to spread its data over all shards",
   .sends =
      "admin { shardCollection: <ns>, key: <key>[, unique][, ...options] }, then admin { reshardCollection: <ns>, "
      "key: <key>, forceRedistribution: true[, numInitialChunks][, collation] }",
   .example = "sh.shardAndDistributeCollection(\"app.users\", {uid: 1})",
   .since = "8.0",
   .build = build_shard_and_distribute,
   .arg_kinds = "ns",
};

const sh_cmd_t cmd_sh_move_collection = {
   .name = "sh.moveCollection",
   .usage = "sh.moveCollection(namespace, toShard)",
   .summary = "Move an unsharded collection to another shard",
   .sends = "admin { moveCollection: <ns>, toShard: <shard> }",
   .example = "sh.moveCollection(\"app.logs\", \"shard02\")",
   .since = "8.0",
   .build = args_build_method_to_shard,
   .exec = exec_resharding,
   .arg_kinds = "ns,shard",
};

const sh_cmd_t cmd_sh_abort_move_collection = {
   .name = "sh.abortMoveCollection",
   .usage = "sh.abortMoveCollection(namespace)",
   .summary = "Abort a running moveCollection",
   .sends = "admin { abortMoveCollection: <ns> }",
   .example = "sh.abortMoveCollection(\"app.logs\")",
   .since = "8.0",
   .build = args_build_method_string,
   .arg_kinds = "ns",
};

const sh_cmd_t cmd_sh_unshard_collection = {
   .name = "sh.unshardCollection",
   .usage = "sh.unshardCollection(namespace, toShard)",
   .summary = "Unshard a collection, gathering all its data on one shard",
   .sends = "admin { unshardCollection: <ns>, toShard: <shard> }",
   .example = "sh.unshardCollection(\"app.events\", \"shard01\")",
   .since = "8.0",
   .build = args_build_method_to_shard,
   .exec = exec_resharding,
   .arg_kinds = "ns,shard",
};

const sh_cmd_t cmd_sh_abort_unshard_collection = {
   .name = "sh.abortUnshardCollection",
   .usage = "sh.abortUnshardCollection(namespace)",
   .summary = "Abort a running unshardCollection",
   .sends = "admin { abortUnshardCollection: <ns> }",
   .example = "sh.abortUnshardCollection(\"app.events\")",
   .since = "8.0",
   .build = args_build_method_string,
   .arg_kinds = "ns",
};

const sh_cmd_t cmd_sh_refine_collection_shard_key = {
   .name = "sh.refineCollectionShardKey",
   .usage = "sh.refineCollectionShardKey(namespace, key)",
   .summary = "Add suffix fields to a collection's shard key (the new key starts with the current one)",
   .sends = "admin { refineCollectionShardKey: <ns>, key: <key> }",
   .example = "sh.refineCollectionShardKey(\"app.users\", {uid: 1, region: 1})",
   .since = "4.4",
   .flags = CMD_EXTRA,
   .build = build_refine_shard_key,
   .arg_kinds = "ns",
};
