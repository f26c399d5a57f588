/* shardsim's explain command as a mongos answers it for find, count, distinct, update, delete and findAndModify: the
 * shards the query targets, each with the plan a shard's mongod reports (a collection scan, under SHARDING_FILTER on a
 * sharded collection), merged as ClusterExplain::buildExplainResult merges them (src/mongo/s/cluster_explain.cpp; 8.0+:
 * src/mongo/s/query/explain/cluster_explain.cpp): queryPlanner.winningPlan { stage: SINGLE_SHARD | SHARD_MERGE |
 * SHARD_MERGE_SORT, shards: [...] }, executionStats summed from the shards for executionStats and
 * allPlansExecution, then the router's serverInfo (and from 5.0 serverParameters and command). The writes explain
 * their first statement: SHARD_WRITE (cluster_write_cmd.cpp) or, for findAndModify, SINGLE_SHARD, each shard's plan an
 * UPDATE or DELETE stage over its scan with what it would have written (nMatched, nWouldModify, nWouldDelete).
 * Targeting: an equality on every shard-key field goes to the chunk's shard, anything else to every shard owning a
 * chunk, an unsharded collection to its database's primary. docs/shardsim.md lists what is modelled and what is
 * guessed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/shardsim/sim.h"
#include "tests/shardsim/sim_crud.h"
#include "shell/lib/docget.h"

#define EXPLAIN_MAX_SHARDS 64

/* One targeted shard: its name, connection string and the matching documents it holds. */
typedef struct {
   char name[64];
   char conn[256];
   int64_t matched; /* documents matching the filter on this shard */
   int64_t held;    /* documents of the collection on this shard (scanned) */
} ex_shard_t;

typedef struct {
   const char *verb; /* find, count, distinct */
   const char *coll; /* the collection */
   bson_t filter;    /* the query (borrowed view, or empty) */
   bool sorted;      /* find with a sort: SHARD_MERGE_SORT */
   const char *verbosity;
   const char *write; /* update, delete, findAndModify: the shard's write stage (UPDATE, DELETE), else NULL */
   bool multi;        /* a write of every match (multi: true, limit: 0), else of the first */
   ex_shard_t shards[EXPLAIN_MAX_SHARDS];
   size_t n;
} ex_plan_t;

/* BSONObjBuilder::appendNumber's choice for a long long: an int below 2^30 either way, else a long. */
static void
ex_number (bson_t *doc, const char *key, int64_t v)
{
   if (v < (1LL << 30) && v > -(1LL << 30))
      BSON_APPEND_INT32 (doc, key, (int32_t) v);
   else
      BSON_APPEND_INT64 (doc, key, v);
}

/* Adds shard name (once) to the plan; its connection string from config.shards. */
static ex_shard_t *
ex_add_shard (ex_plan_t *p, const char *name)
{
   for (size_t i = 0; i < p->n; i++) {
      if (!strcmp (p->shards[i].name, name))
         return &p->shards[i];
   }
   if (p->n == EXPLAIN_MAX_SHARDS || !*name)
      return NULL;
   ex_shard_t *s = &p->shards[p->n++];
   memset (s, 0, sizeof *s);
   bson_strncpy (s->name, name, sizeof s->name);
   sim_coll_t *shards = sim_coll_get ("config", "shards");
   simq_docs_t docs;
   bson_t f = BSON_INITIALIZER;
   bson_error_t err;
   simq_docs_init (&docs);
   BSON_APPEND_UTF8 (&f, "_id", name);
   if (shards && sim_coll_collect (shards, &f, &docs, &err) && docs.n)
      bson_strncpy (s->conn, docget_utf8 (docs.v[0], "host", ""), sizeof s->conn);
   simq_docs_clear (&docs);
   bson_destroy (&f);
   return s;
}

