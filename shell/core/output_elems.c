/* The formatter's view of a document's elements, read with libbson's iterator: the order of a document's keys as a
 * JS object holds them (output_key_order), found in the same pass that keeps the first elements' iterators for the
 * formatter. output_int.h's output_iter_value reads each element's value. */
#include <string.h>

#include "shell/core/output_int.h"

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
output_key_order (const bson_t *doc, output_saved_iter_t *saved, output_slot_t **order, size_t *count)
{
   bson_iter_t iter;
   size_t n = 0, cap = 8, nindex = 0;
   output_slot_t *slots;
   bool *is_index;

   *order = NULL;
   *count = 0;
   if (!bson_iter_init (&iter, doc)) {
      return false;
   }
   /* one pass for the usual document, whose keys are not array indexes: insertion order, and the first elements'
    * iterators kept for the caller's pass */
   while (bson_iter_next (&iter)) {
      const char *key = bson_iter_key_unsafe (&iter);
      uint32_t v;

      if (*key >= '0' && *key <= '9' && output_index_key (key, &v)) {
         nindex++;
         break;
      }
      if (n < OUTPUT_SAVED_ITERS) {
         saved[n].iter = iter;
      }
      n++;
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
