/* The query engine's array and object operators: $map, $filter, $size, $isArray, $arrayElemAt, $first, $last,
 * $in, $concatArrays, $reverseArray, $slice, $mergeObjects. Each follows its simq_op_*_fn_t contract in simq_ops.h. */
#include "tests/shardsim/query/simq_ops.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool
simq_op_map_filter (const char *op, const bson_value_t *arg, const simq_ectx_t *ctx, bson_value_t *out,
                    bson_error_t *error)
{
   bson_t spec;
   static const char *const map_allowed[] = { "input", "as", "in", NULL };
   static const char *const filter_allowed[] = { "input", "as", "cond", "limit", NULL };
   bool is_map = op[1] == 'm';
   simq_iter_spec_t it_spec = { op, NULL, "this", NULL, NULL, -1 };
   bson_value_t s_input, s_as, s_in, s_limit;
   if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &spec)) {
      return simq_fail (error, is_map ? 16878 : 28646, "%s only supports an object as its argument", op);
   }
   if (!simq_check_named (&spec, op, is_map ? map_allowed : filter_allowed, is_map ? 16879 : 28647, error)) {
      return false;
   }
   if (!simq_named_arg (&spec, "input", &s_input)) {
      return simq_fail (error, is_map ? 16880 : 28648, "Missing 'input' parameter to %s", op);
   }
   it_spec.input = &s_input;
   if (simq_named_arg (&spec, "as", &s_as)) {
      if (s_as.value_type != BSON_TYPE_UTF8) {
         return simq_fail (error, 16866, "'as' must be a string");
      }
      it_spec.as = s_as.value.v_utf8.str;
   }
   if (is_map) {
      if (!simq_named_arg (&spec, "in", &s_in)) {
         return simq_fail (error, 16882, "Missing 'in' parameter to $map");
      }
      it_spec.in = &s_in;
   } else {
      if (!simq_named_arg (&spec, "cond", &s_in)) {
         return simq_fail (error, 28650, "Missing 'cond' parameter to $filter");
      }
      it_spec.cond = &s_in;
      if (simq_named_arg (&spec, "limit", &s_limit)) {
         bson_value_t lv;
         int64_t l;
         if (!simq_eval (&s_limit, ctx, &lv, error)) {
            return false;
         }
         if (!simq_nullish (&lv)) {
            if (!simq_is_integral_number (&lv, &l) || l < 1) {
               simq_value_destroy (&lv);
               return simq_fail (error, 327391, "$filter: limit must be greater than 0");
            }
            it_spec.limit = l;
         }
         simq_value_destroy (&lv);
      }
   }
   return simq_map_filter (&it_spec, ctx, out, error);
}

bool
simq_op_size (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
              bson_error_t *error)
{
   bool ok = false;
   (void) nvals;
   bson_t arr;
   if (!simq_arity (op, args, 1, error)) {
      return ok;
   }
   if (vals[0].value_type != BSON_TYPE_ARRAY || !simq_value_as_doc (&vals[0], &arr)) {
      simq_fail (error, 17124, "The argument to $size must be an array. Type of argument was: %s",
                 simq_type_name (vals[0].value_type));
      return ok;
   }
   simq_set_int32 (out, (int32_t) bson_count_keys (&arr));
   ok = true;
   return ok;
}

bool
simq_op_is_array (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                  bson_error_t *error)
{
   bool ok = false;
   (void) nvals;
   if (simq_arity (op, args, 1, error)) {
      simq_set_bool (out, vals[0].value_type == BSON_TYPE_ARRAY);
      ok = true;
   }
   return ok;
}

