/* passes: plain asan */
/* Unit tests for the simulator's query engine's aggregation (tests/shardsim/query/simq_agg*.c), table-driven
 * (helpers in simq_cases.h): every stage shardsim supports, the exact pipelines mongosh's sh.status() and
 * getShardDistribution() send (mongosh-sh-helpers.md §4.2-4.5, §5.1), the indexed $lookup and $sample. */
#include "tests/unit/simq_cases.h"

#define NOW_MS 1704164645000 /* 2024-01-02T03:04:05Z */

static const char *lookup_foreign =
   "[{\"_id\": \"shard01\", \"host\": \"shard01/h1:27018\"}, {\"_id\": \"shard02\", \"host\": \"shard02/h2:27018\"}]";

typedef struct {
   simq_docs_t shards;
   int stage_calls;
} test_env_t;

static bool
test_collection (void *ud, const char *coll, const simq_docs_t **docs)
{
   test_env_t *t = ud;
   if (strcmp (coll, "shards") == 0) {
      *docs = &t->shards;
      return true;
   }
   return false;
}

static int
test_stage (void *ud, const bson_t *stage, const simq_docs_t *in, simq_docs_t *out, bson_error_t *error)
{
   test_env_t *t = ud;
   bson_iter_t it;
   (void) in;
   t->stage_calls++;
   if (bson_iter_init_find (&it, stage, "$collStats")) {
      bson_t *d = BCON_NEW ("shard", "shard01", "storageStats", "{", "count", BCON_INT32 (1200), "}");
      simq_docs_push_owned (out, d);
      return 1;
   }
   if (bson_iter_init_find (&it, stage, "$failHere")) {
      bson_set_error (error, SIMQ_ERROR_DOMAIN, 6789102, "hook failed");
      return -1;
   }
   return 0;
}

