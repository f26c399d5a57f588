/* libFuzzer target for numbers a server sends (counts and sizes near INT64_MAX, negative sizes, doubles out of any
 * integer's range, NaN): the bytes become the number fields of the documents every command gets back through the
 * canned-reply transport (conn_set_transport), each value an int32, an int64 or a double as the bytes choose, in
 * every field the consumers read (n, count, size, nChunks, storageStats, ownedSizeBytes, chunk size settings, ...),
 * while the dashboard collector takes two samples (sums, differences, rates), sh.status() and the shard-key advisor
 * read them, --plan weighs a move, a cursor's count() and an upsert's result read n. Nothing may overflow (UBSan,
 * float-cast-overflow included) or crash.
 * One fuzz input runs the one consumer its last byte picks (all of them cost ~3 ms of CPU an input under ASan, the
 * collector over half of it); a replay runs every consumer on every saved input.
 * Built by `make fuzz`; tests/unit/test_fuzz_regressions.c replays saved inputs through fuzz_numbers_one. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "shell/core/conn.h"
#include "shell/script.h"
#include "tests/fuzz/fuzz.h"
#include "views/model/collect.h"
#include "views/model/snapshot.h"

/* The fields the consumers read numbers from. */
static const char *const numbers_fields[] = {
   "n",
   "j",
   "count",
   "size",
   "storageSize",
   "totalSize",
   "nChunks",
   "numObjects",
   "ownedSizeBytes",
   "numOwnedDocuments",
   "value",
   "maxChunkSizeBytes",
   "avgObjSize",
   "nindexes",
   "totalIndexSize",
   "cnt",
   "numChunks",
   "docs",
};
#define NUMBERS_NFIELDS (sizeof numbers_fields / sizeof numbers_fields[0])

typedef struct {
   const uint8_t *p;
   size_t left;
} numbers_src_t;

static uint64_t
numbers_take (numbers_src_t *src, size_t n)
{
   uint64_t v = 0;
   for (size_t i = 0; i < n; i++) {
      v = v << 8 | (src->left ? *src->p : 0);
      if (src->left) {
         src->p++;
         src->left--;
      }
   }
   return v;
}

/* Appends key: one number from the bytes, of the type they choose. */
static void
numbers_append (bson_t *doc, const char *key, numbers_src_t *src)
{
   uint8_t kind = (uint8_t) numbers_take (src, 1);
   uint64_t bits = numbers_take (src, 8);
   double d;
   switch (kind % 6) {
   case 0:
      BSON_APPEND_INT32 (doc, key, (int32_t) (uint32_t) bits);
      break;
   case 1:
      BSON_APPEND_INT64 (doc, key, (int64_t) bits);
      break;
   case 2:
      memcpy (&d, &bits, sizeof d); /* any double: NaN, infinities, 1e300, subnormals */
      BSON_APPEND_DOUBLE (doc, key, d);
      break;
   case 3:
      BSON_APPEND_INT64 (doc, key,
                         (bits & 1) ? INT64_MAX - (int64_t) (bits >> 56) : INT64_MIN + (int64_t) (bits >> 56));
      break;
   case 4:
      BSON_APPEND_INT64 (doc, key, -(int64_t) (bits >> 40));
      break;
   default:
      BSON_APPEND_DOUBLE (doc, key, (bits & 1 ? 1.0 : -1.0) * 9.3e18 * (double) (1 + (bits >> 60)));
      break;
   }
}

