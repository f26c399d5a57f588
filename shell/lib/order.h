/* MongoDB's ordering of BSON values, written once for both programs (libbson only): the shell's collector, the
 * shard-key advisor, the pre-flight and the simulated cluster's query engine all compare with it. It follows the
 * server's BSONElement::woCompare / compareElementValues: canonical type first (hashkey_canonical_type), then
 * numbers by value across int32, int64, double and decimal (NaN below every number), strings and symbols by bytes,
 * documents element by element (type, field name, value), binary by length, subtype then bytes, and so on. */
#ifndef SHARDSH_ORDER_H
#define SHARDSH_ORDER_H

#include <bson/bson.h>

/* -1, 0 or 1 as a sorts before, with or after b (values of any types; EOD is not a value). */
int
order_values (const bson_value_t *a, const bson_value_t *b);

/* Two documents as the server compares embedded documents: element by element, canonical type, then field name,
 * then value; a prefix sorts first. */
int
order_docs (const bson_t *a, const bson_t *b);

/* Two shard-key bounds (the same fields in the same order): element values only, field by field. */
int
order_keys (const bson_t *a, const bson_t *b);

/* A number's value as a long double (int32, int64, double, decimal128; 0 for anything else). */
long double
order_number_ld (const bson_value_t *v);

#endif
