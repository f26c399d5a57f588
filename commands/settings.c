/* The helpers that write config.settings and config.collections directly, as mongosh's updateOne does (one
 * `update` command with ordered: true and the helper's write concern): sh.enableAutoSplit / disableAutoSplit,
 * sh.startAutoMerger / stopAutoMerger / isAutoMergerEnabled, sh.enableAutoMerger / disableAutoMerger (per
 * collection) and sh.enableBalancing / disableBalancing. They go through the command path, so unlike mongosh's
 * retryable updateOne they carry no txnNumber (docs/commands.md says so). Results print as UpdateResults. */
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"

/* The entries that differ only in the document they update: config.settings { _id: <id> } $set { enabled: <on> }
 * (upsert, wtimeout 30000), or config.collections { _id: <ns> } <op> { <field>: <value> } (no upsert, wtimeout
 * 60000) for the namespace in argument 0. */
typedef struct {
   const char *name;  /* the entry */
   const char *id;    /* config.settings: the document's _id; NULL for config.collections */
   const char *op;    /* config.collections: "$set" or "$unset" */
   const char *field; /* config.collections: the field */
   bson_value_t value;
} settings_write_t;

static const settings_write_t settings_writes[] = {
   { "sh.enableAutoSplit", "autosplit", NULL, NULL, { .value_type = BSON_TYPE_BOOL, .value.v_bool = true } },
   { "sh.disableAutoSplit", "autosplit", NULL, NULL, { .value_type = BSON_TYPE_BOOL, .value.v_bool = false } },
   { "sh.startAutoMerger", "automerge", NULL, NULL, { .value_type = BSON_TYPE_BOOL, .value.v_bool = true } },
   { "sh.stopAutoMerger", "automerge", NULL, NULL, { .value_type = BSON_TYPE_BOOL, .value.v_bool = false } },
   { "sh.enableBalancing", NULL, "$set", "noBalance", { .value_type = BSON_TYPE_BOOL, .value.v_bool = false } },
   { "sh.disableBalancing", NULL, "$set", "noBalance", { .value_type = BSON_TYPE_BOOL, .value.v_bool = true } },
   { "sh.disableAutoMerger", NULL, "$set", "enableAutoMerge", { .value_type = BSON_TYPE_BOOL, .value.v_bool = false } },
   { "sh.enableAutoMerger", NULL, "$unset", "enableAutoMerge", { .value_type = BSON_TYPE_INT32, .value.v_int32 = 1 } },
};

/* The build() of every entry of settings_writes. */
static bool
build_settings_write (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   const settings_write_t *w = NULL;
   bson_iter_t it;

   for (size_t i = 0; !w && i < sizeof settings_writes / sizeof settings_writes[0]; i++) {
      if (!strcmp (settings_writes[i].name, call->cmd->name))
         w = &settings_writes[i];
   }
   if (!w) {
      sh_error_set_at (err, SH_ERR_USAGE, call->pos, "%s has no row in settings_writes", call->cmd->name);
      return false;
   }
   if (w->id) {
      cmd_append_settings_update (sh_requests_add (out, "config", CONN_ADMIN), w->id, "enabled", &w->value, 30000);
      return true;
   }
   if (!args_check (call, 0, ARG_STRING, true, "Shard", args_method (call), err) || !args_get (call, 0, &it))
      return false;
   cmd_append_config_update (sh_requests_add (out, "config", CONN_ADMIN), "collections", bson_iter_value (&it), w->op,
                             w->field, &w->value, false, 60000);
   return true;
}

/* mongosh warns once per session that autosplit is a no-op from 6.0.3, then sends the update anyway. */
static bool
exec_auto_split (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   int v[3];
   sh_error_t ignored;
   sh_error_clear (&ignored);
   if (!cmd_dry_run (ctx) && !ctx->warned_autosplit && conn_server_version (ctx, v, &ignored) &&
       (v[0] > 6 || (v[0] == 6 && (v[1] > 0 || v[2] >= 3)))) {
      ctx->warned_autosplit = true;
      cmd_warn (ctx,
                "DeprecationWarning: Starting in MongoDB 6.0.3, automatic chunk splitting is not performed. This is "
                "because of balancing policy improvements. Auto-splitting commands still exist, but do not "
                "perform an operation. For details, see Balancing Policy Changes: "
                "https://www.mongodb.com/docs/manual/release-notes/6.0/#balancing-policy-changes\n");
   }
   return cmd_exec_requests (ctx, call, res, err);
}

static bool
build_is_auto_merger_enabled (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) call;
   (void) err;
   cmd_append_find_id (sh_requests_add (out, "config", CONN_READ), "settings", "automerge");
   return true;
}

/* true when there is no automerge document, else doc.enabled as stored (mongosh does not force a boolean; a
 * document without the field prints nothing, as mongosh prints undefined) */
static bool
exec_is_auto_merger_enabled (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t doc;
   bson_iter_t it;
   bool found = false, ok = false;
   (void) call;

   if (!cmd_config_find_id (ctx, "settings", "automerge", &doc, &found, err))
      goto done;
   if (!cmd_dry_run (ctx)) {
      if (!found) {
         bson_value_t t = { .value_type = BSON_TYPE_BOOL };
         t.value.v_bool = true;
         sh_result_set_value (res, &t);
      } else if (bson_iter_init_find (&it, &doc, "enabled")) {
         sh_result_set_value (res, bson_iter_value (&it));
      } else {
         bson_value_t u = { .value_type = BSON_TYPE_UNDEFINED };
         sh_result_set_value (res, &u);
      }
   }
   ok = true;
done:
   bson_destroy (&doc);
   return ok;
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
   .build = build_settings_write,
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
   .build = build_settings_write,
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
   .build = build_settings_write,
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
   .build = build_settings_write,
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
   .build = build_settings_write,
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
   .build = build_settings_write,
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
   .build = build_settings_write,
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
   .build = build_settings_write,
   .arg_kinds = "ns",
};
