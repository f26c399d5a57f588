/* The query engine's aggregation expressions: field paths ("$a.b"), variables ($$ROOT, $$CURRENT, $$NOW,
 * $$REMOVE, $let/$map/$filter variables), object and array expressions, and a set of operators with the server's
 * null/missing propagation, numeric type promotion and error codes. Anything not in simq_op_table fails
 * with 168 "Unrecognized expression '$x'". Decimal128 arithmetic is not implemented and fails with 238
 * NotImplemented rather than giving an approximate answer. */
#include "tests/shardsim/query/simq_ops.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- small value constructors ---- */

void
simq_set_int32 (bson_value_t *v, int32_t i)
{
   memset (v, 0, sizeof *v);
   v->value_type = BSON_TYPE_INT32;
   v->value.v_int32 = i;
}

void
simq_set_int64 (bson_value_t *v, int64_t i)
{
   memset (v, 0, sizeof *v);
   v->value_type = BSON_TYPE_INT64;
   v->value.v_int64 = i;
}

void
simq_set_double (bson_value_t *v, double d)
{
   memset (v, 0, sizeof *v);
   v->value_type = BSON_TYPE_DOUBLE;
   v->value.v_double = d;
}

void
simq_set_bool (bson_value_t *v, bool b)
{
   memset (v, 0, sizeof *v);
   v->value_type = BSON_TYPE_BOOL;
   v->value.v_bool = b;
}

void
simq_set_null (bson_value_t *v)
{
   memset (v, 0, sizeof *v);
   v->value_type = BSON_TYPE_NULL;
}

void
simq_set_date (bson_value_t *v, int64_t ms)
{
   memset (v, 0, sizeof *v);
   v->value_type = BSON_TYPE_DATE_TIME;
   v->value.v_datetime = ms;
}

/* Takes ownership of s (bson_malloc'd, NUL-terminated, len bytes). */
void
simq_set_string_owned (bson_value_t *v, char *s, size_t len)
{
   memset (v, 0, sizeof *v);
   v->value_type = BSON_TYPE_UTF8;
   v->value.v_utf8.str = s;
   v->value.v_utf8.len = (uint32_t) len;
}

void
simq_set_string (bson_value_t *v, const char *s, size_t len)
{
   simq_set_string_owned (v, bson_strndup (s, len), len);
}

bool
simq_nullish (const bson_value_t *v)
{
   return v->value_type == BSON_TYPE_EOD || v->value_type == BSON_TYPE_NULL || v->value_type == BSON_TYPE_UNDEFINED;
}

/* ---- numeric accumulation with the server's type promotion ---- */

void
simq_num_init (simq_num_t *n)
{
   memset (n, 0, sizeof *n);
}

void
simq_num_add (simq_num_t *n, const bson_value_t *v)
{
   int64_t x;
   n->count++;
   switch (v->value_type) {
   case BSON_TYPE_DECIMAL128:
      n->decimal = true;
      n->d += simq_to_double (v);
      return;
   case BSON_TYPE_DOUBLE:
      if (n->widest < 2) {
         n->d = (double) n->i;
         n->widest = 2;
      }
      n->d += v->value.v_double;
      return;
   case BSON_TYPE_INT64:
   case BSON_TYPE_INT32:
      x = v->value_type == BSON_TYPE_INT32 ? v->value.v_int32 : v->value.v_int64;
      if (v->value_type == BSON_TYPE_INT64 && n->widest < 1) {
         n->widest = 1;
      }
      if (n->widest == 2) {
         n->d += (double) x;
      } else {
         int64_t before = n->i;
         if (__builtin_add_overflow (before, x, &n->i)) {
            /* int64 overflow: the sum continues as a double, as the server's $sum does. */
            n->d = (double) before + (double) x;
            n->widest = 2;
         }
      }
      return;
   default:
      return;
   }
}

void
simq_num_result (const simq_num_t *n, bson_value_t *out)
{
   if (n->widest == 2) {
      simq_set_double (out, n->d);
   } else if (n->widest == 0 && n->i >= INT32_MIN && n->i <= INT32_MAX) {
      simq_set_int32 (out, (int32_t) n->i);
   } else {
      simq_set_int64 (out, n->i);
   }
}

/* ---- field paths ---- */

static void
simq_resolve_path (const bson_value_t *v, const char *path, bson_value_t *out);

