/* The BSON check of shell/lib/bsonvalid.h: libbson's iterator reads each level (it bounds-checks every element), each
 * nested document is framed by bson_iter_init_from_data, and UTF-8 is decoded by bson_utf8_validate only where a
 * byte is not ASCII. */
#include "shell/lib/bsonvalid.h"

#include <string.h>

#include "shell/lib/ascii.h"

/* Whether the len bytes at s are UTF-8 (allow_nul: a NUL byte may appear; keys, read up to their NUL, never hold
 * one): ASCII is checked eight bytes at a time, anything else by libbson's decoder. */
static bool
bsonvalid_utf8 (const char *s, size_t len, bool allow_nul)
{
   return ascii_only ((const unsigned char *) s, len, -1) || bson_utf8_validate (s, len, allow_nul);
}

static bool
bsonvalid_level (const uint8_t *data, size_t len, int depth);

/* The element it is on: its strings' UTF-8 and what is nested in it. */
static bool
bsonvalid_elem (const bson_iter_t *it, int depth)
{
   uint32_t n = 0, scope_len = 0;
   const uint8_t *sub = NULL;
   const char *s;
   const bson_oid_t *oid;

   switch (bson_iter_type (it)) {
   case BSON_TYPE_UTF8:
      s = bson_iter_utf8 (it, &n);
      return bsonvalid_utf8 (s, n, true);
   case BSON_TYPE_CODE:
      s = bson_iter_code (it, &n);
      return bsonvalid_utf8 (s, n, true);
   case BSON_TYPE_SYMBOL:
      s = bson_iter_symbol (it, &n);
      return bsonvalid_utf8 (s, n, true);
   case BSON_TYPE_REGEX:
      s = bson_iter_regex (it, NULL);
      return bsonvalid_utf8 (s, strlen (s), true);
   case BSON_TYPE_DBPOINTER:
      bson_iter_dbpointer (it, &n, &s, &oid);
      return bsonvalid_utf8 (s, n, true);
   case BSON_TYPE_DOCUMENT:
      bson_iter_document (it, &n, &sub);
      return bsonvalid_level (sub, n, depth + 1);
   case BSON_TYPE_ARRAY:
      bson_iter_array (it, &n, &sub);
      return bsonvalid_level (sub, n, depth + 1);
   case BSON_TYPE_CODEWSCOPE:
      s = bson_iter_codewscope (it, &n, &scope_len, &sub);
      return bsonvalid_utf8 (s, n, true) && bsonvalid_level (sub, scope_len, depth + 1);
   default:
      return true; /* fixed-size values and binary: the iterator checked their extent */
   }
}

/* One document at nesting depth (the outermost is 1). */
static bool
bsonvalid_level (const uint8_t *data, size_t len, int depth)
{
   bson_iter_t it;

   if (depth > BSONVALID_MAX_DEPTH || !data || !bson_iter_init_from_data (&it, data, len)) {
      return false;
   }
   while (bson_iter_next (&it)) {
      if (!bsonvalid_utf8 (bson_iter_key_unsafe (&it), bson_iter_key_len (&it), false) ||
          !bsonvalid_elem (&it, depth)) {
         return false;
      }
   }
   return it.err_off == 0; /* libbson sets it where the iteration stopped on damage, not at the end */
}

bool
bsonvalid_data (const uint8_t *data, size_t len)
{
   return bsonvalid_level (data, len, 1);
}

bool
bsonvalid_bson (const bson_t *doc)
{
   return doc && bsonvalid_level (bson_get_data (doc), doc->len, 1);
}
