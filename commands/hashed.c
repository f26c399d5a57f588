/* convertShardKeyToHashed(value): MongoDB's hashed shard-key value, computed locally with shell/lib/hashkey.c (equal to
 * the server's $toHashedIndexKey), so it needs no connection. mongosh asks the server instead (an aggregate with
 * $toHashedIndexKey on a fake database); the value printed is the same Long. */
#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "shell/lib/hashkey.h"

/* Only checks the argument (nothing is sent). */
static bool
build_convert_shard_key_to_hashed (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   (void) out;
   return args_check (call, 0, ARG_ANY, true, "Mongo", "convertShardKeyToHashed", err);
}

static bool
exec_convert_shard_key_to_hashed (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_iter_t it;
   bson_value_t v = { .value_type = BSON_TYPE_INT64 };
   (void) ctx;
   if (!args_check (call, 0, ARG_ANY, true, "Mongo", "convertShardKeyToHashed", err) || !args_get (call, 0, &it))
      return false;
   v.value.v_int64 = hashkey_value (bson_iter_value (&it));
   sh_result_set_value (res, &v);
   return true;
}

const sh_cmd_t cmd_convert_shard_key_to_hashed = {
   .name = "convertShardKeyToHashed",
   .usage = "convertShardKeyToHashed(value)",
   .summary = "The hashed shard-key value of value (a Long), computed locally as the server computes it",
   .sends = "nothing (mongosh sends { aggregate: 1, pipeline: [ { $documents: [ {} ] }, { $limit: 1 }, { $project: "
            "{ _id: { $toHashedIndexKey: { $literal: <value> } } } } ] })",
   .example = "convertShardKeyToHashed(42)",
   .flags = CMD_CLIENT_ONLY | CMD_READONLY,
   .build = build_convert_shard_key_to_hashed,
   .exec = exec_convert_shard_key_to_hashed,
};