static void
simq_resolve_in_doc (const bson_t *doc, const char *path, bson_value_t *out)
{
   const char *dot = strchr (path, '.');
   size_t len = dot ? (size_t) (dot - path) : strlen (path);
   bson_iter_t it;
   uint32_t off, val, keylen = (uint32_t) len;
   uint64_t size;

   simq_value_set_missing (out);
   switch (simq_raw_find (doc, path, len, &off, &val, &size)) {
   case 0:
      return;
   case 1:
      if (bson_iter_init_from_data_at_offset (&it, bson_get_data (doc), doc->len, off, keylen)) {
         if (!dot) {
            simq_value_copy (bson_iter_value (&it), out);
         } else {
            simq_resolve_path (bson_iter_value (&it), dot + 1, out);
         }
         return;
      }
      break;
   default:
      break;
   }
   if (!bson_iter_init (&it, doc)) {
      return;
   }
   while (bson_iter_next (&it)) {
      if (bson_iter_key_len (&it) == len && memcmp (bson_iter_key (&it), path, len) == 0) {
         if (!dot) {
            simq_value_copy (bson_iter_value (&it), out);
         } else {
            simq_resolve_path (bson_iter_value (&it), dot + 1, out);
         }
         return;
      }
   }
}

static void
simq_resolve_path (const bson_value_t *v, const char *path, bson_value_t *out)
{
   bson_t view;
   simq_value_set_missing (out);
   if (v->value_type == BSON_TYPE_DOCUMENT && simq_value_as_doc (v, &view)) {
      simq_resolve_in_doc (&view, path, out);
   } else if (v->value_type == BSON_TYPE_ARRAY && simq_value_as_doc (v, &view)) {
      /* A path through an array gives the array of what it finds in each element (missing ones left out). */
      bson_t arr = BSON_INITIALIZER;
      bson_iter_t it;
      uint32_t i = 0;
      bson_iter_init (&it, &view);
      while (bson_iter_next (&it)) {
         bson_value_t sub;
         if (!BSON_ITER_HOLDS_DOCUMENT (&it) && !BSON_ITER_HOLDS_ARRAY (&it)) {
            continue;
         }
         simq_resolve_path (bson_iter_value (&it), path, &sub);
         if (!simq_value_missing (&sub)) {
            char key[24];
            snprintf (key, sizeof key, "%u", i++);
            bson_append_value (&arr, key, -1, &sub);
         }
         simq_value_destroy (&sub);
      }
      simq_value_from_doc (&arr, true, out);
      bson_destroy (&arr);
   }
}

/* When expr is "$<field>" naming a top-level field of $$CURRENT (no dot, no variable, no embedded NUL): appends
 * that field's value as key to built straight from the document (nothing when it is missing), what evaluating and
 * appending the copy gives, and returns true. False (built untouched) for any other expression. */
static bool
simq_append_top_field (bson_t *built, const char *key, int key_len, const bson_value_t *expr, const simq_ectx_t *ctx)
{
   const char *s;
   size_t len;
   uint32_t off, val, keylen;
   uint64_t size;
   bson_iter_t it;
   if (expr->value_type != BSON_TYPE_UTF8 || !ctx->current)
      return false;
   s = expr->value.v_utf8.str;
   len = expr->value.v_utf8.len;
   if (len < 2 || s[0] != '$' || s[1] == '$' || strlen (s) != len || memchr (s, '.', len))
      return false;
   keylen = (uint32_t) (len - 1);
   switch (simq_raw_find (ctx->current, s + 1, len - 1, &off, &val, &size)) {
   case 0:
      return true;
   case 1:
      if (bson_iter_init_from_data_at_offset (&it, bson_get_data (ctx->current), ctx->current->len, off, keylen)) {
         bson_append_iter (built, key, key_len, &it);
         return true;
      }
      return false;
   default:
      return false;
   }
}

void
simq_eval_field_path (const bson_t *doc, const char *path, bson_value_t *out)
{
   simq_resolve_in_doc (doc, path, out);
}

/* ---- helpers for operators ---- */

bool
simq_collect_args (const char *op, const bson_value_t *arg, simq_args_t *args, bson_error_t *error)
{
   args->n = 0;
   if (arg->value_type == BSON_TYPE_ARRAY) {
      bson_t arr;
      bson_iter_t it;
      simq_value_as_doc (arg, &arr);
      bson_iter_init (&it, &arr);
      while (bson_iter_next (&it)) {
         if (args->n == 64) {
            return simq_fail (error, 2, "too many arguments to %s", op);
         }
         args->v[args->n++] = *bson_iter_value (&it);
      }
   } else {
      args->v[0] = *arg;
      args->n = 1;
   }
   return true;
}