/* Sorts the targeted shards by name, as the router's set of shard ids is ordered. */
static void
ex_sort_shards (ex_plan_t *p)
{
   for (size_t i = 1; i < p->n; i++) {
      for (size_t j = i; j > 0 && strcmp (p->shards[j - 1].name, p->shards[j].name) > 0; j--) {
         ex_shard_t t = p->shards[j];
         p->shards[j] = p->shards[j - 1];
         p->shards[j - 1] = t;
      }
   }
}

/* True when filter gives every shard-key field a plain value (no operator), so the router targets one chunk (a
 * hashed field by its value's hash, as sim_shard_key_of computes it). */
static bool
ex_equality_on_key (const sim_shcoll_t *sc, const bson_t *filter)
{
   bson_iter_t k, f;
   bson_iter_init (&k, &sc->key);
   while (bson_iter_next (&k)) {
      if (!bson_iter_init_find (&f, filter, bson_iter_key (&k)) || BSON_ITER_HOLDS_REGEX (&f))
         return false;
      if (BSON_ITER_HOLDS_DOCUMENT (&f)) {
         bson_iter_t sub;
         if (bson_iter_recurse (&f, &sub) && bson_iter_next (&sub) && bson_iter_key (&sub)[0] == '$')
            return false;
      }
   }
   return true;
}

/* Works out the targeted shards and what each holds and matches. False with the error replied. */
static bool
ex_target (sim_ctx_t *ctx, ex_plan_t *p, bson_t *reply)
{
   char ns[512], shard[64];
   sim_shcoll_t sc;
   bool sharded;
   sim_coll_t *coll = sim_coll_get (ctx->db, p->coll);
   simq_docs_t all, hit;
   bson_error_t err;

   bson_snprintf (ns, sizeof ns, "%s.%s", ctx->db, p->coll);
   sharded = sim_shcoll_load (ns, &sc);
   simq_docs_init (&all);
   simq_docs_init (&hit);
   if (coll && (!sim_coll_collect (coll, NULL, &all, &err) || !sim_coll_collect (coll, &p->filter, &hit, &err))) {
      sim_reply_simq_error (reply, &err);
      simq_docs_clear (&all);
      simq_docs_clear (&hit);
      if (sharded)
         sim_shcoll_destroy (&sc);
      return false;
   }
   if (!sharded) {
      sim_db_primary (ctx->db, shard);
      ex_add_shard (p, shard);
   } else if (ex_equality_on_key (&sc, &p->filter)) {
      bson_t key, chunk;
      sim_pos_t pos;
      sim_shard_key_of (&sc, &p->filter, &key);
      if (sim_chunk_find (&sc, &key, &chunk, &pos)) {
         ex_add_shard (p, docget_utf8 (&chunk, "shard", ""));
         bson_destroy (&chunk);
      }
      bson_destroy (&key);
   } else {
      sim_ctab_t *t = coll ? sim_ctab_get (coll) : NULL;
      for (size_t i = 0; t && i < t->n; i++)
         ex_add_shard (p, t->v[i].shard);
   }
   for (int pass = 0; pass < 2; pass++) {
      const simq_docs_t *d = pass ? &hit : &all;
      for (size_t i = 0; i < d->n; i++) {
         if (!sim_route_doc (ns, sharded ? &sc : NULL, d->v[i], shard))
            continue;
         for (size_t j = 0; j < p->n; j++) {
            if (!strcmp (p->shards[j].name, shard)) {
               if (pass)
                  p->shards[j].matched++;
               else
                  p->shards[j].held++;
            }
         }
      }
   }
   ex_sort_shards (p);
   simq_docs_clear (&all);
   simq_docs_clear (&hit);
   if (sharded)
      sim_shcoll_destroy (&sc);
   return true;
}