static const struct {
   const char *name, *input, *pipeline, *expected;
   int code;
} agg_cases[] = {
   /* --- sh.status() §4.2: active mongoses by version --- */
   { "sh.status mongos $group",
     "[{\"_id\": \"m1:27017\", \"ping\": {\"$date\": \"2024-01-02T03:04:00Z\"}, \"mongoVersion\": \"8.0.4\"},"
     " {\"_id\": \"m2:27017\", \"ping\": {\"$date\": \"2024-01-02T03:03:30Z\"}, \"mongoVersion\": \"8.0.4\"},"
     " {\"_id\": \"m3:27017\", \"ping\": {\"$date\": \"2024-01-02T03:04:01Z\"}, \"mongoVersion\": \"7.0.2\"},"
     " {\"_id\": \"old:27017\", \"ping\": {\"$date\": \"2023-12-01T00:00:00Z\"}, \"mongoVersion\": \"6.0.1\"}]",
     "[{\"$match\": {\"ping\": {\"$gt\": {\"$date\": \"2024-01-02T03:03:01Z\"}}}}, {\"$group\": {\"_id\": "
     "\"$mongoVersion\", \"num\": {\"$sum\": 1}}}, {\"$sort\": {\"num\": -1}}]",
     "[{\"_id\": \"8.0.4\", \"num\": 2}, {\"_id\": \"7.0.2\", \"num\": 1}]", 0 },
   /* --- sh.status() §4.3 step 3: successful migrations --- */
   { "sh.status changelog success",
     "[{\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2024-01-02T01:00:00Z\"}, \"details\": {\"note\": "
     "\"success\", \"from\": \"shard01\", \"to\": \"shard02\"}},"
     " {\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2024-01-02T02:00:00Z\"}, \"details\": {\"note\": "
     "\"success\", \"from\": \"shard02\", \"to\": \"shard01\"}},"
     " {\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2024-01-02T02:30:00Z\"}, \"details\": {\"errmsg\": "
     "\"boom\", \"note\": \"aborted\", \"from\": \"shard01\", \"to\": \"shard02\"}},"
     " {\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2023-12-30T02:00:00Z\"}, \"details\": {\"note\": "
     "\"success\"}},"
     " {\"what\": \"split\", \"time\": {\"$date\": \"2024-01-02T02:00:00Z\"}, \"details\": {\"note\": \"success\"}}]",
     "[{\"$match\": {\"time\": {\"$gt\": {\"$date\": \"2024-01-01T03:04:05Z\"}}, \"what\": \"moveChunk.from\", "
     "\"details.errmsg\": {\"$exists\": false}, \"details.note\": \"success\"}}, {\"$group\": {\"_id\": {\"msg\": "
     "\"$details.errmsg\"}, \"count\": {\"$sum\": 1}}}, {\"$project\": {\"_id\": {\"$ifNull\": [\"$_id.msg\", "
     "\"Success\"]}, \"count\": \"$count\"}}]",
     "[{\"_id\": \"Success\", \"count\": 2}]", 0 },
   /* --- sh.status() §4.3 step 4: failed migrations --- */
   { "sh.status changelog failures",
     "[{\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2024-01-02T01:00:00Z\"}, \"details\": {\"note\": "
     "\"success\", \"from\": \"shard01\", \"to\": \"shard02\"}},"
     " {\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2024-01-02T02:30:00Z\"}, \"details\": {\"errmsg\": "
     "\"boom\", \"note\": \"aborted\", \"from\": \"shard01\", \"to\": \"shard02\"}},"
     " {\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2024-01-02T02:40:00Z\"}, \"details\": {\"errmsg\": "
     "\"boom\", \"from\": \"shard01\", \"to\": \"shard02\"}},"
     " {\"what\": \"moveChunk.from\", \"time\": {\"$date\": \"2024-01-02T02:50:00Z\"}, \"details\": {\"note\": "
     "\"aborted\", \"from\": \"shard02\", \"to\": \"shard01\"}}]",
     "[{\"$match\": {\"time\": {\"$gt\": {\"$date\": \"2024-01-01T03:04:05Z\"}}, \"what\": \"moveChunk.from\", "
     "\"$or\": "
     "[{\"details.errmsg\": {\"$exists\": true}}, {\"details.note\": {\"$ne\": \"success\"}}]}}, {\"$group\": "
     "{\"_id\": "
     "{\"msg\": \"$details.errmsg\", \"from\": \"$details.from\", \"to\": \"$details.to\"}, \"count\": {\"$sum\": "
     "1}}}, "
     "{\"$project\": {\"_id\": {\"$ifNull\": [\"$_id.msg\", \"aborted\"]}, \"from\": \"$_id.from\", \"to\": "
     "\"$_id.to\", \"count\": \"$count\"}}]",
     "[{\"_id\": \"boom\", \"from\": \"shard01\", \"to\": \"shard02\", \"count\": 2}, {\"_id\": \"aborted\", \"from\": "
     "\"shard02\", \"to\": \"shard01\", \"count\": 1}]",
     0 },
   { "sh.status changelog none", "[]",
     "[{\"$match\": {\"what\": \"moveChunk.from\"}}, {\"$group\": {\"_id\": {\"msg\": \"$details.errmsg\"}, \"count\": "
     "{\"$sum\": 1}}}, {\"$project\": {\"_id\": {\"$ifNull\": [\"$_id.msg\", \"Success\"]}, \"count\": \"$count\"}}]",
     "[]", 0 },
   /* --- sh.status() §4.5a: chunks per shard (uuid filter) --- */
   { "sh.status chunks per shard",
     "[{\"uuid\": {\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAAAQ==\", \"subType\": \"04\"}}, \"shard\": "
     "\"shard02\", "
     "\"min\": {\"uid\": 0}},"
     " {\"uuid\": {\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAAAQ==\", \"subType\": \"04\"}}, \"shard\": "
     "\"shard01\", "
     "\"min\": {\"uid\": {\"$minKey\": 1}}},"
     " {\"uuid\": {\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAAAQ==\", \"subType\": \"04\"}}, \"shard\": "
     "\"shard02\", "
     "\"min\": {\"uid\": 100}},"
     " {\"uuid\": {\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAAAg==\", \"subType\": \"04\"}}, \"shard\": "
     "\"shard03\", "
     "\"min\": {\"x\": 1}}]",
     "[{\"$match\": {\"uuid\": {\"$binary\": {\"base64\": \"AAAAAAAAAAAAAAAAAAAAAQ==\", \"subType\": \"04\"}}}}, "
     "{\"$group\": {\"_id\": \"$shard\", \"cnt\": {\"$sum\": 1}}}, {\"$project\": {\"_id\": 0, \"shard\": \"$_id\", "
     "\"nChunks\": \"$cnt\"}}, {\"$sort\": {\"shard\": 1}}]",
     "[{\"shard\": \"shard01\", \"nChunks\": 1}, {\"shard\": \"shard02\", \"nChunks\": 2}]", 0 },
   { "sh.status chunks per shard (4.4 ns filter)",
     "[{\"ns\": \"app.users\", \"shard\": \"shard01\"}, {\"ns\": \"app.other\", \"shard\": \"shard01\"}]",
     "[{\"$match\": {\"ns\": \"app.users\"}}, {\"$group\": {\"_id\": \"$shard\", \"cnt\": {\"$sum\": 1}}}, "
     "{\"$project\": {\"_id\": 0, \"shard\": \"$_id\", \"nChunks\": \"$cnt\"}}, {\"$sort\": {\"shard\": 1}}]",
     "[{\"shard\": \"shard01\", \"nChunks\": 1}]", 0 },
   /* --- getShardDistribution §5.1 step 3: countDocuments --- */
   { "getShardDistribution countDocuments",
     "[{\"uuid\": 1, \"shard\": \"shard01\"}, {\"uuid\": 1, \"shard\": \"shard02\"}, {\"uuid\": 1, \"shard\": "
     "\"shard01\"}, {\"uuid\": 2, \"shard\": \"shard01\"}]",
     "[{\"$match\": {\"uuid\": 1, \"shard\": \"shard01\"}}, {\"$group\": {\"_id\": 1, \"n\": {\"$sum\": 1}}}]",
     "[{\"_id\": 1, \"n\": 2}]", 0 },
   { "getShardDistribution countDocuments empty", "[{\"uuid\": 2, \"shard\": \"shard01\"}]",
     "[{\"$match\": {\"uuid\": 1, \"shard\": \"shard01\"}}, {\"$group\": {\"_id\": 1, \"n\": {\"$sum\": 1}}}]", "[]",
     0 },
   { "getShardDistribution $collStats via hook", "[]", "[{\"$collStats\": {\"storageStats\": {}}}]",
     "[{\"shard\": \"shard01\", \"storageStats\": {\"count\": 1200}}]", 0 },
   /* --- convertShardKeyToHashed: $documents + $limit + $project $toHashedIndexKey --- */
   { "convertShardKeyToHashed pipeline", "[]",
     "[{\"$documents\": [{}]}, {\"$limit\": 1}, {\"$project\": {\"_id\": {\"$toHashedIndexKey\": {\"$literal\": "
     "42}}}}]",
     "[{\"_id\": {\"$numberLong\": \"-944302157085130861\"}}]", 0 },
   /* --- getShardLocation: stage hook then $match/$project --- */
   { "unknown stage via hook", "[]", "[{\"$listClusterCatalog\": {\"shards\": true}}]", NULL, 40324 },
   { "hook error", "[]", "[{\"$failHere\": {}}]", NULL, 6789102 },

   /* --- $group accumulators --- */
   { "$group accumulators",
     "[{\"k\": \"a\", \"v\": 1}, {\"k\": \"b\", \"v\": 5}, {\"k\": \"a\", \"v\": 3.5}, {\"k\": \"a\", \"v\": \"x\"}, "
     "{\"k\": \"a\"}]",
     "[{\"$match\": {\"k\": \"a\"}}, {\"$group\": {\"_id\": \"$k\", \"sum\": {\"$sum\": \"$v\"}, \"avg\": {\"$avg\": "
     "\"$v\"}, \"first\": {\"$first\": \"$v\"}, \"last\": {\"$last\": \"$v\"}, \"push\": {\"$push\": \"$v\"}, \"set\": "
     "{\"$addToSet\": \"$k\"}, \"min\": {\"$min\": \"$v\"}, \"max\": {\"$max\": \"$v\"}, \"n\": {\"$count\": {}}}}]",
     "[{\"_id\": \"a\", \"sum\": 4.5, \"avg\": 2.25, \"first\": 1, \"last\": null, \"push\": [1, 3.5, \"x\"], \"set\": "
     "[\"a\"], \"min\": 1, \"max\": \"x\", \"n\": 4}]",
     0 },
   { "$group _id null and int64 sum", "[{\"v\": {\"$numberLong\": \"5\"}}, {\"v\": 2}]",
     "[{\"$group\": {\"_id\": null, \"s\": {\"$sum\": \"$v\"}, \"m\": {\"$mergeObjects\": {\"a\": \"$v\"}}}}]",
     "[{\"_id\": null, \"s\": {\"$numberLong\": \"7\"}, \"m\": {\"a\": 2}}]", 0 },
   { "$group numeric keys merge", "[{\"k\": 1}, {\"k\": 1.0}, {\"k\": {\"$numberLong\": \"1\"}}]",
     "[{\"$group\": {\"_id\": \"$k\", \"n\": {\"$sum\": 1}}}]", "[{\"_id\": 1, \"n\": 3}]", 0 },
   { "$group missing key is null", "[{\"a\": 1}, {\"k\": null}]",
     "[{\"$group\": {\"_id\": \"$k\", \"n\": {\"$sum\": 1}}}]", "[{\"_id\": null, \"n\": 2}]", 0 },
   { "$group no _id", "[]", "[{\"$group\": {\"n\": {\"$sum\": 1}}}]", NULL, 15955 },
   { "$group bad accumulator", "[]", "[{\"$group\": {\"_id\": 1, \"n\": {\"$bogus\": 1}}}]", NULL, 15952 },
   { "$group not accumulator object", "[]", "[{\"$group\": {\"_id\": 1, \"n\": 1}}]", NULL, 40234 },
   { "$group dotted field", "[]", "[{\"$group\": {\"_id\": 1, \"a.b\": {\"$sum\": 1}}}]", NULL, 40235 },

   /* --- $project / $addFields / $set / $unset --- */
   { "$project inclusion and computed", "[{\"_id\": 1, \"a\": 1, \"b\": {\"c\": 2, \"d\": 3}, \"e\": 4}]",
     "[{\"$project\": {\"a\": 1, \"b.c\": 1, \"x\": {\"$add\": [\"$a\", \"$e\"]}}}]",
     "[{\"_id\": 1, \"a\": 1, \"b\": {\"c\": 2}, \"x\": 5}]", 0 },
   { "$project exclusion", "[{\"_id\": 1, \"a\": 1, \"b\": 2}]", "[{\"$project\": {\"a\": 0, \"_id\": 0}}]",
     "[{\"b\": 2}]", 0 },
   { "$project literal", "[{\"_id\": 1}]", "[{\"$project\": {\"_id\": 0, \"s\": \"text\", \"t\": {\"$literal\": 1}}}]",
     "[{\"s\": \"text\", \"t\": 1}]", 0 },
   { "$project mixed", "[{\"_id\": 1}]", "[{\"$project\": {\"a\": 1, \"b\": 0}}]", NULL, 31254 },
   { "$project empty", "[{\"_id\": 1}]", "[{\"$project\": {}}]", NULL, 51272 },
   { "$addFields", "[{\"_id\": 1, \"a\": {\"x\": 1}}]",
     "[{\"$addFields\": {\"b\": \"$a.x\", \"a.y\": 2, \"c\": {\"d\": {\"$literal\": 3}}}}]",
     "[{\"_id\": 1, \"a\": {\"x\": 1, \"y\": 2}, \"b\": 1, \"c\": {\"d\": 3}}]", 0 },
   { "$set replaces and $$REMOVE", "[{\"_id\": 1, \"a\": 1, \"b\": 2}]",
     "[{\"$set\": {\"a\": \"new\", \"b\": \"$$REMOVE\"}}]", "[{\"_id\": 1, \"a\": \"new\"}]", 0 },
   { "$unset", "[{\"_id\": 1, \"a\": 1, \"b\": {\"c\": 1, \"d\": 2}}]", "[{\"$unset\": [\"a\", \"b.c\"]}]",
     "[{\"_id\": 1, \"b\": {\"d\": 2}}]", 0 },
   { "$unset string", "[{\"_id\": 1, \"a\": 1}]", "[{\"$unset\": \"a\"}]", "[{\"_id\": 1}]", 0 },
   { "$unset bad", "[]", "[{\"$unset\": 1}]", NULL, 31002 },

   /* --- $sort $limit $skip $count --- */
   { "$sort $skip $limit", "[{\"_id\": 3}, {\"_id\": 1}, {\"_id\": 4}, {\"_id\": 2}]",
     "[{\"$sort\": {\"_id\": 1}}, {\"$skip\": 1}, {\"$limit\": 2}]", "[{\"_id\": 2}, {\"_id\": 3}]", 0 },
   { "$limit zero", "[]", "[{\"$limit\": 0}]", NULL, 15958 },
   { "$skip negative", "[]", "[{\"$skip\": -1}]", NULL, 15956 },
   { "$sort empty", "[]", "[{\"$sort\": {}}]", NULL, 15976 },
   { "$count", "[{\"a\": 1}, {\"a\": 2}, {\"a\": 3}]", "[{\"$match\": {\"a\": {\"$gte\": 2}}}, {\"$count\": \"n\"}]",
     "[{\"n\": 2}]", 0 },
   { "$count nothing", "[]", "[{\"$count\": \"n\"}]", "[]", 0 },
   { "$count dollar", "[]", "[{\"$count\": \"$n\"}]", NULL, 40158 },
   { "$count dot", "[]", "[{\"$count\": \"a.b\"}]", NULL, 40160 },

   /* --- $unwind --- */
   { "$unwind string",
     "[{\"_id\": 1, \"t\": [\"a\", \"b\"]}, {\"_id\": 2, \"t\": []}, {\"_id\": 3}, {\"_id\": 4, \"t\": "
     "\"s\"}]",
     "[{\"$unwind\": \"$t\"}]", "[{\"_id\": 1, \"t\": \"a\"}, {\"_id\": 1, \"t\": \"b\"}, {\"_id\": 4, \"t\": \"s\"}]",
     0 },
   { "$unwind preserve + index",
     "[{\"_id\": 1, \"t\": [\"a\"]}, {\"_id\": 2, \"t\": []}, {\"_id\": 3}, {\"_id\": 5, \"t\": null}]",
     "[{\"$unwind\": {\"path\": \"$t\", \"includeArrayIndex\": \"i\", \"preserveNullAndEmptyArrays\": true}}]",
     "[{\"_id\": 1, \"t\": \"a\", \"i\": {\"$numberLong\": \"0\"}}, {\"_id\": 2, \"i\": null}, {\"_id\": 3, \"i\": "
     "null}, {\"_id\": 5, \"t\": null, \"i\": null}]",
     0 },
   { "$unwind no dollar", "[]", "[{\"$unwind\": \"t\"}]", NULL, 28818 },
   { "$unwind bad spec", "[]", "[{\"$unwind\": 5}]", NULL, 15981 },
   { "$unwind bad option", "[]", "[{\"$unwind\": {\"path\": \"$t\", \"x\": 1}}]", NULL, 28811 },

   /* --- $lookup --- */
   { "$lookup localField/foreignField", "[{\"_id\": 1, \"shard\": \"shard02\"}, {\"_id\": 2, \"shard\": \"nope\"}]",
     "[{\"$lookup\": {\"from\": \"shards\", \"localField\": \"shard\", \"foreignField\": \"_id\", \"as\": \"s\"}}]",
     "[{\"_id\": 1, \"shard\": \"shard02\", \"s\": [{\"_id\": \"shard02\", \"host\": \"shard02/h2:27018\"}]}, "
     "{\"_id\": "
     "2, \"shard\": \"nope\", \"s\": []}]",
     0 },
   { "$lookup array local", "[{\"_id\": 1, \"l\": [\"shard01\", \"shard02\"]}]",
     "[{\"$lookup\": {\"from\": \"shards\", \"localField\": \"l\", \"foreignField\": \"_id\", \"as\": \"s\"}}, "
     "{\"$project\": {\"n\": {\"$size\": \"$s\"}}}]",
     "[{\"_id\": 1, \"n\": 2}]", 0 },
   { "$lookup pipeline with let", "[{\"_id\": 1, \"want\": \"shard01\"}]",
     "[{\"$lookup\": {\"from\": \"shards\", \"let\": {\"w\": \"$want\"}, \"pipeline\": [{\"$match\": {\"$expr\": "
     "{\"$eq\": [\"$_id\", \"$$w\"]}}}, {\"$project\": {\"_id\": 1}}], \"as\": \"s\"}}]",
     "[{\"_id\": 1, \"want\": \"shard01\", \"s\": [{\"_id\": \"shard01\"}]}]", 0 },
   { "$lookup unknown collection", "[{\"_id\": 1}]",
     "[{\"$lookup\": {\"from\": \"nothing\", \"localField\": \"a\", \"foreignField\": \"b\", \"as\": \"s\"}}]",
     "[{\"_id\": 1, \"s\": []}]", 0 },
   { "$lookup missing as", "[]",
     "[{\"$lookup\": {\"from\": \"shards\", \"localField\": \"a\", \"foreignField\": \"b\"}}]", NULL, 9 },

   /* --- $unionWith --- */
   { "$unionWith pipeline", "[{\"_id\": 1}]",
     "[{\"$unionWith\": {\"coll\": \"shards\", \"pipeline\": [{\"$sort\": {\"_id\": -1}}, {\"$limit\": 1}, "
     "{\"$project\": {\"_id\": 1}}]}}]",
     "[{\"_id\": 1}, {\"_id\": \"shard02\"}]", 0 },
   { "$unionWith name", "[]", "[{\"$unionWith\": \"shards\"}, {\"$count\": \"n\"}]", "[{\"n\": 2}]", 0 },
   { "$unionWith unknown collection", "[{\"_id\": 1}]", "[{\"$unionWith\": {\"coll\": \"nothing\"}}]", "[{\"_id\": 1}]",
     0 },
   { "$unionWith missing coll", "[]", "[{\"$unionWith\": {\"pipeline\": []}}]", NULL, 40414 },

   /* --- $facet $sample $replaceRoot $replaceWith $documents $sortByCount --- */
   { "$facet", "[{\"a\": 1}, {\"a\": 2}, {\"a\": 3}]",
     "[{\"$facet\": {\"n\": [{\"$count\": \"c\"}], \"big\": [{\"$match\": {\"a\": {\"$gt\": 1}}}, {\"$project\": "
     "{\"_id\": 0}}]}}]",
     "[{\"n\": [{\"c\": 3}], \"big\": [{\"a\": 2}, {\"a\": 3}]}]", 0 },
   { "$facet bad", "[]", "[{\"$facet\": {\"x\": 1}}]", NULL, 40170 },
   { "$sample all", "[{\"_id\": 1}]", "[{\"$sample\": {\"size\": 5}}]", "[{\"_id\": 1}]", 0 },
   { "$sample size 0", "[{\"_id\": 1}]", "[{\"$sample\": {\"size\": 0}}]", "[]", 0 },
   { "$sample no size", "[]", "[{\"$sample\": {}}]", NULL, 28749 },
   { "$replaceRoot", "[{\"_id\": 1, \"d\": {\"x\": 1}}]", "[{\"$replaceRoot\": {\"newRoot\": \"$d\"}}]", "[{\"x\": 1}]",
     0 },
   { "$replaceWith", "[{\"_id\": 1, \"d\": {\"x\": 1}}]",
     "[{\"$replaceWith\": {\"$mergeObjects\": [\"$d\", {\"id\": \"$_id\"}]}}]", "[{\"x\": 1, \"id\": 1}]", 0 },
   { "$replaceRoot not object", "[{\"_id\": 1}]", "[{\"$replaceRoot\": {\"newRoot\": \"$nope\"}}]", NULL, 40228 },
   { "$documents", "[{\"ignored\": 1}]", "[{\"$documents\": [{\"a\": 1}, {\"a\": 2}]}]", "[{\"a\": 1}, {\"a\": 2}]",
     0 },
   { "$documents not first", "[]", "[{\"$match\": {}}, {\"$documents\": []}]", NULL, 40602 },
   { "$sortByCount", "[{\"k\": \"a\"}, {\"k\": \"b\"}, {\"k\": \"b\"}]", "[{\"$sortByCount\": \"$k\"}]",
     "[{\"_id\": \"b\", \"count\": 2}, {\"_id\": \"a\", \"count\": 1}]", 0 },

   /* --- pipeline-level errors --- */
   { "unknown stage", "[]", "[{\"$bogus\": {}}]", NULL, 40324 },
   { "stage with two fields", "[]", "[{\"$match\": {}, \"$limit\": 1}]", NULL, 40323 },
   { "stage not an object", "[]", "[1]", NULL, 14 },
   { "$match unknown operator on empty input", "[]", "[{\"$match\": {\"a\": {\"$nope\": 1}}}]", NULL, 2 },

   /* --- expressions --- */
   { "expr arithmetic",
     "[{\"a\": 7, \"b\": 2, \"d\": {\"$date\": \"2024-01-02T00:00:00Z\"}, \"l\": {\"$numberLong\": \"3\"}}]",
     "[{\"$project\": {\"_id\": 0, \"add\": {\"$add\": [\"$a\", \"$b\", 1]}, \"addl\": {\"$add\": [\"$a\", \"$l\"]}, "
     "\"sub\": {\"$subtract\": [\"$a\", \"$b\"]}, \"mul\": {\"$multiply\": [\"$a\", \"$b\"]}, \"div\": {\"$divide\": "
     "[\"$a\", \"$b\"]}, \"mod\": {\"$mod\": [\"$a\", \"$b\"]}, \"dplus\": {\"$add\": [\"$d\", 1000]}, \"ddiff\": "
     "{\"$subtract\": [\"$d\", {\"$date\": \"2024-01-01T00:00:00Z\"}]}, \"nul\": {\"$add\": [\"$a\", \"$zz\"]}, "
     "\"abs\": {\"$abs\": -3}, \"fl\": {\"$floor\": 2.5}, \"ce\": {\"$ceil\": 2.5}}}]",
     "[{\"add\": 10, \"addl\": {\"$numberLong\": \"10\"}, \"sub\": 5, \"mul\": 14, \"div\": 3.5, \"mod\": 1, "
     "\"dplus\": "
     "{\"$date\": \"2024-01-02T00:00:01Z\"}, \"ddiff\": {\"$numberLong\": \"86400000\"}, \"nul\": null, \"abs\": 3, "
     "\"fl\": 2.0, \"ce\": 3.0}]",
     0 },
   { "expr overflow to long", "[{\"a\": 2147483647}]",
     "[{\"$project\": {\"_id\": 0, \"x\": {\"$add\": [\"$a\", 1]}, \"y\": {\"$multiply\": [\"$a\", 2]}}}]",
     "[{\"x\": {\"$numberLong\": \"2147483648\"}, \"y\": {\"$numberLong\": \"4294967294\"}}]", 0 },
   { "expr comparisons and logic", "[{\"a\": 5, \"s\": \"x\"}]",
     "[{\"$project\": {\"_id\": 0, \"eq\": {\"$eq\": [\"$a\", 5.0]}, \"ne\": {\"$ne\": [\"$a\", 5]}, \"gt\": {\"$gt\": "
     "[\"$a\", 4]}, \"gte\": {\"$gte\": [\"$a\", 6]}, \"lt\": {\"$lt\": [\"$a\", \"$s\"]}, \"lte\": {\"$lte\": [5, "
     "\"$a\"]}, \"cmp\": {\"$cmp\": [\"$s\", \"w\"]}, \"and\": {\"$and\": [1, \"$a\"]}, \"or\": {\"$or\": [0, null]}, "
     "\"not\": {\"$not\": [\"$nope\"]}, \"missEqNull\": {\"$eq\": [\"$nope\", null]}}}]",
     "[{\"eq\": true, \"ne\": false, \"gt\": true, \"gte\": false, \"lt\": true, \"lte\": true, \"cmp\": 1, \"and\": "
     "true, \"or\": false, \"not\": true, \"missEqNull\": false}]",
     0 },
   { "expr cond ifNull switch", "[{\"a\": 5, \"n\": null}]",
     "[{\"$project\": {\"_id\": 0, \"c1\": {\"$cond\": [{\"$gt\": [\"$a\", 3]}, \"big\", \"small\"]}, \"c2\": "
     "{\"$cond\": "
     "{\"if\": false, \"then\": 1, \"else\": 2}}, \"i1\": {\"$ifNull\": [\"$n\", \"$nope\", \"dflt\"]}, \"i2\": "
     "{\"$ifNull\": [\"$a\", 0]}, \"sw\": {\"$switch\": {\"branches\": [{\"case\": {\"$eq\": [\"$a\", 1]}, \"then\": "
     "\"one\"}, {\"case\": {\"$eq\": [\"$a\", 5]}, \"then\": \"five\"}], \"default\": \"other\"}}}}]",
     "[{\"c1\": \"big\", \"c2\": 2, \"i1\": \"dflt\", \"i2\": 5, \"sw\": \"five\"}]", 0 },
   { "expr strings", "[{\"s\": \"Hello,World\", \"n\": 42, \"d\": 2.5}]",
     "[{\"$project\": {\"_id\": 0, \"cat\": {\"$concat\": [\"$s\", \"!\"]}, \"catnull\": {\"$concat\": [\"a\", "
     "\"$nope\"]}, \"split\": {\"$split\": [\"$s\", \",\"]}, \"sub\": {\"$substr\": [\"$s\", 0, 5]}, \"subcp\": "
     "{\"$substrCP\": [\"$s\", 6, 100]}, \"lo\": {\"$toLower\": \"$s\"}, \"up\": {\"$toUpper\": \"$s\"}, \"ts\": "
     "{\"$toString\": \"$n\"}, \"td\": {\"$toString\": \"$d\"}, \"tb\": {\"$toString\": true}, \"len\": "
     "{\"$strLenBytes\": \"$s\"}, \"ti\": {\"$toInt\": \"17\"}, \"tl\": {\"$toLong\": 5}, \"tdb\": {\"$toDouble\": "
     "\"2.5\"}, \"tbool\": {\"$toBool\": 0}}}]",
     "[{\"cat\": \"Hello,World!\", \"catnull\": null, \"split\": [\"Hello\", \"World\"], \"sub\": \"Hello\", "
     "\"subcp\": "
     "\"World\", \"lo\": \"hello,world\", \"up\": \"HELLO,WORLD\", \"ts\": \"42\", \"td\": \"2.5\", \"tb\": \"true\", "
     "\"len\": 11, \"ti\": 17, \"tl\": {\"$numberLong\": \"5\"}, \"tdb\": 2.5, \"tbool\": false}]",
     0 },
   { "expr arrays", "[{\"t\": [3, 1, 2], \"o\": [{\"k\": 1}, {\"k\": 2}, {\"j\": 3}]}]",
     "[{\"$project\": {\"_id\": 0, \"size\": {\"$size\": \"$t\"}, \"at\": {\"$arrayElemAt\": [\"$t\", -1]}, \"oob\": "
     "{\"$arrayElemAt\": [\"$t\", 9]}, \"first\": {\"$first\": \"$t\"}, \"last\": {\"$last\": \"$t\"}, \"in\": "
     "{\"$in\": "
     "[2, \"$t\"]}, \"max\": {\"$max\": \"$t\"}, \"min\": {\"$min\": [4, 2, null]}, \"sum\": {\"$sum\": \"$t\"}, "
     "\"avg\": "
     "{\"$avg\": \"$t\"}, \"ks\": \"$o.k\", \"isA\": {\"$isArray\": \"$t\"}, \"cc\": {\"$concatArrays\": [\"$t\", "
     "[9]]}, "
     "\"rev\": {\"$reverseArray\": \"$t\"}, \"sl\": {\"$slice\": [\"$t\", 1, 1]}, \"map\": {\"$map\": {\"input\": "
     "\"$t\", "
     "\"as\": \"x\", \"in\": {\"$multiply\": [\"$$x\", 10]}}}, \"filt\": {\"$filter\": {\"input\": \"$t\", \"cond\": "
     "{\"$gte\": [\"$$this\", 2]}}}, \"let\": {\"$let\": {\"vars\": {\"v\": 5}, \"in\": {\"$add\": [\"$$v\", 1]}}}}}]",
     "[{\"size\": 3, \"at\": 2, \"first\": 3, \"last\": 2, \"in\": true, \"max\": 3, \"min\": 2, \"sum\": 6, \"avg\": "
     "2.0, \"ks\": [1, 2], \"isA\": true, \"cc\": [3, 1, 2, 9], \"rev\": [2, 1, 3], \"sl\": [1], \"map\": [30, 10, "
     "20], "
     "\"filt\": [3, 2], \"let\": 6}]",
     0 },
   { "expr variables", "[{\"_id\": 1, \"a\": 2}]",
     "[{\"$project\": {\"_id\": 0, \"root\": \"$$ROOT\", \"cur\": \"$$CURRENT.a\", \"now\": \"$$NOW\", \"ty\": "
     "{\"$xtype\": "
     "\"$nope\"}, \"ty2\": {\"$xtype\": \"$a\"}}}]",
     "[{\"root\": {\"_id\": 1, \"a\": 2}, \"cur\": 2, \"now\": {\"$date\": \"2024-01-02T03:04:05Z\"}, \"ty\": "
     "\"missing\", \"ty2\": \"int\"}]",
     0 },
   { "expr $toHashedIndexKey", "[{\"k\": \"abc\", \"o\": {\"a\": \"abc\", \"b\": {\"$numberLong\": \"123\"}}}]",
     "[{\"$project\": {\"_id\": 0, \"h\": {\"$toHashedIndexKey\": \"$k\"}, \"ho\": {\"$toHashedIndexKey\": \"$o\"}, "
     "\"hn\": {\"$toHashedIndexKey\": null}}}]",
     "[{\"h\": {\"$numberLong\": \"8478485326885698097\"}, \"ho\": {\"$numberLong\": \"4771603801758380216\"}, \"hn\": "
     "{\"$numberLong\": \"2338878944348059895\"}}]",
     0 },
   { "expr unknown operator", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$bogus\": 1}}}]", NULL, 168 },
   { "expr two-field operator object", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$add\": [1], \"$sub\": 1}}}]", NULL,
     15983 },
   { "expr $add string", "[{\"a\": \"s\"}]", "[{\"$project\": {\"x\": {\"$add\": [\"$a\", 1]}}}]", NULL, 14 },
   { "expr $divide zero", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$divide\": [\"$a\", 0]}}}]", NULL, 2 },
   { "expr $mod zero", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$mod\": [\"$a\", 0]}}}]", NULL, 16610 },
   { "expr $size non-array", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$size\": \"$a\"}}}]", NULL, 17124 },
   { "expr $concat int", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$concat\": [\"$a\"]}}}]", NULL, 16702 },
   { "expr $arrayElemAt non-array", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$arrayElemAt\": [\"$a\", 0]}}}]", NULL,
     28689 },
   { "expr $eq arity", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$eq\": [1]}}}]", NULL, 16020 },
   { "expr $in non-array", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$in\": [1, 1]}}}]", NULL, 40081 },
   { "expr $split non-string", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$split\": [\"$a\", \",\"]}}}]", NULL,
     40085 },
   { "expr $toString object", "[{\"a\": {}}]", "[{\"$project\": {\"x\": {\"$toString\": \"$a\"}}}]", NULL, 241 },
   { "expr undefined variable", "[{\"a\": 1}]", "[{\"$project\": {\"x\": \"$$nope\"}}]", NULL, 17276 },
   { "expr $cond missing if", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$cond\": {\"then\": 1, \"else\": 2}}}}]",
     NULL, 17080 },
   { "expr $ifNull one arg", "[{\"a\": 1}]", "[{\"$project\": {\"x\": {\"$ifNull\": [1]}}}]", NULL, 1257300 },
   { "expr decimal arithmetic refused", "[{\"a\": {\"$numberDecimal\": \"1.5\"}}]",
     "[{\"$project\": {\"x\": {\"$add\": [\"$a\", 1]}}}]", NULL, 238 },
};