bool
simq_op_array_elem_at (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                       bson_error_t *error)
{
   bool ok = false;
   (void) nvals;
   int64_t idx;
   bson_value_t *elems = NULL;
   size_t n;
   if (!simq_arity (op, args, 2, error)) {
      return ok;
   }
   if (simq_nullish (&vals[0]) || simq_nullish (&vals[1])) {
      simq_set_null (out);
      ok = true;
      return ok;
   }
   if (vals[0].value_type != BSON_TYPE_ARRAY) {
      simq_fail (error, 28689, "$arrayElemAt's first argument must be an array, but is %s",
                 simq_type_name (vals[0].value_type));
      return ok;
   }
   if (!simq_is_number (&vals[1])) {
      simq_fail (error, 28690, "$arrayElemAt's second argument must be a numeric value, but is %s",
                 simq_type_name (vals[1].value_type));
      return ok;
   }
   if (!simq_is_integral_number (&vals[1], &idx) || idx < INT32_MIN || idx > INT32_MAX) {
      char *j = simq_value_json (&vals[1]);
      simq_fail (error, 28691, "$arrayElemAt's second argument must be representable as a 32-bit integer: %s", j);
      bson_free (j);
      return ok;
   }
   n = simq_array_elems (&vals[0], &elems);
   if (idx < 0) {
      idx += (int64_t) n;
   }
   if (idx >= 0 && (size_t) idx < n) {
      simq_value_copy (&elems[idx], out);
   }
   bson_free (elems);
   ok = true;
   return ok;
}

bool
simq_op_first_last (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                    bson_error_t *error)
{
   bool ok = false;
   (void) nvals;
   bson_value_t *elems = NULL;
   size_t n;
   if (!simq_arity (op, args, 1, error)) {
      return ok;
   }
   if (simq_nullish (&vals[0])) {
      simq_set_null (out);
      ok = true;
      return ok;
   }
   if (vals[0].value_type != BSON_TYPE_ARRAY) {
      simq_fail (error, 28689, "%s's argument must be an array, but is %s", op, simq_type_name (vals[0].value_type));
      return ok;
   }
   n = simq_array_elems (&vals[0], &elems);
   if (n > 0) {
      simq_value_copy (&elems[op[1] == 'f' ? 0 : n - 1], out);
   }
   bson_free (elems);
   ok = true;
   return ok;
}

bool
simq_op_in (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
            bson_error_t *error)
{
   bool ok = false;
   (void) nvals;
   bson_value_t *elems = NULL;
   size_t n;
   bool found = false;
   if (!simq_arity (op, args, 2, error)) {
      return ok;
   }
   if (vals[1].value_type != BSON_TYPE_ARRAY) {
      simq_fail (error, 40081, "$in requires an array as a second argument, found: %s",
                 simq_type_name (vals[1].value_type));
      return ok;
   }
   n = simq_array_elems (&vals[1], &elems);
   for (size_t i = 0; i < n && !found; i++) {
      found = order_values (&vals[0], &elems[i]) == 0;
   }
   bson_free (elems);
   simq_set_bool (out, found);
   ok = true;
   return ok;
}

bool
simq_op_concat_arrays (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                       bson_error_t *error)
{
   bool ok = false;
   (void) op;
   (void) args;
   bson_t arr = BSON_INITIALIZER;
   uint32_t k = 0;
   for (size_t i = 0; i < nvals; i++) {
      if (simq_nullish (&vals[i])) {
         simq_set_null (out);
         ok = true;
         bson_destroy (&arr);
         return ok;
      }
      if (vals[i].value_type != BSON_TYPE_ARRAY) {
         simq_fail (error, 28664, "$concatArrays only supports arrays, not %s", simq_type_name (vals[i].value_type));
         bson_destroy (&arr);
         return ok;
      }
   }
   for (size_t i = 0; i < nvals; i++) {
      bson_t view;
      bson_iter_t it;
      simq_value_as_doc (&vals[i], &view);
      bson_iter_init (&it, &view);
      while (bson_iter_next (&it)) {
         char key[24];
         snprintf (key, sizeof key, "%u", k++);
         bson_append_value (&arr, key, -1, bson_iter_value (&it));
      }
   }
   simq_value_from_doc (&arr, true, out);
   bson_destroy (&arr);
   ok = true;
   return ok;
}

