/* docs/commands.md against the command table: the file must be exactly what sh_cmd_write_markdown() generates, and
 * every entry must carry what help and the docs need. `test_commands_doc --write` regenerates the file. */
#include <stdlib.h>
#include <string.h>

#include "commands/commands.h"
#include "tests/unit/unit.h"

#define DOC_PATH "docs/commands.md"

static char *
read_all (FILE *f, size_t *len)
{
   size_t cap = 4096, n = 0, r;
   char *buf = malloc (cap);
   while (buf && (r = fread (buf + n, 1, cap - n - 1, f)) > 0) {
      n += r;
      if (cap - n < 2) {
         char *bigger = realloc (buf, cap * 2);
         if (!bigger) {
            free (buf);
            return NULL;
         }
         buf = bigger;
         cap *= 2;
      }
   }
   if (buf)
      buf[n] = '\0';
   *len = n;
   return buf;
}

int
main (int argc, char **argv)
{
   char *generated = NULL, *on_disk = NULL;
   size_t glen = 0, dlen = 0;
   FILE *mem, *f;

   if (argc > 1 && !strcmp (argv[1], "--write")) {
      f = fopen (DOC_PATH, "w");
      if (!f) {
         perror (DOC_PATH);
         return 2;
      }
      sh_cmd_write_markdown (f);
      fclose (f);
      return 0;
   }
   mem = tmpfile ();
   sh_cmd_write_markdown (mem);
   rewind (mem);
   generated = read_all (mem, &glen);
   fclose (mem);
   f = fopen (DOC_PATH, "r");
   if (f) {
      on_disk = read_all (f, &dlen);
      fclose (f);
   }
   CHECK ("commands_doc/docs/commands.md matches the table (regenerate: test_commands_doc --write)",
          generated && on_disk && glen == dlen && !memcmp (generated, on_disk, glen));

   for (size_t i = 0; sh_cmd_table[i]; i++) {
      const sh_cmd_t *c = sh_cmd_table[i];
      char name[256];
      bson_snprintf (name, sizeof name, "commands_doc/%s has usage, summary and a runner", c->name);
      CHECK (name, c->usage && c->summary && (c->build || c->exec));
      if (!strncmp (c->name, "sh.", 3) && strcmp (c->name, "sh.help") != 0) {
         bson_snprintf (name, sizeof name, "commands_doc/%s has sends and an example", c->name);
         CHECK (name, c->sends && c->example);
      }
      bson_snprintf (name, sizeof name, "commands_doc/%s is listed once", c->name);
      CHECK (name, sh_cmd_find (c->name) == c);
   }
   {
      /* the 47 mongosh methods, the 5 aliases and the dropped helpers of the issue */
      static const char *const must[] = {
         "sh.enableSharding", "sh.commitReshardCollection", "sh.abortReshardCollection", "sh.shardCollection",
         "sh.reshardCollection", "sh.status", "sh.addShard", "sh.addShardToZone", "sh.addShardTag",
         "sh.updateZoneKeyRange", "sh.addTagRange", "sh.removeRangeFromZone", "sh.removeTagRange",
         "sh.removeShardFromZone", "sh.removeShardTag", "sh.enableAutoSplit", "sh.disableAutoSplit", "sh.splitAt",
         "sh.splitFind", "sh.moveChunk", "sh.moveRange", "sh.balancerCollectionStatus", "sh.enableBalancing",
         "sh.disableBalancing", "sh.enableMigrations", "sh.disableMigrations", "sh.getBalancerState",
         "sh.isBalancerRunning", "sh.startBalancer", "sh.stopBalancer", "sh.setBalancerState",
         "sh.getShardedDataDistribution", "sh.startAutoMerger", "sh.stopAutoMerger", "sh.isAutoMergerEnabled",
         "sh.disableAutoMerger", "sh.enableAutoMerger", "sh.checkMetadataConsistency",
         "sh.shardAndDistributeCollection", "sh.moveCollection", "sh.abortMoveCollection", "sh.unshardCollection",
         "sh.abortUnshardCollection", "sh.listShards", "sh.isConfigShardEnabled", "sh.shardDrainingStatus",
         "sh.getTransitionToDedicatedConfigServerStatus", "sh.help",
         /* dropped by mongosh */
         "sh.waitForBalancer", "sh.waitForBalancerOff", "sh.getActiveMigrations", "sh.getRecentMigrations",
         "sh.getRecentFailedRounds", "sh.getBalancerWindow", "sh.setBalancerWindow", "sh.configureCollectionBalancing",
         "sh.refineCollectionShardKey", "sh.removeShard", "sh.printShardingSizes",
         /* related */
         "db.adminCommand", "db.runCommand", "db.printShardingStatus", "db.checkMetadataConsistency",
         "db.collection.getShardDistribution", "db.collection.analyzeShardKey", "db.collection.configureQueryAnalyzer",
         "db.collection.getShardVersion", "db.collection.getShardLocation", "db.collection.checkMetadataConsistency",
         "convertShardKeyToHashed", NULL
      };
      size_t mongosh_methods = 0;
      for (size_t i = 0; must[i]; i++) {
         char name[256];
         bson_snprintf (name, sizeof name, "commands_doc/table has %s", must[i]);
         CHECK (name, sh_cmd_find (must[i]) != NULL);
      }
      for (size_t i = 0; sh_cmd_table[i]; i++) {
         const sh_cmd_t *c = sh_cmd_table[i];
         if (!strncmp (c->name, "sh.", 3) && strcmp (c->name, "sh.help") != 0 && !(c->flags & CMD_EXTRA))
            mongosh_methods++;
      }
      CHECK ("commands_doc/47 mongosh sh methods (sh.help() lists 47 rows)", mongosh_methods == 47);
      CHECK ("commands_doc/destructive: removeShard, moveChunk, moveRange, moveCollection, unshardCollection, "
             "reshardCollection, stopBalancer",
             (sh_cmd_find ("sh.removeShard")->flags & CMD_DESTRUCTIVE) &&
                (sh_cmd_find ("sh.moveChunk")->flags & CMD_DESTRUCTIVE) &&
                (sh_cmd_find ("sh.moveRange")->flags & CMD_DESTRUCTIVE) &&
                (sh_cmd_find ("sh.moveCollection")->flags & CMD_DESTRUCTIVE) &&
                (sh_cmd_find ("sh.unshardCollection")->flags & CMD_DESTRUCTIVE) &&
                (sh_cmd_find ("sh.reshardCollection")->flags & CMD_DESTRUCTIVE) &&
                (sh_cmd_find ("sh.stopBalancer")->flags & CMD_DESTRUCTIVE) &&
                sh_cmd_find ("sh.setBalancerState")->destructive_if);
   }
   free (generated);
   free (on_disk);
   UNIT_EXIT ();
}
