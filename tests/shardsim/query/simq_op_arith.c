/* The query engine's arithmetic operators: $add, $multiply, $subtract, $divide, $mod, $abs, $floor, $ceil and
 * the $max/$min/$sum/$avg expressions, with the server's type promotion and null propagation. Each follows its
 * simq_op_*_fn_t contract in simq_ops.h. */
#include "tests/shardsim/query/simq_ops.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool
simq_op_add (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
             bson_error_t *error)
{
   bool ok = false;
   (void) args;
   simq_num_t n;
   bool have_date = false, is_null = false;
   int64_t date = 0;
   simq_num_init (&n);
   if (!simq_no_decimal (op, vals, nvals, error)) {
      return ok;
   }
   for (size_t i = 0; i < nvals; i++) {
      if (simq_nullish (&vals[i])) {
         is_null = true;
      } else if (vals[i].value_type == BSON_TYPE_DATE_TIME) {
         if (have_date) {
            simq_fail (error, 16612, "only one date allowed in an $add expression");
            return ok;
         }
         have_date = true;
         date = vals[i].value.v_datetime;
      } else if (simq_is_number (&vals[i])) {
         simq_num_add (&n, &vals[i]);
      } else {
         simq_fail (error, 14, "$add only supports numeric or date types, not %s", simq_type_name (vals[i].value_type));
         return ok;
      }
   }
   if (is_null) {
      simq_set_null (out);
   } else if (have_date) {
      simq_set_date (out, date + (n.widest == 2 ? (int64_t) llround (n.d) : n.i));
   } else {
      simq_num_result (&n, out);
   }
   ok = true;
   return ok;
}

bool
simq_op_multiply (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                  bson_error_t *error)
{
   bool ok = false;
   (void) args;
   int widest = 0;
   int64_t iprod = 1;
   double dprod = 1;
   bool is_null = false, overflow = false;
   if (!simq_no_decimal (op, vals, nvals, error)) {
      return ok;
   }
   for (size_t i = 0; i < nvals; i++) {
      if (simq_nullish (&vals[i])) {
         is_null = true;
         continue;
      }
      if (!simq_is_number (&vals[i])) {
         simq_fail (error, 16555, "$multiply only supports numeric types, not %s", simq_type_name (vals[i].value_type));
         return ok;
      }
      dprod *= simq_to_double (&vals[i]);
      if (vals[i].value_type == BSON_TYPE_DOUBLE) {
         widest = 2;
      } else {
         int64_t x = vals[i].value_type == BSON_TYPE_INT32 ? vals[i].value.v_int32 : vals[i].value.v_int64;
         if (vals[i].value_type == BSON_TYPE_INT64 && widest < 1) {
            widest = 1;
         }
         if (!overflow && __builtin_mul_overflow (iprod, x, &iprod)) {
            overflow = true;
         }
      }
   }
   if (is_null) {
      simq_set_null (out);
   } else if (widest == 2 || overflow) {
      simq_set_double (out, dprod);
   } else if (widest == 0 && iprod >= INT32_MIN && iprod <= INT32_MAX) {
      simq_set_int32 (out, (int32_t) iprod);
   } else {
      simq_set_int64 (out, iprod);
   }
   ok = true;
   return ok;
}

bool
simq_op_subtract (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                  bson_error_t *error)
{
   bool ok = false;
   const bson_value_t *a = &vals[0], *b = &vals[1];
   if (!simq_arity (op, args, 2, error) || !simq_no_decimal (op, vals, nvals, error)) {
      return ok;
   }
   if (simq_nullish (a) || simq_nullish (b)) {
      simq_set_null (out);
   } else if (a->value_type == BSON_TYPE_DATE_TIME && b->value_type == BSON_TYPE_DATE_TIME) {
      simq_set_int64 (out, a->value.v_datetime - b->value.v_datetime);
   } else if (a->value_type == BSON_TYPE_DATE_TIME && simq_is_number (b)) {
      simq_set_date (out, a->value.v_datetime - (int64_t) llround (simq_to_double (b)));
   } else if (simq_is_number (a) && simq_is_number (b)) {
      if (a->value_type == BSON_TYPE_DOUBLE || b->value_type == BSON_TYPE_DOUBLE) {
         simq_set_double (out, simq_to_double (a) - simq_to_double (b));
      } else {
         int64_t x = a->value_type == BSON_TYPE_INT32 ? a->value.v_int32 : a->value.v_int64;
         int64_t y = b->value_type == BSON_TYPE_INT32 ? b->value.v_int32 : b->value.v_int64;
         int64_t r;
         if (__builtin_sub_overflow (x, y, &r)) {
            simq_set_double (out, (double) x - (double) y);
         } else if (a->value_type == BSON_TYPE_INT32 && b->value_type == BSON_TYPE_INT32 && r >= INT32_MIN &&
                    r <= INT32_MAX) {
            simq_set_int32 (out, (int32_t) r);
         } else {
            simq_set_int64 (out, r);
         }
      }
   } else {
      simq_fail (error, 16556, "can't $subtract %s from %s", simq_type_name (b->value_type),
                 simq_type_name (a->value_type));
      return ok;
   }
   ok = true;
   return ok;
}