/* One document of numbers (the shard, chunk and stats fields around them plausible). */
static void
numbers_doc (bson_t *doc, numbers_src_t *src, int which)
{
   bson_t sub;
   BSON_APPEND_UTF8 (doc, "_id", which ? "shard02" : "shard01");
   BSON_APPEND_UTF8 (doc, "shard", which ? "shard02" : "shard01");
   BSON_APPEND_UTF8 (doc, "host", "rs/127.0.0.1:1");
   for (size_t i = 0; i < NUMBERS_NFIELDS; i++)
      numbers_append (doc, numbers_fields[i], src);
   BSON_APPEND_DOCUMENT_BEGIN (doc, "storageStats", &sub);
   numbers_append (&sub, "size", src);
   numbers_append (&sub, "count", src);
   bson_append_document_end (doc, &sub);
   BSON_APPEND_DATE_TIME (doc, "ping", (int64_t) numbers_take (src, 8));
   BSON_APPEND_DOCUMENT_BEGIN (doc, "min", &sub);
   numbers_append (&sub, "k", src);
   bson_append_document_end (doc, &sub);
   BSON_APPEND_DOCUMENT_BEGIN (doc, "max", &sub);
   BSON_APPEND_MAXKEY (&sub, "k");
   bson_append_document_end (doc, &sub);
}

/* What the transport answers: docs[0..1] until the collector's first sample is taken, then docs[2..3], the same two
 * shards with each other's numbers, so the second sample's differences and rates are taken between extremes. */
typedef struct {
   bson_t docs[4];
   int at; /* 0 or 2 */
} numbers_reply_t;

static bool
numbers_transport (void *data, const char *db, const bson_t *cmd, bson_t *reply, bson_error_t *error)
{
   const numbers_reply_t *r = data;
   const bson_t *docs = &r->docs[r->at];
   bson_iter_t it;
   const char *name = bson_iter_init (&it, cmd) && bson_iter_next (&it) ? bson_iter_key (&it) : "";
   (void) db;
   (void) error;
   bson_init (reply);
   if (!strcmp (name, "find") || !strcmp (name, "aggregate") || !strcmp (name, "listCollections") ||
       !strcmp (name, "listIndexes")) {
      bson_t cursor, batch;
      BSON_APPEND_DOCUMENT_BEGIN (reply, "cursor", &cursor);
      BSON_APPEND_INT64 (&cursor, "id", 0);
      BSON_APPEND_UTF8 (&cursor, "ns", "config.x");
      BSON_APPEND_ARRAY_BEGIN (&cursor, "firstBatch", &batch);
      BSON_APPEND_DOCUMENT (&batch, "0", &docs[0]);
      BSON_APPEND_DOCUMENT (&batch, "1", &docs[1]);
      bson_append_array_end (&cursor, &batch);
      bson_append_document_end (reply, &cursor);
   } else {
      bson_concat (reply, &docs[0]);
      if (!strcmp (name, "buildInfo"))
         BSON_APPEND_UTF8 (reply, "version", "7.0.0");
      if (!strcmp (name, "update")) {
         /* one upserted document, so the result's matched count is n less the upserts */
         bson_t arr, up;
         BSON_APPEND_ARRAY_BEGIN (reply, "upserted", &arr);
         BSON_APPEND_DOCUMENT_BEGIN (&arr, "0", &up);
         BSON_APPEND_INT32 (&up, "index", 0);
         BSON_APPEND_INT32 (&up, "_id", 1);
         bson_append_document_end (&arr, &up);
         bson_append_array_end (reply, &arr);
      }
   }
   BSON_APPEND_DOUBLE (reply, "ok", 1);
   return true;
}

static FILE *numbers_sink;

/* The consumers of the numbers; one fuzz input runs the one its last byte picks (numbers_consumer), a replay runs
 * them all. */
enum {
   NUMBERS_COLLECTOR, /* the dashboard collector, two samples */
   NUMBERS_STATUS,
   NUMBERS_STATUS_VERBOSE,
   NUMBERS_DISTRIBUTION,
   NUMBERS_ADVISOR,
   NUMBERS_PLAN,
   NUMBERS_COUNT,  /* a cursor's count(): the count command's n as the shell's Int32 */
   NUMBERS_UPDATE, /* upserts' UpdateResults (updateOne, the legacy update): n less the upserts */
   NUMBERS_BULK,   /* bulkWrite's BulkWriteResult: the batches' n, nModified and upserts summed */
   NUMBERS_NCONSUMERS
};

