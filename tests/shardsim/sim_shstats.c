/* serverStatus.shardingStatistics as a mongos writes it (s/s_sharding_server_status.cpp,
 * ShardingStatisticsServerStatus::generateSection): numHostsTargeted (NumHostsTargetedMetrics::report), then the
 * router's catalogCache (CatalogCache::report, its Stats::report and, from 5.0, CollectionCache::reportStats), with
 * each version's field set. shardsim has no routing cache and counts no targeting: the counters are zero and the
 * cache holds every database and tracked collection of the config catalog (a mongos that has routed to each). */
#include "tests/shardsim/sim_admin.h"

/* NumHostsTargetedMetrics::report: appendNumber of a long long, an int32 while it fits */
static void
sim_shstats_targeted (bson_t *parent)
{
   static const char *const types[] = { "find", "insert", "update", "delete", "aggregate" };
   static const char *const targets[] = { "allShards", "manyShards", "oneShard", "unsharded" };
   bson_t d, e;
   BSON_APPEND_DOCUMENT_BEGIN (parent, "numHostsTargeted", &d);
   for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
      BSON_APPEND_DOCUMENT_BEGIN (&d, types[i], &e);
      for (size_t j = 0; j < sizeof targets / sizeof targets[0]; j++)
         BSON_APPEND_INT32 (&e, targets[j], 0);
      bson_append_document_end (&d, &e);
   }
   bson_append_document_end (parent, &d);
}

/* CatalogCache::Stats::operationsBlockedByRefresh (mongos only; 4.4, 5.0) */
static void
sim_shstats_blocked (bson_t *parent)
{
   static const char *const counts[] = { "countAllOperations", "countInserts", "countQueries",
                                         "countUpdates",       "countDeletes", "countCommands" };
   bson_t d;
   BSON_APPEND_DOCUMENT_BEGIN (parent, "operationsBlockedByRefresh", &d);
   for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
      BSON_APPEND_INT64 (&d, counts[i], 0);
   bson_append_document_end (parent, &d);
}

/* The collection cache's refresh counters: 4.4's CatalogCache::Stats, 5.0+'s CollectionCache::Stats */
static void
sim_shstats_refreshes (bson_t *parent)
{
   BSON_APPEND_INT64 (parent, "numActiveIncrementalRefreshes", 0);
   BSON_APPEND_INT64 (parent, "countIncrementalRefreshesStarted", 0);
   BSON_APPEND_INT64 (parent, "numActiveFullRefreshes", 0);
   BSON_APPEND_INT64 (parent, "countFullRefreshesStarted", 0);
   BSON_APPEND_INT64 (parent, "countFailedRefreshes", 0);
}

static int64_t
sim_shstats_count (const char *coll)
{
   const sim_coll_t *c = sim_coll_get ("config", coll);
   return c ? (int64_t) sim_coll_count (c) : 0;
}

void
sim_append_sharding_statistics (bson_t *reply)
{
   bson_t d, cache;
   BSON_APPEND_DOCUMENT_BEGIN (reply, "shardingStatistics", &d);
   sim_shstats_targeted (&d);
   BSON_APPEND_DOCUMENT_BEGIN (&d, "catalogCache", &cache);
   BSON_APPEND_INT64 (&cache, "numDatabaseEntries", sim_shstats_count ("databases"));
   BSON_APPEND_INT64 (&cache, "numCollectionEntries", sim_shstats_count ("collections"));
   /* the global indexes' cache (7.0, 8.0; gone from the newest catalog_cache.cpp) */
   if (sim_ver_ge (70) && !sim_ver_ge (82))
      BSON_APPEND_INT64 (&cache, "numIndexEntries", 0);
   BSON_APPEND_INT64 (&cache, "countStaleConfigErrors", 0);
   BSON_APPEND_INT64 (&cache, "totalRefreshWaitTimeMicros", 0);
   if (!sim_ver_ge (50)) {
      sim_shstats_refreshes (&cache); /* 4.4: one Stats, the blocked operations last */
      sim_shstats_blocked (&cache);
   } else {
      if (!sim_ver_ge (60))
         sim_shstats_blocked (&cache); /* 5.0: Stats::report, then CollectionCache::reportStats */
      sim_shstats_refreshes (&cache);
   }
   bson_append_document_end (&d, &cache);
   bson_append_document_end (reply, &d);
}
