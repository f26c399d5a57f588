/* Heap arrays of structs that hold a bson_t by value. libbson (built with BSON_EXTRA_ALIGN, Debian's default)
 * declares bson_t 128-byte aligned, while malloc and calloc promise only 16, so such arrays are undefined behaviour
 * (UBSan stops on them) unless they come from bson_aligned_alloc0. The memory is zeroed and released with bson_free
 * (or free). */
#ifndef SHARDSH_ALIGNED_H
#define SHARDSH_ALIGNED_H

#include <bson/bson.h>

#define SH_ALLOC_ARRAY(T, n) ((T *) bson_aligned_alloc0 (BSON_ALIGNOF (T), (size_t) ((n) ? (n) : 1) * sizeof (T)))

#endif
