/* db.collection.bulkWrite(operations[, options]): the insert, update and delete commands the Node driver under
 * mongosh 2.12 batches the operations into (ordered: consecutive operations of one kind in one command; unordered:
 * every insert, then every update, then every delete), and mongosh's BulkWriteResult summed from their replies, the
 * inserted and upserted _ids keyed by the operation's index (packages/shell-api/src/collection.ts, result.ts). An
 * unordered bulk sends every batch and reports every write error together, as the driver's MongoBulkWriteError
 * (mongodb/lib/bulk/common.js, unordered.js). initializeOrderedBulkOp/initializeUnorderedBulkOp's execute() come here
 * too (shell/js/prelude/20_db.js). */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/args.h"
#include "commands/exec.h"
#include "shell/lib/docget.h"

enum { BW_INSERT, BW_UPDATE, BW_DELETE, BW_KINDS };

/* The kind of operation op (a document { insertOne: {...} } and the like), its spec in spec; -1 when unknown. */
static int
bw_kind (const bson_iter_t *op, bson_t *spec, const char **name)
{
   static const struct {
      const char *name;
      int kind;
   } ops[] = { { "insertOne", BW_INSERT },  { "updateOne", BW_UPDATE }, { "updateMany", BW_UPDATE },
               { "replaceOne", BW_UPDATE }, { "deleteOne", BW_DELETE }, { "deleteMany", BW_DELETE } };
   bson_iter_t f;
   if (!BSON_ITER_HOLDS_DOCUMENT (op) || !bson_iter_recurse (op, &f) || !bson_iter_next (&f))
      return -1;
   for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
      if (!strcmp (bson_iter_key (&f), ops[i].name) && docget_iter_sub (&f, BSON_TYPE_DOCUMENT, spec)) {
         *name = ops[i].name;
         return ops[i].kind;
      }
   }
   return -1;
}

/* Whether the call's options ask for an unordered bulk (ordered: false). */
static bool
bw_ordered (const sh_call_t *call)
{
   bson_t opts;
   bson_iter_t o;
   return !(args_doc (call, 1, &opts) && bson_iter_init_find (&o, &opts, "ordered") && !bson_iter_as_bool (&o));
}

/* The batch each operation goes to, in the order the batches are sent: batch[i] for operation i (max of them);
 * returns how many batches. Ordered: a new batch whenever the kind changes; unordered: one batch per kind present,
 * the inserts first, then the updates, then the deletes. */
static size_t
bw_batches (const bson_t *ops, bool ordered, int *batch, size_t max)
{
   bson_iter_t it;
   bson_t spec;
   const char *name;
   size_t i = 0, n = 0;
   int last = -1, slot[BW_KINDS] = { -1, -1, -1 };
   if (!ordered) {
      bool present[BW_KINDS] = { false, false, false };
      bson_iter_init (&it, ops);
      while (bson_iter_next (&it)) {
         int k = bw_kind (&it, &spec, &name);
         if (k >= 0)
            present[k] = true;
      }
      for (int k = 0; k < BW_KINDS; k++) {
         if (present[k])
            slot[k] = (int) n++;
      }
   }
   bson_iter_init (&it, ops);
   while (bson_iter_next (&it) && i < max) {
      int k = bw_kind (&it, &spec, &name);
      if (k < 0)
         k = BW_INSERT; /* bw_check refused it before */
      if (ordered && k != last) {
         n++;
         last = k;
      }
      batch[i++] = ordered ? (int) n - 1 : slot[k];
   }
   return n;
}

