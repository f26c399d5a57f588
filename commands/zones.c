/* Zone helpers: sh.addShardToZone, sh.removeShardFromZone, sh.updateZoneKeyRange, sh.removeRangeFromZone and
 * their deprecated tag aliases. Each builds exactly the admin command mongosh 2.12 sends. */
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"

/* sh.addShardToZone / sh.removeShardFromZone and their tag aliases: { <command>: <shard>, zone: <zone> }, the command
 * named by the entry or, for an alias, by the entry it stands for. */
static bool
build_shard_zone (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   const char *m = args_method (call); /* the alias names itself in messages */
   const char *target = call->cmd->alias_of ? call->cmd->alias_of : call->cmd->name;
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING, true, "Shard", m, err) ||
       !args_check (call, 1, ARG_STRING, true, "Shard", m, err))
      return false;
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   args_append (call, 0, cmd, strchr (target, '.') ? strchr (target, '.') + 1 : target);
   args_append (call, 1, cmd, "zone");
   return true;
}

static bool
build_update_zone_key_range (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   const char *m = args_method (call); /* the alias names itself in messages */
   bson_t *cmd;
   /* the zone is required but its type is not checked: null is sent as BSON null */
   if (!args_check (call, 0, ARG_STRING, true, "Shard", m, err) ||
       !args_check (call, 1, ARG_OBJECT, true, "Shard", m, err) ||
       !args_check (call, 2, ARG_OBJECT, true, "Shard", m, err) ||
       !args_check (call, 3, ARG_ANY, true, "Shard", m, err))
      return false;
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   args_append (call, 0, cmd, "updateZoneKeyRange");
   args_append (call, 1, cmd, "min");
   args_append (call, 2, cmd, "max");
   args_append (call, 3, cmd, "zone");
   return true;
}

static bool
build_remove_range_from_zone (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   const char *m = args_method (call); /* the alias names itself in messages */
   bson_t *cmd;
   if (!args_check (call, 0, ARG_STRING, true, "Shard", m, err) ||
       !args_check (call, 1, ARG_OBJECT, true, "Shard", m, err) ||
       !args_check (call, 2, ARG_OBJECT, true, "Shard", m, err))
      return false;
   cmd = sh_requests_add (out, "admin", CONN_ADMIN);
   args_append (call, 0, cmd, "updateZoneKeyRange");
   args_append (call, 1, cmd, "min");
   args_append (call, 2, cmd, "max");
   BSON_APPEND_NULL (cmd, "zone");
   return true;
}

const sh_cmd_t cmd_sh_add_shard_to_zone = {
   .name = "sh.addShardToZone",
   .usage = "sh.addShardToZone(shard, zone)",
   .summary = "Associate a shard with a zone",
   .sends = "admin { addShardToZone: <shard>, zone: <zone> }",
   .example = "sh.addShardToZone(\"shard01\", \"NYC\")",
   .since = "3.4",
   .flags = CMD_MONGOS_CHECK,
   .build = build_shard_zone,
   .arg_kinds = "shard,zone",
};

const sh_cmd_t cmd_sh_add_shard_tag = {
   .name = "sh.addShardTag",
   .alias_of = "sh.addShardToZone",
   .usage = "sh.addShardTag(shard, tag)",
   .summary = "Deprecated alias of sh.addShardToZone",
   .sends = "admin { addShardToZone: <shard>, zone: <tag> }",
   .example = "sh.addShardTag(\"shard01\", \"NYC\")",
   .since = "3.4",
   .flags = CMD_MONGOS_CHECK | CMD_ALIAS,
   .build = build_shard_zone,
   .arg_kinds = "shard,zone",
   .not_found_hint = ". This method aliases to addShardToZone which exists only for server versions > 3.4.",
};

const sh_cmd_t cmd_sh_remove_shard_from_zone = {
   .name = "sh.removeShardFromZone",
   .usage = "sh.removeShardFromZone(shard, zone)",
   .summary = "Remove the association between a shard and a zone",
   .sends = "admin { removeShardFromZone: <shard>, zone: <zone> }",
   .example = "sh.removeShardFromZone(\"shard01\", \"NYC\")",
   .since = "3.4",
   .flags = CMD_MONGOS_CHECK,
   .build = build_shard_zone,
   .arg_kinds = "shard,zone",
};

