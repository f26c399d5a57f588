/* FNV-1a, 64 bits: the string hash behind the hash tables of the parser (a document's keys) and of shardsim (shard
 * names). Header only (inline). */
#ifndef SHARDSH_FNV_H
#define SHARDSH_FNV_H

#include <stddef.h>
#include <stdint.h>

/* The FNV-1a hash of the len bytes at data. */
static inline uint64_t
fnv_hash64 (const void *data, size_t len)
{
   const unsigned char *s = data;
   uint64_t h = 0xCBF29CE484222325ull;

   for (size_t i = 0; i < len; i++) {
      h = (h ^ s[i]) * 0x100000001B3ull;
   }
   return h;
}

#endif
