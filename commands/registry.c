/* The command table: every entry of every family, in the order help lists them. Adding a helper means writing its
 * entry in its family file and adding one line here; help, completion and docs/commands.md follow from this list. */
#include <string.h>

#include "commands/commands.h"

/* family files */
extern const sh_cmd_t cmd_sh_enable_sharding, cmd_sh_shard_collection, cmd_sh_reshard_collection;
extern const sh_cmd_t cmd_sh_add_shard_to_zone, cmd_sh_add_shard_tag, cmd_sh_remove_shard_from_zone,
   cmd_sh_remove_shard_tag, cmd_sh_update_zone_key_range, cmd_sh_add_tag_range, cmd_sh_remove_range_from_zone,
   cmd_sh_remove_tag_range;
extern const sh_cmd_t cmd_sh_split_at, cmd_sh_split_find, cmd_sh_move_chunk, cmd_sh_move_range;
extern const sh_cmd_t cmd_sh_start_balancer, cmd_sh_stop_balancer, cmd_sh_set_balancer_state, cmd_sh_get_balancer_state,
   cmd_sh_is_balancer_running;
extern const sh_cmd_t cmd_db_admin_command, cmd_db_run_command;
extern const sh_cmd_t cmd_db_coll_find, cmd_db_coll_find_one, cmd_db_coll_count_documents, cmd_db_coll_aggregate,
   cmd_db_coll_distinct, cmd_db_coll_get_indexes;
extern const sh_cmd_t cmd_sh_commit_reshard_collection, cmd_sh_abort_reshard_collection,
   cmd_sh_shard_and_distribute_collection, cmd_sh_move_collection, cmd_sh_abort_move_collection,
   cmd_sh_unshard_collection, cmd_sh_abort_unshard_collection, cmd_sh_refine_collection_shard_key;
extern const sh_cmd_t cmd_sh_add_shard, cmd_sh_list_shards, cmd_sh_is_config_shard_enabled,
   cmd_sh_shard_draining_status, cmd_sh_transition_status, cmd_sh_remove_shard;
extern const sh_cmd_t cmd_sh_balancer_collection_status, cmd_sh_enable_migrations, cmd_sh_disable_migrations,
   cmd_sh_wait_for_balancer, cmd_sh_wait_for_balancer_off, cmd_sh_get_balancer_window, cmd_sh_set_balancer_window,
   cmd_sh_configure_collection_balancing;
extern const sh_cmd_t cmd_sh_enable_auto_split, cmd_sh_disable_auto_split, cmd_sh_start_auto_merger,
   cmd_sh_stop_auto_merger, cmd_sh_is_auto_merger_enabled, cmd_sh_enable_auto_merger, cmd_sh_disable_auto_merger,
   cmd_sh_enable_balancing, cmd_sh_disable_balancing;
extern const sh_cmd_t cmd_sh_get_active_migrations, cmd_sh_get_recent_migrations, cmd_sh_get_recent_failed_rounds;
extern const sh_cmd_t cmd_sh_progress, cmd_sh_explain_balance, cmd_sh_migration_history;
extern const sh_cmd_t cmd_sh_status, cmd_db_print_sharding_status, cmd_sh_print_sharding_sizes;
extern const sh_cmd_t cmd_db_coll_get_shard_distribution, cmd_db_coll_analyze_shard_key,
   cmd_db_coll_configure_query_analyzer, cmd_db_coll_get_shard_version, cmd_db_coll_get_shard_location,
   cmd_sh_check_metadata_consistency, cmd_db_check_metadata_consistency, cmd_db_coll_check_metadata_consistency,
   cmd_sh_get_sharded_data_distribution;
extern const sh_cmd_t cmd_convert_shard_key_to_hashed;
extern const sh_cmd_t cmd_sh_advise_shard_key;
extern const sh_cmd_t cmd_db_coll_insert_one, cmd_db_coll_insert_many, cmd_db_coll_update_one, cmd_db_coll_update_many,
   cmd_db_coll_replace_one, cmd_db_coll_delete_one, cmd_db_coll_delete_many, cmd_db_coll_find_one_and_update;
extern const sh_cmd_t cmd_db_coll_create_index, cmd_db_coll_create_indexes, cmd_db_coll_drop_index,
   cmd_db_coll_drop_indexes, cmd_db_coll_hide_index, cmd_db_coll_unhide_index;
