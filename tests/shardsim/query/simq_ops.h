/* The query engine's expression operators: the contract every operator function follows, the table entry
 * (simq_expr.c looks an operator up once, with bsearch), the operators by family (simq_op_cond.c, simq_op_arith.c,
 * simq_op_string.c, simq_op_array.c, simq_op_type.c) and the value helpers they share (simq_expr.c). Internal to
 * tests/shardsim/query. */
#ifndef SHARDSIM_SIMQ_OPS_H
#define SHARDSIM_SIMQ_OPS_H

#include "tests/shardsim/query/simq_int.h"

/* ---- shared types ---- */

/* A running sum with the server's numeric type promotion (simq_num_*). */
typedef struct {
   int widest; /* 0 int32, 1 int64, 2 double */
   int64_t i;
   double d;
   bool decimal;
   size_t count;
} simq_num_t;

/* The arguments of an operator: an array's elements, or the single value itself. Borrowed. */
typedef struct {
   bson_value_t v[64];
   size_t n;
} simq_args_t;

/* Runs body for each element of input with variable `as` bound ($map, $filter). */
typedef struct {
   const char *op;
   const bson_value_t *input;
   const char *as;
   const bson_value_t *in;   /* $map */
   const bson_value_t *cond; /* $filter */
   int64_t limit;            /* $filter, -1 for none */
} simq_iter_spec_t;

/* ---- helpers (simq_expr.c) ---- */

/* Sets v to the int32 i (v holds nothing to free before or after). */
void
simq_set_int32 (bson_value_t *v, int32_t i);

/* Sets v to the int64 i. */
void
simq_set_int64 (bson_value_t *v, int64_t i);

/* Sets v to the double d. */
void
simq_set_double (bson_value_t *v, double d);

/* Sets v to the boolean b. */
void
simq_set_bool (bson_value_t *v, bool b);

/* Sets v to null. */
void
simq_set_null (bson_value_t *v);

/* Sets v to the date ms (milliseconds since the epoch). */
void
simq_set_date (bson_value_t *v, int64_t ms);

/* Takes ownership of s (bson_malloc'd, NUL-terminated, len bytes). */
void
simq_set_string_owned (bson_value_t *v, char *s, size_t len);

/* Sets v to a copy of s (len bytes); v owns the copy (simq_value_destroy). */
void
simq_set_string (bson_value_t *v, const char *s, size_t len);

/* Whether v is missing, null or undefined (the values operators propagate as null). */
bool
simq_nullish (const bson_value_t *v);

/* Starts an empty sum. */
void
simq_num_init (simq_num_t *n);

/* Adds v to the sum when it is a number (others are ignored), widening int32 -> int64 -> double as the server does. */
void
simq_num_add (simq_num_t *n, const bson_value_t *v);

/* The sum as a value of the widest type seen (int32 only when it fits). */
void
simq_num_result (const simq_num_t *n, bson_value_t *out);

/* The operator's arguments: an array's elements, or the single value itself (borrowed from arg); 2 when over 64. */
bool
simq_collect_args (const char *op, const bson_value_t *arg, simq_args_t *args, bson_error_t *error);

/* False (16020) unless there are exactly want arguments. */
bool
simq_arity (const char *op, const simq_args_t *args, size_t want, bson_error_t *error);

/* Evaluates every argument into vals (owned; the caller frees n of them). */
bool
simq_eval_args (const simq_args_t *args, const simq_ectx_t *ctx, bson_value_t *vals, bson_error_t *error);

/* Frees the n values of vals. */
void
simq_vals_destroy (bson_value_t *vals, size_t n);

/* False (238 NotImplemented) when one of the n values is a decimal128. */
bool
simq_no_decimal (const char *op, const bson_value_t *vals, size_t n, bson_error_t *error);

/* Formats a double the way the server prints it in $toString (shortest form that reads back the same). */
void
simq_format_double (double d, char *buf, size_t size);

