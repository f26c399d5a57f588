/* The shape a server's reply must have before the driver reads it (replyshape.h). */
#include <string.h>

#include "shell/lib/replyshape.h"

/* True when it (a number) is a code libmongoc reads as 0: it keeps (uint32_t) of the value as an int64. */
static bool
replyshape_code_zero (const bson_iter_t *it)
{
   return BSON_ITER_HOLDS_NUMBER (it) && (uint32_t) bson_iter_as_int64 (it) == 0;
}

static const char *
replyshape_cursor (bson_iter_t *cursor)
{
   bool has_id = false, open = false, has_ns = false;
   while (bson_iter_next (cursor)) {
      const char *k = bson_iter_key (cursor);
      if (!strcmp (k, "id")) {
         if (!BSON_ITER_HOLDS_INT64 (cursor) && !BSON_ITER_HOLDS_INT32 (cursor))
            return "cursor.id is not an integer";
         has_id = true;
         open = bson_iter_as_int64 (cursor) != 0;
      } else if (!strcmp (k, "ns")) {
         has_ns = true;
         uint32_t len;
         const char *ns, *dot;
         if (!BSON_ITER_HOLDS_UTF8 (cursor))
            return "cursor.ns is not a string";
         ns = bson_iter_utf8 (cursor, &len);
         if (memchr (ns, '\0', len))
            return "cursor.ns holds a NUL byte";
         dot = memchr (ns, '.', len);
         if (!dot)
            return "cursor.ns has no dot (\"db.collection\")";
         if (dot == ns)
            return "cursor.ns has no database name";
         if ((size_t) (dot - ns) + 1 == len)
            return "cursor.ns has no collection name";
      } else if (!strcmp (k, "firstBatch") || !strcmp (k, "nextBatch")) {
         bson_iter_t batch;
         if (!BSON_ITER_HOLDS_ARRAY (cursor) || !bson_iter_recurse (cursor, &batch))
            return "the cursor's batch is not an array";
         while (bson_iter_next (&batch)) {
            if (!BSON_ITER_HOLDS_DOCUMENT (&batch))
               return "the cursor's batch holds something that is not a document";
         }
      }
   }
   if (!has_id)
      return "the cursor has no id";
   /* an open cursor's getMore and killCursors are sent to its ns (libmongoc aborts without one) */
   return open && !has_ns ? "an open cursor has no ns" : NULL;
}

const char *
replyshape_why (const bson_t *doc)
{
   bson_iter_t it, sub;
   bool failed = false;

   if (!doc || !bson_iter_init (&it, doc))
      return "not a BSON document";
   if (bson_iter_find (&it, "ok"))
      failed = !bson_iter_as_bool (&it);
   if (failed && bson_iter_init_find (&it, doc, "code") && replyshape_code_zero (&it))
      return "a failure with code 0";
   if (bson_iter_init_find (&it, doc, "writeConcernError")) {
      if (!BSON_ITER_HOLDS_DOCUMENT (&it) || !bson_iter_recurse (&it, &sub))
         return "writeConcernError is not a document";
      if (bson_iter_find (&sub, "code") && replyshape_code_zero (&sub))
         return "a writeConcernError with code 0";
   }
   if (bson_iter_init_find (&it, doc, "cursor")) {
      if (!BSON_ITER_HOLDS_DOCUMENT (&it) || !bson_iter_recurse (&it, &sub))
         return "cursor is not a document";
      return replyshape_cursor (&sub);
   }
   return NULL;
}
