/* The collector's event details (Enter on the events panel): the whole log entry by its _id, and the chunk that
 * holds the event's range now with its owner. Read on demand, never while sampling. */
#include <mongoc/mongoc.h>
#include <string.h>

#include "views/model/chunkmap_read.h"
#include "views/model/collect_int.h"
#include "shell/core/output.h"
#include "shell/lib/docget.h"

/* The filter {_id: id}: a 24-hex id may be an ObjectId (config.actionlog) or the text itself. */
static void
id_filter (const char *id, bson_t *filter)
{
   bson_init (filter);
   if (bson_oid_is_valid (id, strlen (id))) {
      bson_t in;
      bson_oid_t oid;
      bson_oid_init_from_string (&oid, id);
      BSON_APPEND_DOCUMENT_BEGIN (filter, "_id", &in);
      bson_t arr;
      BSON_APPEND_ARRAY_BEGIN (&in, "$in", &arr);
      BSON_APPEND_OID (&arr, "0", &oid);
      BSON_APPEND_UTF8 (&arr, "1", id);
      bson_append_array_end (&in, &arr);
      bson_append_document_end (filter, &in);
   } else {
      BSON_APPEND_UTF8 (filter, "_id", id);
   }
}

/* The first document of a find on config into *out (a copy; false when none or on error, err set on error). */
static bool
find_one (collect_t *c, const char *coll, const bson_t *filter, const bson_t *sort, bson_t *out, sh_error_t *err)
{
   bson_t cmd = BSON_INITIALIZER, docs;
   bson_iter_t it;
   bool found = false;
   BSON_APPEND_UTF8 (&cmd, "find", coll);
   BSON_APPEND_DOCUMENT (&cmd, "filter", filter);
   if (sort)
      BSON_APPEND_DOCUMENT (&cmd, "sort", sort);
   BSON_APPEND_INT32 (&cmd, "limit", 1);
   if (conn_run_docs (c->ctx, "config", &cmd, CONN_READ, 1, &docs, NULL, err) && bson_iter_init (&it, &docs) &&
       bson_iter_next (&it)) {
      bson_t d;
      if (docget_iter_sub (&it, BSON_TYPE_DOCUMENT, &d)) {
         bson_copy_to (&d, out);
         found = true;
      }
   }
   bson_destroy (&docs);
   bson_destroy (&cmd);
   return found;
}

/* The chunk holding min now: config.chunks of the collection ({uuid} from 5.0, {ns} before) whose min is the
 * greatest at or below it. */
static void
read_owner (collect_t *c, const char *ns, const bson_t *min, snap_event_detail_t *out)
{
   bson_t filter = BSON_INITIALIZER, coll, chunk, sort = BSON_INITIALIZER, lte;
   sh_error_t err;
   sh_error_clear (&err);
   BSON_APPEND_UTF8 (&filter, "_id", ns);
   if (!find_one (c, "collections", &filter, NULL, &coll, &err)) {
      bson_snprintf (out->read_error, sizeof out->read_error, "%s", err.message[0] ? err.message : "");
      bson_destroy (&filter);
      return;
   }
   bson_destroy (&filter);
   chunkmap_chunk_filter (&coll, ns, &filter);
   BSON_APPEND_DOCUMENT_BEGIN (&filter, "min", &lte);
   BSON_APPEND_DOCUMENT (&lte, "$lte", min);
   bson_append_document_end (&filter, &lte);
   BSON_APPEND_INT32 (&sort, "min", -1);
   if (find_one (c, "chunks", &filter, &sort, &chunk, &err)) {
      bson_t mn, mx;
      char a[SNAP_TEXT], b[SNAP_TEXT];
      bson_strncpy (out->owner, docget_utf8 (&chunk, "shard", "?"), sizeof out->owner);
      a[0] = b[0] = '\0';
      if (docget_sub (&chunk, "min", BSON_TYPE_DOCUMENT, &mn))
         output_format_doc_line (&mn, a, sizeof a);
      if (docget_sub (&chunk, "max", BSON_TYPE_DOCUMENT, &mx))
         output_format_doc_line (&mx, b, sizeof b);
      bson_snprintf (out->owner_range, sizeof out->owner_range, "%s -> %s", a, b);
      bson_destroy (&chunk);
   } else if (err.message[0]) {
      bson_snprintf (out->read_error, sizeof out->read_error, "%s", err.message);
   }
   bson_destroy (&coll);
   bson_destroy (&filter);
   bson_destroy (&sort);
}

bool
collect_event_detail (collect_t *c, const snap_event_t *e, snap_event_detail_t *out)
{
   bson_t filter, doc, min;
   sh_error_t err;
   output_opts_t opts = output_opts_default (OUTPUT_PRETTY, false);

   snap_event_detail_destroy (out);
   bson_strncpy (out->id, e->id, sizeof out->id);
   bson_strncpy (out->error, e->error, sizeof out->error);
   if (!e->id[0]) {
      bson_strncpy (out->read_error, "this event has no _id to read it by", sizeof out->read_error);
      return false;
   }
   sh_error_clear (&err);
   id_filter (e->id, &filter);
   if (!find_one (c, e->actionlog ? "actionlog" : "changelog", &filter, NULL, &doc, &err)) {
      bson_snprintf (out->read_error, sizeof out->read_error, "%s",
                     err.message[0] ? err.message : "the entry is no longer in the log");
      bson_destroy (&filter);
      return false;
   }
   bson_destroy (&filter);
   out->doc = output_format_doc (&doc, &opts);
   /* the range's chunk now: a migration's details.min, a split's details.before.min */
   if (!e->actionlog && (docget_sub (&doc, "details.min", BSON_TYPE_DOCUMENT, &min) ||
                         docget_sub (&doc, "details.before.min", BSON_TYPE_DOCUMENT, &min)))
      read_owner (c, docget_utf8 (&doc, "ns", ""), &min, out);
   bson_destroy (&doc);
   return true;
}
