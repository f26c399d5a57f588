/* The shared executor most helpers use (send build()'s requests in order, hand over the last reply as the result), and
 * the helpers executors share. */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "commands/table.h"
#include "commands/requests.h"
#include "commands/exec.h"
#include "commands/result.h"
#include "shell/lib/docget.h"

void
cmd_warn (sh_ctx_t *ctx, const char *fmt, ...)
{
   va_list ap;
   va_start (ap, fmt);
   vfprintf (ctx->err_fp, fmt, ap);
   va_end (ap);
   fputc ('\n', ctx->err_fp);
}

static const char *
write_code_name (int code)
{
   static const struct {
      int code;
      const char *name;
   } names[] = { { 2, "BadValue" },
                 { 9, "FailedToParse" },
                 { 14, "TypeMismatch" },
                 { 28, "PathNotViable" },
                 { 40, "ConflictingUpdateOperators" },
                 { 52, "DollarPrefixedFieldName" },
                 { 61, "ShardKeyNotFound" },
                 { 66, "ImmutableField" },
                 { 121, "DocumentValidationFailure" },
                 { 11000, "DuplicateKey" } };
   for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
      if (names[i].code == code)
         return names[i].name;
   }
   return "";
}

bool
cmd_check_write_errors (const bson_t *reply, sh_error_t *err)
{
   bson_t errors, we;
   bson_iter_t f;
   if (!docget_sub (reply, "writeErrors", BSON_TYPE_ARRAY, &errors) || !cmd_first_doc (&errors, &we)) {
      bson_t wce;
      if (!docget_sub (reply, "writeConcernError", BSON_TYPE_DOCUMENT, &wce))
         return true;
      we = wce;
   }
   sh_error_set (err, SH_ERR_SERVER, "%s",
                 bson_iter_init_find (&f, &we, "errmsg") && BSON_ITER_HOLDS_UTF8 (&f) ? bson_iter_utf8 (&f, NULL)
                                                                                      : "write error");
   if (bson_iter_init_find (&f, &we, "code") && BSON_ITER_HOLDS_NUMBER (&f))
      err->code = (int) bson_iter_as_int64 (&f);
   if (bson_iter_init_find (&f, &we, "codeName") && BSON_ITER_HOLDS_UTF8 (&f))
      bson_strncpy (err->code_name, bson_iter_utf8 (&f, NULL), sizeof err->code_name);
   else
      bson_strncpy (err->code_name, write_code_name (err->code), sizeof err->code_name);
   return false;
}

/* An update reply { n, nModified, upserted, writeErrors, ok } as mongosh's UpdateResult. A write error becomes the
 * call's error, as the driver would throw it. */
static bool
render_update_result (const bson_t *reply, sh_result_t *out, sh_error_t *err)
{
   bson_iter_t it, sub;
   int64_t n = 0, modified = 0, upserted = 0;
   bson_value_t inserted_id;
   bool have_id = false;
   bson_t result;

   if (!cmd_check_write_errors (reply, err))
      return false;
   if (bson_iter_init_find (&it, reply, "n") && BSON_ITER_HOLDS_NUMBER (&it))
      n = bson_iter_as_int64 (&it);
   if (bson_iter_init_find (&it, reply, "nModified") && BSON_ITER_HOLDS_NUMBER (&it))
      modified = bson_iter_as_int64 (&it);
   if (bson_iter_init_find (&it, reply, "upserted") && BSON_ITER_HOLDS_ARRAY (&it) && bson_iter_recurse (&it, &sub)) {
      while (bson_iter_next (&sub)) {
         bson_iter_t idit;
         upserted++;
         if (!have_id && BSON_ITER_HOLDS_DOCUMENT (&sub) && bson_iter_recurse (&sub, &idit) &&
             bson_iter_find (&idit, "_id")) {
            bson_value_copy (bson_iter_value (&idit), &inserted_id);
            have_id = true;
         }
      }
   }
   bson_init (&result);
   BSON_APPEND_BOOL (&result, "acknowledged", true);
   if (have_id) {
      BSON_APPEND_VALUE (&result, "insertedId", &inserted_id);
      bson_value_destroy (&inserted_id);
   } else {
      BSON_APPEND_NULL (&result, "insertedId");
   }
   /* n is the server's: any number (n - upserted out of range would be undefined) */
   BSON_APPEND_INT32 (&result, "matchedCount", (int32_t) (n >= INT64_MIN + upserted ? n - upserted : INT64_MIN));
   BSON_APPEND_INT32 (&result, "modifiedCount", (int32_t) modified);
   BSON_APPEND_INT32 (&result, "upsertedCount", (int32_t) upserted);
   sh_result_set_doc (out, &result);
   bson_destroy (&result);
   return true;
}