/* Appends { q, u[, upsert][, multi][, hint][, arrayFilters][, collation] } or { q, limit[, collation][, hint] }. */
static void
bw_statement (bson_t *arr, const char *key, const char *name, const bson_t *spec)
{
   bson_t s;
   bson_iter_t f;
   BSON_APPEND_DOCUMENT_BEGIN (arr, key, &s);
   if (bson_iter_init_find (&f, spec, "filter"))
      BSON_APPEND_VALUE (&s, "q", bson_iter_value (&f));
   if (!strncmp (name, "delete", 6)) {
      BSON_APPEND_INT32 (&s, "limit", strcmp (name, "deleteOne") == 0 ? 1 : 0);
   } else {
      if (bson_iter_init_find (&f, spec, !strcmp (name, "replaceOne") ? "replacement" : "update"))
         BSON_APPEND_VALUE (&s, "u", bson_iter_value (&f));
      if (bson_iter_init_find (&f, spec, "upsert") && BSON_ITER_HOLDS_BOOL (&f))
         BSON_APPEND_BOOL (&s, "upsert", bson_iter_bool (&f));
      if (!strcmp (name, "updateMany"))
         BSON_APPEND_BOOL (&s, "multi", true);
   }
   /* the driver's makeUpdateStatement: hint, arrayFilters, collation; makeDeleteStatement: collation, hint */
   for (int i = 0; i < 3; i++) {
      static const char *const upd[] = { "hint", "arrayFilters", "collation" }, *const del[] = { "collation", "hint",
                                                                                                 "" };
      const char *k = strncmp (name, "delete", 6) ? upd[i] : del[i];
      if (*k && bson_iter_init_find (&f, spec, k))
         BSON_APPEND_VALUE (&s, k, bson_iter_value (&f));
   }
   bson_append_document_end (arr, &s);
}

/* insertOne's document, with a new ObjectId _id as its last field when it has none (as the driver adds it). */
static void
bw_document (bson_t *arr, const char *key, const bson_t *spec)
{
   bson_t doc, out;
   if (!docget_sub (spec, "document", BSON_TYPE_DOCUMENT, &doc))
      bson_init (&doc);
   BSON_APPEND_DOCUMENT_BEGIN (arr, key, &out);
   bson_concat (&out, &doc);
   if (!bson_has_field (&doc, "_id")) {
      bson_oid_t oid;
      bson_oid_init (&oid, NULL);
      BSON_APPEND_OID (&out, "_id", &oid);
   }
   bson_append_document_end (arr, &out);
}

#define BW_MAX_OPS 100000

/* Checks every operation: a document of one known kind with the fields its kind needs. */
static bool
bw_check (const sh_call_t *call, const bson_t *ops, size_t *n, sh_error_t *err)
{
   static const char *const needs[][2] = { { "insertOne", "document" }, { "updateOne", "update" },
                                           { "updateMany", "update" },  { "replaceOne", "replacement" },
                                           { "deleteOne", "filter" },   { "deleteMany", "filter" } };
   bson_iter_t it;
   bson_t spec;
   const char *name;
   *n = 0;
   bson_iter_init (&it, ops);
   while (bson_iter_next (&it)) {
      if (bw_kind (&it, &spec, &name) < 0) {
         sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                          "MongoInvalidArgumentError: Invalid BulkWriteOperation at index %zu: an operation is one of "
                          "insertOne, updateOne, updateMany, replaceOne, deleteOne, deleteMany",
                          *n);
         return false;
      }
      for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++) {
         if (!strcmp (name, needs[i][0]) && !bson_has_field (&spec, needs[i][1])) {
            sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                             "MongoInvalidArgumentError: %s at index %zu needs %s", name, *n, needs[i][1]);
            return false;
         }
      }
      if (++*n > BW_MAX_OPS) {
         sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0), "bulkWrite takes at most %d operations here",
                          BW_MAX_OPS);
         return false;
      }
   }
   if (!*n) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                       "MongoInvalidArgumentError: Invalid BulkOperation, Batch cannot be empty");
      return false;
   }
   return true;
}

