/* Reading BSON elements straight from a document's bytes for the formatter, which meets every element of what it
 * prints: the order of a document's keys (output_key_order, with output_raw_scan for the common case) and each
 * element's key and value (output_elems_next), without
 * the per-element cost of bson_iter_next plus bson_iter_value. Stops where bson_iter_next would stop (the same
 * bounds and terminator checks for the types read here; the rarer types are read by libbson itself). */
#include <string.h>

#include "shell/core/output_int.h"

/* The little-endian int32 at p as an unsigned length. */
static inline uint32_t
output_le32 (const uint8_t *p)
{
   uint32_t v;

   memcpy (&v, p, sizeof v);
   return BSON_UINT32_FROM_LE (v);
}

/* The size of the value of type at data + pos (before the bounds check), or false for a type this file does not
 * know. */
static inline bool
output_value_size (const uint8_t *data, uint32_t len, uint64_t pos, uint8_t type, uint64_t *size)
{
   switch (type) {
   case BSON_TYPE_UNDEFINED:
   case BSON_TYPE_NULL:
   case BSON_TYPE_MINKEY:
   case BSON_TYPE_MAXKEY:
      *size = 0;
      return true;
   case BSON_TYPE_BOOL:
      *size = 1;
      return true;
   case BSON_TYPE_INT32:
      *size = 4;
      return true;
   case BSON_TYPE_DOUBLE:
   case BSON_TYPE_DATE_TIME:
   case BSON_TYPE_TIMESTAMP:
   case BSON_TYPE_INT64:
      *size = 8;
      return true;
   case BSON_TYPE_OID:
      *size = 12;
      return true;
   case BSON_TYPE_DECIMAL128:
      *size = 16;
      return true;
   case BSON_TYPE_UTF8:
   case BSON_TYPE_CODE:
   case BSON_TYPE_SYMBOL:
   case BSON_TYPE_DOCUMENT:
   case BSON_TYPE_ARRAY:
   case BSON_TYPE_CODEWSCOPE:
   case BSON_TYPE_BINARY:
   case BSON_TYPE_DBPOINTER:
      if (pos + 4 > len) {
         return false;
      }
      *size = output_le32 (data + pos);
      if (type == BSON_TYPE_UTF8 || type == BSON_TYPE_CODE || type == BSON_TYPE_SYMBOL) {
         *size += 4; /* the length, then the string and its NUL */
      } else if (type == BSON_TYPE_BINARY) {
         *size += 5; /* the length and the subtype, then the bytes */
      } else if (type == BSON_TYPE_DBPOINTER) {
         *size += 4 + 12; /* the collection as a string, then the ObjectId */
      }
      return true;
   case BSON_TYPE_REGEX: {
      const uint8_t *p = memchr (data + pos, 0, len - pos);
      const uint8_t *q = p ? memchr (p + 1, 0, len - (uint64_t) (p + 1 - data)) : NULL;

      if (!q) {
         return false;
      }
      *size = (uint64_t) (q + 1 - (data + pos));
      return true;
   }
   default:
      return false;
   }
}

int
output_raw_scan (const uint8_t *data, uint32_t len, size_t *count)
{
   uint64_t pos = 4, size;
   size_t n = 0;

   if (len < 5 || data[len - 1] != 0) {
      return -1;
   }
   while (pos < (uint64_t) len - 1) {
      uint8_t type = data[pos++];
      const uint8_t *key = data + pos, *nul = memchr (key, 0, len - pos);

      if (!nul) {
         return -1;
      }
      if (*key >= '0' && *key <= '9') {
         return 1;
      }
      pos += (uint64_t) (nul - key) + 1;
      if (!output_value_size (data, len, pos, type, &size) || pos + size > (uint64_t) len - 1) {
         return -1;
      }
      pos += size;
      n++;
   }
   *count = n;
   return 0;
}

void
output_elems_init (output_elems_t *w, const uint8_t *data, uint32_t len)
{
   w->data = data;
   w->len = len;
   w->pos = len >= 5 ? 4 : len; /* a document too short to hold an element has none */
}

/* The little-endian 64 bits at p. */
static inline uint64_t
output_le64 (const uint8_t *p)
{
   return (uint64_t) output_le32 (p) | (uint64_t) output_le32 (p + 4) << 32;
}