bool
cmd_exec_requests (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 };
   const sh_requests_t *rq = call->built; /* built once already (dispatch_call): sent as they are, not copied */
   bson_t reply = BSON_INITIALIZER;
   bool ok = false;

   if (!rq) {
      if (!sh_requests_build (call, &reqs, err))
         goto done;
      rq = &reqs;
   }
   for (size_t i = 0; i < rq->n; i++) {
      bson_destroy (&reply);
      if (!conn_run (ctx, rq->v[i].db, &rq->v[i].cmd, rq->v[i].path, &reply, err))
         goto done;
   }
   if (cmd_dry_run (ctx)) {
      ok = true;
      goto done;
   }
   switch (call->cmd->ret) {
   case CMD_RET_UPDATE:
      ok = render_update_result (&reply, res, err);
      goto done;
   case CMD_RET_NONE:
      break;
   case CMD_RET_RAW:
   default:
      sh_result_set_doc (res, &reply);
      break;
   }
   ok = true;
done:
   bson_destroy (&reply);
   sh_requests_destroy (&reqs);
   return ok;
}

bool
cmd_dry_run (const sh_ctx_t *ctx)
{
   return ctx->opts && ctx->opts->dry_run;
}

bool
cmd_run_build (sh_ctx_t *ctx, const sh_call_t *call, bson_t *reply, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 };
   bool ok = false;

   bson_init (reply);
   if (!sh_requests_build (call, &reqs, err))
      goto done;
   bson_destroy (reply);
   ok = conn_run (ctx, reqs.v[0].db, &reqs.v[0].cmd, reqs.v[0].path, reply, err);
done:
   sh_requests_destroy (&reqs);
   return ok;
}

bool
cmd_run_build_docs (sh_ctx_t *ctx, const sh_call_t *call, size_t max, bson_t *docs, bool *more, sh_error_t *err)
{
   sh_requests_t reqs = { .n = 0 };
   bool ok = false;

   bson_init (docs);
   if (more)
      *more = false;
   if (!sh_requests_build (call, &reqs, err))
      goto done;
   bson_destroy (docs);
   ok = conn_run_docs (ctx, reqs.v[0].db, &reqs.v[0].cmd, reqs.v[0].path, max, docs, more, err);
done:
   sh_requests_destroy (&reqs);
   return ok;
}

bool
cmd_exec_cursor (sh_ctx_t *ctx, const sh_call_t *call, sh_result_t *res, sh_error_t *err)
{
   bson_t docs;
   bool ok = cmd_run_build_docs (ctx, call, 0, &docs, NULL, err);

   if (ok && !cmd_dry_run (ctx)) {
      if (call->cmd->flags & (CMD_CURSOR_AGG | CMD_CURSOR_CMD))
         sh_result_set_docs (res, &docs, (call->cmd->flags & CMD_CURSOR_CMD) != 0);
      else
         sh_result_set_array (res, &docs);
   }
   bson_destroy (&docs);
   return ok;
}

bool
cmd_first_doc (const bson_t *docs, bson_t *doc)
{
   bson_iter_t it;
   return bson_iter_init (&it, docs) && bson_iter_next (&it) && docget_iter_sub (&it, BSON_TYPE_DOCUMENT, doc);
}

void
cmd_append_empty (bson_t *doc, const char *key)
{
   bson_t empty;
   BSON_APPEND_DOCUMENT_BEGIN (doc, key, &empty);
   bson_append_document_end (doc, &empty);
}

void
cmd_append_count_stage (bson_t *pipeline, const char *key)
{
   bson_t stage, group, sum;
   BSON_APPEND_DOCUMENT_BEGIN (pipeline, key, &stage);
   BSON_APPEND_DOCUMENT_BEGIN (&stage, "$group", &group);
   BSON_APPEND_INT32 (&group, "_id", 1);
   BSON_APPEND_DOCUMENT_BEGIN (&group, "n", &sum);
   BSON_APPEND_INT32 (&sum, "$sum", 1);
   bson_append_document_end (&group, &sum);
   bson_append_document_end (&stage, &group);
   bson_append_document_end (pipeline, &stage);
}