static bool
build_bulk_write (const sh_call_t *call, sh_requests_t *out, sh_error_t *err)
{
   static const char *const cmd_name[] = { "insert", "update", "delete" };
   static const char *const list_name[] = { "documents", "updates", "deletes" };
   bson_iter_t it, o;
   bson_t ops, opts, spec, *cmd, list;
   const char *name;
   bool ordered = bw_ordered (call);
   size_t n = 0, nb;
   int *batch;

   if (!args_check (call, 0, ARG_OBJECT, true, "Collection", "bulkWrite", err) ||
       !args_check (call, 1, ARG_OBJECT, false, "Collection", "bulkWrite", err))
      return false;
   args_get (call, 0, &it);
   if (!docget_iter_sub (&it, BSON_TYPE_ARRAY, &ops)) {
      sh_error_set_at (err, SH_ERR_ARGS, args_pos (call, 0),
                       "MongoInvalidArgumentError: bulkWrite needs an array of operations");
      return false;
   }
   if (!bw_check (call, &ops, &n, err))
      return false;
   batch = bson_malloc (n * sizeof *batch);
   nb = bw_batches (&ops, ordered, batch, n);
   for (size_t b = 0; b < nb; b++) {
      uint32_t k = 0;
      int kind;
      bson_iter_init (&it, &ops);
      for (size_t i = 0; bson_iter_next (&it); i++) {
         if (batch[i] != (int) b)
            continue;
         kind = bw_kind (&it, &spec, &name);
         if (k == 0) {
            cmd = sh_requests_add (out, call->db, CONN_ADMIN);
            BSON_APPEND_UTF8 (cmd, cmd_name[kind], call->coll);
            BSON_APPEND_BOOL (cmd, "ordered", ordered);
            if (args_doc (call, 1, &opts) && bson_iter_init_find (&o, &opts, "writeConcern"))
               BSON_APPEND_VALUE (cmd, "writeConcern", bson_iter_value (&o));
            BSON_APPEND_ARRAY_BEGIN (cmd, list_name[kind], &list);
         }
         {
            char key[16];
            const char *kk;
            bson_uint32_to_string (k++, &kk, key, sizeof key);
            if (kind == BW_INSERT)
               bw_document (&list, kk, &spec);
            else
               bw_statement (&list, kk, name, &spec);
         }
      }
      if (k)
         bson_append_array_end (cmd, &list);
   }
   bson_free (batch);
   return true;
}

/* A count of a write reply (n, nModified), 0 when absent, kept within 0..INT32_MAX (so sums cannot overflow). */
static int64_t
bw_count (const bson_t *reply, const char *key)
{
   bson_iter_t it;
   int64_t v = bson_iter_init_find (&it, reply, key) && BSON_ITER_HOLDS_NUMBER (&it) ? bson_iter_as_int64 (&it) : 0;
   return v < 0 ? 0 : v > INT32_MAX ? INT32_MAX : v;
}

/* What the driver sums from the batches' replies (its bulkResult, mongodb/lib/bulk/common.js mergeBatchResults):
 * counts, upserted _ids, write errors with the operation's index and the operation sent, the first write concern
 * error. */
typedef struct {
   int64_t inserted, matched, modified, deleted;
   bson_t upserted; /* { "<index>": _id } */
   bson_t errors;   /* [ { index, code, errmsg[, errInfo], op } ] */
   uint32_t n_errors;
   bson_t wce; /* the first writeConcernError, empty when none */
} bw_sum_t;

/* The operations of batch b (their indexes in the call, in order) into index; returns how many. */
static size_t
bw_members (const int *batch, size_t n, int b, size_t *index)
{
   size_t m = 0;
   for (size_t i = 0; i < n; i++) {
      if (batch[i] == b)
         index[m++] = i;
   }
   return m;
}

/* Adds the reply of request cmd (batch b) to sum as mergeBatchResults does: upserted _ids keyed by the index of the
 * batch's first operation plus the server's index (the driver's originalZeroIndex, which unordered batches keep too),
 * write errors by the operation's own index. */
