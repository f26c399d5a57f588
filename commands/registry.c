/* The command table: every entry of every family, in the order help lists them. Adding a helper means writing its
 * entry in its family file and adding one line here; help, completion and docs/commands.md follow from this list. */
#include <string.h>

#include "commands.h"

/* family files */
extern const sh_cmd_t cmd_sh_enable_sharding, cmd_sh_shard_collection, cmd_sh_reshard_collection;
extern const sh_cmd_t cmd_sh_add_shard_to_zone, cmd_sh_add_shard_tag, cmd_sh_remove_shard_from_zone,
   cmd_sh_remove_shard_tag, cmd_sh_update_zone_key_range, cmd_sh_add_tag_range, cmd_sh_remove_range_from_zone,
   cmd_sh_remove_tag_range;
extern const sh_cmd_t cmd_sh_split_at, cmd_sh_split_find, cmd_sh_move_chunk, cmd_sh_move_range;
extern const sh_cmd_t cmd_sh_start_balancer, cmd_sh_stop_balancer, cmd_sh_set_balancer_state,
   cmd_sh_get_balancer_state, cmd_sh_is_balancer_running;
extern const sh_cmd_t cmd_db_admin_command, cmd_db_run_command;
extern const sh_cmd_t cmd_db_coll_find, cmd_db_coll_find_one, cmd_db_coll_count_documents, cmd_db_coll_aggregate,
   cmd_db_coll_distinct, cmd_db_coll_get_indexes;
extern const sh_cmd_t cmd_help, cmd_sh_help, cmd_use, cmd_show, cmd_exit, cmd_print, cmd_printjson, cmd_db_get_name,
   cmd_sleep;

const sh_cmd_t *const sh_cmd_table[] = {
   /* sh.*: sharding */
   &cmd_sh_enable_sharding,
   &cmd_sh_shard_collection,
   &cmd_sh_reshard_collection,
   /* sh.*: zones */
   &cmd_sh_add_shard_to_zone,
   &cmd_sh_add_shard_tag,
   &cmd_sh_remove_shard_from_zone,
   &cmd_sh_remove_shard_tag,
   &cmd_sh_update_zone_key_range,
   &cmd_sh_add_tag_range,
   &cmd_sh_remove_range_from_zone,
   &cmd_sh_remove_tag_range,
   /* sh.*: chunks */
   &cmd_sh_split_at,
   &cmd_sh_split_find,
   &cmd_sh_move_chunk,
   &cmd_sh_move_range,
   /* sh.*: balancer */
   &cmd_sh_start_balancer,
   &cmd_sh_stop_balancer,
   &cmd_sh_set_balancer_state,
   &cmd_sh_get_balancer_state,
   &cmd_sh_is_balancer_running,
   &cmd_sh_help,
   /* db.* */
   &cmd_db_admin_command,
   &cmd_db_run_command,
   &cmd_db_get_name,
   &cmd_db_coll_find,
   &cmd_db_coll_find_one,
   &cmd_db_coll_count_documents,
   &cmd_db_coll_aggregate,
   &cmd_db_coll_distinct,
   &cmd_db_coll_get_indexes,
   /* the shell */
   &cmd_use,
   &cmd_show,
   &cmd_help,
   &cmd_print,
   &cmd_printjson,
   &cmd_sleep,
   &cmd_exit,
   NULL,
};

const sh_cmd_t *
sh_cmd_find (const char *name)
{
   for (size_t i = 0; sh_cmd_table[i]; i++) {
      if (!strcmp (sh_cmd_table[i]->name, name))
         return sh_cmd_table[i];
   }
   return NULL;
}

/* Damerau-free Levenshtein distance, case-insensitive, bounded to short names. */
static size_t
edit_distance (const char *a, const char *b)
{
   size_t la = strlen (a), lb = strlen (b);
   size_t prev[128], cur[128];
   if (la >= 127 || lb >= 127)
      return 1000;
   for (size_t j = 0; j <= lb; j++)
      prev[j] = j;
   for (size_t i = 1; i <= la; i++) {
      cur[0] = i;
      for (size_t j = 1; j <= lb; j++) {
         char ca = a[i - 1] | 0x20, cb = b[j - 1] | 0x20;
         size_t sub = prev[j - 1] + (ca != cb);
         size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
         cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
      }
      memcpy (prev, cur, (lb + 1) * sizeof prev[0]);
   }
   return prev[lb];
}

size_t
sh_cmd_suggest (const char *name, const char **out, size_t max)
{
   size_t n = 0;
   size_t best[8];
   size_t limit = strlen (name) / 3 + 2;
   if (max > 8)
      max = 8;
   for (size_t i = 0; sh_cmd_table[i]; i++) {
      size_t d = edit_distance (name, sh_cmd_table[i]->name);
      size_t pos;
      if (d > limit)
         continue;
      /* insertion into the sorted best list */
      for (pos = n; pos > 0 && best[pos - 1] > d; pos--) {
         if (pos < max) {
            best[pos] = best[pos - 1];
            out[pos] = out[pos - 1];
         }
      }
      if (pos < max) {
         best[pos] = d;
         out[pos] = sh_cmd_table[i]->name;
         if (n < max)
            n++;
      }
   }
   return n;
}
