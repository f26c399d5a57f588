/* shardsim's timed resharding: reshardCollection (5.0+) and, on 8.0, moveCollection and unshardCollection (the
 * server runs both as a resharding with another provenance) take --reshard-ms instead of committing at once. While
 * one runs, the command blocks (as the server's does, the state lock released), its coordinator state document sits
 * in config.reshardingOperations, and every donor and recipient shard reports a $currentOp row with the metrics the
 * server's ReshardingMetrics::reportForCurrentOp writes (states, approximate and copied figures, elapsed and
 * remaining time); at the end the ordinary commit of sim_shardcoll.c runs. docs/shardsim.md cites the sources. */
#include "tests/shardsim/sim_ddlcheck.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIM_RS_MAX 8         /* concurrent operations (one per namespace) */
#define SIM_RS_MAX_SHARDS 32 /* participants listed per role */

int64_t sim_reshard_ms; /* --reshard-ms: 0 commits at once (the simulator's behaviour before this file) */

typedef struct {
   bool used;
   uint8_t uuid[16];
   uint8_t coll_uuid[16];
   char ns[256];
   const char *provenance; /* "reshardCollection", "moveCollection", "unshardCollection" */
   bson_t *cmd;            /* originatingCommand: { reshardCollection: ns, key, unique, collation } */
   bson_t *key;            /* the new shard key */
   int64_t start_ms, end_ms;
   size_t ndonors, nrecipients;
   char donors[SIM_RS_MAX_SHARDS][64];
   char recipients[SIM_RS_MAX_SHARDS][64];
   int64_t donor_docs[SIM_RS_MAX_SHARDS], donor_bytes[SIM_RS_MAX_SHARDS];
   int64_t share_docs[SIM_RS_MAX_SHARDS], share_bytes[SIM_RS_MAX_SHARDS]; /* what each recipient really copies */
   int64_t total_docs, total_bytes;
   bool estimate_lost; /* {simReshard: "stepDown"}: the recipients' new primaries cannot estimate the time left */
   bool aborted;       /* abortReshardCollection / abortMoveCollection / abortUnshardCollection */
   bool commit_asked;  /* commitReshardCollection: block writes and commit once the data is copied */
} sim_rs_t;

static sim_rs_t sim_rs[SIM_RS_MAX];

/* ---- the timeline: fractions of the duration ---- */

#define SIM_RS_T_PREPARE 0.05
#define SIM_RS_T_CLONE 0.10
#define SIM_RS_T_APPLY 0.70
#define SIM_RS_T_BLOCK 0.85
#define SIM_RS_T_COMMIT 0.95

