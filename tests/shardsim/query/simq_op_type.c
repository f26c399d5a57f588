/* The query engine's type operators: $type, $toString, $toHashedIndexKey and the $toInt/$toLong/$toDouble/$toBool
 * conversions. Each follows its simq_op_*_fn_t contract in simq_ops.h. */
#include "tests/shardsim/query/simq_ops.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool
simq_op_type (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
              bson_error_t *error)
{
   bool ok = false;
   (void) nvals;
   if (simq_arity (op, args, 1, error)) {
      const char *t = simq_type_name (vals[0].value_type);
      simq_set_string (out, t, strlen (t));
      ok = true;
   }
   return ok;
}

bool
simq_op_to_string (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                   bson_error_t *error)
{
   bool ok = false;
   (void) nvals;
   if (!simq_arity (op, args, 1, error)) {
      return ok;
   }
   if (simq_nullish (&vals[0])) {
      simq_set_null (out);
      ok = true;
   } else {
      ok = simq_to_string (&vals[0], out, error);
   }
   return ok;
}

bool
simq_op_to_hashed_index_key (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals,
                             bson_value_t *out, bson_error_t *error)
{
   bool ok = false;
   (void) nvals;
   if (simq_arity (op, args, 1, error)) {
      bson_value_t null_v;
      simq_set_null (&null_v);
      simq_set_int64 (out, hashkey_value (simq_value_missing (&vals[0]) ? &null_v : &vals[0]));
      ok = true;
   }
   return ok;
}

bool
simq_op_convert (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                 bson_error_t *error)
{
   bool ok = false;
   const bson_value_t *a = &vals[0];
   char target = op[3]; /* I, L, D, B */
   double d = 0;
   if (!simq_arity (op, args, 1, error) || !simq_no_decimal (op, vals, nvals, error)) {
      return ok;
   }
   if (simq_nullish (a)) {
      simq_set_null (out);
      ok = true;
      return ok;
   }
   if (target == 'B') {
      simq_set_bool (out, simq_truthy (a));
      ok = true;
      return ok;
   }
   if (simq_is_number (a)) {
      d = simq_to_double (a);
   } else if (a->value_type == BSON_TYPE_BOOL) {
      d = a->value.v_bool ? 1 : 0;
   } else if (a->value_type == BSON_TYPE_DATE_TIME && target != 'I') {
      d = (double) a->value.v_datetime;
   } else if (a->value_type == BSON_TYPE_UTF8) {
      char *end = NULL;
      d = strtod (a->value.v_utf8.str, &end);
      if (a->value.v_utf8.len == 0 || !end || *end != '\0' ||
          (target != 'D' && strpbrk (a->value.v_utf8.str, ".eE") != NULL)) {
         simq_fail (error, 241, "Failed to parse number '%s' in $convert with no onError value", a->value.v_utf8.str);
         return ok;
      }
   } else {
      simq_fail (error, 241, "Unsupported conversion from %s to %s in $convert with no onError value",
                 simq_type_name (a->value_type), target == 'I' ? "int" : (target == 'L' ? "long" : "double"));
      return ok;
   }
   if (target == 'D') {
      if (a->value_type == BSON_TYPE_INT64) {
         simq_set_double (out, (double) a->value.v_int64);
      } else {
         simq_set_double (out, d);
      }
   } else if (isnan (d) || (target == 'I' && (d >= 2147483648.0 || d < -2147483648.0)) ||
              (target == 'L' && (d >= 9223372036854775808.0 || d < -9223372036854775808.0))) {
      simq_fail (error, 241, "Conversion would overflow target type in $convert with no onError value");
      return ok;
   } else if (target == 'I') {
      simq_set_int32 (out, (int32_t) d);
   } else if (a->value_type == BSON_TYPE_INT64) {
      simq_set_int64 (out, a->value.v_int64);
   } else if (a->value_type == BSON_TYPE_DATE_TIME) {
      simq_set_int64 (out, a->value.v_datetime);
   } else if (a->value_type == BSON_TYPE_UTF8) {
      simq_set_int64 (out, strtoll (a->value.v_utf8.str, NULL, 10));
   } else {
      simq_set_int64 (out, (int64_t) d);
   }
   ok = true;
   return ok;
}