/* Formats ms since the epoch as the server prints a date in $toString (ISO 8601, UTC, milliseconds). */
void
simq_format_date (int64_t ms, char *buf, size_t size);

/* $toString's conversion of v into out (owned); false (241 ConversionFailure) for a type it cannot convert. */
bool
simq_to_string (const bson_value_t *v, bson_value_t *out, bson_error_t *error);

/* Builds an array value from vals (missing ones become null). */
void
simq_array_of (const bson_value_t *vals, size_t n, bson_value_t *out);

/* Copies the elements of an array value into a freshly allocated list (borrowed values). */
size_t
simq_array_elems (const bson_value_t *arr, bson_value_t **elems);

/* Evaluates a named-argument operator's field ({ $cond: { if: ... } }). */
const bson_value_t *
simq_named_arg (const bson_t *spec, const char *name, bson_value_t *slot);

/* False (code) when spec has a field not in allowed (NULL-terminated). */
bool
simq_check_named (const bson_t *spec, const char *op, const char *const *allowed, int code, bson_error_t *error);

/* $map/$filter over spec->input with spec->as bound; out owned by the caller. */
bool
simq_map_filter (const simq_iter_spec_t *spec, const simq_ectx_t *ctx, bson_value_t *out, bson_error_t *error);

/* ---- operators ---- */

/* Every operator function: op is the operator's name (several share a function), out is set (owned by the caller)
 * only when it returns true; false sets error. The three kinds differ in what they get:
 * raw: the unevaluated argument as written (arg, borrowed); it evaluates what it needs in ctx.
 * lazy: the unevaluated positional arguments (args, borrowed), evaluated in ctx as needed (short-circuiting).
 * vals: the nvals evaluated arguments (vals, owned and freed by the caller; a function may move one into out and
 * leave it missing). */
typedef bool (*simq_op_raw_fn_t) (const char *op, const bson_value_t *arg, const simq_ectx_t *ctx, bson_value_t *out,
                                  bson_error_t *error);
typedef bool (*simq_op_lazy_fn_t) (const char *op, const simq_args_t *args, const simq_ectx_t *ctx, bson_value_t *out,
                                   bson_error_t *error);
typedef bool (*simq_op_vals_fn_t) (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals,
                                   bson_value_t *out, bson_error_t *error);

/* One operator of simq_expr.c's table: exactly one of raw, lazy and vals is set. */
typedef struct {
   const char *name; /* "$add" */
   simq_op_raw_fn_t raw;
   simq_op_lazy_fn_t lazy;
   simq_op_vals_fn_t vals;
} simq_op_def_t;

/* ---- conditional, boolean and comparison (simq_op_cond.c) ---- */

/* $literal: arg itself, unevaluated. (raw) */
bool
simq_op_literal (const char *op, const bson_value_t *arg, const simq_ectx_t *ctx, bson_value_t *out,
                 bson_error_t *error);

/* $cond, named ({ if, then, else }) or positional ([ if, then, else ]); only the chosen branch is evaluated. (raw) */
bool
simq_op_cond (const char *op, const bson_value_t *arg, const simq_ectx_t *ctx, bson_value_t *out, bson_error_t *error);

/* $let: { vars, in } evaluated with the new variables in scope. (raw) */
bool
simq_op_let (const char *op, const bson_value_t *arg, const simq_ectx_t *ctx, bson_value_t *out, bson_error_t *error);

/* $switch: { branches: [{ case, then }], default }. (raw) */
bool
simq_op_switch (const char *op, const bson_value_t *arg, const simq_ectx_t *ctx, bson_value_t *out,
                bson_error_t *error);

/* $ifNull: the first argument that is neither null nor missing, else the last; evaluated lazily. (lazy) */
bool
simq_op_if_null (const char *op, const simq_args_t *args, const simq_ectx_t *ctx, bson_value_t *out,
                 bson_error_t *error);

/* $and and $or, short-circuiting. (lazy) */
bool
simq_op_and_or (const char *op, const simq_args_t *args, const simq_ectx_t *ctx, bson_value_t *out,
                bson_error_t *error);

