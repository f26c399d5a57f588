/* A collection's zone ranges as the spec check and the export hold them (private to shell/desired): views into the
 * documents they come from, sorted by min and written back as the spec's "zones" array, one way for both. */
#ifndef SHARDSH_DESIRED_RANGES_H
#define SHARDSH_DESIRED_RANGES_H

#include <bson/bson.h>
#include <stddef.h>

typedef struct {
   const char *zone;
   const uint8_t *min, *max; /* borrowed from the source (a bson_t view cannot be copied: it points into itself) */
   uint32_t min_len, max_len;
   int index; /* in the spec, for positions (unused by the export) */
} desired_range_t;

/* qsort comparator of desired_range_t by min, in the server's key order (order_keys). */
int
desired_range_cmp (const void *a, const void *b);

/* Appends the first n ranges of r to out as "zones": [ { zone, min, max }, ... ]. r is only read. */
void
desired_ranges_append (bson_t *out, const desired_range_t *r, size_t n);

#endif
