/* Chunk helpers: sh.splitAt, sh.splitFind, sh.moveChunk and sh.moveRange, building exactly mongosh's documents
 * (moveRange always carries min and max, null when omitted). */
#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"

static bool
build_split (const sh_call_t *call, sh_requests_t *out, const char *method, const char *field, sh_error_t *err)
{
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING, true, "Shard", method, err) ||
       !args_check (call, 1, ARG_OBJECT, true, "Shard", method, err))
      return false;
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   args_append (call, 0, cmd, "split");
   args_append (call, 1, cmd, field);
   return true;
}

static bool
build_split_at (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_split (call, out, "splitAt", "middle", err);
}

static bool
build_split_find (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   return build_split (call, out, "splitFind", "find", err);
}

static bool
build_move_chunk (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING, true, "Shard", "moveChunk", err) ||
       !args_check (call, 1, ARG_OBJECT, true, "Shard", "moveChunk", err) ||
       !args_check (call, 2, ARG_STRING, true, "Shard", "moveChunk", err))
      return false;
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   args_append (call, 0, cmd, "moveChunk");
   args_append (call, 1, cmd, "find");
   args_append (call, 2, cmd, "to");
   return true;
}

static bool
build_move_range (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   bson_iter_t it;
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING, true, "Shard", "moveRange", err) ||
       !args_check (call, 1, ARG_STRING, true, "Shard", "moveRange", err) ||
       !args_check (call, 2, ARG_OBJECT, false, "Shard", "moveRange", err) ||
       !args_check (call, 3, ARG_OBJECT, false, "Shard", "moveRange", err))
      return false;
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   args_append (call, 0, cmd, "moveRange");
   args_append (call, 1, cmd, "toShard");
   /* all four fields are always present; an omitted bound goes out as BSON null */
   if (args_get (call, 2, &it))
      args_append (call, 2, cmd, "min");
   else
      BSON_APPEND_NULL (cmd, "min");
   if (args_get (call, 3, &it))
      args_append (call, 3, cmd, "max");
   else
      BSON_APPEND_NULL (cmd, "max");
   return true;
}

const sh_cmd_t cmd_sh_split_at = {
   .name = "sh.splitAt",
   .usage = "sh.splitAt(namespace, query)",
   .summary = "Split the chunk holding query at exactly that shard-key value",
   .sends = "admin { split: <ns>, middle: <query> }",
   .example = "sh.splitAt(\"app.events\", {ts: 1000})",
   .build = build_split_at,
   .arg_kinds = "ns",
};

const sh_cmd_t cmd_sh_split_find = {
   .name = "sh.splitFind",
   .usage = "sh.splitFind(namespace, query)",
   .summary = "Split the chunk holding query at its median point",
   .sends = "admin { split: <ns>, find: <query> }",
   .example = "sh.splitFind(\"app.events\", {ts: 1000})",
   .build = build_split_find,
   .arg_kinds = "ns",
};

const sh_cmd_t cmd_sh_move_chunk = {
   .name = "sh.moveChunk",
   .usage = "sh.moveChunk(namespace, query, destination)",
   .summary = "Move the chunk holding query to the destination shard",
   .sends = "admin { moveChunk: <ns>, find: <query>, to: <destination> }",
   .example = "sh.moveChunk(\"app.events\", {ts: 1000}, \"shard02\")",
   .build = build_move_chunk,
   .arg_kinds = "ns,,shard",
};

const sh_cmd_t cmd_sh_move_range = {
   .name = "sh.moveRange",
   .usage = "sh.moveRange(namespace, toShard[, min][, max])",
   .summary = "Move the range starting at min (or ending at max) to toShard",
   .sends = "admin { moveRange: <ns>, toShard: <shard>, min: <min or null>, max: <max or null> }",
   .example = "sh.moveRange(\"app.events\", \"shard02\", {ts: 1000})",
   .since = "6.0",
   .flags = CMD_MONGOS_CHECK,
   .build = build_move_range,
   .arg_kinds = "ns,shard",
};