void
cmd_format_bytes (double bytes, char *buf, size_t len)
{
   if (bytes < 1024)
      bson_snprintf (buf, len, "%.0fB", floor (bytes));
   else if (bytes < 1024.0 * 1024)
      bson_snprintf (buf, len, "%.0fKiB", floor (bytes / 1024));
   else if (bytes < 1024.0 * 1024 * 1024)
      bson_snprintf (buf, len, "%.15gMiB", floor (floor (bytes / 1024) / 1024 * 100) / 100);
   else
      bson_snprintf (buf, len, "%.15gGiB", floor (floor (bytes / (1024.0 * 1024)) / 1024 * 100) / 100);
}

void
cmd_append_config_update (bson_t *cmd, const char *coll, const bson_value_t *id, const char *op, const char *field,
                          const bson_value_t *value, bool upsert, int32_t wtimeout)
{
   bson_t updates, update, q, u, set, wc;
   BSON_APPEND_UTF8 (cmd, "update", coll);
   BSON_APPEND_ARRAY_BEGIN (cmd, "updates", &updates);
   BSON_APPEND_DOCUMENT_BEGIN (&updates, "0", &update);
   BSON_APPEND_DOCUMENT_BEGIN (&update, "q", &q);
   BSON_APPEND_VALUE (&q, "_id", id);
   bson_append_document_end (&update, &q);
   BSON_APPEND_DOCUMENT_BEGIN (&update, "u", &u);
   BSON_APPEND_DOCUMENT_BEGIN (&u, op, &set);
   BSON_APPEND_VALUE (&set, field, value);
   bson_append_document_end (&u, &set);
   bson_append_document_end (&update, &u);
   if (upsert)
      BSON_APPEND_BOOL (&update, "upsert", true);
   bson_append_document_end (&updates, &update);
   bson_append_array_end (cmd, &updates);
   BSON_APPEND_BOOL (cmd, "ordered", true);
   BSON_APPEND_DOCUMENT_BEGIN (cmd, "writeConcern", &wc);
   BSON_APPEND_UTF8 (&wc, "w", "majority");
   BSON_APPEND_INT32 (&wc, "wtimeout", wtimeout);
   bson_append_document_end (cmd, &wc);
}

void
cmd_append_settings_update (bson_t *cmd, const char *id, const char *field, const bson_value_t *value, int32_t wtimeout)
{
   bson_value_t idv = { .value_type = BSON_TYPE_UTF8 };
   idv.value.v_utf8.str = (char *) id;
   idv.value.v_utf8.len = (uint32_t) strlen (id);
   cmd_append_config_update (cmd, "settings", &idv, "$set", field, value, true, wtimeout);
}

void
cmd_append_find_id (bson_t *cmd, const char *coll, const char *id)
{
   bson_t filter;
   BSON_APPEND_UTF8 (cmd, "find", coll);
   BSON_APPEND_DOCUMENT_BEGIN (cmd, "filter", &filter);
   BSON_APPEND_UTF8 (&filter, "_id", id);
   bson_append_document_end (cmd, &filter);
   BSON_APPEND_INT32 (cmd, "limit", 1);
}

bool
cmd_run_first_doc (sh_ctx_t *ctx, const char *db, const bson_t *cmd, conn_path_t path, bson_t *doc, bool *found,
                   sh_error_t *err)
{
   bson_t docs, first;
   bool ok = false;

   bson_init (doc);
   *found = false;
   if (!conn_run_docs (ctx, db, cmd, path, 1, &docs, NULL, err))
      goto done;
   if (cmd_first_doc (&docs, &first)) {
      bson_destroy (doc);
      bson_copy_to (&first, doc);
      *found = true;
   }
   ok = true;
done:
   bson_destroy (&docs);
   return ok;
}

bool
cmd_config_find_id (sh_ctx_t *ctx, const char *coll, const char *id, bson_t *doc, bool *found, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER;
   bool ok;

   cmd_append_find_id (&cmd, coll, id);
   ok = cmd_run_first_doc (ctx, "config", &cmd, CONN_READ, doc, found, err);
   bson_destroy (&cmd);
   return ok;
}

void
cmd_append_number (bson_t *doc, const char *key, double v)
{
   if (v == floor (v) && v >= INT32_MIN && v <= INT32_MAX && !(v == 0 && signbit (v)))
      BSON_APPEND_INT32 (doc, key, (int32_t) v);
   else
      BSON_APPEND_DOUBLE (doc, key, v);
}

bool
cmd_run_docs (sh_ctx_t *ctx, const char *db, bson_t *cmd, size_t max, bson_t *docs, sh_error_t *err)
{
   bool ok;
   bson_destroy (docs);
   ok = conn_run_docs (ctx, db, cmd, CONN_READ, max, docs, NULL, err);
   bson_destroy (cmd);
   return ok;
}
