/* Dotted-path getters over BSON documents (see docget.h). */
#include "shell/lib/checked.h"
#include "shell/lib/docget.h"

bool
docget_iter (const bson_t *doc, const char *path, bson_iter_t *out)
{
   bson_iter_t it;
   if (!doc || !bson_iter_init (&it, doc)) {
      return false;
   }
   if (!strchr (path, '.')) {
      if (!bson_iter_find (&it, path)) {
         return false;
      }
      *out = it;
      return true;
   }
   return bson_iter_find_descendant (&it, path, out);
}

const char *
docget_utf8 (const bson_t *doc, const char *path, const char *dflt)
{
   bson_iter_t f;
   if (docget_iter (doc, path, &f) && BSON_ITER_HOLDS_UTF8 (&f)) {
      return bson_iter_utf8 (&f, NULL);
   }
   return dflt;
}

int64_t
docget_int (const bson_t *doc, const char *path, int64_t dflt)
{
   bson_iter_t f;
   if (docget_iter (doc, path, &f) && BSON_ITER_HOLDS_DOUBLE (&f)) {
      /* bson_iter_as_int64 casts the double: out of range that is undefined; saturate (NaN: the default) */
      double d = bson_iter_double (&f);
      return isnan (d) ? dflt : ck_from_double (trunc (d));
   }
   if (docget_iter (doc, path, &f) && BSON_ITER_HOLDS_NUMBER (&f)) {
      return bson_iter_as_int64 (&f);
   }
   return dflt;
}

double
docget_double (const bson_t *doc, const char *path, double dflt, bool *present)
{
   bson_iter_t f;
   bool ok = docget_iter (doc, path, &f) && BSON_ITER_HOLDS_NUMBER (&f);
   if (present) {
      *present = ok;
   }
   return ok ? bson_iter_as_double (&f) : dflt;
}

bool
docget_bool (const bson_t *doc, const char *path)
{
   bson_iter_t f;
   return docget_iter (doc, path, &f) && bson_iter_as_bool (&f);
}

bool
docget_is (const bson_t *doc, const char *path, bool value)
{
   bson_iter_t f;
   if (!docget_iter (doc, path, &f) || (!BSON_ITER_HOLDS_BOOL (&f) && !BSON_ITER_HOLDS_NUMBER (&f))) {
      return false;
   }
   return bson_iter_as_bool (&f) == value;
}

bool
docget_iter_sub (const bson_iter_t *it, bson_type_t type, bson_t *sub)
{
   const uint8_t *data;
   uint32_t len;
   if (BSON_ITER_HOLDS_DOCUMENT (it) && (type == BSON_TYPE_DOCUMENT || type == BSON_TYPE_EOD)) {
      bson_iter_document (it, &len, &data);
   } else if (BSON_ITER_HOLDS_ARRAY (it) && (type == BSON_TYPE_ARRAY || type == BSON_TYPE_EOD)) {
      bson_iter_array (it, &len, &data);
   } else {
      return false;
   }
   return bson_init_static (sub, data, len);
}

bool
docget_sub (const bson_t *doc, const char *path, bson_type_t type, bson_t *sub)
{
   bson_iter_t f;
   return docget_iter (doc, path, &f) && docget_iter_sub (&f, type, sub);
}

bool
docget_truthy (const bson_t *doc, const char *path)
{
   bson_iter_t f;
   if (!docget_iter (doc, path, &f))
      return false;
   switch (bson_iter_type (&f)) {
   case BSON_TYPE_NULL:
   case BSON_TYPE_UNDEFINED:
      return false;
   case BSON_TYPE_UTF8: {
      uint32_t len;
      bson_iter_utf8 (&f, &len);
      return len > 0;
   }
   case BSON_TYPE_DOUBLE: {
      double d = bson_iter_double (&f);
      return d == d && d != 0;
   }
   case BSON_TYPE_BOOL:
   case BSON_TYPE_INT32:
   case BSON_TYPE_INT64:
      return bson_iter_as_bool (&f);
   default:
      return true; /* documents, arrays, ObjectIds, dates, ...: objects are truthy */
   }
}