static void
bw_merge (bw_sum_t *sum, const bson_t *cmd, const bson_t *reply, const size_t *index, size_t m)
{
   static const char *const lists[] = { "documents", "updates", "deletes" };
   bson_iter_t it, d, f;
   const char *verb = bson_iter_init (&it, cmd) && bson_iter_next (&it) ? bson_iter_key (&it) : "";
   int64_t n = bw_count (reply, "n"), ups = 0;
   if (bson_iter_init_find (&it, reply, "upserted") && bson_iter_recurse (&it, &d)) {
      while (bson_iter_next (&d)) {
         bson_iter_t ix, id;
         char key[24];
         ups++;
         if (!m || !bson_iter_recurse (&d, &ix) || !bson_iter_find (&ix, "index") || !BSON_ITER_HOLDS_NUMBER (&ix) ||
             !bson_iter_recurse (&d, &id) || !bson_iter_find (&id, "_id") || bson_iter_as_int64 (&ix) < 0 ||
             bson_iter_as_int64 (&ix) > BW_MAX_OPS)
            continue;
         bson_snprintf (key, sizeof key, "%" PRId64, (int64_t) index[0] + bson_iter_as_int64 (&ix));
         BSON_APPEND_VALUE (&sum->upserted, key, bson_iter_value (&id));
      }
   }
   if (!strcmp (verb, "insert")) {
      sum->inserted += n;
   } else if (!strcmp (verb, "update")) {
      sum->matched += n - ups;
      sum->modified += bw_count (reply, "nModified");
   } else {
      sum->deleted += n;
   }
   if (bson_iter_init_find (&it, reply, "writeErrors") && bson_iter_recurse (&it, &d)) {
      while (bson_iter_next (&d)) {
         bson_t we, e, list;
         bson_iter_t op;
         int64_t j;
         char key[16], path[24];
         const char *kk;
         if (!docget_iter_sub (&d, BSON_TYPE_DOCUMENT, &we) || !bson_iter_init_find (&f, &we, "index") ||
             !BSON_ITER_HOLDS_NUMBER (&f) || (j = bson_iter_as_int64 (&f)) < 0 || (size_t) j >= m)
            continue;
         bson_uint32_to_string (sum->n_errors++, &kk, key, sizeof key);
         BSON_APPEND_DOCUMENT_BEGIN (&sum->errors, kk, &e);
         BSON_APPEND_INT32 (&e, "index", (int32_t) index[j]);
         for (int k = 0; k < 3; k++) {
            static const char *const keys[] = { "code", "errmsg", "errInfo" };
            if (bson_iter_init_find (&f, &we, keys[k]))
               BSON_APPEND_VALUE (&e, keys[k], bson_iter_value (&f));
         }
         bson_snprintf (path, sizeof path, "%" PRId64, j);
         for (int k = 0; k < 3; k++) {
            if (docget_sub (cmd, lists[k], BSON_TYPE_ARRAY, &list) && bson_iter_init_find (&op, &list, path))
               BSON_APPEND_VALUE (&e, "op", bson_iter_value (&op));
         }
         bson_append_document_end (&sum->errors, &e);
      }
   }
   if (bson_empty (&sum->wce) && bson_iter_init_find (&it, reply, "writeConcernError") &&
       BSON_ITER_HOLDS_DOCUMENT (&it)) {
      bson_t wce;
      docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &wce);
      bson_concat (&sum->wce, &wce);
   }
}

/* Whether write error errors[] names operation i. */
static bool
bw_failed (const bson_t *errors, size_t i)
{
   bson_iter_t it, f;
   bson_iter_init (&it, errors);
   while (bson_iter_next (&it)) {
      if (bson_iter_recurse (&it, &f) && bson_iter_find (&f, "index") && bson_iter_as_int64 (&f) == (int64_t) i)
         return true;
   }
   return false;
}

