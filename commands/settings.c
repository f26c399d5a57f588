/* The helpers that write config.settings and config.collections directly, as mongosh's updateOne does (one
 * `update` command with ordered: true and the helper's write concern): sh.enableAutoSplit / disableAutoSplit,
 * sh.startAutoMerger / stopAutoMerger / isAutoMergerEnabled, sh.enableAutoMerger / disableAutoMerger (per
 * collection) and sh.enableBalancing / disableBalancing. They go through the command path, so unlike mongosh's
 * retryable updateOne they carry no txnNumber (docs/commands.md says so). Results print as UpdateResults. */
#include <string.h>

#include "commands.h"

/* The updateOne on config.settings { _id: <id> } $set { enabled: <on> } with upsert and wtimeout 30000. */
static void
settings_enabled_update (sh_requests_t *out, const char *id, bool on)
{
   bson_value_t idv = {.value_type = BSON_TYPE_UTF8};
   bson_value_t v = {.value_type = BSON_TYPE_BOOL};
   idv.value.v_utf8.str = (char *) id;
   idv.value.v_utf8.len = (uint32_t) strlen (id);
   v.value.v_bool = on;
   cmd_append_config_update (sh_requests_add (out, "config", CONN_ADMIN), "settings", &idv, "$set", "enabled", &v, true,
                             30000);
}

/* The updateOne on config.collections { _id: <ns> } <op> { <field>: <value> }, no upsert, wtimeout 60000. */
static bool
collections_update (const sh_call_t *call, sh_requests_t *out, const char *method, const char *op, const char *field,
                    const bson_value_t *value, sh_error_t *err)
{
   bson_iter_t it;
   if (!args_check (call, 0, ARG_STRING, true, "Shard", method, err))
      return false;
   args_get (call, 0, &it);
   cmd_append_config_update (sh_requests_add (out, "config", CONN_ADMIN), "collections", bson_iter_value (&it), op,
                             field, value, false, 60000);
   return true;
}

static bool
build_enable_auto_split (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   settings_enabled_update (out, "autosplit", true);
   return true;
}

static bool
build_disable_auto_split (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   settings_enabled_update (out, "autosplit", false);
   return true;
}

/* mongosh warns once per session that autosplit is a no-op from 6.0.3, then sends the update anyway. */
static bool
exec_auto_split (sh_ctx_t *ctx, const sh_call_t *call, sh_error_t *err)
{
   int v[3];
   sh_error_t ignored;
   sh_error_clear (&ignored);
   if (!cmd_dry_run (ctx) && !ctx->warned_autosplit && conn_server_version (ctx, v, &ignored) &&
       (v[0] > 6 || (v[0] == 6 && (v[1] > 0 || v[2] >= 3)))) {
      ctx->warned_autosplit = true;
      cmd_warn (ctx, "DeprecationWarning: Starting in MongoDB 6.0.3, automatic chunk splitting is not performed. This is "
                     "because of balancing policy improvements. Auto-splitting commands still exist, but do not "
                     "perform an operation. For details, see Balancing Policy Changes: "
                     "https://www.mongodb.com/docs/manual/release-notes/6.0/#balancing-policy-changes\n");
   }
   return cmd_exec_requests (ctx, call, err);
}

static bool
build_start_auto_merger (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   settings_enabled_update (out, "automerge", true);
   return true;
}

static bool
build_stop_auto_merger (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   settings_enabled_update (out, "automerge", false);
   return true;
}

static bool
build_is_auto_merger_enabled (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t *cmd = sh_requests_add (out, "config", CONN_READ);
   bson_t filter;
   (void) call;
   (void) err;
   BSON_APPEND_UTF8 (cmd, "find", "settings");
   BSON_APPEND_DOCUMENT_BEGIN (cmd, "filter", &filter);
   BSON_APPEND_UTF8 (&filter, "_id", "automerge");
   bson_append_document_end (cmd, &filter);
   BSON_APPEND_INT32 (cmd, "limit", 1);
   return true;
}

/* true when there is no automerge document, else doc.enabled as stored (mongosh does not force a boolean; a
 * document without the field prints nothing, as mongosh prints undefined) */