bool
simq_op_divide (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                bson_error_t *error)
{
   bool ok = false;
   if (!simq_arity (op, args, 2, error) || !simq_no_decimal (op, vals, nvals, error)) {
      return ok;
   }
   if (simq_nullish (&vals[0]) || simq_nullish (&vals[1])) {
      simq_set_null (out);
   } else if (!simq_is_number (&vals[0]) || !simq_is_number (&vals[1])) {
      simq_fail (error, 16609, "$divide only supports numeric types, not %s and %s",
                 simq_type_name (vals[0].value_type), simq_type_name (vals[1].value_type));
      return ok;
   } else if (simq_to_double (&vals[1]) == 0) {
      simq_fail (error, 2, "can't $divide by zero");
      return ok;
   } else {
      simq_set_double (out, simq_to_double (&vals[0]) / simq_to_double (&vals[1]));
   }
   ok = true;
   return ok;
}

bool
simq_op_mod (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
             bson_error_t *error)
{
   bool ok = false;
   if (!simq_arity (op, args, 2, error) || !simq_no_decimal (op, vals, nvals, error)) {
      return ok;
   }
   if (simq_nullish (&vals[0]) || simq_nullish (&vals[1])) {
      simq_set_null (out);
   } else if (!simq_is_number (&vals[0]) || !simq_is_number (&vals[1])) {
      simq_fail (error, 16611, "$mod only supports numeric types, not %s and %s", simq_type_name (vals[0].value_type),
                 simq_type_name (vals[1].value_type));
      return ok;
   } else if (simq_to_double (&vals[1]) == 0) {
      simq_fail (error, 16610, "can't $mod by zero");
      return ok;
   } else if (vals[0].value_type == BSON_TYPE_DOUBLE || vals[1].value_type == BSON_TYPE_DOUBLE) {
      simq_set_double (out, fmod (simq_to_double (&vals[0]), simq_to_double (&vals[1])));
   } else {
      int64_t x = vals[0].value_type == BSON_TYPE_INT32 ? vals[0].value.v_int32 : vals[0].value.v_int64;
      int64_t y = vals[1].value_type == BSON_TYPE_INT32 ? vals[1].value.v_int32 : vals[1].value.v_int64;
      int64_t r = y == -1 ? 0 : x % y;
      if (vals[0].value_type == BSON_TYPE_INT32 && vals[1].value_type == BSON_TYPE_INT32) {
         simq_set_int32 (out, (int32_t) r);
      } else {
         simq_set_int64 (out, r);
      }
   }
   ok = true;
   return ok;
}

bool
simq_op_abs_floor_ceil (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                        bson_error_t *error)
{
   bool ok = false;
   const bson_value_t *a = &vals[0];
   if (!simq_arity (op, args, 1, error) || !simq_no_decimal (op, vals, nvals, error)) {
      return ok;
   }
   if (simq_nullish (a)) {
      simq_set_null (out);
   } else if (!simq_is_number (a)) {
      simq_fail (error, 28765, "%s only supports numeric types, not %s", op, simq_type_name (a->value_type));
      return ok;
   } else if (a->value_type == BSON_TYPE_DOUBLE) {
      double d = a->value.v_double;
      simq_set_double (out, op[1] == 'a' ? fabs (d) : (op[1] == 'f' ? floor (d) : ceil (d)));
   } else if (op[1] != 'a') {
      simq_value_copy (a, out);
   } else if (a->value_type == BSON_TYPE_INT32) {
      if (a->value.v_int32 == INT32_MIN) {
         simq_set_int64 (out, -(int64_t) INT32_MIN);
      } else {
         simq_set_int32 (out, a->value.v_int32 < 0 ? -a->value.v_int32 : a->value.v_int32);
      }
   } else if (a->value.v_int64 == INT64_MIN) {
      simq_fail (error, 28680, "can't take $abs of long long min");
      return ok;
   } else {
      simq_set_int64 (out, a->value.v_int64 < 0 ? -a->value.v_int64 : a->value.v_int64);
   }
   ok = true;
   return ok;
}

bool
simq_op_min_max_sum_avg (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                         bson_error_t *error)
{
   bool ok = false;
   (void) args;
   /* One array argument: over its elements; several arguments: over the arguments. */
   bson_value_t *elems = NULL, *list = vals;
   size_t n = nvals;
   if (nvals == 1 && vals[0].value_type == BSON_TYPE_ARRAY) {
      n = simq_array_elems (&vals[0], &elems);
      list = elems;
   }
   if (op[1] == 'm') {
      const bson_value_t *best = NULL;
      bool is_max = op[2] == 'a';
      for (size_t i = 0; i < n; i++) {
         if (simq_nullish (&list[i])) {
            continue;
         }
         if (!best || (order_values (&list[i], best) > 0) == is_max) {
            if (!best || order_values (&list[i], best) != 0) {
               best = &list[i];
            }
         }
      }
      if (best) {
         simq_value_copy (best, out);
      } else {
         simq_set_null (out);
      }
      ok = true;
   } else {
      simq_num_t acc;
      simq_num_init (&acc);
      for (size_t i = 0; i < n; i++) {
         if (simq_is_number (&list[i])) {
            simq_num_add (&acc, &list[i]);
         }
      }
      if (acc.decimal) {
         simq_fail (error, 238, "shardsim: %s on decimal128 values is not implemented", op);
      } else if (op[1] == 's') {
         simq_num_result (&acc, out);
         ok = true;
      } else if (acc.count == 0) {
         simq_set_null (out);
         ok = true;
      } else {
         simq_set_double (out, (acc.widest == 2 ? acc.d : (double) acc.i) / (double) acc.count);
         ok = true;
      }
   }
   bson_free (elems);
   return ok;
}