/* $eq $ne $gt $gte $lt $lte $cmp by order_values. (vals) */
bool
simq_op_compare (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                 bson_error_t *error);

/* $not by truthiness. (vals) */
bool
simq_op_not (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
             bson_error_t *error);

/* ---- arithmetic (simq_op_arith.c) ---- */

/* $add: numbers (type promotion) and at most one date. (vals) */
bool
simq_op_add (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
             bson_error_t *error);

/* $multiply: numbers with type promotion. (vals) */
bool
simq_op_multiply (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                  bson_error_t *error);

/* $subtract: numbers, date minus number, date minus date. (vals) */
bool
simq_op_subtract (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                  bson_error_t *error);

/* $divide: a double quotient; 2 "can't $divide by zero". (vals) */
bool
simq_op_divide (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                bson_error_t *error);

/* $mod: the remainder, in the wider of the two types. (vals) */
bool
simq_op_mod (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
             bson_error_t *error);

/* $abs $floor $ceil of one number. (vals) */
bool
simq_op_abs_floor_ceil (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                        bson_error_t *error);

/* $max $min $sum $avg over the arguments (or one array argument). (vals) */
bool
simq_op_min_max_sum_avg (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                         bson_error_t *error);

/* ---- strings (simq_op_string.c) ---- */

/* $concat of strings (null when any is null or missing). (vals) */
bool
simq_op_concat (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                bson_error_t *error);

/* $split of a string by a delimiter. (vals) */
bool
simq_op_split (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
               bson_error_t *error);

/* $substr $substrBytes $substrCP. (vals) */
bool
simq_op_substr (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                bson_error_t *error);

/* $toLower and $toUpper (ASCII). (vals) */
bool
simq_op_to_lower_upper (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                        bson_error_t *error);

/* $strLenBytes and $strLenCP. (vals) */
bool
simq_op_str_len (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                 bson_error_t *error);

/* ---- arrays and objects (simq_op_array.c) ---- */

/* $map and $filter: { input, as, in | cond [, limit] }. (raw) */
bool
simq_op_map_filter (const char *op, const bson_value_t *arg, const simq_ectx_t *ctx, bson_value_t *out,
                    bson_error_t *error);

/* $size of an array. (vals) */
bool
simq_op_size (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
              bson_error_t *error);

/* $isArray. (vals) */
bool
simq_op_is_array (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                  bson_error_t *error);

/* $arrayElemAt with negative indexes from the end. (vals) */
bool
simq_op_array_elem_at (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                       bson_error_t *error);

/* $first and $last of an array. (vals) */
bool
simq_op_first_last (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                    bson_error_t *error);

/* $in: whether the first argument is an element of the array. (vals) */
bool
simq_op_in (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
            bson_error_t *error);

/* $concatArrays (null when any is null or missing). (vals) */
bool
simq_op_concat_arrays (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                       bson_error_t *error);

/* $reverseArray. (vals) */
bool
simq_op_reverse_array (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                       bson_error_t *error);

/* $slice: [array, n] or [array, position, n]. (vals) */
bool
simq_op_slice (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
               bson_error_t *error);

/* $mergeObjects: later fields win; null and missing arguments are skipped. (vals) */
bool
simq_op_merge_objects (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                       bson_error_t *error);

/* ---- types and conversions (simq_op_type.c) ---- */

/* $type: the server's type alias ("missing" for a missing value). (vals) */
bool
simq_op_type (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
              bson_error_t *error);

/* $toString. (vals) */
bool
simq_op_to_string (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                   bson_error_t *error);

/* $toHashedIndexKey: the hashed index key of a value (hashkey). (vals) */
bool
simq_op_to_hashed_index_key (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals,
                             bson_value_t *out, bson_error_t *error);

/* $toInt $toLong $toDouble $toBool. (vals) */
bool
simq_op_convert (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                 bson_error_t *error);

#endif