bool
simq_op_reverse_array (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                       bson_error_t *error)
{
   bool ok = false;
   (void) nvals;
   bson_value_t *elems = NULL, *rev;
   size_t n;
   if (!simq_arity (op, args, 1, error)) {
      return ok;
   }
   if (simq_nullish (&vals[0])) {
      simq_set_null (out);
      ok = true;
      return ok;
   }
   if (vals[0].value_type != BSON_TYPE_ARRAY) {
      simq_fail (error, 34435, "The argument to $reverseArray must be an array, but was of type: %s",
                 simq_type_name (vals[0].value_type));
      return ok;
   }
   n = simq_array_elems (&vals[0], &elems);
   rev = bson_malloc0 ((n + 1) * sizeof *rev);
   for (size_t i = 0; i < n; i++) {
      rev[i] = elems[n - 1 - i];
   }
   simq_array_of (rev, n, out);
   bson_free (rev);
   bson_free (elems);
   ok = true;
   return ok;
}

bool
simq_op_slice (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
               bson_error_t *error)
{
   bool ok = false;
   (void) op;
   (void) args;
   bson_value_t *elems = NULL;
   size_t n;
   int64_t pos = 0, cnt;
   if (nvals != 2 && nvals != 3) {
      simq_fail (error, 28667, "Expression $slice takes at least 2 arguments, and at most 3, but %zu were passed in.",
                 nvals);
      return ok;
   }
   if (simq_nullish (&vals[0])) {
      simq_set_null (out);
      ok = true;
      return ok;
   }
   if (vals[0].value_type != BSON_TYPE_ARRAY) {
      simq_fail (error, 28724, "First argument to $slice must be an array, but is of type: %s",
                 simq_type_name (vals[0].value_type));
      return ok;
   }
   n = simq_array_elems (&vals[0], &elems);
   if (nvals == 2) {
      if (!simq_is_integral_number (&vals[1], &cnt)) {
         bson_free (elems);
         simq_fail (error, 28725, "Second argument to $slice must be a numeric value");
         return ok;
      }
      if (cnt < 0) {
         pos = (int64_t) n + cnt < 0 ? 0 : (int64_t) n + cnt;
         cnt = -cnt;
      }
   } else {
      if (!simq_is_integral_number (&vals[1], &pos) || !simq_is_integral_number (&vals[2], &cnt) || cnt <= 0) {
         bson_free (elems);
         simq_fail (error, 28729, "Third argument to $slice must be positive");
         return ok;
      }
      if (pos < 0) {
         pos = (int64_t) n + pos < 0 ? 0 : (int64_t) n + pos;
      }
   }
   if (pos > (int64_t) n) {
      pos = (int64_t) n;
   }
   if (cnt > (int64_t) n - pos) {
      cnt = (int64_t) n - pos;
   }
   simq_array_of (elems + pos, (size_t) cnt, out);
   bson_free (elems);
   ok = true;
   return ok;
}

bool
simq_op_merge_objects (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                       bson_error_t *error)
{
   bool ok = false;
   (void) op;
   (void) args;
   bson_t acc = BSON_INITIALIZER;
   bson_value_t *elems = NULL, *list = vals;
   size_t n = nvals;
   if (nvals == 1 && vals[0].value_type == BSON_TYPE_ARRAY) {
      n = simq_array_elems (&vals[0], &elems);
      list = elems;
   }
   ok = true;
   for (size_t i = 0; i < n && ok; i++) {
      bson_t view;
      bson_iter_t it;
      if (simq_nullish (&list[i])) {
         continue;
      }
      if (list[i].value_type != BSON_TYPE_DOCUMENT) {
         ok = simq_fail (error, 40400, "$mergeObjects requires object inputs, but input %s is of type %s", "value",
                         simq_type_name (list[i].value_type));
         break;
      }
      simq_value_as_doc (&list[i], &view);
      bson_iter_init (&it, &view);
      while (bson_iter_next (&it)) {
         bson_t next;
         /* Keys may not contain '.' here; set_path on a plain key only replaces or appends. */
         if (!simq_set_path (&acc, bson_iter_key (&it), bson_iter_value (&it), &next, error)) {
            bson_destroy (&next);
            ok = false;
            break;
         }
         bson_destroy (&acc);
         acc = next;
      }
   }
   if (ok) {
      simq_value_from_doc (&acc, false, out);
   }
   bson_destroy (&acc);
   bson_free (elems);
   return ok;
}