static double
sim_rs_frac (const sim_rs_t *op, int64_t now)
{
   int64_t total = op->end_ms - op->start_ms;
   if (total <= 0) {
      return 1.0;
   }
   double f = (double) (now - op->start_ms) / (double) total;
   return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* CoordinatorState (coordinator_document.idl) */
static const char *
sim_rs_coordinator_state (double f)
{
   return f < SIM_RS_T_PREPARE  ? "initializing"
          : f < SIM_RS_T_CLONE  ? "preparing-to-donate"
          : f < SIM_RS_T_APPLY  ? "cloning"
          : f < SIM_RS_T_BLOCK  ? "applying"
          : f < SIM_RS_T_COMMIT ? "blocking-writes"
                                : "committing";
}

/* DonorState (donor_document.idl) */
static const char *
sim_rs_donor_state (double f)
{
   return f < SIM_RS_T_CLONE   ? "preparing-to-donate"
          : f < SIM_RS_T_APPLY ? "donating-initial-data"
          : f < SIM_RS_T_BLOCK ? "donating-oplog-entries"
                               : "blocking-writes";
}

/* RecipientState (recipient_document.idl) */
static const char *
sim_rs_recipient_state (double f)
{
   return f < SIM_RS_T_PREPARE ? "awaiting-fetch-timestamp"
          : f < SIM_RS_T_CLONE ? "creating-collection"
          : f < SIM_RS_T_APPLY ? "cloning"
          : f < SIM_RS_T_BLOCK ? "applying"
                               : "strict-consistency";
}

/* Seconds of [from, to) fractions elapsed at f (0 before the phase starts). */
static int64_t
sim_rs_phase_secs (const sim_rs_t *op, double f, double from, double to)
{
   if (f <= from) {
      return 0;
   }
   double end = f < to ? f : to;
   return (int64_t) ((end - from) * (double) (op->end_ms - op->start_ms) / 1000.0);
}

/* What recipient i has copied at f: its real share, linearly over the cloning phase. */
static void
sim_rs_copied (const sim_rs_t *op, size_t i, double f, int64_t *docs, int64_t *bytes)
{
   double c = f <= SIM_RS_T_CLONE   ? 0
              : f >= SIM_RS_T_APPLY ? 1
                                    : (f - SIM_RS_T_CLONE) / (SIM_RS_T_APPLY - SIM_RS_T_CLONE);
   *docs = (int64_t) ((double) op->share_docs[i] * c);
   *bytes = (int64_t) ((double) op->share_bytes[i] * c);
}

/* ---- participants ---- */

/* How many distinct values the first field of key takes in the collection, counted up to cap (a ranged key with
 * fewer distinct values than recipients leaves some recipients without data). The stored documents are viewed in
 * place, with at most cap values remembered: O(documents x cap), no copy. */
static size_t
sim_rs_distinct_first (sim_coll_t *coll, const bson_t *key, size_t cap)
{
   bson_iter_t it;
   if (!bson_iter_init (&it, key) || !bson_iter_next (&it)) {
      return cap;
   }
   if (BSON_ITER_HOLDS_UTF8 (&it)) {
      return cap; /* hashed: spread evenly */
   }
   const char *field = bson_iter_key (&it);
   bson_value_t *seen = bson_malloc0 (cap * sizeof *seen);
   size_t n = 0;
   for (size_t p = 0; p < coll->nparts && n < cap; p++) {
      for (size_t i = 0; i < coll->parts[p].docs.n && n < cap; i++) {
         bson_t view;
         bson_iter_t f;
         bson_value_t v = { .value_type = BSON_TYPE_NULL };
         sim_pos_t pos = { p, i };
         sim_coll_view (coll, pos, &view);
         if (bson_iter_init (&it, &view) && bson_iter_find_descendant (&it, field, &f)) {
            v = *bson_iter_value (&f);
         }
         bool known = false;
         for (size_t k = 0; k < n && !known; k++) {
            known = order_values (&seen[k], &v) == 0;
         }
         if (!known) {
            bson_value_copy (&v, &seen[n++]); /* a copy: valid past this view */
         }
      }
   }
   for (size_t k = 0; k < n; k++) {
      bson_value_destroy (&seen[k]);
   }
   bson_free (seen);
   return n;
}

/* Donors: the shards owning the collection's data (the primary shard of an untracked collection). Recipients: every
 * shard for reshardCollection (the server's default distribution), the destination for moveCollection and
 * unshardCollection. Real shares: equal over the recipients, except that a ranged key with d distinct values feeds
 * only d of them. */
static void
sim_rs_participants (sim_rs_t *op, sim_coll_t *coll, const char *to)
{
   sim_shard_stat_t *st = NULL;
   size_t n = sim_coll_shard_stats (op->ns, &st);
   for (size_t i = 0; i < n && op->ndonors < SIM_RS_MAX_SHARDS; i++) {
      if (st[i].count > 0 || st[i].chunks > 0) {
         bson_strncpy (op->donors[op->ndonors], st[i].shard, 64);
         op->donor_docs[op->ndonors] = st[i].count;
         op->donor_bytes[op->ndonors] = st[i].size;
         op->total_docs += st[i].count;
         op->total_bytes += st[i].size;
         op->ndonors++;
      }
   }
   bson_free (st);
   if (!op->ndonors && coll) {
      char primary[64] = "";
      sim_db_primary (coll->db, primary);
      if (primary[0]) {
         bson_strncpy (op->donors[op->ndonors++], primary, 64);
      }
   }
   if (to) {
      bson_strncpy (op->recipients[op->nrecipients++], to, 64);
   } else {
      simq_docs_t shards;
      simq_docs_init (&shards);
      sim_shards_list (&shards);
      for (size_t i = 0; i < shards.n && op->nrecipients < SIM_RS_MAX_SHARDS; i++) {
         const char *id = docget_utf8 (shards.v[i], "_id", NULL);
         if (id && !sim_shard_is_draining (id)) {
            bson_strncpy (op->recipients[op->nrecipients++], id, 64);
         }
      }
      simq_docs_clear (&shards);
   }
   size_t fed = op->nrecipients;
   if (coll && op->nrecipients > 1) {
      fed = sim_rs_distinct_first (coll, op->key, op->nrecipients);
   }
   for (size_t i = 0; i < op->nrecipients; i++) {
      if (i < fed) {
         op->share_docs[i] = op->total_docs / (int64_t) fed + ((int64_t) i < op->total_docs % (int64_t) fed);
         op->share_bytes[i] = op->total_bytes / (int64_t) fed + ((int64_t) i < op->total_bytes % (int64_t) fed);
      }
   }
}

/* ---- config.reshardingOperations (the coordinator's state document) ---- */

static void
sim_rs_coordinator_doc (const sim_rs_t *op, int64_t now, bson_t *out)
{
   double f = sim_rs_frac (op, now);
   bson_t arr, sd, ms, approx;
   char key[16];
   const char *kp;
   char *temp = bson_strdup_printf ("%.*s.system.resharding.%02x%02x%02x%02x", (int) (strchr (op->ns, '.') - op->ns),
                                    op->ns, op->coll_uuid[0], op->coll_uuid[1], op->coll_uuid[2], op->coll_uuid[3]);
   bson_init (out);
   BSON_APPEND_BINARY (out, "_id", BSON_SUBTYPE_UUID, op->uuid, 16);
   BSON_APPEND_UTF8 (out, "ns", op->ns);
   BSON_APPEND_BINARY (out, "ekey", BSON_SUBTYPE_UUID, op->coll_uuid, 16);
   BSON_APPEND_UTF8 (out, "tempNs", temp);
   BSON_APPEND_DOCUMENT (out, "reshardingKey", op->key);
   BSON_APPEND_DATE_TIME (out, "startTime", op->start_ms);
   if (sim_ver_ge (80)) {
      BSON_APPEND_UTF8 (out, "provenance", op->provenance);
   }
   BSON_APPEND_UTF8 (out, "state", sim_rs_coordinator_state (f));
   BSON_APPEND_ARRAY_BEGIN (out, "donorShards", &arr);
   for (size_t i = 0; i < op->ndonors; i++) {
      bson_uint32_to_string ((uint32_t) i, &kp, key, sizeof key);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, kp, &sd);
      BSON_APPEND_UTF8 (&sd, "id", op->donors[i]);
      BSON_APPEND_DOCUMENT_BEGIN (&sd, "mutableState", &ms);
      BSON_APPEND_UTF8 (&ms, "state", sim_rs_donor_state (f));
      if (f >= SIM_RS_T_CLONE) {
         BSON_APPEND_INT64 (&ms, "bytesToClone", op->donor_bytes[i]);
         BSON_APPEND_INT64 (&ms, "documentsToClone", op->donor_docs[i]);
      }
      bson_append_document_end (&sd, &ms);
      bson_append_document_end (&arr, &sd);
   }
   bson_append_array_end (out, &arr);
   BSON_APPEND_ARRAY_BEGIN (out, "recipientShards", &arr);
   for (size_t i = 0; i < op->nrecipients; i++) {
      bson_uint32_to_string ((uint32_t) i, &kp, key, sizeof key);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, kp, &sd);
      BSON_APPEND_UTF8 (&sd, "id", op->recipients[i]);
      BSON_APPEND_DOCUMENT_BEGIN (&sd, "mutableState", &ms);
      BSON_APPEND_UTF8 (&ms, "state", sim_rs_recipient_state (f));
      bson_append_document_end (&sd, &ms);
      bson_append_document_end (&arr, &sd);
   }
   bson_append_array_end (out, &arr);
   if (f >= SIM_RS_T_CLONE) {
      BSON_APPEND_DOCUMENT_BEGIN (out, "approxCopySize", &approx);
      BSON_APPEND_INT64 (&approx, "approxDocumentsToCopy", op->total_docs / (int64_t) op->nrecipients);
      BSON_APPEND_INT64 (&approx, "approxBytesToCopy", op->total_bytes / (int64_t) op->nrecipients);
      bson_append_document_end (out, &approx);
   }
   bson_free (temp);
}