extern const sh_cmd_t cmd_db_current_op, cmd_db_kill_op, cmd_db_aggregate, cmd_db_server_status, cmd_db_stats,
   cmd_db_version, cmd_db_hello, cmd_db_get_collection_names, cmd_db_get_collection_infos, cmd_db_list_commands,
   cmd_db_drop_database, cmd_db_create_collection, cmd_db_coll_drop, cmd_db_coll_rename_collection,
   cmd_db_coll_get_name, cmd_db_coll_get_full_name, cmd_db_coll_estimated_document_count, cmd_db_coll_count,
   cmd_db_coll_stats;
extern const sh_cmd_t cmd_help, cmd_sh_help, cmd_use, cmd_show, cmd_exit, cmd_print, cmd_printjson, cmd_db_get_name,
   cmd_sleep;

const sh_cmd_t *const sh_cmd_table[] = {
   /* sh.*: status */
   &cmd_sh_status,
   &cmd_sh_print_sharding_sizes,
   /* sh.*: shards */
   &cmd_sh_add_shard,
   &cmd_sh_remove_shard,
   &cmd_sh_list_shards,
   &cmd_sh_is_config_shard_enabled,
   &cmd_sh_shard_draining_status,
   &cmd_sh_transition_status,
   /* sh.*: sharding */
   &cmd_sh_enable_sharding,
   &cmd_sh_shard_collection,
   &cmd_sh_shard_and_distribute_collection,
   &cmd_sh_reshard_collection,
   &cmd_sh_commit_reshard_collection,
   &cmd_sh_abort_reshard_collection,
   &cmd_sh_refine_collection_shard_key,
   &cmd_sh_move_collection,
   &cmd_sh_abort_move_collection,
   &cmd_sh_unshard_collection,
   &cmd_sh_abort_unshard_collection,
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
   &cmd_sh_wait_for_balancer,
   &cmd_sh_wait_for_balancer_off,
   &cmd_sh_get_balancer_window,
   &cmd_sh_set_balancer_window,
   &cmd_sh_balancer_collection_status,
   &cmd_sh_enable_balancing,
   &cmd_sh_disable_balancing,
   &cmd_sh_enable_migrations,
   &cmd_sh_disable_migrations,
   &cmd_sh_configure_collection_balancing,
   /* sh.*: autosplit and automerge */
   &cmd_sh_enable_auto_split,
   &cmd_sh_disable_auto_split,
   &cmd_sh_start_auto_merger,
   &cmd_sh_stop_auto_merger,
   &cmd_sh_is_auto_merger_enabled,
   &cmd_sh_enable_auto_merger,
   &cmd_sh_disable_auto_merger,
   /* sh.*: migrations and data */
   &cmd_sh_get_active_migrations,
   &cmd_sh_get_recent_migrations,
   &cmd_sh_get_recent_failed_rounds,
   &cmd_sh_progress,
   &cmd_sh_explain_balance,
   &cmd_sh_migration_history,
   &cmd_sh_get_sharded_data_distribution,
   &cmd_sh_check_metadata_consistency,
   &cmd_sh_advise_shard_key,
   &cmd_sh_help,
   /* db.* */
   &cmd_db_admin_command,
   &cmd_db_run_command,
   &cmd_db_get_name,
   &cmd_db_current_op,
   &cmd_db_kill_op,
   &cmd_db_aggregate,
   &cmd_db_server_status,
   &cmd_db_stats,
   &cmd_db_version,
   &cmd_db_hello,
   &cmd_db_get_collection_names,
   &cmd_db_get_collection_infos,
   &cmd_db_list_commands,
   &cmd_db_create_collection,
   &cmd_db_drop_database,
   &cmd_db_print_sharding_status,
   &cmd_db_check_metadata_consistency,
   &cmd_db_coll_get_shard_distribution,
   &cmd_db_coll_get_shard_version,
   &cmd_db_coll_get_shard_location,
   &cmd_db_coll_analyze_shard_key,
   &cmd_db_coll_configure_query_analyzer,
   &cmd_db_coll_check_metadata_consistency,
   &cmd_db_coll_find,
   &cmd_db_coll_find_one,
   &cmd_db_coll_count_documents,
   &cmd_db_coll_aggregate,
   &cmd_db_coll_distinct,
   &cmd_db_coll_get_indexes,
   &cmd_db_coll_estimated_document_count,
   &cmd_db_coll_count,
   &cmd_db_coll_insert_one,
   &cmd_db_coll_insert_many,
   &cmd_db_coll_update_one,
   &cmd_db_coll_update_many,
   &cmd_db_coll_replace_one,
   &cmd_db_coll_delete_one,
   &cmd_db_coll_delete_many,
   &cmd_db_coll_find_one_and_update,
   &cmd_db_coll_create_index,
   &cmd_db_coll_create_indexes,
   &cmd_db_coll_drop_index,
   &cmd_db_coll_drop_indexes,
   &cmd_db_coll_hide_index,
   &cmd_db_coll_unhide_index,
   &cmd_db_coll_get_name,
   &cmd_db_coll_get_full_name,
   &cmd_db_coll_stats,
   &cmd_db_coll_rename_collection,
   &cmd_db_coll_drop,
   /* the shell */
   &cmd_use,
   &cmd_show,
   &cmd_help,
   &cmd_print,
   &cmd_printjson,
   &cmd_convert_shard_key_to_hashed,
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
   size_t limit = strlen (name) / 5 + 1;
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
   /* keep only the near misses: nothing more than twice as far as the best one (plus one) */
   while (n > 1 && best[n - 1] > 2 * best[0] + 1)
      n--;
   /* keep only the names about as near as the nearest one */
   while (n > 1 && best[n - 1] > best[0] + 1)
      n--;
   return n;
}

