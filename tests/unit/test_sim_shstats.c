/* passes: plain asan */
/* shardsim's serverStatus.shardingStatistics against the router's code (s/s_sharding_server_status.cpp
 * ShardingStatisticsServerStatus; NumHostsTargetedMetrics::report; CatalogCache::report and its Stats of each
 * version): the section after sharding, numHostsTargeted's five query types of four int32 counters, and the
 * catalogCache's fields in each version's order (4.4's blocked operations last, 5.0's before the collection cache's
 * refresh counters, gone from 6.0; 7.0 and 8.0's numIndexEntries). docs/shardsim.md ("shardingStatistics"). */
#include "tests/unit/fidelity.h"

/* The keys of the document at path of doc (path "": doc's own), comma-separated, into out. */
static const char *
keys_at (const bson_t *doc, const char *path, char *out, size_t len)
{
   bson_iter_t it, d, k;
   out[0] = '\0';
   if (!path[0] ? bson_iter_init (&k, doc)
                : bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d) &&
                     BSON_ITER_HOLDS_DOCUMENT (&d) && bson_iter_recurse (&d, &k)) {
      while (bson_iter_next (&k)) {
         size_t used = strlen (out);
         snprintf (out + used, len - used, "%s%s", used ? "," : "", bson_iter_key (&k));
      }
   }
   return out;
}

/* The BSON type of the value at path (0 when absent). */
static int
type_at (const bson_t *doc, const char *path)
{
   bson_iter_t it, d;
   return bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &d) ? (int) bson_iter_type (&d) : 0;
}

static void
run_version (const char *v, const char *cache_keys)
{
   sim_t s;
   const char *args[] = { "--version", v, "--scenario", "demo", NULL };
   char pre[48], name[160], keys[1024];
   bson_t ss;
   snprintf (pre, sizeof pre, "%s.shardingStatistics ", v);
   if (!fid_begin (&s, args, pre))
      return;
   simproc_run_json (&s, "admin", "{\"serverStatus\": 1}", &ss);
   keys_at (&ss, "shardingStatistics", keys, sizeof keys);
   snprintf (name, sizeof name, "%s.shardingStatistics numHostsTargeted then catalogCache", v);
   CHECK_STR (name, "numHostsTargeted,catalogCache", keys);
   snprintf (name, sizeof name, "%s.shardingStatistics right after sharding", v);
   keys_at (&ss, "", keys, sizeof keys);
   CHECK (name, strstr (keys, ",sharding,shardingStatistics,") != NULL);
   snprintf (name, sizeof name, "%s.shardingStatistics numHostsTargeted query types", v);
   CHECK_STR (name, "find,insert,update,delete,aggregate",
              keys_at (&ss, "shardingStatistics.numHostsTargeted", keys, sizeof keys));
   snprintf (name, sizeof name, "%s.shardingStatistics numHostsTargeted counters, int32 (appendNumber)", v);
   CHECK (name, !strcmp (keys_at (&ss, "shardingStatistics.numHostsTargeted.aggregate", keys, sizeof keys),
                         "allShards,manyShards,oneShard,unsharded") &&
                   type_at (&ss, "shardingStatistics.numHostsTargeted.find.oneShard") == BSON_TYPE_INT32);
   snprintf (name, sizeof name, "%s.shardingStatistics catalogCache fields in the version's order", v);
   CHECK_STR (name, cache_keys, keys_at (&ss, "shardingStatistics.catalogCache", keys, sizeof keys));
   snprintf (name, sizeof name, "%s.shardingStatistics catalogCache numDatabaseEntries a long: the databases", v);
   bson_iter_t it, d;
   CHECK (name, bson_iter_init (&it, &ss) &&
                   bson_iter_find_descendant (&it, "shardingStatistics.catalogCache.numDatabaseEntries", &d) &&
                   BSON_ITER_HOLDS_INT64 (&d) && bson_iter_int64 (&d) == count_config (&s, "databases", "{}") &&
                   bson_iter_int64 (&d) > 0);
   bson_destroy (&ss);
   fid_end (&s, pre);
}

#define CACHE_HEAD "numDatabaseEntries,numCollectionEntries,"
#define CACHE_STALE "countStaleConfigErrors,totalRefreshWaitTimeMicros,"
#define CACHE_REFRESH                                                                                                  \
   "numActiveIncrementalRefreshes,countIncrementalRefreshesStarted,numActiveFullRefreshes,countFull"                   \
   "RefreshesStarted,countFailedRefreshes"
#define CACHE_BLOCKED "operationsBlockedByRefresh"

int
main (void)
{
   mongoc_init ();
   mongoc_log_set_handler (NULL, NULL);
   run_version ("4.4", CACHE_HEAD CACHE_STALE CACHE_REFRESH "," CACHE_BLOCKED);
   run_version ("5.0", CACHE_HEAD CACHE_STALE CACHE_BLOCKED "," CACHE_REFRESH);
   run_version ("7.0", CACHE_HEAD "numIndexEntries," CACHE_STALE CACHE_REFRESH);
   run_version ("8.2", CACHE_HEAD CACHE_STALE CACHE_REFRESH);
   run_version ("9.0", CACHE_HEAD CACHE_STALE CACHE_REFRESH);
   mongoc_cleanup ();
   UNIT_EXIT ();
}