const sh_cmd_t cmd_sh_remove_shard_tag = {
   .name = "sh.removeShardTag",
   .alias_of = "sh.removeShardFromZone",
   .usage = "sh.removeShardTag(shard, tag)",
   .summary = "Deprecated alias of sh.removeShardFromZone",
   .sends = "admin { removeShardFromZone: <shard>, zone: <tag> }",
   .example = "sh.removeShardTag(\"shard01\", \"NYC\")",
   .since = "3.4",
   .flags = CMD_MONGOS_CHECK | CMD_ALIAS,
   .build = build_shard_zone,
   .arg_kinds = "shard,zone",
   .not_found_hint = ". This method aliases to removeShardFromZone which exists only for server versions > 3.4.",
};

const sh_cmd_t cmd_sh_update_zone_key_range = {
   .name = "sh.updateZoneKeyRange",
   .usage = "sh.updateZoneKeyRange(namespace, min, max, zone)",
   .summary = "Assign the shard-key range [min, max) of a collection to a zone (zone null removes it)",
   .sends = "admin { updateZoneKeyRange: <ns>, min: <min>, max: <max>, zone: <zone> }",
   .example = "sh.updateZoneKeyRange(\"test.users\", {zipcode: \"10001\"}, {zipcode: MaxKey}, \"NYC\")",
   .since = "3.4",
   .flags = CMD_MONGOS_CHECK,
   .build = build_update_zone_key_range,
   .arg_kinds = "ns,,,zone",
};

const sh_cmd_t cmd_sh_add_tag_range = {
   .name = "sh.addTagRange",
   .alias_of = "sh.updateZoneKeyRange",
   .usage = "sh.addTagRange(namespace, min, max, zone)",
   .summary = "Deprecated alias of sh.updateZoneKeyRange",
   .sends = "admin { updateZoneKeyRange: <ns>, min: <min>, max: <max>, zone: <zone> }",
   .example = "sh.addTagRange(\"test.users\", {zipcode: \"10001\"}, {zipcode: MaxKey}, \"NYC\")",
   .since = "3.4",
   .flags = CMD_MONGOS_CHECK | CMD_ALIAS,
   .build = build_update_zone_key_range,
   .arg_kinds = "ns,,,zone",
   .not_found_hint = ". This method aliases to updateZoneKeyRange which exists only for server versions > 3.4.",
};

const sh_cmd_t cmd_sh_remove_range_from_zone = {
   .name = "sh.removeRangeFromZone",
   .usage = "sh.removeRangeFromZone(namespace, min, max)",
   .summary = "Remove the zone assignment of the shard-key range [min, max)",
   .sends = "admin { updateZoneKeyRange: <ns>, min: <min>, max: <max>, zone: null }",
   .example = "sh.removeRangeFromZone(\"test.users\", {zipcode: \"10001\"}, {zipcode: MaxKey})",
   .since = "3.4",
   .flags = CMD_MONGOS_CHECK,
   .build = build_remove_range_from_zone,
   .arg_kinds = "ns",
};

const sh_cmd_t cmd_sh_remove_tag_range = {
   .name = "sh.removeTagRange",
   .alias_of = "sh.removeRangeFromZone",
   .usage = "sh.removeTagRange(namespace, min, max)",
   .summary = "Deprecated alias of sh.removeRangeFromZone (a fourth tag argument is ignored)",
   .sends = "admin { updateZoneKeyRange: <ns>, min: <min>, max: <max>, zone: null }",
   .example = "sh.removeTagRange(\"test.users\", {zipcode: \"10001\"}, {zipcode: MaxKey})",
   .since = "3.4",
   .flags = CMD_MONGOS_CHECK | CMD_ALIAS,
   .build = build_remove_range_from_zone,
   .arg_kinds = "ns",
   .not_found_hint = ". This method aliases to updateZoneKeyRange which exists only for server versions > 3.4.",
};