/* { host, port, version, gitVersion } of the server at address "host:port" (the router's own when NULL). */
static void
ex_server_info (bson_t *out, const char *key, const char *address)
{
   char host[256];
   int port = sim_g.port;
   bson_t d;
   const char *a = address ? address : sim_g.host;
   const char *slash = strchr (a, '/'), *colon;
   if (slash)
      a = slash + 1;
   bson_strncpy (host, a, sizeof host);
   host[strcspn (host, ",")] = '\0';
   colon = strrchr (host, ':');
   if (colon) {
      port = atoi (colon + 1);
      host[colon - host] = '\0';
   }
   BSON_APPEND_DOCUMENT_BEGIN (out, key, &d);
   BSON_APPEND_UTF8 (&d, "host", host);
   BSON_APPEND_INT32 (&d, "port", port);
   BSON_APPEND_UTF8 (&d, "version", sim_g.ver->full);
   BSON_APPEND_UTF8 (&d, "gitVersion", "0000000000000000000000000000000000000000");
   bson_append_document_end (out, &d);
}

/* The server's parsed form of the filter: { f: { $eq: v } } for a plain value, { $and: [...] } for several fields. */
static void
ex_parsed_query (const bson_t *filter, bson_t *out)
{
   bson_iter_t it;
   bson_t and, one, eq;
   uint32_t n = bson_count_keys (filter), i = 0;
   if (n > 1)
      BSON_APPEND_ARRAY_BEGIN (out, "$and", &and);
   bson_iter_init (&it, filter);
   while (bson_iter_next (&it)) {
      char key[16];
      const char *k;
      bson_t *dst = out;
      bool op = false;
      if (BSON_ITER_HOLDS_DOCUMENT (&it)) {
         bson_iter_t sub;
         op = bson_iter_recurse (&it, &sub) && bson_iter_next (&sub) && bson_iter_key (&sub)[0] == '$';
      }
      if (n > 1) {
         bson_uint32_to_string (i++, &k, key, sizeof key);
         BSON_APPEND_DOCUMENT_BEGIN (&and, k, &one);
         dst = &one;
      }
      if (op || bson_iter_key (&it)[0] == '$') {
         BSON_APPEND_VALUE (dst, bson_iter_key (&it), bson_iter_value (&it));
      } else {
         BSON_APPEND_DOCUMENT_BEGIN (dst, bson_iter_key (&it), &eq);
         BSON_APPEND_VALUE (&eq, "$eq", bson_iter_value (&it));
         bson_append_document_end (dst, &eq);
      }
      if (n > 1)
         bson_append_document_end (&and, &one);
   }
   if (n > 1)
      bson_append_array_end (out, &and);
}

/* A shard's plan: COLLSCAN (with the filter when there is one) under SHARDING_FILTER on a sharded collection, under
 * COUNT for count and PROJECTION_DEFAULT for distinct. stats: append the execution counters of shard s. */
