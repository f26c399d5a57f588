/* MongoDB's hashed shard-key function (BSONElementHasher::hash64 with seed 0): the value a hashed index stores and
 * convertShardKeyToHashed() returns. Shared by the shell (computed locally) and the simulated cluster (routing). */
#ifndef SHARDSH_HASHKEY_H
#define SHARDSH_HASHKEY_H

#include <bson/bson.h>
#include <stdint.h>

/* Returns the 64-bit hash the server computes for value (numbers squashed to 64-bit integers first, documents and
 * arrays hashed recursively with field names), exactly equal to the server's $toHashedIndexKey. */
int64_t
hashkey_value (const bson_value_t *value);

#endif
