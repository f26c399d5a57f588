/* Shard membership: sh.addShard, sh.listShards, sh.isConfigShardEnabled, sh.shardDrainingStatus,
 * sh.getTransitionToDedicatedConfigServerStatus, and shardsh's sh.removeShard, which reports the draining progress
 * on every call (call it again to follow the drain, as the server expects). */
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "commands/dispatch.h"
#include "shell/lib/docget.h"

static bool
build_list_shards (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd;
   if (!args_check (call, 0, ARG_OBJECT, false, "Shard", "listShards", err))
      return false;
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   BSON_APPEND_INT32 (cmd, "listShards", 1);
   /* added whenever truthy: {} is sent, null is not */
   if (args_get (call, 0, &it) && !BSON_ITER_HOLDS_NULL (&it))
      args_append (call, 0, cmd, "filter");
   return true;
}

/* Runs the entry's listShards and copies the reply's shards array into shards (initialised by the callee in every
 * case; empty when absent). */
static bool
run_list_shards (sh_ctx_t *ctx, const sh_call_t *call, bson_t *shards, sh_error_t *err)
{
   bson_t reply, arr;
   bool ok = cmd_run_build (ctx, call, &reply, err);

   if (ok && docget_sub (&reply, "shards", BSON_TYPE_ARRAY, &arr))
      bson_copy_to (&arr, shards);
   else
      bson_init (shards);
   bson_destroy (&reply);
   return ok;
}

/* reply.shards ?? [] */
static bool
exec_list_shards (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t shards;
   bool ok = run_list_shards (ctx, call, &shards, err);
   if (ok && !cmd_dry_run (ctx))
      sh_result_set_array (res, &shards);
   bson_destroy (&shards);
   return ok;
}

static bool
build_is_config_shard_enabled (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   BSON_APPEND_INT32 (sh_requests_add (out, "admin", CONN_ADMIN), "listShards", 1);
   return true;
}

/* { enabled: false } or { enabled: true, host[, tags] } from the shard whose _id is "config" */
static bool
exec_is_config_shard_enabled (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t shards, result = BSON_INITIALIZER;
   bson_iter_t it, f;
   bool ok = false, found = false;

   if (!run_list_shards (ctx, call, &shards, err))
      goto done;
   bson_iter_init (&it, &shards);
   while (!found && bson_iter_next (&it)) {
      if (BSON_ITER_HOLDS_DOCUMENT (&it) && bson_iter_recurse (&it, &f) && bson_iter_find (&f, "_id") &&
          BSON_ITER_HOLDS_UTF8 (&f) && !strcmp (bson_iter_utf8 (&f, NULL), "config")) {
         found = true;
         BSON_APPEND_BOOL (&result, "enabled", true);
         if (bson_iter_recurse (&it, &f) && bson_iter_find (&f, "host"))
            bson_append_value (&result, "host", -1, bson_iter_value (&f));
         if (bson_iter_recurse (&it, &f) && bson_iter_find (&f, "tags"))
            bson_append_value (&result, "tags", -1, bson_iter_value (&f));
      }
   }
   if (!found)
      BSON_APPEND_BOOL (&result, "enabled", false);
   if (!cmd_dry_run (ctx))
      sh_result_set_doc (res, &result);
   ok = true;
done:
   bson_destroy (&shards);
   bson_destroy (&result);
   return ok;
}

static bool
build_shard_draining_status (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING, false, "Shard", "shardDrainingStatus", err))
      return false;
   cmd = sh_requests_add (out, "admin", CONN_READ);
   if (args_get (call, 0, &it))
      args_append (call, 0, cmd, "shardDrainingStatus");
   else
      BSON_APPEND_INT32 (cmd, "shardDrainingStatus", 1);
   return true;
}

static bool
build_transition_status (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   BSON_APPEND_INT32 (sh_requests_add (out, "admin", CONN_READ), "getTransitionToDedicatedConfigServerStatus", 1);
   return true;
}

static int64_t
field_count (const bson_t *doc, const char *path)
{
   bson_iter_t it, f;
   if (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &f) && BSON_ITER_HOLDS_NUMBER (&f))
      return bson_iter_as_int64 (&f);
   return 0;
}

/* Sends removeShard (which starts draining, or reports on it); its result is the reply, with a note saying where the
 * drain stands printed before it. */