bool
output_elems_next (output_elems_t *w, output_elem_t *e)
{
   const uint8_t *data = w->data, *nul;
   uint32_t len = w->len;
   uint64_t o, size, l;
   uint8_t type;

   if (w->pos >= len || data[w->pos] == 0) {
      return false;
   }
   type = data[w->pos];
   nul = memchr (data + w->pos + 1, 0, len - w->pos - 1);
   if (!nul) {
      goto stop;
   }
   e->key = (const char *) data + w->pos + 1;
   e->key_len = (uint32_t) (nul - (data + w->pos + 1));
   o = (uint64_t) (nul + 1 - data); /* where the value starts */
   e->value.value_type = (bson_type_t) type;
   switch (type) {
   case BSON_TYPE_UTF8:
      /* as bson_iter_next: the length fits, counts the NUL and the last byte is one */
      if (o + 4 >= len || (l = output_le32 (data + o)) == 0 || l > len - (o + 4) || data[o + 4 + l - 1] != 0) {
         goto stop;
      }
      e->value.value.v_utf8.str = (char *) data + o + 4;
      e->value.value.v_utf8.len = (uint32_t) l - 1;
      size = 4 + l;
      break;
   case BSON_TYPE_DOCUMENT:
   case BSON_TYPE_ARRAY:
      if (o + 4 >= len || (l = output_le32 (data + o)) > len - o) {
         goto stop;
      }
      e->value.value.v_doc.data = (uint8_t *) data + o;
      e->value.value.v_doc.data_len = (uint32_t) l;
      size = l;
      break;
   case BSON_TYPE_INT32:
      if (o + 4 >= len) {
         goto stop;
      }
      e->value.value.v_int32 = (int32_t) output_le32 (data + o);
      size = 4;
      break;
   case BSON_TYPE_INT64:
   case BSON_TYPE_DATE_TIME:
   case BSON_TYPE_TIMESTAMP:
   case BSON_TYPE_DOUBLE:
      if (o + 8 >= len) {
         goto stop;
      }
      l = output_le64 (data + o);
      if (type == BSON_TYPE_INT64) {
         e->value.value.v_int64 = (int64_t) l;
      } else if (type == BSON_TYPE_DATE_TIME) {
         e->value.value.v_datetime = (int64_t) l;
      } else if (type == BSON_TYPE_TIMESTAMP) {
         e->value.value.v_timestamp.increment = (uint32_t) l;
         e->value.value.v_timestamp.timestamp = (uint32_t) (l >> 32);
      } else {
         memcpy (&e->value.value.v_double, &l, sizeof l);
      }
      size = 8;
      break;
   case BSON_TYPE_OID:
      if (o + 12 >= len) {
         goto stop;
      }
      memcpy (e->value.value.v_oid.bytes, data + o, 12);
      size = 12;
      break;
   case BSON_TYPE_BOOL:
      if (o + 1 >= len || data[o] > 1) {
         goto stop;
      }
      e->value.value.v_bool = data[o] == 1;
      size = 1;
      break;
   case BSON_TYPE_NULL:
   case BSON_TYPE_UNDEFINED:
   case BSON_TYPE_MINKEY:
   case BSON_TYPE_MAXKEY:
      if (o >= len) {
         goto stop;
      }
      size = 0;
      break;
   default: {
      /* the rarer types (binary, regex, code, symbol, DBPointer, Decimal128, ...): libbson reads and checks them */
      bson_iter_t it;

      if (!bson_iter_init_from_data_at_offset (&it, data, len, w->pos, e->key_len) ||
          !output_value_size (data, len, o, type, &size)) {
         goto stop;
      }
      e->value = *bson_iter_value (&it);
      break;
   }
   }
   if (o + size >= len) {
      goto stop;
   }
   w->pos = (uint32_t) (o + size);
   return true;
stop:
   w->pos = len;
   return false;
}

/* Where the element iter is on starts, and the array index its key holds. */
static output_slot_t
output_slot (bson_iter_t *iter, uint32_t index)
{
   output_slot_t slot;

   slot.offset = bson_iter_offset (iter);
   slot.key_len = bson_iter_key_len (iter);
   slot.index = index;
   return slot;
}

bool
output_key_order (const bson_t *doc, output_slot_t **order, size_t *count)
{
   bson_iter_t iter;
   size_t n = 0, cap = 8, nindex = 0;
   output_slot_t *slots;
   bool *is_index;

   *order = NULL;
   *count = 0;
   if (output_raw_scan (bson_get_data (doc), doc->len, count) == 0) {
      return true; /* insertion order */
   }
   if (!bson_iter_init (&iter, doc)) {
      return false;
   }
   while (bson_iter_next (&iter)) {
      uint32_t v;

      n++;
      if (output_index_key (bson_iter_key (&iter), &v)) {
         nindex++;
         break;
      }
   }
   if (nindex == 0) {
      *count = n; /* insertion order: no slots needed */
      return true;
   }
   n = 0;
   nindex = 0;
   BSON_ASSERT (bson_iter_init (&iter, doc));
   slots = bson_malloc (cap * sizeof *slots);
   is_index = bson_malloc (cap * sizeof *is_index);
   while (bson_iter_next (&iter)) {
      uint32_t v = 0;

      if (n == cap) {
         cap *= 2;
         slots = bson_realloc (slots, cap * sizeof *slots);
         is_index = bson_realloc (is_index, cap * sizeof *is_index);
      }
      is_index[n] = output_index_key (bson_iter_key (&iter), &v);
      nindex += is_index[n];
      slots[n++] = output_slot (&iter, v);
   }
   if (nindex > 0) {
      /* index keys first, insertion-sorted by value (documents rarely have more than a few), then the rest */
      output_slot_t *sorted = bson_malloc (n * sizeof *sorted);
      size_t k = 0;

      for (size_t i = 0; i < n; i++) {
         if (is_index[i]) {
            size_t j = k++;

            while (j > 0 && sorted[j - 1].index > slots[i].index) {
               sorted[j] = sorted[j - 1];
               j--;
            }
            sorted[j] = slots[i];
         }
      }
      for (size_t i = 0; i < n; i++) {
         if (!is_index[i]) {
            sorted[k++] = slots[i];
         }
      }
      bson_free (slots);
      slots = sorted;
   }
   bson_free (is_index);
   *order = slots;
   *count = n;
   return true;
}