static void
test_aggregate (void)
{
   test_env_t t;
   simq_env_t env = { 0 };

   docs_from_json (lookup_foreign, &t.shards);
   t.stage_calls = 0;
   env.ud = &t;
   env.collection = test_collection;
   env.stage = test_stage;
   env.now_ms = NOW_MS;

   for (size_t i = 0; i < sizeof agg_cases / sizeof agg_cases[0]; i++) {
      simq_docs_t in, out;
      bson_error_t error = { 0 };
      char name[96];
      bool ok;

      docs_from_json (agg_cases[i].input, &in);
      ok = cases_aggregate (&in, agg_cases[i].pipeline, &env, &out, &error);
      snprintf (name, sizeof name, "aggregate %s", agg_cases[i].name);
      if (agg_cases[i].code) {
         if (ok || (int) error.code != agg_cases[i].code) {
            UNIT_FAIL (name, "want code %d got ok=%d code=%u (%s)", agg_cases[i].code, (int) ok, error.code,
                       error.message);
         } else {
            UNIT_PASS (name);
         }
      } else if (!ok) {
         UNIT_FAIL (name, "failed: %u %s", error.code, error.message);
      } else {
         char *got = docs_canonical (&out), *want = expected_canonical (agg_cases[i].expected);
         CHECK_STR (name, want, got);
         bson_free (got);
         bson_free (want);
      }
      simq_docs_clear (&in);
      simq_docs_clear (&out);
   }
   CHECK ("aggregate stage hook was consulted", t.stage_calls >= 3);
   simq_docs_clear (&t.shards);
}