static void
sim_rs_filter (const sim_rs_t *op, bson_t *filter)
{
   bson_init (filter);
   BSON_APPEND_BINARY (filter, "_id", BSON_SUBTYPE_UUID, op->uuid, 16);
}

/* Writes (or, with remove, deletes) the operation's config.reshardingOperations document. */
static void
sim_rs_store (const sim_rs_t *op, bool remove)
{
   bson_t filter, doc;
   bson_error_t e;
   sim_hits_t hits = { 0 };
   sim_coll_t *c = sim_coll_ensure ("config", "reshardingOperations");
   sim_rs_filter (op, &filter);
   bool found = sim_coll_match (c, &filter, 1, &hits, &e) && hits.n;
   if (remove) {
      if (found) {
         sim_coll_delete (c, &hits);
      }
   } else {
      sim_rs_coordinator_doc (op, clock_wall_ms (), &doc);
      if (found) {
         sim_coll_replace (c, hits.v[0], &doc);
      } else {
         sim_coll_insert (c, &doc);
      }
      bson_destroy (&doc);
   }
   sim_hits_destroy (&hits);
   bson_destroy (&filter);
}

/* ---- $currentOp rows ---- */

/* The row's head: 5.0's ReshardingMetrics::reportForCurrentOp ("Resharding<Role>Service <id>", unique a bool), 6.0+'s
 * ShardingDataTransformInstanceMetrics's ("ReshardingMetrics<Role>Service <id>", unique the string "false"). */