/* One table row cell: | and newlines would break the Markdown table. */
static void
md_cell (FILE *out, const char *s)
{
   for (; s && *s; s++) {
      if (*s == '|')
         fputs ("\\|", out);
      else if (*s == '\n')
         fputc (' ', out);
      else
         fputc (*s, out);
   }
}

void
sh_cmd_write_markdown (FILE *out)
{
   fputs ("# shardsh command reference\n\n"
          "Generated from the command table (`commands/registry.c`) by `build/tests/test_commands_doc --write`; the\n"
          "unit test `test_commands_doc` fails when this file and the table disagree. Markers: **needs** the minimum\n"
          "server version (refused before sending on an older cluster); **check** mongosh's one-time `{ hello: 1 }`\n"
          "mongos check runs first; **confirm** asks in a terminal unless `--yes`; **writes** refused under\n"
          "`--readonly`; **alias** a deprecated name; **shardsh** a helper mongosh does not have.\n\n"
          "Differences from mongosh that are by design: the `config.settings` / `config.collections` updates\n"
          "(autosplit, automerger, balancing, balancer window) go out as plain `update` commands, so they are not\n"
          "retryable writes and carry no `txnNumber`; mongosh runs the queries of `sh.status()` and\n"
          "`getShardDistribution()` concurrently where shardsh sends the same documents one after another, and\n"
          "on 5.0+ metadata `sh.status()` (non-verbose) reads every collection's chunk counts, first chunks and\n"
          "zone ranges with one aggregate over `config.collections` where mongosh sends three reads per\n"
          "collection (the printed output is the same, byte for byte);\n"
          "`convertShardKeyToHashed()` is computed locally instead of by an aggregate.\n\n",
          out);
   for (size_t i = 0; sh_cmd_table[i]; i++) {
      const sh_cmd_t *c = sh_cmd_table[i];
      fprintf (out, "## `%s`\n\n", c->usage);
      fprintf (out, "%s.\n\n", c->summary);
      fputs ("| | |\n|---|---|\n", out);
      if (c->sends) {
         fputs ("| sends | `", out);
         md_cell (out, c->sends);
         fputs ("` |\n", out);
      }
      if (c->since)
         fprintf (out, "| needs | MongoDB %s |\n", c->since);
      if (c->alias_of)
         fprintf (out, "| alias | of `%s` |\n", c->alias_of);
      if (c->flags & CMD_MONGOS_CHECK)
         fputs ("| check | `{ hello: 1 }` on the current database, once |\n", out);
      if (c->flags & CMD_DESTRUCTIVE)
         fputs ("| confirm | yes |\n", out);
      if (c->destructive_if)
         fputs ("| confirm | depending on the arguments |\n", out);
      if (!(c->flags & (CMD_READONLY | CMD_CLIENT_ONLY)))
         fprintf (out, "| writes | %s |\n", c->readonly_if ? "unless the command only reads" : "yes");
      if (c->flags & CMD_EXTRA)
         fputs ("| shardsh | not in mongosh |\n", out);
      if (c->example) {
         fputs ("| example | `", out);
         md_cell (out, c->example);
         fputs ("` |\n", out);
      }
      fputc ('\n', out);
   }
}
