/* The one list of commands that only read (readcmds.h). */
#include <stdlib.h>
#include <string.h>

#include "shell/core/readcmds.h"

/* Sorted by strcmp: looked up with bsearch (a script may check thousands of raw commands). */
static const char *const readcmds_list[] = {
   "aggregate",
   "analyzeShardKey",
   "balancerCollectionStatus",
   "balancerStatus",
   "buildInfo",
   "buildinfo",
   "checkMetadataConsistency",
   "collStats",
   "connectionStatus",
   "count",
   "currentOp",
   "dataSize",
   "dbStats",
   "distinct",
   "explain", /* explains a write without running it */
   "find",
   "getCmdLineOpts",
   "getDefaultRWConcern",
   "getLog",
   "getMore",
   "getParameter",
   "getShardMap",
   "getShardVersion",
   "getTransitionToDedicatedConfigServerStatus",
   "hello",
   "hostInfo",
   "isMaster",
   "isdbgrid",
   "ismaster",
   "listCollections",
   "listCommands",
   "listDatabases",
   "listIndexes",
   "listShards",
   "ping",
   "rolesInfo",
   "serverStatus",
   "shardDrainingStatus",
   "usersInfo",
   "validate",
   "whatsmyuri",
};

/* strcmp's order for bsearch, the first bytes compared before strcmp is called (most probes differ there). */
static int
readcmds_cmp (const void *key, const void *elem)
{
   const char *a = key, *b = *(const char *const *) elem;
   int c = (int) (unsigned char) a[0] - (int) (unsigned char) b[0];
   return c ? c : strcmp (a, b);
}

bool
readcmds_name (const char *name)
{
   return bsearch (name, readcmds_list, sizeof readcmds_list / sizeof readcmds_list[0], sizeof readcmds_list[0],
                   readcmds_cmp) != NULL;
}

bool
readcmds_pipeline_writes (const bson_iter_t *pipeline)
{
   bson_iter_t p, st;
   if (!BSON_ITER_HOLDS_ARRAY (pipeline) || !bson_iter_recurse (pipeline, &p))
      return false;
   while (bson_iter_next (&p)) {
      if (BSON_ITER_HOLDS_DOCUMENT (&p) && bson_iter_recurse (&p, &st) && bson_iter_next (&st) &&
          (!strcmp (bson_iter_key (&st), "$out") || !strcmp (bson_iter_key (&st), "$merge")))
         return true;
   }
   return false;
}

bool
readcmds_validate_changes (const bson_t *cmd)
{
   /* validate reads, except the forms the manual says change or lock the collection: repair: true fixes records and
    * indexes, full: true takes an exclusive lock and forces a checkpoint, fixMultikey rewrites index metadata */
   static const char *const changing[] = { "repair", "full", "fixMultikey" };
   bson_iter_t f;
   for (size_t i = 0; i < sizeof changing / sizeof changing[0]; i++) {
      if (bson_iter_init_find (&f, cmd, changing[i]) && bson_iter_as_bool (&f))
         return true;
   }
   return false;
}

bool
readcmds_command (const bson_t *cmd)
{
   bson_iter_t it, f;
   const char *name;
   if (!bson_iter_init (&it, cmd) || !bson_iter_next (&it))
      return false;
   name = bson_iter_key (&it);
   if (!readcmds_name (name))
      return false;
   if (!strcmp (name, "aggregate"))
      return bson_iter_init_find (&f, cmd, "pipeline") && BSON_ITER_HOLDS_ARRAY (&f) && !readcmds_pipeline_writes (&f);
   return strcmp (name, "validate") != 0 || !readcmds_validate_changes (cmd);
}