/* The _ids the driver reports inserted (getSuccessfullyInsertedIds): every insert's _id in the order of the operations
 * (batches in order: the inserts of an unordered bulk are one batch), keyed by the operation's index; with write
 * errors, ordered: the first k of them where k is the index of the first failed operation; unordered: all but those
 * of failed operations. */
static void
bw_inserted (const sh_requests_t *reqs, const int *batch, size_t n, const bw_sum_t *sum, bool ordered, bson_t *ids)
{
   size_t *index = bson_malloc ((n ? n : 1) * sizeof *index), kept = 0, limit = SIZE_MAX;
   bson_iter_t it, d, f;
   if (sum->n_errors && ordered && bson_iter_init_find (&it, &sum->errors, "0") && bson_iter_recurse (&it, &f) &&
       bson_iter_find (&f, "index"))
      limit = (size_t) bson_iter_as_int64 (&f);
   for (size_t b = 0; b < reqs->n; b++) {
      size_t m = bw_members (batch, n, (int) b, index);
      if (!bson_iter_init_find (&it, &reqs->v[b].cmd, "documents") || !bson_iter_recurse (&it, &d))
         continue;
      for (size_t j = 0; bson_iter_next (&d) && j < m; j++) {
         char key[24];
         if (kept >= limit || (!ordered && bw_failed (&sum->errors, index[j])))
            continue;
         kept++;
         bson_snprintf (key, sizeof key, "%zu", index[j]);
         if (bson_iter_recurse (&d, &f) && bson_iter_find (&f, "_id"))
            BSON_APPEND_VALUE (ids, key, bson_iter_value (&f));
      }
   }
   bson_free (index);
}

/* A count summed from the server's replies as the int32 mongosh prints, saturated (a reply's n is not trusted). */
static int32_t
bw_i32 (int64_t v)
{
   return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t) v;
}

/* mongosh's BulkWriteResult of sum into result; driver: the driver's own BulkWriteResult instead (a
 * MongoBulkWriteError's result: no acknowledged, the inserted _ids last). */
static void
bw_result (const bw_sum_t *sum, const bson_t *inserted, bool driver, bson_t *result)
{
   if (!driver)
      BSON_APPEND_BOOL (result, "acknowledged", true);
   BSON_APPEND_INT32 (result, "insertedCount", bw_i32 (sum->inserted));
   if (!driver)
      BSON_APPEND_DOCUMENT (result, "insertedIds", inserted);
   BSON_APPEND_INT32 (result, "matchedCount", bw_i32 (sum->matched));
   BSON_APPEND_INT32 (result, "modifiedCount", bw_i32 (sum->modified));
   BSON_APPEND_INT32 (result, "deletedCount", bw_i32 (sum->deleted));
   BSON_APPEND_INT32 (result, "upsertedCount", (int32_t) bson_count_keys (&sum->upserted));
   BSON_APPEND_DOCUMENT (result, "upsertedIds", &sum->upserted);
   if (driver)
      BSON_APPEND_DOCUMENT (result, "insertedIds", inserted);
}

/* The driver's MongoBulkWriteError after write errors or a write concern error: err is the first write error (else the
 * write concern error), with its code and codeName; res, when its caller takes it as a value, holds { result:
 * BulkWriteResult, writeErrors: [...] }, which the JavaScript host gives the thrown error (e.result, e.writeErrors). */
static void
bw_fail (const bw_sum_t *sum, const bson_t *inserted, sh_result_t *res, sh_error_t *err)
{
   bson_t reply = BSON_INITIALIZER, first, detail = BSON_INITIALIZER, result;
   if (sum->n_errors && cmd_first_doc (&sum->errors, &first)) {
      bson_t arr;
      BSON_APPEND_ARRAY_BEGIN (&reply, "writeErrors", &arr);
      BSON_APPEND_DOCUMENT (&arr, "0", &first);
      bson_append_array_end (&reply, &arr);
   } else {
      BSON_APPEND_DOCUMENT (&reply, "writeConcernError", &sum->wce);
   }
   cmd_check_write_errors (&reply, err);
   BSON_APPEND_DOCUMENT_BEGIN (&detail, "result", &result);
   bw_result (sum, inserted, true, &result);
   bson_append_document_end (&detail, &result);
   BSON_APPEND_ARRAY (&detail, "writeErrors", &sum->errors);
   if (res->as_value)
      sh_result_set_doc (res, &detail); /* a literal statement shows its result even when it fails: only the error */
   bson_destroy (&detail);
   bson_destroy (&reply);
}

