/* MongoDB's hashed shard-key function (BSONElementHasher::hash64 with seed 0): the value a hashed index stores and
 * convertShardKeyToHashed() returns. Shared by the shell (computed locally) and the simulated cluster (routing). */
#ifndef SHARDSH_HASHKEY_H
#define SHARDSH_HASHKEY_H

#include <bson/bson.h>
#include <stdint.h>

/* The server's canonicalizeBSONType: types of one canonical class (all numbers; string and symbol; ...) compare and
 * hash alike, and the classes order values of different types (MinKey -1 < null 5 < numbers 10 < ... < MaxKey 127).
 * Shared by every comparison of values in the shell and the simulated cluster. */
int32_t
hashkey_canonical_type (bson_type_t type);

/* Returns the 64-bit hash the server computes for value (numbers squashed to 64-bit integers first, documents and
 * arrays hashed recursively with field names), exactly equal to the server's $toHashedIndexKey. */
int64_t
hashkey_value (const bson_value_t *value);

#endif
