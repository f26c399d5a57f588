/* Sharding a database or collection: sh.enableSharding, sh.shardCollection and sh.reshardCollection, with
 * mongosh's argument folding (a document in the unique position is the options; options spread over the base). */
#include <string.h>

#include "commands.h"

/* dst = { ...base, ...opts } with JS spread semantics: a repeated key keeps its first position and takes the later
 * value; new keys follow in their own order. dst is initialised by the caller. */
static void
spread (bson_t *dst, const bson_t *base, const bson_t *opts)
{
   bson_iter_t it, o;
   bson_iter_init (&it, base);
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (opts && bson_iter_init_find (&o, opts, k))
         bson_append_value (dst, k, -1, bson_iter_value (&o));
      else
         bson_append_value (dst, k, -1, bson_iter_value (&it));
   }
   if (opts && bson_iter_init (&o, opts)) {
      while (bson_iter_next (&o)) {
         if (!bson_has_field (base, bson_iter_key (&o)))
            bson_append_value (dst, bson_iter_key (&o), -1, bson_iter_value (&o));
      }
   }
}

/* Builds { <name>: ns, key[, unique][, ...options] } into cmd, as mongosh's _runShardCollection does. */
static bool
build_shard_collection_doc (const sh_call_t *call, const char *name, const char *method, bson_t *cmd, sh_error_t *err)
{
   bson_t base = BSON_INITIALIZER;
   bson_t opts;
   bson_iter_t uit, oit;
   bool have_opts = false, have_unique = false, ok = false;

   if (!args_check (call, 0, ARG_STRING, true, "Shard", method, err) ||
       !args_check (call, 1, ARG_OBJECT, true, "Shard", method, err) ||
       !args_check (call, 2, ARG_BOOL | ARG_OBJECT, false, "Shard", method, err) ||
       !args_check (call, 3, ARG_OBJECT, false, "Shard", method, err))
      goto done;
   have_unique = args_get (call, 2, &uit);
   if (have_unique && BSON_ITER_HOLDS_DOCUMENT (&uit)) {
      /* a non-null object in the unique position is the options */
      oit = uit;
      have_opts = true;
      have_unique = false;
   } else if (args_get (call, 3, &oit) && BSON_ITER_HOLDS_DOCUMENT (&oit)) {
      have_opts = true;
   }
   args_append (call, 0, &base, name);
   args_append (call, 1, &base, "key");
   if (have_unique)
      bson_append_value (&base, "unique", -1, bson_iter_value (&uit));
   if (have_opts) {
      const uint8_t *data;
      uint32_t len;
      bson_iter_document (&oit, &len, &data);
      if (!bson_init_static (&opts, data, len)) {
         sh_error_set_at (err, SH_ERR_ARGS, call->pos, "invalid options document");
         goto done;
      }
   }
   spread (cmd, &base, have_opts ? &opts : NULL);
   ok = true;
done:
   bson_destroy (&base);
   return ok;
}

static bool
build_shard_collection (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_shard_collection_doc (call, "shardCollection", "shardCollection", sh_requests_add (out, "admin", CONN_ADMIN),
                                      err);
}

static bool
build_reshard_collection (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_shard_collection_doc (call, "reshardCollection", "reshardCollection",
                                      sh_requests_add (out, "admin", CONN_ADMIN), err);
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
};

const sh_cmd_t cmd_sh_shard_collection = {
   .name = "sh.shardCollection",
   .usage = "sh.shardCollection(namespace, key[, unique][, options])",
   .summary = "Shard a collection on a key (range, hashed or compound); cannot be undone",
   .sends = "admin { shardCollection: <ns>, key: <key>[, unique: <unique>][, ...options] }",
   .example = "sh.shardCollection(\"app.users\", {uid: \"hashed\"})",
   .build = build_shard_collection,
};

const sh_cmd_t cmd_sh_reshard_collection = {
   .name = "sh.reshardCollection",
   .usage = "sh.reshardCollection(namespace, key[, unique][, options])",
   .summary = "Reshard a collection onto a new shard key",
   .sends = "admin { reshardCollection: <ns>, key: <key>[, unique: <unique>][, ...options] }",
   .example = "sh.reshardCollection(\"app.users\", {uid: 1, ts: 1})",
   .since = "5.0",
   .flags = CMD_DESTRUCTIVE,
   .build = build_reshard_collection,
};
