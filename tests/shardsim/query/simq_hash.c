/* The query engine's hash multimap (simq.h): 64-bit hashes to non-zero values, open addressing with linear probing
 * and backward-shift deletion (no tombstones), at most 70 % full. Keys are not stored; callers compare the values a
 * hash leads to (the store's _id index compares the documents' _id, $group its groups' keys). */
#include "tests/shardsim/query/simq.h"

#include <string.h>

void
simq_htab_init (simq_htab_t *t)
{
   memset (t, 0, sizeof *t);
}

void
simq_htab_destroy (simq_htab_t *t)
{
   bson_free (t->slots);
   memset (t, 0, sizeof *t);
}

/* Places (hash, val) in the first free slot of its probe sequence; the table has room. */
static void
simq_htab_place (simq_hslot_t *slots, size_t mask, uint64_t hash, uintptr_t val)
{
   size_t i = (size_t) hash & mask;
   while (slots[i].val) {
      i = (i + 1) & mask;
   }
   slots[i].hash = hash;
   slots[i].val = val;
}

static void
simq_htab_grow (simq_htab_t *t)
{
   size_t cap = t->cap ? t->cap * 2 : 16;
   simq_hslot_t *slots = bson_malloc0 (cap * sizeof *slots);
   for (size_t i = 0; i < t->cap; i++) {
      if (t->slots[i].val) {
         simq_htab_place (slots, cap - 1, t->slots[i].hash, t->slots[i].val);
      }
   }
   bson_free (t->slots);
   t->slots = slots;
   t->cap = cap;
}

void
simq_htab_add (simq_htab_t *t, uint64_t hash, uintptr_t val)
{
   BSON_ASSERT (val != 0);
   if ((t->n + 1) * 10 > t->cap * 7) {
      simq_htab_grow (t);
   }
   simq_htab_place (t->slots, t->cap - 1, hash, val);
   t->n++;
}

uintptr_t
simq_htab_next (const simq_htab_t *t, uint64_t hash, size_t *probe)
{
   if (!t->cap) {
      return 0;
   }
   size_t mask = t->cap - 1;
   for (;;) {
      size_t i = ((size_t) hash + *probe) & mask;
      if (!t->slots[i].val || *probe > mask) {
         return 0;
      }
      (*probe)++;
      if (t->slots[i].hash == hash) {
         return t->slots[i].val;
      }
   }
}

bool
simq_htab_remove (simq_htab_t *t, uint64_t hash, uintptr_t val)
{
   if (!t->cap) {
      return false;
   }
   size_t mask = t->cap - 1;
   size_t i = (size_t) hash & mask;
   while (t->slots[i].val && !(t->slots[i].hash == hash && t->slots[i].val == val)) {
      i = (i + 1) & mask;
   }
   if (!t->slots[i].val) {
      return false;
   }
   /* Backward shift: move later members of the cluster into the hole when their home slot allows it. */
   size_t j = i;
   for (;;) {
      t->slots[i].val = 0;
      for (;;) {
         j = (j + 1) & mask;
         if (!t->slots[j].val) {
            t->n--;
            return true;
         }
         size_t home = (size_t) t->slots[j].hash & mask;
         /* The entry at j may move to i unless its home lies cyclically in (i, j]. */
         bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
         if (!stays) {
            break;
         }
      }
      t->slots[i] = t->slots[j];
      i = j;
   }
}