/* Sends the batches in order as the driver does (common.js executeCommands): ordered, stopping after the first batch
 * with a write error; unordered, every batch whatever failed. A command error (ok: 0) stops both. Then fills res with
 * mongosh's BulkWriteResult, or fails with the driver's MongoBulkWriteError (bw_fail). */
static bool
exec_bulk_write (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 };
   bson_t reply = BSON_INITIALIZER, inserted = BSON_INITIALIZER, ops, result = BSON_INITIALIZER;
   bw_sum_t sum = { .n_errors = 0 };
   bson_iter_t it;
   bool ordered = bw_ordered (call), ok = false;
   size_t n = 0, *index = NULL;
   int *batch = NULL;

   bson_init (&sum.upserted);
   bson_init (&sum.errors);
   bson_init (&sum.wce);
   if (!sh_requests_build (call, &reqs, err))
      goto done;
   args_get (call, 0, &it);
   docget_iter_sub (&it, BSON_TYPE_ARRAY, &ops);
   n = bson_count_keys (&ops);
   batch = bson_malloc ((n ? n : 1) * sizeof *batch);
   index = bson_malloc ((n ? n : 1) * sizeof *index);
   bw_batches (&ops, ordered, batch, n);
   for (size_t b = 0; b < reqs.n; b++) {
      uint32_t before = sum.n_errors;
      bson_destroy (&reply); /* conn_run initialises it in every case */
      if (!conn_run (ctx, reqs.v[b].db, &reqs.v[b].cmd, reqs.v[b].path, &reply, err))
         goto done;
      if (cmd_dry_run (ctx))
         continue;
      bw_merge (&sum, &reqs.v[b].cmd, &reply, index, bw_members (batch, n, (int) b, index));
      if (ordered && sum.n_errors > before)
         break;
   }
   if (cmd_dry_run (ctx)) {
      ok = true;
      goto done;
   }
   bw_inserted (&reqs, batch, n, &sum, ordered, &inserted);
   if (sum.n_errors || !bson_empty (&sum.wce)) {
      bw_fail (&sum, &inserted, res, err);
      goto done;
   }
   bw_result (&sum, &inserted, false, &result);
   sh_result_set_doc (res, &result);
   ok = true;
done:
   bson_free (batch);
   bson_free (index);
   bson_destroy (&reply);
   bson_destroy (&inserted);
   bson_destroy (&result);
   bson_destroy (&sum.upserted);
   bson_destroy (&sum.errors);
   bson_destroy (&sum.wce);
   sh_requests_destroy (&reqs);
   return ok;
}

const sh_cmd_t cmd_db_coll_bulk_write = {
   .name = "db.collection.bulkWrite",
   .usage = "db.<collection>.bulkWrite(operations[, options])",
   .summary = "Run insertOne, updateOne, updateMany, replaceOne, deleteOne and deleteMany operations in batches; "
              "options: ordered, writeConcern",
   .sends = "<db> { insert | update | delete: <coll>, ordered: <bool>[, writeConcern], documents | updates | "
            "deletes: [ ... ] } per batch of consecutive operations of one kind (unordered: one per kind)",
   .example = "db.getSiblingDB(\"app\").notes.bulkWrite([{insertOne: {document: {_id: 8}}}, {deleteOne: {filter: "
              "{_id: 8}}}])",
   .build = build_bulk_write,
   .exec = exec_bulk_write,
};