static bool
exec_remove_shard (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t reply;
   bson_iter_t it, d;
   const char *state = "", *shard = args_str (call, 0);
   int v[3];
   sh_error_t ignored;
   bson_string_t *note = NULL; /* where the drain stands, before the reply */
   bool ok;

   /* MongoDB 8.3 deprecates removeShard: the router logs this warning (id 10949600, cluster_remove_shard_cmd.cpp)
    * and still runs it; mongosh has no sh.removeShard. Said once a session, with the server's words. */
   sh_error_clear (&ignored);
   if (!cmd_dry_run (ctx) && !ctx->warned_remove_shard && conn_server_version (ctx, v, &ignored) &&
       dispatch_version_at_least (v, "8.3")) {
      ctx->warned_remove_shard = true;
      cmd_warn (ctx, "DeprecationWarning: 'removeShard' command is deprecated. Please use the new shard removal API "
                     "(startShardDraining, shardDrainingStatus, commitShardRemoval) instead! (the server logs this "
                     "on MongoDB 8.3+; run them through db.adminCommand, pause a drain with stopShardDraining)\n");
   }
   ok = cmd_run_build (ctx, call, &reply, err);

   if (!ok || cmd_dry_run (ctx))
      goto done;
   if (bson_iter_init_find (&it, &reply, "state") && BSON_ITER_HOLDS_UTF8 (&it))
      state = bson_iter_utf8 (&it, NULL);
   if (ctx->out.mode != OUTPUT_JSON) {
      note = bson_string_new (NULL);
      if (!strcmp (state, "started")) {
         bson_string_append_printf (note, "draining of %s started: call sh.removeShard(\"%s\") again to follow it\n",
                                    shard, shard);
      } else if (!strcmp (state, "ongoing")) {
         bson_string_append_printf (
            note, "draining %s: %lld chunks, %lld databases, %lld jumbo chunks and %lld unsharded collections left\n",
            shard, (long long) field_count (&reply, "remaining.chunks"),
            (long long) field_count (&reply, "remaining.dbs"),
            (long long) field_count (&reply, "remaining.jumboChunks"),
            (long long) field_count (&reply, "remaining.collectionsToMove"));
      } else if (!strcmp (state, "completed")) {
         bson_string_append_printf (note, "%s is drained and removed from the cluster\n", shard);
      }
      if (bson_iter_init_find (&it, &reply, "dbsToMove") && BSON_ITER_HOLDS_ARRAY (&it) &&
          bson_iter_recurse (&it, &d)) {
         bool any = false;
         while (bson_iter_next (&d)) {
            if (BSON_ITER_HOLDS_UTF8 (&d)) {
               bson_string_append_printf (
                  note, "%s%s", any ? ", " : "databases to move with movePrimary: ", bson_iter_utf8 (&d, NULL));
               any = true;
            }
         }
         if (any)
            bson_string_append_c (note, '\n');
      }
   }
   sh_result_set_doc (res, &reply);
   if (note)
      sh_result_note (res, note);
done:
   bson_destroy (&reply);
   return ok;
}

const sh_cmd_t cmd_sh_add_shard = {
   .name = "sh.addShard",
   .usage = "sh.addShard(url)",
   .summary = "Add a shard (replica set \"rs/host:port,...\") to the cluster",
   .sends = "admin { addShard: <url> }",
   .example = "sh.addShard(\"shard03/h7:27018,h8:27018\")",
   .flags = CMD_MONGOS_CHECK,
   .build = args_build_method_string,
};

const sh_cmd_t cmd_sh_list_shards = {
   .name = "sh.listShards",
   .usage = "sh.listShards([filter])",
   .summary = "The cluster's shards (the shards array of listShards)",
   .sends = "admin { listShards: 1[, filter: <filter>] }",
   .example = "sh.listShards()",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK,
   .build = build_list_shards,
   .exec = exec_list_shards,
};

const sh_cmd_t cmd_sh_is_config_shard_enabled = {
   .name = "sh.isConfigShardEnabled",
   .usage = "sh.isConfigShardEnabled()",
   .summary = "Whether the config server also acts as a shard, and its host",
   .sends = "admin { listShards: 1 }",
   .example = "sh.isConfigShardEnabled()",
   .since = "8.0",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK,
   .build = build_is_config_shard_enabled,
   .exec = exec_is_config_shard_enabled,
};

const sh_cmd_t cmd_sh_shard_draining_status = {
   .name = "sh.shardDrainingStatus",
   .usage = "sh.shardDrainingStatus([shardId])",
   .summary = "Draining progress of a draining shard (without a shard the server answers 14: it needs one)",
   .sends = "admin { shardDrainingStatus: <shardId> } (or { shardDrainingStatus: 1 })",
   .example = "sh.shardDrainingStatus(\"shard02\")",
   .since = "8.2",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK,
   .build = build_shard_draining_status,
   .arg_kinds = "shard",
};

const sh_cmd_t cmd_sh_transition_status = {
   .name = "sh.getTransitionToDedicatedConfigServerStatus",
   .usage = "sh.getTransitionToDedicatedConfigServerStatus()",
   .summary = "Progress of moving the config shard's data off the config server",
   .sends = "admin { getTransitionToDedicatedConfigServerStatus: 1 }",
   .example = "sh.getTransitionToDedicatedConfigServerStatus()",
   .since = "8.3",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK,
   .build = build_transition_status,
};

const sh_cmd_t cmd_sh_remove_shard = {
   .name = "sh.removeShard",
   .usage = "sh.removeShard(shard)",
   .summary = "Start draining a shard, or report how far its drain has come (call again until completed); "
              "MongoDB 8.3+ deprecates it for startShardDraining/stopShardDraining/commitShardRemoval "
              "(db.adminCommand)",
   .sends = "admin { removeShard: <shard> }",
   .example = "sh.removeShard(\"shard03\")",
   .flags = CMD_EXTRA,
   .build = args_build_method_string,
   .exec = exec_remove_shard,
   .arg_kinds = "shard",
};