static void
ex_plan_stage (const ex_plan_t *p, bool sharded, const ex_shard_t *s, bool stats, bson_t *out, const char *key)
{
   const char *stages[3];
   int n = 0;
   bson_t levels[4];
   if (p->write)
      stages[n++] = p->write;
   else if (!strcmp (p->verb, "count"))
      stages[n++] = "COUNT";
   else if (!strcmp (p->verb, "distinct"))
      stages[n++] = "PROJECTION_DEFAULT";
   if (sharded && !p->write)
      stages[n++] = "SHARDING_FILTER";
   stages[n++] = "COLLSCAN";
   BSON_APPEND_DOCUMENT_BEGIN (out, key, &levels[0]);
   for (int i = 0; i < n; i++) {
      bson_t *d = &levels[i];
      bool scan = i == n - 1;
      BSON_APPEND_UTF8 (d, "stage", stages[i]);
      if (scan && !bson_empty (&p->filter)) {
         bson_t f;
         BSON_APPEND_DOCUMENT_BEGIN (d, "filter", &f);
         ex_parsed_query (&p->filter, &f);
         bson_append_document_end (d, &f);
      }
      if (stats) {
         int64_t ret = scan || !strcmp (stages[i], "SHARDING_FILTER") || !strcmp (stages[i], "PROJECTION_DEFAULT")
                          ? s->matched
                          : 0;
         int64_t wrote = p->multi || s->matched < 1 ? s->matched : 1;
         BSON_APPEND_INT32 (d, "nReturned", (int32_t) ret);
         BSON_APPEND_INT32 (d, "executionTimeMillisEstimate", 0);
         BSON_APPEND_INT32 (d, "works", (int32_t) (s->held + 1));
         BSON_APPEND_INT32 (d, "advanced", (int32_t) ret);
         BSON_APPEND_INT32 (d, "needTime", (int32_t) (s->held - ret));
         BSON_APPEND_INT32 (d, "needYield", 0);
         BSON_APPEND_INT32 (d, "saveState", 0);
         BSON_APPEND_INT32 (d, "restoreState", 0);
         BSON_APPEND_INT32 (d, "isEOF", 1);
         if (!strcmp (stages[i], "COUNT"))
            BSON_APPEND_INT32 (d, "nCounted", (int32_t) s->matched);
         if (!strcmp (stages[i], "UPDATE")) { /* UpdateStage::getStats: what it would have done */
            BSON_APPEND_INT32 (d, "nMatched", (int32_t) wrote);
            BSON_APPEND_INT32 (d, "nWouldModify", (int32_t) wrote);
            BSON_APPEND_INT32 (d, "nWouldUpsert", 0);
         } else if (!strcmp (stages[i], "DELETE")) {
            BSON_APPEND_INT32 (d, "nWouldDelete", (int32_t) wrote);
         }
         if (scan) {
            BSON_APPEND_UTF8 (d, "direction", "forward");
            BSON_APPEND_INT32 (d, "docsExamined", (int32_t) s->held);
         }
      } else if (scan) {
         BSON_APPEND_UTF8 (d, "direction", "forward");
      }
      if (!scan)
         BSON_APPEND_DOCUMENT_BEGIN (d, "inputStage", &levels[i + 1]);
   }
   for (int i = n - 1; i > 0; i--)
      bson_append_document_end (&levels[i - 1], &levels[i]);
   bson_append_document_end (out, &levels[0]);
}

/* The router's stage (ClusterExplain's names): a write, SHARD_WRITE (cluster_write_cmd.cpp); findAndModify, which
 * goes to one shard, SINGLE_SHARD (cluster_find_and_modify_cmd.cpp); a read by how many shards it reads. */
static const char *
ex_router_stage (const ex_plan_t *p)
{
   if (p->write && strcmp (p->verb, "findAndModify") != 0)
      return "SHARD_WRITE";
   return p->n == 1 ? "SINGLE_SHARD" : p->sorted ? "SHARD_MERGE_SORT" : "SHARD_MERGE";
}

/* queryPlanner: the router's stage and, per shard, what its mongod's queryPlanner holds. */
static void
ex_query_planner (sim_ctx_t *ctx, const ex_plan_t *p, bool sharded, bson_t *reply)
{
   const char *stage = ex_router_stage (p);
   char ns[512];
   bson_t qp, wp, arr, s, pq;
   bson_snprintf (ns, sizeof ns, "%s.%s", ctx->db, p->coll);
   BSON_APPEND_DOCUMENT_BEGIN (reply, "queryPlanner", &qp);
   ex_number (&qp, "mongosPlannerVersion", 1);
   BSON_APPEND_DOCUMENT_BEGIN (&qp, "winningPlan", &wp);
   BSON_APPEND_UTF8 (&wp, "stage", stage);
   BSON_APPEND_ARRAY_BEGIN (&wp, "shards", &arr);
   for (size_t i = 0; i < p->n; i++) {
      char key[16];
      const char *k;
      bson_uint32_to_string ((uint32_t) i, &k, key, sizeof key);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, k, &s);
      if (sim_g.ver->num >= 50)
         BSON_APPEND_UTF8 (&s, "explainVersion", "1");
      BSON_APPEND_UTF8 (&s, "shardName", p->shards[i].name);
      BSON_APPEND_UTF8 (&s, "connectionString", p->shards[i].conn);
      ex_server_info (&s, "serverInfo", p->shards[i].conn);
      if (sim_g.ver->num < 50)
         BSON_APPEND_INT32 (&s, "plannerVersion", 1);
      BSON_APPEND_UTF8 (&s, "namespace", ns);
      BSON_APPEND_BOOL (&s, "indexFilterSet", false);
      BSON_APPEND_DOCUMENT_BEGIN (&s, "parsedQuery", &pq);
      ex_parsed_query (&p->filter, &pq);
      bson_append_document_end (&s, &pq);
      if (sim_g.ver->num >= 50) {
         BSON_APPEND_BOOL (&s, "maxIndexedOrSolutionsReached", false);
         BSON_APPEND_BOOL (&s, "maxIndexedAndSolutionsReached", false);
         BSON_APPEND_BOOL (&s, "maxScansToExplodeReached", false);
      }
      ex_plan_stage (p, sharded, &p->shards[i], false, &s, "winningPlan");
      BSON_APPEND_ARRAY_BEGIN (&s, "rejectedPlans", &pq);
      bson_append_array_end (&s, &pq);
      bson_append_document_end (&arr, &s);
   }
   bson_append_array_end (&wp, &arr);
   bson_append_document_end (&qp, &wp);
   bson_append_document_end (reply, &qp);
}