bool
simq_arity (const char *op, const simq_args_t *args, size_t want, bson_error_t *error)
{
   if (args->n != want) {
      return simq_fail (error, 16020, "Expression %s takes exactly %zu arguments. %zu were passed in.", op, want,
                        args->n);
   }
   return true;
}

/* Evaluates every argument into vals (owned; the caller frees n of them). */
bool
simq_eval_args (const simq_args_t *args, const simq_ectx_t *ctx, bson_value_t *vals, bson_error_t *error)
{
   for (size_t i = 0; i < args->n; i++) {
      simq_value_set_missing (&vals[i]);
   }
   for (size_t i = 0; i < args->n; i++) {
      if (!simq_eval (&args->v[i], ctx, &vals[i], error)) {
         return false;
      }
   }
   return true;
}

void
simq_vals_destroy (bson_value_t *vals, size_t n)
{
   for (size_t i = 0; i < n; i++) {
      simq_value_destroy (&vals[i]);
   }
}

bool
simq_no_decimal (const char *op, const bson_value_t *vals, size_t n, bson_error_t *error)
{
   for (size_t i = 0; i < n; i++) {
      if (vals[i].value_type == BSON_TYPE_DECIMAL128) {
         return simq_fail (error, 238, "shardsim: %s on decimal128 values is not implemented", op);
      }
   }
   return true;
}

/* Formats a double the way the server prints it in $toString (shortest form that reads back the same). */
void
simq_format_double (double d, char *buf, size_t size)
{
   if (isnan (d)) {
      snprintf (buf, size, "NaN");
      return;
   }
   if (isinf (d)) {
      snprintf (buf, size, d > 0 ? "Infinity" : "-Infinity");
      return;
   }
   for (int prec = 1; prec <= 17; prec++) {
      snprintf (buf, size, "%.*g", prec, d);
      if (strtod (buf, NULL) == d) {
         return;
      }
   }
}