static bool
exec_is_auto_merger_enabled (sh_ctx_t *ctx, const sh_call_t *call, sh_error_t *err)
{
   bson_t doc;
   bson_iter_t it;
   bool found = false, ok = false;
   (void) call;

   if (!cmd_config_find_id (ctx, "settings", "automerge", &doc, &found, err))
      goto done;
   if (!cmd_dry_run (ctx)) {
      if (!found) {
         bson_value_t t = {.value_type = BSON_TYPE_BOOL};
         t.value.v_bool = true;
         cmd_print_value (ctx, &t);
      } else if (bson_iter_init_find (&it, &doc, "enabled")) {
         cmd_print_value (ctx, bson_iter_value (&it));
      } else {
         bson_value_t u = {.value_type = BSON_TYPE_UNDEFINED};
         cmd_print_value (ctx, &u);
      }
   }
   ok = true;
done:
   bson_destroy (&doc);
   return ok;
}

static bool
build_enable_balancing (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_value_t v = {.value_type = BSON_TYPE_BOOL};
   v.value.v_bool = false;
   return collections_update (call, out, "enableBalancing", "$set", "noBalance", &v, err);
}

static bool
build_disable_balancing (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_value_t v = {.value_type = BSON_TYPE_BOOL};
   v.value.v_bool = true;
   return collections_update (call, out, "disableBalancing", "$set", "noBalance", &v, err);
}

static bool
build_disable_auto_merger (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_value_t v = {.value_type = BSON_TYPE_BOOL};
   v.value.v_bool = false;
   return collections_update (call, out, "disableAutoMerger", "$set", "enableAutoMerge", &v, err);
}

static bool
build_enable_auto_merger (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_value_t v = {.value_type = BSON_TYPE_INT32};
   v.value.v_int32 = 1;
   return collections_update (call, out, "enableAutoMerger", "$unset", "enableAutoMerge", &v, err);
}

const sh_cmd_t cmd_sh_enable_auto_split = {
   .name = "sh.enableAutoSplit",
   .usage = "sh.enableAutoSplit()",
   .summary = "Turn automatic chunk splitting on (a no-op on the server from 6.0.3)",
   .sends = "config { update: \"settings\", updates: [ { q: { _id: \"autosplit\" }, u: { $set: { enabled: true } }, "
            "upsert: true } ], ordered: true, writeConcern: { w: \"majority\", wtimeout: 30000 } }",
   .example = "sh.enableAutoSplit()",
   .flags = CMD_MONGOS_CHECK,
   .ret = CMD_RET_UPDATE,
   .build = build_enable_auto_split,
   .exec = exec_auto_split,
};

const sh_cmd_t cmd_sh_disable_auto_split = {
   .name = "sh.disableAutoSplit",
   .usage = "sh.disableAutoSplit()",
   .summary = "Turn automatic chunk splitting off (a no-op on the server from 6.0.3)",
   .sends = "config { update: \"settings\", updates: [ { q: { _id: \"autosplit\" }, u: { $set: { enabled: false } }, "
            "upsert: true } ], ordered: true, writeConcern: { w: \"majority\", wtimeout: 30000 } }",
   .example = "sh.disableAutoSplit()",
   .flags = CMD_MONGOS_CHECK,
   .ret = CMD_RET_UPDATE,
   .build = build_disable_auto_split,
   .exec = exec_auto_split,
};

const sh_cmd_t cmd_sh_start_auto_merger = {
   .name = "sh.startAutoMerger",
   .usage = "sh.startAutoMerger()",
   .summary = "Enable the automerger for the whole cluster",
   .sends = "config { update: \"settings\", updates: [ { q: { _id: \"automerge\" }, u: { $set: { enabled: true } }, "
            "upsert: true } ], ordered: true, writeConcern: { w: \"majority\", wtimeout: 30000 } }",
   .example = "sh.startAutoMerger()",
   .since = "7.0",
   .flags = CMD_MONGOS_CHECK,
   .ret = CMD_RET_UPDATE,
   .build = build_start_auto_merger,
};