/* executionStats: the shards' counters summed, then each shard's own (buildExecStats). */
static void
ex_exec_stats (const ex_plan_t *p, bool sharded, bson_t *reply)
{
   const char *stage = ex_router_stage (p);
   bool all = !strcmp (p->verbosity, "allPlansExecution");
   int64_t ret = 0, examined = 0;
   bson_t es, st, arr, s, plans;
   for (size_t i = 0; i < p->n; i++) {
      ret += p->shards[i].matched;
      examined += p->shards[i].held;
   }
   if (!strcmp (p->verb, "count") || p->write)
      ret = 0; /* COUNT returns no documents (nCounted says how many matched), nor does a write */
   BSON_APPEND_DOCUMENT_BEGIN (reply, "executionStats", &es);
   ex_number (&es, "nReturned", ret);
   ex_number (&es, "executionTimeMillis", 0);
   ex_number (&es, "totalKeysExamined", 0);
   ex_number (&es, "totalDocsExamined", examined);
   BSON_APPEND_DOCUMENT_BEGIN (&es, "executionStages", &st);
   BSON_APPEND_UTF8 (&st, "stage", stage);
   ex_number (&st, "nReturned", ret);
   ex_number (&st, "executionTimeMillis", 0);
   ex_number (&st, "totalKeysExamined", 0);
   ex_number (&st, "totalDocsExamined", examined);
   BSON_APPEND_INT64 (&st, "totalChildMillis", 0); /* append(long long): a long */
   BSON_APPEND_ARRAY_BEGIN (&st, "shards", &arr);
   for (size_t i = 0; i < p->n; i++) {
      char key[16];
      const char *k;
      const ex_shard_t *sh = &p->shards[i];
      bson_uint32_to_string ((uint32_t) i, &k, key, sizeof key);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, k, &s);
      BSON_APPEND_UTF8 (&s, "shardName", sh->name);
      BSON_APPEND_BOOL (&s, "executionSuccess", true);
      BSON_APPEND_INT32 (&s, "nReturned", (int32_t) (strcmp (p->verb, "count") && !p->write ? sh->matched : 0));
      BSON_APPEND_INT32 (&s, "executionTimeMillis", 0);
      BSON_APPEND_INT32 (&s, "totalKeysExamined", 0);
      BSON_APPEND_INT32 (&s, "totalDocsExamined", (int32_t) sh->held);
      ex_plan_stage (p, sharded, sh, true, &s, "executionStages");
      if (all) {
         BSON_APPEND_ARRAY_BEGIN (&s, "allPlansExecution", &plans);
         bson_append_array_end (&s, &plans);
      }
      bson_append_document_end (&arr, &s);
   }
   bson_append_array_end (&st, &arr);
   bson_append_document_end (&es, &st);
   if (all) {
      BSON_APPEND_ARRAY_BEGIN (&es, "allPlansExecution", &arr);
      for (size_t i = 0; i < p->n; i++) {
         char key[16];
         const char *k;
         bson_uint32_to_string ((uint32_t) i, &k, key, sizeof key);
         BSON_APPEND_DOCUMENT_BEGIN (&arr, k, &s);
         BSON_APPEND_UTF8 (&s, "shardName", p->shards[i].name);
         BSON_APPEND_ARRAY_BEGIN (&s, "allPlans", &plans);
         bson_append_array_end (&s, &plans);
         bson_append_document_end (&arr, &s);
      }
      bson_append_array_end (&es, &arr);
   }
   bson_append_document_end (reply, &es);
}

