/* Reading text eight bytes at a time: the word tests behind the printer's string measuring and escaping and the BSON
 * check's UTF-8 shortcut. Header only (inline). */
#ifndef SHARDSH_ASCII_H
#define SHARDSH_ASCII_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ASCII_ONES 0x0101010101010101ull
#define ASCII_HIGHS 0x8080808080808080ull

/* Nonzero when some byte of v is below n (n <= 128). */
static inline uint64_t
ascii_word_below (uint64_t v, unsigned n)
{
   return (v - ASCII_ONES * n) & ~v & ASCII_HIGHS;
}

/* Nonzero when some byte of v equals c. */
static inline uint64_t
ascii_word_has (uint64_t v, unsigned char c)
{
   return ascii_word_below (v ^ (ASCII_ONES * c), 1);
}

/* True when the len bytes at s are all ASCII (below 0x80) and, when avoid is a byte value (0-255), none equals it;
 * pass -1 to avoid nothing. */
static inline bool
ascii_only (const unsigned char *s, size_t len, int avoid)
{
   size_t i = 0;

   for (; i + 8 <= len; i += 8) {
      uint64_t v;

      memcpy (&v, s + i, 8);
      if ((v & ASCII_HIGHS) || (avoid >= 0 && ascii_word_has (v, (unsigned char) avoid))) {
         return false;
      }
   }
   for (; i < len; i++) {
      if (s[i] >= 0x80 || (int) s[i] == avoid) {
         return false;
      }
   }
   return true;
}

#endif