static void
sim_rs_row_head (const sim_rs_t *op, const char *role, bson_t *d, int64_t now)
{
   char uuid[37];
   char desc[96];
   bson_t sub;
   bson_iter_t it;
   const uint8_t *u = op->uuid;
   bson_snprintf (uuid, sizeof uuid, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
                  u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
   bson_snprintf (desc, sizeof desc, "Resharding%s%sService %s", sim_ver_ge (60) ? "Metrics" : "", role, uuid);
   BSON_APPEND_UTF8 (d, "type", "op");
   BSON_APPEND_UTF8 (d, "desc", desc);
   BSON_APPEND_UTF8 (d, "op", "command");
   BSON_APPEND_UTF8 (d, "ns", op->ns);
   BSON_APPEND_DOCUMENT_BEGIN (d, "originatingCommand", &sub);
   for (bool more = bson_iter_init (&it, op->cmd) && bson_iter_next (&it); more; more = bson_iter_next (&it)) {
      if (sim_ver_ge (60) && !strcmp (bson_iter_key (&it), "unique")) {
         BSON_APPEND_UTF8 (&sub, "unique", "false");
      } else {
         bson_append_iter (&sub, NULL, 0, &it);
      }
   }
   bson_append_document_end (d, &sub);
   BSON_APPEND_INT64 (d, "totalOperationTimeElapsedSecs", (now - op->start_ms) / 1000);
}

/* A participant's figures at one moment. */
typedef struct {
   int64_t copy_secs, apply_secs, cs_secs, docs, bytes, approx_docs, approx_bytes, remaining;
   bool have; /* an estimate of the time left */
} sim_rs_fig_t;

static void
sim_rs_recipient_fig (const sim_rs_t *op, size_t i, double f, sim_rs_fig_t *g)
{
   g->approx_docs = f >= SIM_RS_T_CLONE ? op->total_docs / (int64_t) op->nrecipients : 0;
   g->approx_bytes = f >= SIM_RS_T_CLONE ? op->total_bytes / (int64_t) op->nrecipients : 0;
   sim_rs_copied (op, i, f, &g->docs, &g->bytes);
   /* resharding::estimateRemainingRecipientTime (5.0: OperationMetrics::remainingOperationTime): applying began and
    * no oplog entry fetched → 0 (shardsim fetches none); copying → the copy so far, assuming applying takes as long
    * as copying (2 × approxBytesToCopy); otherwise no estimate. */
   g->have = !op->estimate_lost && (f >= SIM_RS_T_APPLY || (g->bytes > 0 && g->approx_bytes > 0));
   g->remaining = 0;
   if (g->have && f < SIM_RS_T_APPLY) {
      double done = (double) (g->bytes < g->approx_bytes ? g->bytes : g->approx_bytes);
      g->remaining = (int64_t) ((double) g->copy_secs * ((2.0 * (double) g->approx_bytes) / done - 1.0));
      g->remaining = g->remaining < 0 ? 0 : g->remaining;
   }
}

/* 5.0: ReshardingMetrics::OperationMetrics::appendCurrentOpMetrics (opStatus "running"; -1 for no estimate). */
static void
sim_rs_row_50 (bool recipient, double f, const sim_rs_fig_t *g, bson_t *d)
{
   if (!recipient) {
      BSON_APPEND_INT64 (d, "countWritesDuringCriticalSection", 0);
      BSON_APPEND_INT64 (d, "totalCriticalSectionTimeElapsedSecs", g->cs_secs);
      BSON_APPEND_UTF8 (d, "donorState", sim_rs_donor_state (f));
   } else {
      BSON_APPEND_INT64 (d, "remainingOperationTimeEstimatedSecs", g->have ? g->remaining : -1);
      BSON_APPEND_INT64 (d, "approxDocumentsToCopy", g->approx_docs);
      BSON_APPEND_INT64 (d, "documentsCopied", g->docs);
      BSON_APPEND_INT64 (d, "approxBytesToCopy", g->approx_bytes);
      BSON_APPEND_INT64 (d, "bytesCopied", g->bytes);
      BSON_APPEND_INT64 (d, "totalCopyTimeElapsedSecs", g->copy_secs);
      BSON_APPEND_INT64 (d, "oplogEntriesFetched", 0);
      BSON_APPEND_INT64 (d, "oplogEntriesApplied", 0);
      BSON_APPEND_INT64 (d, "totalApplyTimeElapsedSecs", g->apply_secs);
      BSON_APPEND_UTF8 (d, "recipientState", sim_rs_recipient_state (f));
   }
   BSON_APPEND_UTF8 (d, "opStatus", "running");
}

/* 6.0+: the base's role fields (sharding_data_transform_instance_metrics.cpp); from 7.0 the phase durations and the
 * oplog counts are already written first (ReshardingMetrics::reportForCurrentOp, appendElementsUnique skips them). */
static void
sim_rs_row_60 (const sim_rs_t *op, bool recipient, double f, const sim_rs_fig_t *g, bson_t *d)
{
   bool v70 = sim_ver_ge (70);
   if (!recipient) {
      BSON_APPEND_UTF8 (d, "donorState", sim_rs_donor_state (f));
      if (!v70) {
         BSON_APPEND_INT64 (d, "totalCriticalSectionTimeElapsedSecs", g->cs_secs);
      }
      BSON_APPEND_INT64 (d, "countWritesDuringCriticalSection", 0);
      BSON_APPEND_INT64 (d, "countReadsDuringCriticalSection", 0);
   } else {
      BSON_APPEND_UTF8 (d, "recipientState", sim_rs_recipient_state (f));
      if (!v70) {
         BSON_APPEND_INT64 (d, "totalApplyTimeElapsedSecs", g->apply_secs);
         BSON_APPEND_INT64 (d, "totalCopyTimeElapsedSecs", g->copy_secs);
      }
      if (g->have || !v70) {
         /* 6.0: value_or(0) when there is no estimate; 7.0+ leave the field out */
         BSON_APPEND_INT64 (d, "remainingOperationTimeEstimatedSecs", g->have ? g->remaining : 0);
      }
      BSON_APPEND_INT64 (d, "approxDocumentsToCopy", g->approx_docs);
      BSON_APPEND_INT64 (d, "approxBytesToCopy", g->approx_bytes);
      BSON_APPEND_INT64 (d, "bytesCopied", g->bytes);
      BSON_APPEND_INT64 (d, "countWritesToStashCollections", 0);
      for (size_t k = 0; !v70 && k < 5; k++) {
         static const char *const counts[] = { "insertsApplied", "updatesApplied", "deletesApplied",
                                               "oplogEntriesApplied", "oplogEntriesFetched" };
         BSON_APPEND_INT64 (d, counts[k], 0);
      }
      BSON_APPEND_INT64 (d, "documentsCopied", g->docs);
   }
   if (sim_ver_ge (80)) {
      BSON_APPEND_UTF8 (d, "provenance", op->provenance);
   }
}

/* One participant's row, "shard" first as the router adds it. 7.0+ begin with every timed phase (0 when not begun: a
 * donor copies nothing, a recipient has no critical section; 8.0 also the index build and a recipient's indexes), then
 * a recipient's oplog counts (reportOplogApplicationCountMetrics' order). */
static void
sim_rs_row (const sim_rs_t *op, size_t i, bool recipient, double f, int64_t now, simq_docs_t *out)
{
   bson_t *d = bson_new ();
   sim_rs_fig_t g = { 0 };
   g.copy_secs = sim_rs_phase_secs (op, f, SIM_RS_T_CLONE, SIM_RS_T_APPLY);
   g.apply_secs = sim_rs_phase_secs (op, f, SIM_RS_T_APPLY, SIM_RS_T_BLOCK);
   g.cs_secs = sim_rs_phase_secs (op, f, SIM_RS_T_BLOCK, 1.0);
   if (recipient) {
      sim_rs_recipient_fig (op, i, f, &g);
   }
   BSON_APPEND_UTF8 (d, "shard", recipient ? op->recipients[i] : op->donors[i]);
   if (sim_ver_ge (70)) {
      BSON_APPEND_INT64 (d, "totalCopyTimeElapsedSecs", recipient ? g.copy_secs : 0);
      BSON_APPEND_INT64 (d, "totalApplyTimeElapsedSecs", recipient ? g.apply_secs : 0);
      BSON_APPEND_INT64 (d, "totalCriticalSectionTimeElapsedSecs", recipient ? 0 : g.cs_secs);
      if (sim_ver_ge (80)) {
         BSON_APPEND_INT64 (d, "totalIndexBuildTimeElapsedSecs", 0);
         if (recipient) {
            BSON_APPEND_INT64 (d, "indexesToBuild", 0);
            BSON_APPEND_INT64 (d, "indexesBuilt", 0);
         }
      }
      for (size_t k = 0; recipient && k < 5; k++) {
         static const char *const counts[] = { "oplogEntriesFetched", "oplogEntriesApplied", "insertsApplied",
                                               "updatesApplied", "deletesApplied" };
         BSON_APPEND_INT64 (d, counts[k], 0);
      }
   }
   sim_rs_row_head (op, recipient ? "Recipient" : "Donor", d, now);
   if (sim_ver_ge (60)) {
      sim_rs_row_60 (op, recipient, f, &g, d);
   } else {
      sim_rs_row_50 (recipient, f, &g, d);
   }
   simq_docs_push_owned (out, d);
}

void
sim_reshard_current_op (simq_docs_t *out)
{
   int64_t now = clock_wall_ms ();
   for (size_t k = 0; k < SIM_RS_MAX; k++) {
      const sim_rs_t *op = &sim_rs[k];
      if (!op->used) {
         continue;
      }
      double f = sim_rs_frac (op, now);
      for (size_t i = 0; i < op->ndonors; i++) {
         sim_rs_row (op, i, false, f, now, out);
      }
      for (size_t i = 0; i < op->nrecipients; i++) {
         sim_rs_row (op, i, true, f, now, out);
      }
   }
}

/* ---- the commands ---- */

static sim_rs_t *
sim_rs_find (const char *ns)
{
   for (size_t k = 0; k < SIM_RS_MAX; k++) {
      if (sim_rs[k].used && !strcmp (sim_rs[k].ns, ns)) {
         return &sim_rs[k];
      }
   }
   return NULL;
}

static void
sim_rs_free (sim_rs_t *op)
{
   if (op->cmd) {
      bson_destroy (op->cmd);
   }
   if (op->key) {
      bson_destroy (op->key);
   }
   memset (op, 0, sizeof *op);
}

void
sim_reshard_free (void)
{
   for (size_t k = 0; k < SIM_RS_MAX; k++) {
      if (sim_rs[k].used) {
         sim_rs_free (&sim_rs[k]);
      }
   }
}

/* Starts op's record, waits (the state lock released) until its time is up, the simulator shuts down or it is
 * aborted, keeping config.reshardingOperations current, and ends it. False when it did not run to its end (reply
 * then holds the error). */
static bool
sim_rs_wait (sim_rs_t *op, bson_t *reply)
{
   bson_t details = BSON_INITIALIZER;
   BSON_APPEND_DOCUMENT (&details, "newKey", op->key);
   BSON_APPEND_UTF8 (&details, "provenance", op->provenance);
   sim_rs_store (op, false);
   const char *state = NULL;
   bool ok = true;
   while (clock_wall_ms () < op->end_ms) {
      if (sim_g.shutting_down) {
         sim_reply_error (reply, 11600, "interrupted at shutdown");
         ok = false;
         break;
      }
      if (op->aborted) {
         sim_reply_error (reply, 341, "%s of %s was aborted", op->provenance, op->ns);
         sim_changelog (false, "resharding.coordinator.abort", op->ns, "config", &details, clock_wall_ms ());
         ok = false;
         break;
      }
      int64_t until = clock_wall_ms () + 50;
      struct timespec ts = { .tv_sec = (time_t) (until / 1000), .tv_nsec = (long) (until % 1000) * 1000000L };
      pthread_cond_timedwait (&sim_dyn.round_done, &sim_g.lock, &ts);
      double f = sim_rs_frac (op, clock_wall_ms ());
      if (op->commit_asked && f >= SIM_RS_T_APPLY && f < SIM_RS_T_BLOCK) {
         /* onOkayToEnterCritical: blocking-writes now, the remaining phases keep their share of the duration */
         op->end_ms = op->start_ms + (int64_t) ((double) (clock_wall_ms () - op->start_ms) / SIM_RS_T_BLOCK);
      }
      const char *now_state = sim_rs_coordinator_state (sim_rs_frac (op, clock_wall_ms ()));
      if (now_state != state) {
         state = now_state;
         sim_rs_store (op, false);
      }
   }
   sim_rs_store (op, true);
   bson_destroy (&details);
   return ok;
}

/* A new operation on ns, or NULL when SIM_RS_MAX already run. */
static sim_rs_t *
sim_rs_new (const char *ns, const char *provenance, const bson_t *key, const bson_t *cmd)
{
   for (size_t k = 0; k < SIM_RS_MAX; k++) {
      sim_rs_t *op = &sim_rs[k];
      if (op->used) {
         continue;
      }
      memset (op, 0, sizeof *op);
      op->used = true;
      bson_strncpy (op->ns, ns, sizeof op->ns);
      op->provenance = provenance;
      op->key = bson_copy (key);
      op->cmd = bson_copy (cmd);
      sim_uuid_new (op->uuid);
      sim_coll_t *coll = sim_coll_get_ns (ns);
      if (coll) {
         memcpy (op->coll_uuid, coll->uuid, 16);
      }
      op->start_ms = clock_wall_ms ();
      op->end_ms = op->start_ms + sim_reshard_ms;
      return op;
   }
   return NULL;
}

/* The originatingCommand the metrics report: { reshardCollection: ns, key, unique, collation } (resharding_metrics.cpp
 * createOriginalCommand). */
static void
sim_rs_original (const char *ns, const bson_t *key, bson_t *out)
{
   bson_t coll;
   bson_init (out);
   BSON_APPEND_UTF8 (out, "reshardCollection", ns);
   BSON_APPEND_DOCUMENT (out, "key", key);
   BSON_APPEND_BOOL (out, "unique", false);
   BSON_APPEND_DOCUMENT_BEGIN (out, "collation", &coll);
   BSON_APPEND_UTF8 (&coll, "locale", "simple");
   bson_append_document_end (out, &coll);
}

/* Sets config.collections[ns].unsplittable and moves every chunk of ns to shard to (a tracked unsharded collection,
 * 8.0). */
static void
sim_rs_place (const char *ns, const char *to)
{
   sim_shcoll_t sc;
   bson_t filter = BSON_INITIALIZER;
   bson_error_t e;
   sim_hits_t hits = { 0 };
   sim_coll_t *colls = sim_coll_get ("config", "collections");
   BSON_APPEND_UTF8 (&filter, "_id", ns);
   if (colls && sim_coll_match (colls, &filter, 1, &hits, &e) && hits.n) {
      bson_t view, nd = BSON_INITIALIZER;
      sim_coll_view (colls, hits.v[0], &view);
      if (!docget_bool (&view, "unsplittable")) {
         bson_copy_to_excluding_noinit (&view, &nd, "unsplittable", NULL);
         BSON_APPEND_BOOL (&nd, "unsplittable", true);
         sim_coll_replace (colls, hits.v[0], &nd);
      }
      bson_destroy (&nd);
   }
   sim_hits_destroy (&hits);
   bson_destroy (&filter);
   if (!sim_shcoll_load (ns, &sc)) {
      sim_shcoll_destroy (&sc);
      return;
   }
   simq_docs_t chunks;
   simq_docs_init (&chunks);
   bson_init (&filter);
   sim_shcoll_chunk_filter (&sc, &filter);
   sim_coll_t *cc = sim_coll_get ("config", "chunks");
   if (cc) {
      sim_coll_collect (cc, &filter, &chunks, &e);
   }
   for (size_t i = 0; i < chunks.n; i++) {
      bson_iter_t it;
      if (bson_iter_init_find (&it, chunks.v[i], "shard") && BSON_ITER_HOLDS_UTF8 (&it) &&
          strcmp (bson_iter_utf8 (&it, NULL), to) != 0) {
         bson_t nd;
         sim_chunk_rewrite_doc (&sc, chunks.v[i], NULL, NULL, to, 2, (uint32_t) i, true, &nd);
         sim_chunk_replace (chunks.v[i], &nd);
         bson_destroy (&nd);
      }
   }
   simq_docs_clear (&chunks);
   bson_destroy (&filter);
   sim_shcoll_destroy (&sc);
}

/* sharding_util::selectLeastLoadedNonDrainingShard (unshardCollection without toShard): the non-draining shard
 * holding the least data over every user collection (the server sums listDatabases' totalSize per shard), the
 * first in config.shards' order on a tie; into out. */
static void
sim_rs_least_loaded_shard (char *out, size_t len)
{
   simq_docs_t shards;
   simq_docs_init (&shards);
   sim_shards_list (&shards);
   int64_t *total = bson_malloc0 ((shards.n + 1) * sizeof *total);
   for (size_t c = 0; c < sim_g.ncolls; c++) {
      if (!strcmp (sim_g.colls[c]->db, "config") || !strcmp (sim_g.colls[c]->db, "admin")) {
         continue;
      }
      sim_shard_stat_t *st = NULL;
      size_t n = sim_coll_shard_stats (sim_g.colls[c]->ns, &st);
      for (size_t i = 0; i < n; i++) {
         for (size_t k = 0; k < shards.n; k++) {
            const char *id = docget_utf8 (shards.v[k], "_id", NULL);
            total[k] += id && !strcmp (id, st[i].shard) ? st[i].size : 0;
         }
      }
      bson_free (st);
   }
   int64_t best = -1;
   for (size_t k = 0; k < shards.n; k++) {
      const char *id = docget_utf8 (shards.v[k], "_id", NULL);
      if (id && !sim_shard_is_draining (id) && (best < 0 || total[k] < best)) {
         best = total[k];
         bson_strncpy (out, id, len);
      }
   }
   bson_free (total);
   simq_docs_clear (&shards);
}

/* The shard an unsplittable (tracked unsharded) collection lives on, into out ("" when none). */
static void
sim_rs_home_shard (const char *ns, char *out, size_t len)
{
   sim_shard_stat_t *st = NULL;
   size_t n = sim_coll_shard_stats (ns, &st);
   out[0] = '\0';
   for (size_t i = 0; i < n && !out[0]; i++) {
      if (st[i].chunks > 0) {
         bson_strncpy (out, st[i].shard, len);
      }
   }
   bson_free (st);
}

/* abortReshardCollection (5.0+), abortMoveCollection, abortUnshardCollection (8.0), as the config server's
 * _configsvrAbortReshardCollection answers them (configsvr_abort_reshard_collection_command.cpp): 26 for a
 * collection the catalog does not know, 339 NoSuchReshardCollection when none runs; on 8.0 (the move/unshard feature
 * flags on) 20 IllegalOperation when the running operation has another provenance; otherwise marks it aborted and
 * replies once it has ended (its command then fails with 341 ReshardCollectionAborted), or 340
 * ReshardCollectionCommitted when the decision was already persisted (the operation then commits). */
static void
sim_rs_abort (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   const char *ns = NULL;
   sim_shcoll_t sc;
   if (bson_iter_init (&it, ctx->cmd) && bson_iter_next (&it) && BSON_ITER_HOLDS_UTF8 (&it)) {
      ns = bson_iter_utf8 (&it, NULL);
   }
   if (!ns) {
      sim_reply_error (reply, 14, "BSON field '%s' is the wrong type, expected type 'string'", ctx->name);
      return;
   }
   bool tracked = sim_shcoll_load (ns, &sc);
   sim_shcoll_destroy (&sc);
   sim_rs_t *op = sim_rs_find (ns);
   if (!op && !tracked) {
      sim_reply_error (reply, 26, "collection %s not found", ns);
      return;
   }
   if (!op) {
      sim_reply_error (reply, 339, "Could not find resharding-related metadata that matches the given namespace");
      return;
   }
   const char *want = !strcmp (ctx->name, "abortMoveCollection")      ? "moveCollection"
                      : !strcmp (ctx->name, "abortUnshardCollection") ? "unshardCollection"
                                                                      : "reshardCollection";
   if (sim_ver_ge (80) && strcmp (op->provenance, want) != 0) {
      sim_reply_error (reply, 20, "Could not find in-progress resharding operation with matching provenance");
      return;
   }
   bool committed = sim_rs_frac (op, clock_wall_ms ()) >= SIM_RS_T_COMMIT;
   uint8_t uuid[16];
   memcpy (uuid, op->uuid, sizeof uuid);
   if (!committed) {
      op->aborted = true;
   }
   /* getCompletionFuture().getNoThrow(): wait (the state lock released) until the operation has ended */
   while (op->used && !memcmp (op->uuid, uuid, sizeof uuid) && !sim_g.shutting_down) {
      int64_t until = clock_wall_ms () + 20;
      struct timespec ts = { .tv_sec = (time_t) (until / 1000), .tv_nsec = (long) (until % 1000) * 1000000L };
      pthread_cond_timedwait (&sim_dyn.round_done, &sim_g.lock, &ts);
   }
   if (committed) {
      sim_reply_error (reply, 340, "Can't abort resharding operation after the decision has been persisted");
   } else {
      sim_reply_ok (reply);
   }
}

/* commitReshardCollection (5.0+, configsvr_commit_reshard_collection_command.cpp): lets the running operation of the
 * namespace enter its critical section as soon as its data is copied, and replies at once. 26 when ns is no
 * collection of config.collections, 339 NoSuchReshardCollection when no resharding of it runs. */
static void
sim_rs_commit (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   const char *ns = NULL;
   sim_shcoll_t sc;
   if (bson_iter_init (&it, ctx->cmd) && bson_iter_next (&it) && BSON_ITER_HOLDS_UTF8 (&it)) {
      ns = bson_iter_utf8 (&it, NULL);
   }
   if (!ns) {
      sim_reply_error (reply, 14, "BSON field 'commitReshardCollection' is the wrong type, expected type 'string'");
      return;
   }
   bool tracked = sim_shcoll_load (ns, &sc);
   sim_shcoll_destroy (&sc);
   sim_rs_t *op = sim_rs_find (ns);
   if (!op && !tracked) {
      sim_reply_error (reply, 26, "collection %s not found", ns);
   } else if (!op) {
      sim_reply_error (reply, 339, "Could not find resharding metadata for %s", ns);
   } else {
      op->commit_asked = true;
      sim_reply_ok (reply);
   }
}

void
sim_cmd_sim_reshard (sim_ctx_t *ctx, bson_t *reply)
{
   bson_iter_t it;
   const char *ns = NULL;
   int32_t n = 0;
   if (!bson_iter_init_find (&it, ctx->cmd, "simReshard") || !BSON_ITER_HOLDS_UTF8 (&it) ||
       strcmp (bson_iter_utf8 (&it, NULL), "stepDown") != 0) {
      sim_reply_error (reply, 2, "simReshard takes \"stepDown\"");
      return;
   }
   if (bson_iter_init_find (&it, ctx->cmd, "ns") && BSON_ITER_HOLDS_UTF8 (&it)) {
      ns = bson_iter_utf8 (&it, NULL);
   }
   for (size_t k = 0; k < SIM_RS_MAX; k++) {
      if (sim_rs[k].used && (!ns || !strcmp (sim_rs[k].ns, ns))) {
         sim_rs[k].estimate_lost = true;
         n++;
      }
   }
   BSON_APPEND_INT32 (reply, "operations", n);
   sim_reply_ok (reply);
}

/* The checks of moveCollection and unshardCollection before they run (the command's IDL, the shard registry,
 * reshard_collection_coordinator.cpp ReshardCollectionCoordinator::_runImpl); to gets toShard, or for unshardCollection
 * without one the least loaded non-draining shard. False when the reply is already filled (an error, or the no-op
 * of unsharding an unsharded collection). */
static bool
sim_rs_move_checks (sim_ctx_t *ctx, const char *ns, bool sharded, bool unsplittable, char *to, size_t len,
                    bson_t *reply)
{
   bson_iter_t it;
   bool move = !strcmp (ctx->name, "moveCollection");
   bool unshard = !strcmp (ctx->name, "unshardCollection");
   if (!ns) {
      sim_reply_error (reply, 2, "collection name must be a string");
      return false;
   }
   if (bson_iter_init_find (&it, ctx->cmd, "toShard") && BSON_ITER_HOLDS_UTF8 (&it)) {
      bson_strncpy (to, bson_iter_utf8 (&it, NULL), len);
   } else if (move) {
      sim_reply_error (reply, 40414, "BSON field 'moveCollection.toShard' is missing but a required field");
      return false;
   }
   if (to[0] && !sim_shard_get (to, NULL)) {
      sim_reply_error (reply, 70, "Shard %s not found", to);
      return false;
   }
   if (!sim_coll_get_ns (ns) && !sharded) {
      sim_reply_error (reply, 26, "Namespace %s not found", ns);
      return false;
   }
   /* reshard_collection_coordinator.cpp ReshardCollectionCoordinator::_runImpl */
   if (move && sharded && !unsplittable) {
      sim_reply_error (reply, 26, "MoveCollection can only be called on an unsharded collection.");
      return false;
   }
   if (unshard && !sharded) {
      sim_reply_error (reply, 118, "Collection %s is not sharded.", ns);
      return false;
   }
   if (unshard && unsplittable) {
      char home[64];
      sim_rs_home_shard (ns, home, sizeof home);
      if (to[0] && strcmp (to, home) != 0) {
         sim_reply_error (reply, 118,
                          "Collection is already unsharded. Call moveCollection to move this collection to a "
                          "different shard.");
      } else {
         sim_reply_ok (reply); /* already unsharded: a no-op */
      }
      return false;
   }
   if (!to[0]) {
      sim_rs_least_loaded_shard (to, len);
   }
   return true;
}

/* Runs reshardCollection (when timed), moveCollection or unshardCollection: true when it handled ctx's command
 * (reply filled), false to let the immediate reshardCollection run it. */
static bool
sim_reshard_run (sim_ctx_t *ctx, bson_t *reply)
{
   bool reshard = !strcmp (ctx->name, "reshardCollection");
   bool move = !strcmp (ctx->name, "moveCollection");
   bool unshard = !strcmp (ctx->name, "unshardCollection");
   bson_iter_t it;
   bson_t key, id_key = BSON_INITIALIZER, original, sub_cmd = BSON_INITIALIZER;
   sim_shcoll_t sc;
   char to[64] = "";
   const char *ns = NULL;

   if (!strcmp (ctx->name, "abortReshardCollection") || !strcmp (ctx->name, "abortMoveCollection") ||
       !strcmp (ctx->name, "abortUnshardCollection")) {
      sim_rs_abort (ctx, reply);
      return true;
   }
   if (!strcmp (ctx->name, "commitReshardCollection")) {
      sim_rs_commit (ctx, reply);
      return true;
   }
   if (!reshard && !move && !unshard) {
      return false;
   }
   if (reshard && sim_reshard_ms <= 0) {
      bson_destroy (&id_key);
      bson_destroy (&sub_cmd);
      return false; /* untimed: sim_shardcoll.c commits at once */
   }
   BSON_APPEND_INT32 (&id_key, "_id", 1);
   bson_init (&original);
   if (bson_iter_init (&it, ctx->cmd) && bson_iter_next (&it) && BSON_ITER_HOLDS_UTF8 (&it)) {
      ns = bson_iter_utf8 (&it, NULL);
   }
   bool sharded = ns && sim_shcoll_load (ns, &sc);
   bool unsplittable = sharded && docget_bool (&sc.doc, "unsplittable");
   if (sharded) {
      bson_copy_to (&sc.key, &key);
      sim_shcoll_destroy (&sc);
   } else {
      if (ns) {
         sim_shcoll_destroy (&sc);
      }
      bson_init (&key);
   }
   if (reshard) {
      bson_t newkey, check = BSON_INITIALIZER;
      bool noop = false;
      /* the errors and the same-key no-op are sim_shardcoll.c's, replied at once: checked before the wait */
      if (!sharded || unsplittable || !docget_sub (ctx->cmd, "key", BSON_TYPE_DOCUMENT, &newkey) ||
          !sim_reshard_check (ctx->cmd, ns, &key, &newkey, &noop, &check) || noop) {
         bson_destroy (&check);
         bson_destroy (&key);
         bson_destroy (&id_key);
         bson_destroy (&original);
         bson_destroy (&sub_cmd);
         return false;
      }
      bson_destroy (&key);
      bson_copy_to (&newkey, &key);
   } else {
      if (!sim_rs_move_checks (ctx, ns, sharded, unsplittable, to, sizeof to, reply)) {
         goto done;
      }
      bson_destroy (&key);
      bson_copy_to (&id_key, &key);
   }
   if (sim_rs_find (ns)) {
      sim_reply_error (reply, 338, "reshardCollection for namespace %s is already in progress", ns);
      goto done;
   }
   if (sim_reshard_ms > 0) {
      sim_rs_original (ns, &key, &original);
      sim_rs_t *op = sim_rs_new (ns, ctx->name, &key, &original);
      if (!op) {
         sim_reply_error (reply, 338, "too many resharding operations in progress");
         goto done;
      }
      sim_rs_participants (op, sim_coll_get_ns (ns), to[0] ? to : NULL);
      bool ok = sim_rs_wait (op, reply);
      sim_rs_free (op);
      if (!ok) {
         goto done;
      }
   }
   if (reshard) {
      sim_cmd_reshard_collection (ctx, reply);
      goto done;
   }
   /* moveCollection / unshardCollection: a resharding to { _id: 1 } onto one shard, then tracked unsplittable */
   if (move && !sharded) {
      bson_error_t e;
      if (!sim_op_shard_collection (ns, &id_key, false, 0, false, &e)) {
         sim_reply_error (reply, (int) e.code, "%s", e.message);
         goto done;
      }
   } else if (unshard) {
      sim_ctx_t sub = *ctx;
      bson_t sub_reply = BSON_INITIALIZER;
      BSON_APPEND_UTF8 (&sub_cmd, "reshardCollection", ns);
      BSON_APPEND_DOCUMENT (&sub_cmd, "key", &id_key);
      BSON_APPEND_BOOL (&sub_cmd, "forceRedistribution", true);
      BSON_APPEND_INT32 (&sub_cmd, "numInitialChunks", 1);
      bson_t no_zones; /* the internal request names no zones: the zone check is reshardCollection's */
      BSON_APPEND_ARRAY_BEGIN (&sub_cmd, "zones", &no_zones);
      bson_append_array_end (&sub_cmd, &no_zones);
      sub.name = "reshardCollection";
      sub.cmd = &sub_cmd;
      sim_cmd_reshard_collection (&sub, &sub_reply);
      if (bson_iter_init_find (&it, &sub_reply, "ok") && bson_iter_as_double (&it) != 1.0) {
         bson_concat (reply, &sub_reply);
         bson_destroy (&sub_reply);
         goto done;
      }
      bson_destroy (&sub_reply);
   }
   sim_rs_place (ns, to);
   sim_reply_ok (reply);
done:
   bson_destroy (&key);
   bson_destroy (&id_key);
   bson_destroy (&original);
   bson_destroy (&sub_cmd);
   return true;
}

void
sim_cmd_reshard (sim_ctx_t *ctx, bson_t *reply)
{
   if (!sim_reshard_run (ctx, reply)) {
      sim_cmd_reshard_collection (ctx, reply); /* untimed, or an error or no-op the immediate command replies */
   }
}
