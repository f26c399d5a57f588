/* Zone ranges of the desired state (ranges.h): their order and their "zones" array. */
#include "shell/desired/ranges.h"
#include "shell/lib/order.h"

int
desired_range_cmp (const void *a, const void *b)
{
   const desired_range_t *x = a, *y = b;
   bson_t p, q;
   bson_init_static (&p, x->min, x->min_len);
   bson_init_static (&q, y->min, y->min_len);
   return order_keys (&p, &q);
}

void
desired_ranges_append (bson_t *out, const desired_range_t *r, size_t n)
{
   bson_t arr;
   BSON_APPEND_ARRAY_BEGIN (out, "zones", &arr);
   for (size_t i = 0; i < n; i++) {
      bson_t d, mn, mx;
      char key[16];
      bson_snprintf (key, sizeof key, "%zu", i);
      bson_init_static (&mn, r[i].min, r[i].min_len);
      bson_init_static (&mx, r[i].max, r[i].max_len);
      BSON_APPEND_DOCUMENT_BEGIN (&arr, key, &d);
      BSON_APPEND_UTF8 (&d, "zone", r[i].zone);
      BSON_APPEND_DOCUMENT (&d, "min", &mn);
      BSON_APPEND_DOCUMENT (&d, "max", &mx);
      bson_append_document_end (&arr, &d);
   }
   bson_append_array_end (out, &arr);
}