static const char *const numbers_statements[NUMBERS_NCONSUMERS] = {
   NULL,
   "sh.status()\n",
   "sh.status(true)\n",
   "db.getSiblingDB(\"app\").events.getShardDistribution()\n",
   "sh.adviseShardKey(\"app.events\")\n",
   "sh.moveChunk(\"app.events\", {k: 1}, \"shard02\")\n",
   "db.getSiblingDB(\"app\").events.find({k: 1}).count()\n",
   "db.getSiblingDB(\"app\").events.updateOne({k: 1}, {$set: {b: 1}}, {upsert: true})\n"
   "db.getSiblingDB(\"app\").events.update({k: 1}, {$set: {b: 1}}, true)\n",
   "db.getSiblingDB(\"app\").events.bulkWrite([{insertOne: {document: {a: 1}}}, {updateOne: {filter: {a: 1}, update: "
   "{$set: {b: 1}}, upsert: true}}, {insertOne: {document: {a: 2}}}])\n",
};

static void
numbers_run (sh_ctx_t *ctx, sh_options_t *opts, numbers_reply_t *r, int consumer)
{
   if (consumer == NUMBERS_COLLECTOR) {
      collect_opts_t co = collect_opts_default ();
      collect_t *c;
      snap_t snap;
      memset (&snap, 0, sizeof snap);
      co.interval_s = 1;
      c = collect_new (ctx, &co);
      r->at = 0;
      collect_sample (c, &snap);
      r->at = 2;
      collect_sample (c, &snap);
      r->at = 0;
      collect_free (c);
      snap_destroy (&snap);
   } else {
      script_input_t in = { consumer == NUMBERS_PLAN ? "<plan>" : "<eval>", numbers_statements[consumer] };
      opts->plan = consumer == NUMBERS_PLAN;
      opts->no_preflight = consumer != NUMBERS_PLAN;
      script_run_inputs (ctx, &in, 1, false);
   }
}

bool
fuzz_numbers_one (const uint8_t *data, size_t size, bool everything)
{
   numbers_src_t src = { data, size }, second;
   numbers_reply_t r;
   sh_options_t opts;
   sh_ctx_t ctx;

   if (size < 8)
      return false;
   if (!numbers_sink)
      numbers_sink = fopen ("/dev/null", "w");
   for (int i = 0; i < 4; i++)
      bson_init (&r.docs[i]);
   numbers_doc (&r.docs[0], &src, 0);
   second = src;
   numbers_doc (&r.docs[1], &src, 1);
   numbers_doc (&r.docs[2], &second, 0); /* shard01 with shard02's numbers */
   src = (numbers_src_t){ data, size };
   numbers_doc (&r.docs[3], &src, 1); /* shard02 with shard01's */
   r.at = 0;

   memset (&opts, 0, sizeof opts);
   memset (&ctx, 0, sizeof ctx);
   opts.yes = true;
   ctx.opts = &opts;
   ctx.out = output_opts_default (OUTPUT_PRETTY, false);
   ctx.out_fp = numbers_sink;
   ctx.err_fp = numbers_sink;
   conn_set_transport (numbers_transport, &r);
   conn_init (&ctx, "mongodb://127.0.0.1:1/", "test");

   for (int k = 0; k < NUMBERS_NCONSUMERS; k++)
      if (everything || k == data[size - 1] % NUMBERS_NCONSUMERS)
         numbers_run (&ctx, &opts, &r, k);

   conn_set_transport (NULL, NULL);
   conn_destroy (&ctx);
   for (int i = 0; i < 4; i++)
      bson_destroy (&r.docs[i]);
   return true;
}

#ifndef FUZZ_NO_MAIN
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
   fuzz_numbers_one (data, size, false);
   return 0;
}
#endif