const sh_cmd_t cmd_sh_stop_auto_merger = {
   .name = "sh.stopAutoMerger",
   .usage = "sh.stopAutoMerger()",
   .summary = "Disable the automerger for the whole cluster",
   .sends = "config { update: \"settings\", updates: [ { q: { _id: \"automerge\" }, u: { $set: { enabled: false } }, "
            "upsert: true } ], ordered: true, writeConcern: { w: \"majority\", wtimeout: 30000 } }",
   .example = "sh.stopAutoMerger()",
   .since = "7.0",
   .flags = CMD_MONGOS_CHECK,
   .ret = CMD_RET_UPDATE,
   .build = build_stop_auto_merger,
};

const sh_cmd_t cmd_sh_is_auto_merger_enabled = {
   .name = "sh.isAutoMergerEnabled",
   .usage = "sh.isAutoMergerEnabled()",
   .summary = "Whether the automerger is enabled (true when config.settings has no automerge document)",
   .sends = "config { find: \"settings\", filter: { _id: \"automerge\" }, limit: 1 }",
   .example = "sh.isAutoMergerEnabled()",
   .since = "7.0",
   .flags = CMD_READONLY | CMD_MONGOS_CHECK,
   .build = build_is_auto_merger_enabled,
   .exec = exec_is_auto_merger_enabled,
};

const sh_cmd_t cmd_sh_enable_auto_merger = {
   .name = "sh.enableAutoMerger",
   .usage = "sh.enableAutoMerger(namespace)",
   .summary = "Let the automerger merge the chunks of one collection again",
   .sends = "config { update: \"collections\", updates: [ { q: { _id: <ns> }, u: { $unset: { enableAutoMerge: 1 } } } "
            "], ordered: true, writeConcern: { w: \"majority\", wtimeout: 60000 } }",
   .example = "sh.enableAutoMerger(\"app.events\")",
   .since = "7.0",
   .flags = CMD_MONGOS_CHECK,
   .ret = CMD_RET_UPDATE,
   .build = build_enable_auto_merger,
   .arg_kinds = "ns",
};

const sh_cmd_t cmd_sh_disable_auto_merger = {
   .name = "sh.disableAutoMerger",
   .usage = "sh.disableAutoMerger(namespace)",
   .summary = "Keep the automerger away from one collection",
   .sends = "config { update: \"collections\", updates: [ { q: { _id: <ns> }, u: { $set: { enableAutoMerge: false } } "
            "} ], ordered: true, writeConcern: { w: \"majority\", wtimeout: 60000 } }",
   .example = "sh.disableAutoMerger(\"app.events\")",
   .since = "7.0",
   .flags = CMD_MONGOS_CHECK,
   .ret = CMD_RET_UPDATE,
   .build = build_disable_auto_merger,
   .arg_kinds = "ns",
};

const sh_cmd_t cmd_sh_enable_balancing = {
   .name = "sh.enableBalancing",
   .usage = "sh.enableBalancing(namespace)",
   .summary = "Let the balancer migrate the chunks of one collection again",
   .sends = "config { update: \"collections\", updates: [ { q: { _id: <ns> }, u: { $set: { noBalance: false } } } ], "
            "ordered: true, writeConcern: { w: \"majority\", wtimeout: 60000 } }",
   .example = "sh.enableBalancing(\"app.users\")",
   .flags = CMD_MONGOS_CHECK,
   .ret = CMD_RET_UPDATE,
   .build = build_enable_balancing,
   .arg_kinds = "ns",
};

const sh_cmd_t cmd_sh_disable_balancing = {
   .name = "sh.disableBalancing",
   .usage = "sh.disableBalancing(namespace)",
   .summary = "Keep the balancer from migrating the chunks of one collection",
   .sends = "config { update: \"collections\", updates: [ { q: { _id: <ns> }, u: { $set: { noBalance: true } } } ], "
            "ordered: true, writeConcern: { w: \"majority\", wtimeout: 60000 } }",
   .example = "sh.disableBalancing(\"app.users\")",
   .flags = CMD_MONGOS_CHECK,
   .ret = CMD_RET_UPDATE,
   .build = build_disable_balancing,
   .arg_kinds = "ns",
};