/* serverParameters (5.0+): the query knobs explain_common::generateServerParameters reports, at their defaults. */
static void
ex_server_parameters (bson_t *reply)
{
   bson_t d;
   BSON_APPEND_DOCUMENT_BEGIN (reply, "serverParameters", &d);
   BSON_APPEND_INT32 (&d, "internalQueryFacetBufferSizeBytes", 104857600);
   BSON_APPEND_INT32 (&d, "internalQueryFacetMaxOutputDocSizeBytes", 104857600);
   BSON_APPEND_INT32 (&d, "internalLookupStageIntermediateDocumentMaxSizeBytes", 104857600);
   BSON_APPEND_INT32 (&d, "internalDocumentSourceGroupMaxMemoryBytes", 104857600);
   BSON_APPEND_INT32 (&d, "internalQueryMaxBlockingSortMemoryUsageBytes", 104857600);
   BSON_APPEND_BOOL (&d, "internalQueryProhibitBlockingMergeOnMongoS", false);
   BSON_APPEND_INT32 (&d, "internalQueryMaxAddToSetBytes", 104857600);
   BSON_APPEND_INT32 (&d, "internalDocumentSourceSetWindowFieldsMaxMemoryBytes", 104857600);
   if (sim_g.ver->num >= 80)
      BSON_APPEND_UTF8 (&d, "internalQueryFrameworkControl", "trySbeRestricted");
   bson_append_document_end (reply, &d);
}

/* The filter of the explained command into q (a view of cmd, or empty) and, for a write, its stage: update and
 * delete explain their first statement (updates[0].q, deletes[0].q), findAndModify its query. False with the error
 * replied when a write has no statement. */
static bool
ex_write (ex_plan_t *p, const bson_t *cmd, bson_t *q, bson_t *reply)
{
   bson_t list, st;
   bson_iter_t it;
   bool upd = !strcmp (p->verb, "update");
   if (upd || !strcmp (p->verb, "delete")) {
      if (!docget_sub (cmd, upd ? "updates" : "deletes", BSON_TYPE_ARRAY, &list) || !bson_iter_init (&it, &list) ||
          !bson_iter_next (&it) || !docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &st)) {
         sim_reply_error (reply, 9, "Write batch sizes must be between 1 and 100000. Got 0 operations.");
         return false;
      }
      p->write = upd ? "UPDATE" : "DELETE";
      p->multi = upd ? (bson_iter_init_find (&it, &st, "multi") && bson_iter_as_bool (&it))
                     : !(bson_iter_init_find (&it, &st, "limit") && bson_iter_as_int64 (&it) != 0);
      if (!docget_sub (&st, "q", BSON_TYPE_DOCUMENT, q))
         bson_init (q);
      return true;
   }
   if (!strcmp (p->verb, "findAndModify"))
      p->write = bson_iter_init_find (&it, cmd, "remove") && bson_iter_as_bool (&it) ? "DELETE" : "UPDATE";
   if (!docget_sub (cmd, !strcmp (p->verb, "find") ? "filter" : "query", BSON_TYPE_DOCUMENT, q))
      bson_init (q);
   return true;
}

