/* The shard-key advisor's key patterns: which patterns it can analyse, which index backs which key, comparing
 * patterns and writing them as the verdicts do. Pure: no I/O, no globals. */
#include "commands/advisor_model.h"

#include <string.h>

bool
advisor_is_hashed (const bson_iter_t *it)
{
   return BSON_ITER_HOLDS_UTF8 (it) && !strcmp (bson_iter_utf8 (it, NULL), "hashed");
}

static bool
advisor_is_one (const bson_iter_t *it)
{
   return BSON_ITER_HOLDS_NUMBER (it) && bson_iter_as_double (it) == 1.0;
}

bool
advisor_key_valid (const bson_t *pattern, char *why, size_t why_len)
{
   bson_iter_t it;
   int fields = 0, hashed = 0;
   if (!pattern || !bson_iter_init (&it, pattern)) {
      bson_snprintf (why, why_len, "the key is not a document");
      return false;
   }
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (!*k || k[0] == '$') {
         bson_snprintf (why, why_len, "'%s' cannot be a shard key field", k);
         return false;
      }
      if (advisor_is_hashed (&it)) {
         hashed++;
      } else if (!advisor_is_one (&it)) {
         bson_snprintf (why, why_len, "shard key field '%s' must be 1 or \"hashed\"", k);
         return false;
      }
      fields++;
   }
   if (!fields || fields > ADVISOR_MAX_FIELDS) {
      bson_snprintf (why, why_len, fields ? "a shard key has at most %d fields" : "the key has no fields",
                     ADVISOR_MAX_FIELDS);
      return false;
   }
   if (hashed > 1) {
      bson_snprintf (why, why_len, "a shard key has at most one hashed field");
      return false;
   }
   return true;
}

bool
advisor_key_from_index (const bson_t *index_key, bson_t *out)
{
   bson_iter_t it;
   int hashed = 0, fields = 0;
   bool ok = false;
   bson_init (out);
   if (!bson_iter_init (&it, index_key))
      goto done;
   while (bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      if (!*k || k[0] == '$' || strstr (k, "$**"))
         goto done;
      if (advisor_is_hashed (&it)) {
         hashed++;
         BSON_APPEND_UTF8 (out, k, "hashed");
      } else if (advisor_is_one (&it)) {
         BSON_APPEND_INT32 (out, k, 1);
      } else {
         goto done; /* descending, text, 2d, 2dsphere, … */
      }
      fields++;
   }
   ok = fields && fields <= ADVISOR_MAX_FIELDS && hashed <= 1;
done:
   if (!ok)
      bson_reinit (out);
   return ok;
}

bool
advisor_same_pattern (const bson_t *a, const bson_t *b)
{
   bson_iter_t ia, ib;
   if (!bson_iter_init (&ia, a) || !bson_iter_init (&ib, b))
      return false;
   for (;;) {
      bool na = bson_iter_next (&ia), nb = bson_iter_next (&ib);
      if (!na || !nb)
         return na == nb;
      if (strcmp (bson_iter_key (&ia), bson_iter_key (&ib)) || advisor_is_hashed (&ia) != advisor_is_hashed (&ib))
         return false;
   }
}

int
advisor_field_count (const bson_t *pattern)
{
   return (int) bson_count_keys (pattern);
}

const char *
advisor_first_field (const bson_t *pattern)
{
   bson_iter_t it;
   if (bson_iter_init (&it, pattern) && bson_iter_next (&it))
      return bson_iter_key (&it);
   return "";
}

bool
advisor_pattern_hashed (const bson_t *pattern, bool *first)
{
   bson_iter_t it;
   bool any = false, at_first = false;
   int i = 0;
   if (bson_iter_init (&it, pattern)) {
      while (bson_iter_next (&it)) {
         if (advisor_is_hashed (&it)) {
            any = true;
            at_first = i == 0;
         }
         i++;
      }
   }
   if (first)
      *first = at_first;
   return any;
}

char *
advisor_key_string (const bson_t *key)
{
   bson_string_t *s = bson_string_new ("{");
   bson_iter_t it;
   bool first = true;
   if (bson_iter_init (&it, key)) {
      while (bson_iter_next (&it)) {
         bson_string_append_printf (s, "%s%s: ", first ? "" : ", ", bson_iter_key (&it));
         if (advisor_is_hashed (&it))
            bson_string_append (s, "\"hashed\"");
         else if (BSON_ITER_HOLDS_NUMBER (&it))
            bson_string_append_printf (s, "%g", bson_iter_as_double (&it));
         else
            bson_string_append (s, "?");
         first = false;
      }
   }
   bson_string_append (s, "}");
   return bson_string_free (s, false);
}