static bool
test_big_collection (void *ud, const char *coll, const simq_docs_t **docs)
{
   *docs = ud;
   (void) coll;
   return true;
}

/* $lookup on a top-level foreignField over more than 16 documents answers from an index built once per stage: each
 * local value must find exactly what a scan with the query matcher ({k: {$in: [value]}}) finds, in collection
 * order: strings, numbers equal across int32/int64/double, documents, array elements, and nothing for a missing
 * field (a null local value still matches documents without the field, through the scan). */
static void
test_lookup_indexed (void)
{
   static const char *const values[] = { "\"a\"",          "\"b\"",      "1",   "{\"$numberLong\": \"1\"}", "1.0", "2",
                                         "[\"a\", \"z\"]", "{\"x\": 1}", "null" };
   static const char *const probes[] = { "\"a\"",      "\"z\"",    "1",   "{\"$numberDouble\": \"2.0\"}",
                                         "{\"x\": 1}", "\"none\"", "null" };
   bson_string_t *foreign_json = bson_string_new ("[");
   simq_docs_t foreign;
   simq_env_t env = { 0 };
   for (int i = 0; i < 60; i++) {
      if (i % 10 == 9)
         bson_string_append_printf (foreign_json, "%s{\"i\": %d}", i ? ", " : "", i); /* no k at all */
      else
         bson_string_append_printf (foreign_json, "%s{\"i\": %d, \"k\": %s}", i ? ", " : "", i,
                                    values[i % (int) (sizeof values / sizeof values[0])]);
   }
   bson_string_append (foreign_json, "]");
   docs_from_json (foreign_json->str, &foreign);
   env.ud = &foreign;
   env.collection = test_big_collection;
   for (size_t p = 0; p < sizeof probes / sizeof probes[0]; p++) {
      char *input = bson_strdup_printf ("[{\"_id\": 1, \"l\": %s}]", probes[p]);
      char *filter_json = bson_strdup_printf ("{\"k\": {\"$in\": [%s]}}", probes[p]);
      bson_t *filter = json (filter_json);
      bson_t *pipeline = json ("{\"0\": {\"$lookup\": {\"from\": \"big\", \"localField\": \"l\", \"foreignField\": "
                               "\"k\", \"as\": \"m\"}}, \"1\": {\"$project\": {\"_id\": 0, \"m.i\": 1}}}");
      bson_string_t *want = bson_string_new ("[{\"m\": [");
      simq_docs_t in, out;
      bson_error_t error = { 0 };
      char name[96];
      bool first = true;
      for (size_t f = 0; f < foreign.n; f++) {
         bool m = false;
         bson_iter_t it;
         simq_match (foreign.v[f], filter, &m, &error);
         if (m && bson_iter_init_find (&it, foreign.v[f], "i")) {
            bson_string_append_printf (want, "%s{\"i\": %d}", first ? "" : ", ", bson_iter_int32 (&it));
            first = false;
         }
      }
      bson_string_append (want, "]}]");
      docs_from_json (input, &in);
      simq_docs_init (&out);
      snprintf (name, sizeof name, "aggregate $lookup indexed, local value %s", probes[p]);
      if (!simq_aggregate (&in, pipeline, &env, &out, &error)) {
         UNIT_FAIL (name, "failed: %u %s", error.code, error.message);
      } else {
         char *got = docs_canonical (&out), *expected = expected_canonical (want->str);
         CHECK_STR (name, expected, got);
         /* every probe but "none" matches something, so the comparison above is not of two empty lists */
         snprintf (name, sizeof name, "aggregate $lookup indexed, local value %s finds documents", probes[p]);
         CHECK (name, !first || strcmp (probes[p], "\"none\"") == 0);
         bson_free (got);
         bson_free (expected);
      }
      simq_docs_clear (&in);
      simq_docs_clear (&out);
      bson_string_free (want, true);
      bson_destroy (pipeline);
      bson_destroy (filter);
      bson_free (filter_json);
      bson_free (input);
   }
   simq_docs_clear (&foreign);
   bson_string_free (foreign_json, true);
}

/* $sample picks a random subset of the requested size without repeats. */
static void
test_sample (void)
{
   simq_docs_t in, out;
   bson_t *p = json ("{\"0\": {\"$sample\": {\"size\": 3}}}");
   simq_env_t env = { 0 };
   bson_error_t error;
   bool ok, distinct = true;

   docs_from_json ("[{\"_id\": 1}, {\"_id\": 2}, {\"_id\": 3}, {\"_id\": 4}, {\"_id\": 5}]", &in);
   simq_docs_init (&out);
   env.now_ms = NOW_MS;
   ok = simq_aggregate (&in, p, &env, &out, &error);
   for (size_t i = 0; ok && i < out.n; i++) {
      for (size_t j = i + 1; j < out.n; j++) {
         distinct = distinct && !bson_equal (out.v[i], out.v[j]);
      }
   }
   CHECK ("aggregate $sample size and distinct", ok && out.n == 3 && distinct);
   simq_docs_clear (&in);
   simq_docs_clear (&out);
   bson_destroy (p);
}

int
main (void)
{
   test_aggregate ();
   test_lookup_indexed ();
   test_sample ();
   UNIT_EXIT ();
}