void
sim_cmd_explain (sim_ctx_t *ctx, bson_t *reply)
{
   ex_plan_t *p = bson_malloc0 (sizeof *p);
   bson_iter_t it, inner;
   bson_t cmd, q;
   bool sharded;
   char ns[512];

   if (!bson_iter_init_find (&it, ctx->cmd, "explain") || !BSON_ITER_HOLDS_DOCUMENT (&it) ||
       !docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &cmd) || bson_empty (&cmd)) {
      sim_reply_error (reply, 2, "explain command requires a nested object");
      goto done;
   }
   p->verbosity = docget_utf8 (ctx->cmd, "verbosity", "allPlansExecution");
   if (strcmp (p->verbosity, "queryPlanner") != 0 && strcmp (p->verbosity, "executionStats") != 0 &&
       strcmp (p->verbosity, "allPlansExecution") != 0) {
      sim_reply_error (reply, 2,
                       "verbosity string must be one of {'queryPlanner', 'executionStats', "
                       "'allPlansExecution'}");
      goto done;
   }
   bson_iter_init (&inner, &cmd);
   bson_iter_next (&inner);
   p->verb = bson_iter_key (&inner);
   if (strcmp (p->verb, "find") != 0 && strcmp (p->verb, "count") != 0 && strcmp (p->verb, "distinct") != 0 &&
       strcmp (p->verb, "update") != 0 && strcmp (p->verb, "delete") != 0 && strcmp (p->verb, "findAndModify") != 0) {
      /* aggregate's explain through a router has another shape (splitPipeline, shards by name), not modelled */
      sim_reply_error (reply, 59, "Explain failed due to unknown command: %s", p->verb);
      goto done;
   }
   if (!BSON_ITER_HOLDS_UTF8 (&inner) || !*bson_iter_utf8 (&inner, NULL)) {
      sim_reply_error (reply, 73, "collection name has invalid type %s",
                       BSON_ITER_HOLDS_NUMBER (&inner) ? "int" : "object");
      goto done;
   }
   p->coll = bson_iter_utf8 (&inner, NULL);
   if (!ex_write (p, &cmd, &q, reply))
      goto done;
   p->filter = q;
   p->sorted = !strcmp (p->verb, "find") && bson_has_field (&cmd, "sort");
   if (!ex_target (ctx, p, reply))
      goto done;
   if (!p->n) {
      sim_reply_error (reply, 1, "no shards found for explain");
      goto done;
   }
   bson_snprintf (ns, sizeof ns, "%s.%s", ctx->db, p->coll);
   {
      sim_shcoll_t sc;
      bool keyed;
      sharded = sim_shcoll_load (ns, &sc);
      keyed = !sharded || ex_equality_on_key (&sc, &p->filter);
      if (sharded)
         sim_shcoll_destroy (&sc);
      if (!strcmp (p->verb, "findAndModify")) {
         /* one shard (cluster_find_and_modify_cmd.cpp): the chunk's by the shard key; before 7.0 a sharded
          * collection's query must hold it (getShardKey: 61); from 7.0 the two-phase explain is not modelled, the
          * first shard read stands for it (docs/shardsim.md) */
         if (!keyed && !sim_ver_ge (70)) {
            sim_reply_error (reply, 61, "Query for sharded findAndModify must contain the shard key");
            goto done;
         }
         p->n = 1;
      }
   }
   ex_query_planner (ctx, p, sharded, reply);
   if (strcmp (p->verbosity, "queryPlanner") != 0)
      ex_exec_stats (p, sharded, reply);
   ex_server_info (reply, "serverInfo", NULL);
   if (sim_g.ver->num >= 50) {
      bson_t c;
      ex_server_parameters (reply);
      BSON_APPEND_DOCUMENT_BEGIN (reply, "command", &c);
      bson_concat (&c, &cmd);
      BSON_APPEND_UTF8 (&c, "$db", ctx->db);
      bson_append_document_end (reply, &c);
   }
   sim_reply_ok (reply);
done:
   bson_free (p);
}