void
simq_format_date (int64_t ms, char *buf, size_t size)
{
   time_t secs = (time_t) (ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
   int millis = (int) (ms - (int64_t) secs * 1000);
   struct tm tm;
   gmtime_r (&secs, &tm);
   snprintf (buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec, millis);
}

bool
simq_to_string (const bson_value_t *v, bson_value_t *out, bson_error_t *error)
{
   char buf[64];
   switch (v->value_type) {
   case BSON_TYPE_UTF8:
      simq_value_copy (v, out);
      return true;
   case BSON_TYPE_INT32:
      snprintf (buf, sizeof buf, "%d", v->value.v_int32);
      break;
   case BSON_TYPE_INT64:
      snprintf (buf, sizeof buf, "%lld", (long long) v->value.v_int64);
      break;
   case BSON_TYPE_DOUBLE:
      simq_format_double (v->value.v_double, buf, sizeof buf);
      break;
   case BSON_TYPE_DECIMAL128:
      bson_decimal128_to_string (&v->value.v_decimal128, buf);
      break;
   case BSON_TYPE_BOOL:
      snprintf (buf, sizeof buf, "%s", v->value.v_bool ? "true" : "false");
      break;
   case BSON_TYPE_OID:
      bson_oid_to_string (&v->value.v_oid, buf);
      break;
   case BSON_TYPE_DATE_TIME:
      simq_format_date (v->value.v_datetime, buf, sizeof buf);
      break;
   case BSON_TYPE_SYMBOL:
      simq_set_string (out, v->value.v_symbol.symbol, v->value.v_symbol.len);
      return true;
   default:
      return simq_fail (error, 241, "Unsupported conversion from %s to string in $convert with no onError value",
                        simq_type_name (v->value_type));
   }
   simq_set_string (out, buf, strlen (buf));
   return true;
}

/* Builds an array value from vals (missing ones become null). */
void
simq_array_of (const bson_value_t *vals, size_t n, bson_value_t *out)
{
   bson_t arr = BSON_INITIALIZER;
   char key[24];
   for (size_t i = 0; i < n; i++) {
      snprintf (key, sizeof key, "%zu", i);
      if (simq_value_missing (&vals[i])) {
         bson_append_null (&arr, key, -1);
      } else {
         bson_append_value (&arr, key, -1, &vals[i]);
      }
   }
   simq_value_from_doc (&arr, true, out);
   bson_destroy (&arr);
}

/* Copies the elements of an array value into a freshly allocated list (borrowed values). */
size_t
simq_array_elems (const bson_value_t *arr, bson_value_t **elems)
{
   bson_t view;
   bson_iter_t it;
   size_t n = 0;
   *elems = NULL;
   if (!simq_value_as_doc (arr, &view)) {
      return 0;
   }
   *elems = bson_malloc0 ((bson_count_keys (&view) + 1) * sizeof (bson_value_t));
   bson_iter_init (&it, &view);
   while (bson_iter_next (&it)) {
      (*elems)[n++] = *bson_iter_value (&it);
   }
   return n;
}

/* Evaluates a named-argument operator's field ({ $cond: { if: ... } }). */
const bson_value_t *
simq_named_arg (const bson_t *spec, const char *name, bson_value_t *slot)
{
   bson_iter_t it;
   if (bson_iter_init_find (&it, spec, name)) {
      *slot = *bson_iter_value (&it);
      return slot;
   }
   return NULL;
}

bool
simq_check_named (const bson_t *spec, const char *op, const char *const *allowed, int code, bson_error_t *error)
{
   bson_iter_t it;
   bson_iter_init (&it, spec);
   while (bson_iter_next (&it)) {
      bool ok = false;
      for (size_t i = 0; allowed[i]; i++) {
         ok = ok || strcmp (allowed[i], bson_iter_key (&it)) == 0;
      }
      if (!ok) {
         return simq_fail (error, code, "Unrecognized parameter to %s: %s", op, bson_iter_key (&it));
      }
   }
   return true;
}

bool
simq_map_filter (const simq_iter_spec_t *spec, const simq_ectx_t *ctx, bson_value_t *out, bson_error_t *error)
{
   bson_value_t input, *elems = NULL;
   bson_t arr = BSON_INITIALIZER;
   simq_var_t var = { spec->as, { 0 }, ctx->vars };
   simq_ectx_t inner = *ctx;
   size_t n, kept = 0;
   bool ok = false;
   bool is_map = spec->in != NULL;

   simq_value_set_missing (&input);
   simq_value_set_missing (out);
   if (!simq_eval (spec->input, ctx, &input, error)) {
      goto cleanup;
   }
   if (simq_nullish (&input)) {
      simq_set_null (out);
      ok = true;
      goto cleanup;
   }
   if (input.value_type != BSON_TYPE_ARRAY) {
      simq_fail (error, is_map ? 16883 : 28651, "input to %s must be an array not %s", spec->op,
                 simq_type_name (input.value_type));
      goto cleanup;
   }
   n = simq_array_elems (&input, &elems);
   inner.vars = &var;
   for (size_t i = 0; i < n; i++) {
      bson_value_t r;
      char key[24];
      var.value = elems[i];
      if (!simq_eval (is_map ? spec->in : spec->cond, &inner, &r, error)) {
         goto cleanup;
      }
      snprintf (key, sizeof key, "%zu", kept);
      if (is_map) {
         if (simq_value_missing (&r)) {
            bson_append_null (&arr, key, -1);
         } else {
            bson_append_value (&arr, key, -1, &r);
         }
         kept++;
      } else if (simq_truthy (&r) && (spec->limit < 0 || (int64_t) kept < spec->limit)) {
         bson_append_value (&arr, key, -1, &elems[i]);
         kept++;
      }
      simq_value_destroy (&r);
   }
   simq_value_from_doc (&arr, true, out);
   ok = true;
cleanup:
   bson_free (elems);
   bson_destroy (&arr);
   simq_value_destroy (&input);
   return ok;
}

/* ---- the operators ---- */

/* Every operator, sorted by name (strcmp order) for bsearch; one of raw, lazy or vals is set (simq_ops.h). */
static const simq_op_def_t simq_op_table[] = {
   { "$abs", NULL, NULL, simq_op_abs_floor_ceil },
   { "$add", NULL, NULL, simq_op_add },
   { "$and", NULL, simq_op_and_or, NULL },
   { "$arrayElemAt", NULL, NULL, simq_op_array_elem_at },
   { "$avg", NULL, NULL, simq_op_min_max_sum_avg },
   { "$ceil", NULL, NULL, simq_op_abs_floor_ceil },
   { "$cmp", NULL, NULL, simq_op_compare },
   { "$concat", NULL, NULL, simq_op_concat },
   { "$concatArrays", NULL, NULL, simq_op_concat_arrays },
   { "$cond", simq_op_cond, NULL, NULL },
   { "$divide", NULL, NULL, simq_op_divide },
   { "$eq", NULL, NULL, simq_op_compare },
   { "$filter", simq_op_map_filter, NULL, NULL },
   { "$first", NULL, NULL, simq_op_first_last },
   { "$floor", NULL, NULL, simq_op_abs_floor_ceil },
   { "$gt", NULL, NULL, simq_op_compare },
   { "$gte", NULL, NULL, simq_op_compare },
   { "$ifNull", NULL, simq_op_if_null, NULL },
   { "$in", NULL, NULL, simq_op_in },
   { "$isArray", NULL, NULL, simq_op_is_array },
   { "$last", NULL, NULL, simq_op_first_last },
   { "$let", simq_op_let, NULL, NULL },
   { "$literal", simq_op_literal, NULL, NULL },
   { "$lt", NULL, NULL, simq_op_compare },
   { "$lte", NULL, NULL, simq_op_compare },
   { "$map", simq_op_map_filter, NULL, NULL },
   { "$max", NULL, NULL, simq_op_min_max_sum_avg },
   { "$mergeObjects", NULL, NULL, simq_op_merge_objects },
   { "$min", NULL, NULL, simq_op_min_max_sum_avg },
   { "$mod", NULL, NULL, simq_op_mod },
   { "$multiply", NULL, NULL, simq_op_multiply },
   { "$ne", NULL, NULL, simq_op_compare },
   { "$not", NULL, NULL, simq_op_not },
   { "$or", NULL, simq_op_and_or, NULL },
   { "$reverseArray", NULL, NULL, simq_op_reverse_array },
   { "$size", NULL, NULL, simq_op_size },
   { "$slice", NULL, NULL, simq_op_slice },
   { "$split", NULL, NULL, simq_op_split },
   { "$strLenBytes", NULL, NULL, simq_op_str_len },
   { "$strLenCP", NULL, NULL, simq_op_str_len },
   { "$substr", NULL, NULL, simq_op_substr },
   { "$substrBytes", NULL, NULL, simq_op_substr },
   { "$substrCP", NULL, NULL, simq_op_substr },
   { "$subtract", NULL, NULL, simq_op_subtract },
   { "$sum", NULL, NULL, simq_op_min_max_sum_avg },
   { "$switch", simq_op_switch, NULL, NULL },
   { "$toBool", NULL, NULL, simq_op_convert },
   { "$toDouble", NULL, NULL, simq_op_convert },
   { "$toHashedIndexKey", NULL, NULL, simq_op_to_hashed_index_key },
   { "$toInt", NULL, NULL, simq_op_convert },
   { "$toLong", NULL, NULL, simq_op_convert },
   { "$toLower", NULL, NULL, simq_op_to_lower_upper },
   { "$toString", NULL, NULL, simq_op_to_string },
   { "$toUpper", NULL, NULL, simq_op_to_lower_upper },
   { "$type", NULL, NULL, simq_op_type },
};

static int
simq_op_cmp (const void *key, const void *def)
{
   return strcmp ((const char *) key, ((const simq_op_def_t *) def)->name);
}

/* An argument of a comparison ($eq $lt … $cmp, which reads its arguments and keeps none) borrowed where simq_eval
 * would copy the same value: a top-level "$field" of $$CURRENT (missing when absent), a { $literal: v }, or a
 * constant that is not an object or an array (nor a string naming a path or variable). False (nothing set) for any
 * other argument, which is evaluated. */
static bool
simq_borrow_arg (const bson_value_t *arg, const simq_ectx_t *ctx, bson_value_t *out)
{
   bson_t spec;
   bson_iter_t it;
   if (arg->value_type == BSON_TYPE_UTF8 && arg->value.v_utf8.str[0] == '$') {
      const char *s = arg->value.v_utf8.str;
      if (s[1] == '$' || s[1] == '\0' || !ctx->current || strlen (s) != arg->value.v_utf8.len || strchr (s, '.')) {
         return false;
      }
      if (!simq_find_value (ctx->current, s + 1, out)) {
         simq_value_set_missing (out);
      }
      return true;
   }
   if (arg->value_type == BSON_TYPE_DOCUMENT) {
      if (!simq_value_as_doc (arg, &spec) || !bson_iter_init (&it, &spec) || !bson_iter_next (&it) ||
          strcmp (bson_iter_key (&it), "$literal") != 0 || bson_iter_next (&it)) {
         return false;
      }
      bson_iter_init (&it, &spec);
      bson_iter_next (&it);
      *out = *bson_iter_value (&it);
      return true;
   }
   if (arg->value_type == BSON_TYPE_ARRAY) {
      return false;
   }
   *out = *arg;
   return true;
}

/* A comparison with its arguments borrowed where they can be (simq_borrow_arg), the others evaluated in order:
 * what simq_eval_args + simq_op_compare give, without copying a field or a literal per document. */
static bool
simq_eval_compare (const char *op, const simq_args_t *args, const simq_ectx_t *ctx, bson_value_t *out,
                   bson_error_t *error)
{
   bson_value_t vals[64];
   bool owned[64];
   bool ok = true;
   for (size_t i = 0; i < args->n; i++) {
      owned[i] = !simq_borrow_arg (&args->v[i], ctx, &vals[i]);
      if (owned[i]) {
         simq_value_set_missing (&vals[i]);
      }
   }
   for (size_t i = 0; ok && i < args->n; i++) {
      if (owned[i]) {
         ok = simq_eval (&args->v[i], ctx, &vals[i], error);
      }
   }
   ok = ok && simq_op_compare (op, args, vals, args->n, out, error);
   for (size_t i = 0; i < args->n; i++) {
      if (owned[i]) {
         simq_value_destroy (&vals[i]);
      }
   }
   if (!ok) {
      simq_value_destroy (out);
   }
   return ok;
}

/* Evaluates { op: arg }: looks op up once in simq_op_table, then hands the raw argument, the unevaluated arguments or
 * their values (owned here, freed after) to the operator's function. */
static bool
simq_eval_operator (const char *op, const bson_value_t *arg, const simq_ectx_t *ctx, bson_value_t *out,
                    bson_error_t *error)
{
   const simq_op_def_t *def =
      bsearch (op, simq_op_table, sizeof simq_op_table / sizeof simq_op_table[0], sizeof simq_op_table[0], simq_op_cmp);
   simq_args_t args;
   bson_value_t vals[64];
   size_t nvals = 0;
   bool ok = false;

   simq_value_set_missing (out);
   if (def && def->raw) {
      return def->raw (op, arg, ctx, out, error);
   }
   /* Positional operators: the arguments first (an unknown operator's are checked and evaluated too). */
   if (!simq_collect_args (op, arg, &args, error)) {
      return false;
   }
   if (def && def->lazy) {
      return def->lazy (op, &args, ctx, out, error);
   }
   if (def && def->vals == simq_op_compare) {
      return simq_eval_compare (op, &args, ctx, out, error);
   }
   nvals = args.n;
   if (simq_eval_args (&args, ctx, vals, error)) {
      if (def) {
         ok = def->vals (op, &args, vals, nvals, out, error);
      } else {
         simq_fail (error, 168, "Unrecognized expression '%s'", op);
      }
   }
   simq_vals_destroy (vals, nvals);
   if (!ok) {
      simq_value_destroy (out);
   }
   return ok;
}

/* ---- evaluation ---- */

static bool
simq_eval_variable (const char *name, const simq_ectx_t *ctx, bson_value_t *out, bson_error_t *error)
{
   const char *dot = strchr (name, '.');
   size_t len = dot ? (size_t) (dot - name) : strlen (name);
   bson_value_t base;
   bool have = false;

   simq_value_set_missing (out);
   memset (&base, 0, sizeof base);
   if (len == 4 && memcmp (name, "ROOT", 4) == 0) {
      base.value_type = BSON_TYPE_DOCUMENT;
      base.value.v_doc.data = (uint8_t *) bson_get_data (ctx->root);
      base.value.v_doc.data_len = ctx->root->len;
      have = true;
   } else if (len == 7 && memcmp (name, "CURRENT", 7) == 0) {
      base.value_type = BSON_TYPE_DOCUMENT;
      base.value.v_doc.data = (uint8_t *) bson_get_data (ctx->current);
      base.value.v_doc.data_len = ctx->current->len;
      have = true;
   } else if (len == 3 && memcmp (name, "NOW", 3) == 0) {
      base.value_type = BSON_TYPE_DATE_TIME;
      base.value.v_datetime = ctx->env ? ctx->env->now_ms : 0;
      have = true;
   } else if (len == 6 && memcmp (name, "REMOVE", 6) == 0) {
      return true;
   } else {
      for (const simq_var_t *v = ctx->vars; v; v = v->next) {
         if (strlen (v->name) == len && memcmp (v->name, name, len) == 0) {
            base = v->value;
            have = true;
            break;
         }
      }
   }
   if (!have) {
      return simq_fail (error, 17276, "Use of undefined variable: %.*s", (int) len, name);
   }
   if (!dot) {
      simq_value_copy (&base, out);
   } else {
      simq_resolve_path (&base, dot + 1, out);
   }
   return true;
}

bool
simq_eval (const bson_value_t *expr, const simq_ectx_t *ctx, bson_value_t *out, bson_error_t *error)
{
   simq_value_set_missing (out);

   if (expr->value_type == BSON_TYPE_UTF8 && expr->value.v_utf8.str[0] == '$') {
      const char *s = expr->value.v_utf8.str;
      if (s[1] == '$') {
         return simq_eval_variable (s + 2, ctx, out, error);
      }
      if (s[1] == '\0') {
         return simq_fail (error, 16872, "'$' by itself is not a valid FieldPath");
      }
      simq_resolve_in_doc (ctx->current, s + 1, out);
      return true;
   }
   if (expr->value_type == BSON_TYPE_DOCUMENT) {
      bson_t spec, built = BSON_INITIALIZER;
      bson_iter_t it;
      bool ok = true;
      simq_value_as_doc (expr, &spec);
      if (bson_iter_init (&it, &spec) && bson_iter_next (&it) && bson_iter_key (&it)[0] == '$') {
         uint32_t n = bson_count_keys (&spec);
         bson_destroy (&built);
         if (n != 1) {
            char *j = simq_doc_json (&spec);
            simq_fail (error, 15983,
                       "an expression specification must contain exactly one field, the name of the expression. "
                       "Found %u fields in %s",
                       n, j);
            bson_free (j);
            return false;
         }
         return simq_eval_operator (bson_iter_key (&it), bson_iter_value (&it), ctx, out, error);
      }
      /* An object expression: each field evaluated, missing ones left out. */
      bson_iter_init (&it, &spec);
      while (ok && bson_iter_next (&it)) {
         bson_value_t v;
         const char *key = bson_iter_key (&it);
         if (key[0] == '$') {
            ok = simq_fail (error, 16410,
                            "FieldPath field names may not start with '$'. Consider using $getField or $setField.");
            break;
         }
         if (strchr (key, '.')) {
            ok = simq_fail (error, 16412,
                            "FieldPath field names may not contain '.'. Consider using $getField or $setField.");
            break;
         }
         if (simq_append_top_field (&built, key, (int) bson_iter_key_len (&it), bson_iter_value (&it), ctx)) {
            continue;
         }
         ok = simq_eval (bson_iter_value (&it), ctx, &v, error);
         if (ok) {
            simq_append_value (&built, key, (int) bson_iter_key_len (&it), &v);
         }
         simq_value_destroy (&v);
      }
      if (ok) {
         simq_value_from_doc (&built, false, out);
      }
      bson_destroy (&built);
      return ok;
   }
   if (expr->value_type == BSON_TYPE_ARRAY) {
      bson_t spec, built = BSON_INITIALIZER;
      bson_iter_t it;
      bool ok = true;
      uint32_t i = 0;
      simq_value_as_doc (expr, &spec);
      bson_iter_init (&it, &spec);
      while (ok && bson_iter_next (&it)) {
         bson_value_t v;
         char key[24];
         ok = simq_eval (bson_iter_value (&it), ctx, &v, error);
         snprintf (key, sizeof key, "%u", i++);
         if (ok && simq_value_missing (&v)) {
            bson_append_null (&built, key, -1);
         } else if (ok) {
            bson_append_value (&built, key, -1, &v);
         }
         simq_value_destroy (&v);
      }
      if (ok) {
         simq_value_from_doc (&built, true, out);
      }
      bson_destroy (&built);
      return ok;
   }
   simq_value_copy (expr, out);
   return true;
}
