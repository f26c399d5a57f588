/* The query engine's aggregation expressions: field paths ("$a.b"), variables ($$ROOT, $$CURRENT, $$NOW,
 * $$REMOVE, $let/$map/$filter variables), object and array expressions, and a set of operators with the server's
 * null/missing propagation, numeric type promotion and error codes. Anything not listed in simq_eval_operator fails
 * with 168 "Unrecognized expression '$x'". Decimal128 arithmetic is not implemented and fails with 238
 * NotImplemented rather than giving an approximate answer. */
#include "tests/shardsim/query/simq_int.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- small value constructors ---- */

static void
simq_set_int32 (bson_value_t *v, int32_t i)
{
   memset (v, 0, sizeof *v);
   v->value_type = BSON_TYPE_INT32;
   v->value.v_int32 = i;
}

static void
simq_set_int64 (bson_value_t *v, int64_t i)
{
   memset (v, 0, sizeof *v);
   v->value_type = BSON_TYPE_INT64;
   v->value.v_int64 = i;
}

static void
simq_set_double (bson_value_t *v, double d)
{
   memset (v, 0, sizeof *v);
   v->value_type = BSON_TYPE_DOUBLE;
   v->value.v_double = d;
}

static void
simq_set_bool (bson_value_t *v, bool b)
{
   memset (v, 0, sizeof *v);
   v->value_type = BSON_TYPE_BOOL;
   v->value.v_bool = b;
}

static void
simq_set_null (bson_value_t *v)
{
   memset (v, 0, sizeof *v);
   v->value_type = BSON_TYPE_NULL;
}

static void
simq_set_date (bson_value_t *v, int64_t ms)
{
   memset (v, 0, sizeof *v);
   v->value_type = BSON_TYPE_DATE_TIME;
   v->value.v_datetime = ms;
}

/* Takes ownership of s (bson_malloc'd, NUL-terminated, len bytes). */
static void
simq_set_string_owned (bson_value_t *v, char *s, size_t len)
{
   memset (v, 0, sizeof *v);
   v->value_type = BSON_TYPE_UTF8;
   v->value.v_utf8.str = s;
   v->value.v_utf8.len = (uint32_t) len;
}

static void
simq_set_string (bson_value_t *v, const char *s, size_t len)
{
   simq_set_string_owned (v, bson_strndup (s, len), len);
}

static bool
simq_nullish (const bson_value_t *v)
{
   return v->value_type == BSON_TYPE_EOD || v->value_type == BSON_TYPE_NULL || v->value_type == BSON_TYPE_UNDEFINED;
}

/* ---- numeric accumulation with the server's type promotion ---- */

typedef struct {
   int widest; /* 0 int32, 1 int64, 2 double */
   int64_t i;
   double d;
   bool decimal;
   size_t count;
} simq_num_t;

static void
simq_num_init (simq_num_t *n)
{
   memset (n, 0, sizeof *n);
}

static void
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

static void
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

/* The size of the value of a BSON element of type t at p (end: the document's end); 0 when the type is unknown or
 * the value does not fit (the caller then walks the document with bson_iter). */
static size_t
simq_raw_value_size (uint8_t t, const uint8_t *p, const uint8_t *end)
{
   size_t avail = (size_t) (end - p);
   uint32_t l;
   switch (t) {
   case BSON_TYPE_UNDEFINED:
   case BSON_TYPE_NULL:
   case BSON_TYPE_MINKEY:
   case BSON_TYPE_MAXKEY:
      return SIZE_MAX; /* no bytes: told apart from failure */
   case BSON_TYPE_BOOL:
      return avail >= 1 ? 1 : 0;
   case BSON_TYPE_INT32:
      return avail >= 4 ? 4 : 0;
   case BSON_TYPE_DOUBLE:
   case BSON_TYPE_DATE_TIME:
   case BSON_TYPE_TIMESTAMP:
   case BSON_TYPE_INT64:
      return avail >= 8 ? 8 : 0;
   case BSON_TYPE_OID:
      return avail >= 12 ? 12 : 0;
   case BSON_TYPE_DECIMAL128:
      return avail >= 16 ? 16 : 0;
   case BSON_TYPE_UTF8:
   case BSON_TYPE_CODE:
   case BSON_TYPE_SYMBOL:
   case BSON_TYPE_DOCUMENT:
   case BSON_TYPE_ARRAY:
   case BSON_TYPE_BINARY:
      if (avail < 4) {
         return 0;
      }
      memcpy (&l, p, 4);
      l = BSON_UINT32_FROM_LE (l);
      if (t == BSON_TYPE_UTF8 || t == BSON_TYPE_CODE || t == BSON_TYPE_SYMBOL) {
         return (size_t) l + 4 <= avail && l > 0 ? (size_t) l + 4 : 0;
      }
      if (t == BSON_TYPE_BINARY) {
         return (size_t) l + 5 <= avail ? (size_t) l + 5 : 0;
      }
      return l >= 5 && l <= avail ? l : 0;
   default:
      return 0;
   }
}

/* Where the top-level field named key[0, len) starts in doc (its type byte), found by stepping over the elements'
 * raw bytes: the first such field, as bson_iter finds it. 1 found (*off, *keylen set), 0 absent, -1 when the walk
 * cannot tell (an unusual type): the caller iterates instead. */
static int
simq_raw_find (const bson_t *doc, const char *key, size_t len, uint32_t *off, uint32_t *keylen)
{
   const uint8_t *data = bson_get_data (doc);
   const uint8_t *end = data + doc->len - 1, *p = data + 4;
   if (doc->len < 5) {
      return -1;
   }
   while (p < end) {
      uint8_t t = *p;
      const uint8_t *k = p + 1;
      const uint8_t *z = memchr (k, 0, (size_t) (end - k));
      if (!z) {
         return -1;
      }
      size_t kl = (size_t) (z - k);
      size_t vs = simq_raw_value_size (t, z + 1, end);
      if (vs == 0) {
         return -1;
      }
      if (kl == len && memcmp (k, key, len) == 0) {
         *off = (uint32_t) (p - data);
         *keylen = (uint32_t) kl;
         return 1;
      }
      p = z + 1 + (vs == SIZE_MAX ? 0 : vs);
   }
   return p == end ? 0 : -1;
}

static void
simq_resolve_in_doc (const bson_t *doc, const char *path, bson_value_t *out)
{
   const char *dot = strchr (path, '.');
   size_t len = dot ? (size_t) (dot - path) : strlen (path);
   bson_iter_t it;
   uint32_t off, keylen;

   simq_value_set_missing (out);
   switch (simq_raw_find (doc, path, len, &off, &keylen)) {
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
         simq_value_free (&sub);
      }
      simq_value_from_doc (&arr, true, out);
      bson_destroy (&arr);
   }
}

void
simq_eval_field_path (const bson_t *doc, const char *path, bson_value_t *out)
{
   simq_resolve_in_doc (doc, path, out);
}

/* ---- helpers for operators ---- */

/* The arguments of an operator: an array's elements, or the single value itself. Borrowed. */
typedef struct {
   bson_value_t v[64];
   size_t n;
} simq_args_t;

static bool
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

static bool
simq_arity (const char *op, const simq_args_t *args, size_t want, bson_error_t *error)
{
   if (args->n != want) {
      return simq_fail (error, 16020, "Expression %s takes exactly %zu arguments. %zu were passed in.", op, want,
                        args->n);
   }
   return true;
}

/* Evaluates every argument into vals (owned; the caller frees n of them). */
static bool
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

static void
simq_free_vals (bson_value_t *vals, size_t n)
{
   for (size_t i = 0; i < n; i++) {
      simq_value_free (&vals[i]);
   }
}

static bool
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
static void
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

static void
simq_format_date (int64_t ms, char *buf, size_t size)
{
   time_t secs = (time_t) (ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
   int millis = (int) (ms - (int64_t) secs * 1000);
   struct tm tm;
   gmtime_r (&secs, &tm);
   snprintf (buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec, millis);
}

static bool
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
static void
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
static size_t
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
static const bson_value_t *
simq_named_arg (const bson_t *spec, const char *name, bson_value_t *slot)
{
   bson_iter_t it;
   if (bson_iter_init_find (&it, spec, name)) {
      *slot = *bson_iter_value (&it);
      return slot;
   }
   return NULL;
}

static bool
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

/* Runs body for each element of input with variable `as` bound ($map, $filter). */
typedef struct {
   const char *op;
   const bson_value_t *input;
   const char *as;
   const bson_value_t *in;   /* $map */
   const bson_value_t *cond; /* $filter */
   int64_t limit;            /* $filter, -1 for none */
} simq_iter_spec_t;

static bool
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
      simq_value_free (&r);
   }
   simq_value_from_doc (&arr, true, out);
   ok = true;
cleanup:
   bson_free (elems);
   bson_destroy (&arr);
   simq_value_free (&input);
   return ok;
}

/* ---- the operators ---- */

typedef enum { SIMQ_X_EQ, SIMQ_X_NE, SIMQ_X_GT, SIMQ_X_GTE, SIMQ_X_LT, SIMQ_X_LTE, SIMQ_X_CMP } simq_xcmp_t;

static bool
simq_eval_operator (const char *op, const bson_value_t *arg, const simq_ectx_t *ctx, bson_value_t *out,
                    bson_error_t *error)
{
   simq_args_t args;
   bson_value_t vals[64];
   size_t nvals = 0;
   bool ok = false;
   bson_t spec;

   simq_value_set_missing (out);

   if (strcmp (op, "$literal") == 0) {
      simq_value_copy (arg, out);
      return true;
   }

   /* Operators with named arguments. */
   if (strcmp (op, "$cond") == 0 && arg->value_type == BSON_TYPE_DOCUMENT) {
      static const char *const allowed[] = { "if", "then", "else", NULL };
      bson_value_t s_if, s_then, s_else, c;
      simq_value_as_doc (arg, &spec);
      if (!simq_check_named (&spec, op, allowed, 17083, error)) {
         return false;
      }
      if (!simq_named_arg (&spec, "if", &s_if)) {
         return simq_fail (error, 17080, "Missing 'if' parameter to $cond");
      }
      if (!simq_named_arg (&spec, "then", &s_then)) {
         return simq_fail (error, 17081, "Missing 'then' parameter to $cond");
      }
      if (!simq_named_arg (&spec, "else", &s_else)) {
         return simq_fail (error, 17082, "Missing 'else' parameter to $cond");
      }
      if (!simq_eval (&s_if, ctx, &c, error)) {
         return false;
      }
      ok = simq_eval (simq_truthy (&c) ? &s_then : &s_else, ctx, out, error);
      simq_value_free (&c);
      return ok;
   }
   if (strcmp (op, "$let") == 0) {
      bson_value_t s_vars, s_in;
      bson_t vars_doc;
      bson_iter_t it;
      simq_var_t *head = ctx->vars, *node;
      simq_ectx_t inner = *ctx;
      if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &spec) ||
          !simq_named_arg (&spec, "vars", &s_vars) || !simq_named_arg (&spec, "in", &s_in) ||
          !simq_value_as_doc (&s_vars, &vars_doc)) {
         return simq_fail (error, 16866, "$let only supports an object as its argument");
      }
      bson_iter_init (&it, &vars_doc);
      ok = true;
      while (ok && bson_iter_next (&it)) {
         node = bson_malloc0 (sizeof *node);
         node->name = bson_iter_key (&it);
         node->next = head;
         head = node;
         ok = simq_eval (bson_iter_value (&it), ctx, &node->value, error);
      }
      inner.vars = head;
      if (ok) {
         ok = simq_eval (&s_in, &inner, out, error);
      }
      while (head != ctx->vars) {
         node = head;
         head = head->next;
         simq_value_free (&node->value);
         bson_free (node);
      }
      return ok;
   }
   if (strcmp (op, "$map") == 0 || strcmp (op, "$filter") == 0) {
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
                  simq_value_free (&lv);
                  return simq_fail (error, 327391, "$filter: limit must be greater than 0");
               }
               it_spec.limit = l;
            }
            simq_value_free (&lv);
         }
      }
      return simq_map_filter (&it_spec, ctx, out, error);
   }
   if (strcmp (op, "$switch") == 0) {
      bson_value_t s_branches, s_default;
      bson_t branches;
      bson_iter_t it;
      if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &spec)) {
         return simq_fail (error, 40060, "$switch requires an object as an argument");
      }
      if (!simq_named_arg (&spec, "branches", &s_branches) || !simq_value_as_doc (&s_branches, &branches)) {
         return simq_fail (error, 40061, "$switch expected an array for 'branches'");
      }
      bson_iter_init (&it, &branches);
      while (bson_iter_next (&it)) {
         bson_t br;
         bson_value_t s_case, s_then, c;
         if (!simq_value_as_doc (bson_iter_value (&it), &br) || !simq_named_arg (&br, "case", &s_case)) {
            return simq_fail (error, 40064, "$switch requires each branch have a 'case' expression");
         }
         if (!simq_named_arg (&br, "then", &s_then)) {
            return simq_fail (error, 40065, "$switch requires each branch have a 'then' expression.");
         }
         if (!simq_eval (&s_case, ctx, &c, error)) {
            return false;
         }
         if (simq_truthy (&c)) {
            simq_value_free (&c);
            return simq_eval (&s_then, ctx, out, error);
         }
         simq_value_free (&c);
      }
      if (simq_named_arg (&spec, "default", &s_default)) {
         return simq_eval (&s_default, ctx, out, error);
      }
      return simq_fail (error, 40066,
                        "$switch could not find a matching branch for an input, and no default was specified.");
   }

   /* Positional operators: evaluate the arguments first. */
   if (!simq_collect_args (op, arg, &args, error)) {
      return false;
   }

   if (strcmp (op, "$ifNull") == 0) {
      if (args.n < 2) {
         return simq_fail (error, 1257300, "$ifNull needs at least two arguments, had: %zu", args.n);
      }
      for (size_t i = 0; i < args.n; i++) {
         bson_value_t v;
         if (!simq_eval (&args.v[i], ctx, &v, error)) {
            return false;
         }
         if (!simq_nullish (&v) || i + 1 == args.n) {
            *out = v;
            return true;
         }
         simq_value_free (&v);
      }
      return true;
   }
   if (strcmp (op, "$cond") == 0) {
      bson_value_t c;
      if (!simq_arity (op, &args, 3, error) || !simq_eval (&args.v[0], ctx, &c, error)) {
         return false;
      }
      ok = simq_eval (simq_truthy (&c) ? &args.v[1] : &args.v[2], ctx, out, error);
      simq_value_free (&c);
      return ok;
   }
   if (strcmp (op, "$and") == 0 || strcmp (op, "$or") == 0) {
      bool is_and = op[1] == 'a';
      for (size_t i = 0; i < args.n; i++) {
         bson_value_t v;
         bool t;
         if (!simq_eval (&args.v[i], ctx, &v, error)) {
            return false;
         }
         t = simq_truthy (&v);
         simq_value_free (&v);
         if (is_and != t) {
            simq_set_bool (out, !is_and);
            return true;
         }
      }
      simq_set_bool (out, is_and);
      return true;
   }

   nvals = args.n;
   if (!simq_eval_args (&args, ctx, vals, error)) {
      goto cleanup;
   }

   if (strcmp (op, "$eq") == 0 || strcmp (op, "$ne") == 0 || strcmp (op, "$gt") == 0 || strcmp (op, "$gte") == 0 ||
       strcmp (op, "$lt") == 0 || strcmp (op, "$lte") == 0 || strcmp (op, "$cmp") == 0) {
      int c;
      if (!simq_arity (op, &args, 2, error)) {
         goto cleanup;
      }
      c = order_values (&vals[0], &vals[1]);
      if (strcmp (op, "$cmp") == 0) {
         simq_set_int32 (out, c < 0 ? -1 : (c > 0 ? 1 : 0));
      } else if (strcmp (op, "$eq") == 0) {
         simq_set_bool (out, c == 0);
      } else if (strcmp (op, "$ne") == 0) {
         simq_set_bool (out, c != 0);
      } else if (strcmp (op, "$gt") == 0) {
         simq_set_bool (out, c > 0);
      } else if (strcmp (op, "$gte") == 0) {
         simq_set_bool (out, c >= 0);
      } else if (strcmp (op, "$lt") == 0) {
         simq_set_bool (out, c < 0);
      } else {
         simq_set_bool (out, c <= 0);
      }
      ok = true;
   } else if (strcmp (op, "$not") == 0) {
      if (simq_arity (op, &args, 1, error)) {
         simq_set_bool (out, !simq_truthy (&vals[0]));
         ok = true;
      }
   } else if (strcmp (op, "$add") == 0) {
      simq_num_t n;
      bool have_date = false, is_null = false;
      int64_t date = 0;
      simq_num_init (&n);
      if (!simq_no_decimal (op, vals, nvals, error)) {
         goto cleanup;
      }
      for (size_t i = 0; i < nvals; i++) {
         if (simq_nullish (&vals[i])) {
            is_null = true;
         } else if (vals[i].value_type == BSON_TYPE_DATE_TIME) {
            if (have_date) {
               simq_fail (error, 16612, "only one date allowed in an $add expression");
               goto cleanup;
            }
            have_date = true;
            date = vals[i].value.v_datetime;
         } else if (simq_is_number (&vals[i])) {
            simq_num_add (&n, &vals[i]);
         } else {
            simq_fail (error, 14, "$add only supports numeric or date types, not %s",
                       simq_type_name (vals[i].value_type));
            goto cleanup;
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
   } else if (strcmp (op, "$multiply") == 0) {
      int widest = 0;
      int64_t iprod = 1;
      double dprod = 1;
      bool is_null = false, overflow = false;
      if (!simq_no_decimal (op, vals, nvals, error)) {
         goto cleanup;
      }
      for (size_t i = 0; i < nvals; i++) {
         if (simq_nullish (&vals[i])) {
            is_null = true;
            continue;
         }
         if (!simq_is_number (&vals[i])) {
            simq_fail (error, 16555, "$multiply only supports numeric types, not %s",
                       simq_type_name (vals[i].value_type));
            goto cleanup;
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
   } else if (strcmp (op, "$subtract") == 0) {
      const bson_value_t *a = &vals[0], *b = &vals[1];
      if (!simq_arity (op, &args, 2, error) || !simq_no_decimal (op, vals, nvals, error)) {
         goto cleanup;
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
         goto cleanup;
      }
      ok = true;
   } else if (strcmp (op, "$divide") == 0) {
      if (!simq_arity (op, &args, 2, error) || !simq_no_decimal (op, vals, nvals, error)) {
         goto cleanup;
      }
      if (simq_nullish (&vals[0]) || simq_nullish (&vals[1])) {
         simq_set_null (out);
      } else if (!simq_is_number (&vals[0]) || !simq_is_number (&vals[1])) {
         simq_fail (error, 16609, "$divide only supports numeric types, not %s and %s",
                    simq_type_name (vals[0].value_type), simq_type_name (vals[1].value_type));
         goto cleanup;
      } else if (simq_to_double (&vals[1]) == 0) {
         simq_fail (error, 2, "can't $divide by zero");
         goto cleanup;
      } else {
         simq_set_double (out, simq_to_double (&vals[0]) / simq_to_double (&vals[1]));
      }
      ok = true;
   } else if (strcmp (op, "$mod") == 0) {
      if (!simq_arity (op, &args, 2, error) || !simq_no_decimal (op, vals, nvals, error)) {
         goto cleanup;
      }
      if (simq_nullish (&vals[0]) || simq_nullish (&vals[1])) {
         simq_set_null (out);
      } else if (!simq_is_number (&vals[0]) || !simq_is_number (&vals[1])) {
         simq_fail (error, 16611, "$mod only supports numeric types, not %s and %s",
                    simq_type_name (vals[0].value_type), simq_type_name (vals[1].value_type));
         goto cleanup;
      } else if (simq_to_double (&vals[1]) == 0) {
         simq_fail (error, 16610, "can't $mod by zero");
         goto cleanup;
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
   } else if (strcmp (op, "$abs") == 0 || strcmp (op, "$floor") == 0 || strcmp (op, "$ceil") == 0) {
      const bson_value_t *a = &vals[0];
      if (!simq_arity (op, &args, 1, error) || !simq_no_decimal (op, vals, nvals, error)) {
         goto cleanup;
      }
      if (simq_nullish (a)) {
         simq_set_null (out);
      } else if (!simq_is_number (a)) {
         simq_fail (error, 28765, "%s only supports numeric types, not %s", op, simq_type_name (a->value_type));
         goto cleanup;
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
         goto cleanup;
      } else {
         simq_set_int64 (out, a->value.v_int64 < 0 ? -a->value.v_int64 : a->value.v_int64);
      }
      ok = true;
   } else if (strcmp (op, "$concat") == 0) {
      size_t total = 0, pos = 0;
      char *s;
      for (size_t i = 0; i < nvals; i++) {
         if (simq_nullish (&vals[i])) {
            simq_set_null (out);
            ok = true;
            goto cleanup;
         }
         if (vals[i].value_type != BSON_TYPE_UTF8) {
            simq_fail (error, 16702, "$concat only supports strings, not %s", simq_type_name (vals[i].value_type));
            goto cleanup;
         }
         total += vals[i].value.v_utf8.len;
      }
      s = bson_malloc (total + 1);
      for (size_t i = 0; i < nvals; i++) {
         memcpy (s + pos, vals[i].value.v_utf8.str, vals[i].value.v_utf8.len);
         pos += vals[i].value.v_utf8.len;
      }
      s[total] = '\0';
      simq_set_string_owned (out, s, total);
      ok = true;
   } else if (strcmp (op, "$size") == 0) {
      bson_t arr;
      if (!simq_arity (op, &args, 1, error)) {
         goto cleanup;
      }
      if (vals[0].value_type != BSON_TYPE_ARRAY || !simq_value_as_doc (&vals[0], &arr)) {
         simq_fail (error, 17124, "The argument to $size must be an array. Type of argument was: %s",
                    simq_type_name (vals[0].value_type));
         goto cleanup;
      }
      simq_set_int32 (out, (int32_t) bson_count_keys (&arr));
      ok = true;
   } else if (strcmp (op, "$isArray") == 0) {
      if (simq_arity (op, &args, 1, error)) {
         simq_set_bool (out, vals[0].value_type == BSON_TYPE_ARRAY);
         ok = true;
      }
   } else if (strcmp (op, "$type") == 0) {
      if (simq_arity (op, &args, 1, error)) {
         const char *t = simq_type_name (vals[0].value_type);
         simq_set_string (out, t, strlen (t));
         ok = true;
      }
   } else if (strcmp (op, "$arrayElemAt") == 0) {
      int64_t idx;
      bson_value_t *elems = NULL;
      size_t n;
      if (!simq_arity (op, &args, 2, error)) {
         goto cleanup;
      }
      if (simq_nullish (&vals[0]) || simq_nullish (&vals[1])) {
         simq_set_null (out);
         ok = true;
         goto cleanup;
      }
      if (vals[0].value_type != BSON_TYPE_ARRAY) {
         simq_fail (error, 28689, "$arrayElemAt's first argument must be an array, but is %s",
                    simq_type_name (vals[0].value_type));
         goto cleanup;
      }
      if (!simq_is_number (&vals[1])) {
         simq_fail (error, 28690, "$arrayElemAt's second argument must be a numeric value, but is %s",
                    simq_type_name (vals[1].value_type));
         goto cleanup;
      }
      if (!simq_is_integral_number (&vals[1], &idx) || idx < INT32_MIN || idx > INT32_MAX) {
         char *j = simq_value_json (&vals[1]);
         simq_fail (error, 28691, "$arrayElemAt's second argument must be representable as a 32-bit integer: %s", j);
         bson_free (j);
         goto cleanup;
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
   } else if (strcmp (op, "$first") == 0 || strcmp (op, "$last") == 0) {
      bson_value_t *elems = NULL;
      size_t n;
      if (!simq_arity (op, &args, 1, error)) {
         goto cleanup;
      }
      if (simq_nullish (&vals[0])) {
         simq_set_null (out);
         ok = true;
         goto cleanup;
      }
      if (vals[0].value_type != BSON_TYPE_ARRAY) {
         simq_fail (error, 28689, "%s's argument must be an array, but is %s", op, simq_type_name (vals[0].value_type));
         goto cleanup;
      }
      n = simq_array_elems (&vals[0], &elems);
      if (n > 0) {
         simq_value_copy (&elems[op[1] == 'f' ? 0 : n - 1], out);
      }
      bson_free (elems);
      ok = true;
   } else if (strcmp (op, "$toString") == 0) {
      if (!simq_arity (op, &args, 1, error)) {
         goto cleanup;
      }
      if (simq_nullish (&vals[0])) {
         simq_set_null (out);
         ok = true;
      } else {
         ok = simq_to_string (&vals[0], out, error);
      }
   } else if (strcmp (op, "$toHashedIndexKey") == 0) {
      if (simq_arity (op, &args, 1, error)) {
         bson_value_t null_v;
         simq_set_null (&null_v);
         simq_set_int64 (out, hashkey_value (simq_value_missing (&vals[0]) ? &null_v : &vals[0]));
         ok = true;
      }
   } else if (strcmp (op, "$max") == 0 || strcmp (op, "$min") == 0 || strcmp (op, "$sum") == 0 ||
              strcmp (op, "$avg") == 0) {
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
   } else if (strcmp (op, "$in") == 0) {
      bson_value_t *elems = NULL;
      size_t n;
      bool found = false;
      if (!simq_arity (op, &args, 2, error)) {
         goto cleanup;
      }
      if (vals[1].value_type != BSON_TYPE_ARRAY) {
         simq_fail (error, 40081, "$in requires an array as a second argument, found: %s",
                    simq_type_name (vals[1].value_type));
         goto cleanup;
      }
      n = simq_array_elems (&vals[1], &elems);
      for (size_t i = 0; i < n && !found; i++) {
         found = order_values (&vals[0], &elems[i]) == 0;
      }
      bson_free (elems);
      simq_set_bool (out, found);
      ok = true;
   } else if (strcmp (op, "$split") == 0) {
      bson_t arr = BSON_INITIALIZER;
      const char *s, *d, *p;
      size_t slen, dlen;
      uint32_t k = 0;
      char key[24];
      if (!simq_arity (op, &args, 2, error)) {
         bson_destroy (&arr);
         goto cleanup;
      }
      if (simq_nullish (&vals[0]) || simq_nullish (&vals[1])) {
         simq_set_null (out);
         ok = true;
         bson_destroy (&arr);
         goto cleanup;
      }
      if (vals[0].value_type != BSON_TYPE_UTF8) {
         simq_fail (error, 40085,
                    "$split requires an expression that evaluates to a string as a first argument, found: %s",
                    simq_type_name (vals[0].value_type));
         bson_destroy (&arr);
         goto cleanup;
      }
      if (vals[1].value_type != BSON_TYPE_UTF8) {
         simq_fail (error, 40086,
                    "$split requires an expression that evaluates to a string as a second argument, found: %s",
                    simq_type_name (vals[1].value_type));
         bson_destroy (&arr);
         goto cleanup;
      }
      s = vals[0].value.v_utf8.str;
      slen = vals[0].value.v_utf8.len;
      d = vals[1].value.v_utf8.str;
      dlen = vals[1].value.v_utf8.len;
      if (dlen == 0) {
         simq_fail (error, 40087, "$split requires a non-empty separator");
         bson_destroy (&arr);
         goto cleanup;
      }
      p = s;
      for (;;) {
         const char *hit = NULL;
         for (const char *q = p; q + dlen <= s + slen; q++) {
            if (memcmp (q, d, dlen) == 0) {
               hit = q;
               break;
            }
         }
         snprintf (key, sizeof key, "%u", k++);
         if (!hit) {
            bson_append_utf8 (&arr, key, -1, p, (int) (s + slen - p));
            break;
         }
         bson_append_utf8 (&arr, key, -1, p, (int) (hit - p));
         p = hit + dlen;
      }
      simq_value_from_doc (&arr, true, out);
      bson_destroy (&arr);
      ok = true;
   } else if (strcmp (op, "$substr") == 0 || strcmp (op, "$substrBytes") == 0 || strcmp (op, "$substrCP") == 0) {
      bool cp = strcmp (op, "$substrCP") == 0;
      int64_t start, count;
      const char *s = "";
      size_t slen = 0, b0, b1;
      bson_value_t str;
      if (!simq_arity (op, &args, 3, error)) {
         goto cleanup;
      }
      if (!simq_nullish (&vals[0])) {
         if (!simq_to_string (&vals[0], &str, error)) {
            goto cleanup;
         }
         simq_value_free (&vals[0]);
         vals[0] = str;
         s = vals[0].value.v_utf8.str;
         slen = vals[0].value.v_utf8.len;
      }
      if (!simq_is_number (&vals[1]) || !simq_is_number (&vals[2])) {
         simq_fail (error, cp ? 34450 : 16034, "%s: starting index and length must be numeric types", op);
         goto cleanup;
      }
      start = (int64_t) simq_to_double (&vals[1]);
      count = (int64_t) simq_to_double (&vals[2]);
      if (start < 0) {
         simq_fail (error, cp ? 34455 : 50752, "%s: starting index must be non-negative", op);
         goto cleanup;
      }
      if (cp) {
         /* Walk code points. */
         size_t pos = 0;
         int64_t i = 0;
         while (pos < slen && i < start) {
            pos++;
            while (pos < slen && (s[pos] & 0xC0) == 0x80) {
               pos++;
            }
            i++;
         }
         b0 = pos;
         i = 0;
         while (pos < slen && (count < 0 || i < count)) {
            pos++;
            while (pos < slen && (s[pos] & 0xC0) == 0x80) {
               pos++;
            }
            i++;
         }
         b1 = pos;
      } else {
         b0 = (size_t) start < slen ? (size_t) start : slen;
         b1 = count < 0 || (size_t) count > slen - b0 ? slen : b0 + (size_t) count;
         if ((b0 < slen && (s[b0] & 0xC0) == 0x80) || (b1 < slen && (s[b1] & 0xC0) == 0x80)) {
            simq_fail (error, 28656, "$substrBytes:  Invalid range, starting index is a UTF-8 continuation byte.");
            goto cleanup;
         }
      }
      simq_set_string (out, s + b0, b1 - b0);
      ok = true;
   } else if (strcmp (op, "$toLower") == 0 || strcmp (op, "$toUpper") == 0) {
      bson_value_t str;
      if (!simq_arity (op, &args, 1, error)) {
         goto cleanup;
      }
      if (simq_nullish (&vals[0])) {
         simq_set_string (out, "", 0);
         ok = true;
         goto cleanup;
      }
      if (!simq_to_string (&vals[0], &str, error)) {
         goto cleanup;
      }
      for (uint32_t i = 0; i < str.value.v_utf8.len; i++) {
         char c = str.value.v_utf8.str[i];
         if (op[3] == 'L' && c >= 'A' && c <= 'Z') {
            str.value.v_utf8.str[i] = (char) (c - 'A' + 'a');
         } else if (op[3] == 'U' && c >= 'a' && c <= 'z') {
            str.value.v_utf8.str[i] = (char) (c - 'a' + 'A');
         }
      }
      *out = str;
      ok = true;
   } else if (strcmp (op, "$strLenBytes") == 0 || strcmp (op, "$strLenCP") == 0) {
      int32_t n = 0;
      if (!simq_arity (op, &args, 1, error)) {
         goto cleanup;
      }
      if (vals[0].value_type != BSON_TYPE_UTF8) {
         simq_fail (error, op[7] == 'B' ? 34473 : 34471, "%s requires a string argument, found: %s", op,
                    simq_type_name (vals[0].value_type));
         goto cleanup;
      }
      for (uint32_t i = 0; i < vals[0].value.v_utf8.len; i++) {
         if (op[7] == 'B' || (vals[0].value.v_utf8.str[i] & 0xC0) != 0x80) {
            n++;
         }
      }
      simq_set_int32 (out, n);
      ok = true;
   } else if (strcmp (op, "$concatArrays") == 0) {
      bson_t arr = BSON_INITIALIZER;
      uint32_t k = 0;
      for (size_t i = 0; i < nvals; i++) {
         if (simq_nullish (&vals[i])) {
            simq_set_null (out);
            ok = true;
            bson_destroy (&arr);
            goto cleanup;
         }
         if (vals[i].value_type != BSON_TYPE_ARRAY) {
            simq_fail (error, 28664, "$concatArrays only supports arrays, not %s", simq_type_name (vals[i].value_type));
            bson_destroy (&arr);
            goto cleanup;
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
   } else if (strcmp (op, "$reverseArray") == 0) {
      bson_value_t *elems = NULL, *rev;
      size_t n;
      if (!simq_arity (op, &args, 1, error)) {
         goto cleanup;
      }
      if (simq_nullish (&vals[0])) {
         simq_set_null (out);
         ok = true;
         goto cleanup;
      }
      if (vals[0].value_type != BSON_TYPE_ARRAY) {
         simq_fail (error, 34435, "The argument to $reverseArray must be an array, but was of type: %s",
                    simq_type_name (vals[0].value_type));
         goto cleanup;
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
   } else if (strcmp (op, "$slice") == 0) {
      bson_value_t *elems = NULL;
      size_t n;
      int64_t pos = 0, cnt;
      if (nvals != 2 && nvals != 3) {
         simq_fail (error, 28667,
                    "Expression $slice takes at least 2 arguments, and at most 3, but %zu were passed in.", nvals);
         goto cleanup;
      }
      if (simq_nullish (&vals[0])) {
         simq_set_null (out);
         ok = true;
         goto cleanup;
      }
      if (vals[0].value_type != BSON_TYPE_ARRAY) {
         simq_fail (error, 28724, "First argument to $slice must be an array, but is of type: %s",
                    simq_type_name (vals[0].value_type));
         goto cleanup;
      }
      n = simq_array_elems (&vals[0], &elems);
      if (nvals == 2) {
         if (!simq_is_integral_number (&vals[1], &cnt)) {
            bson_free (elems);
            simq_fail (error, 28725, "Second argument to $slice must be a numeric value");
            goto cleanup;
         }
         if (cnt < 0) {
            pos = (int64_t) n + cnt < 0 ? 0 : (int64_t) n + cnt;
            cnt = -cnt;
         }
      } else {
         if (!simq_is_integral_number (&vals[1], &pos) || !simq_is_integral_number (&vals[2], &cnt) || cnt <= 0) {
            bson_free (elems);
            simq_fail (error, 28729, "Third argument to $slice must be positive");
            goto cleanup;
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
   } else if (strcmp (op, "$mergeObjects") == 0) {
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
   } else if (strcmp (op, "$toInt") == 0 || strcmp (op, "$toLong") == 0 || strcmp (op, "$toDouble") == 0 ||
              strcmp (op, "$toBool") == 0) {
      const bson_value_t *a = &vals[0];
      char target = op[3]; /* I, L, D, B */
      double d = 0;
      if (!simq_arity (op, &args, 1, error) || !simq_no_decimal (op, vals, nvals, error)) {
         goto cleanup;
      }
      if (simq_nullish (a)) {
         simq_set_null (out);
         ok = true;
         goto cleanup;
      }
      if (target == 'B') {
         simq_set_bool (out, simq_truthy (a));
         ok = true;
         goto cleanup;
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
            simq_fail (error, 241, "Failed to parse number '%s' in $convert with no onError value",
                       a->value.v_utf8.str);
            goto cleanup;
         }
      } else {
         simq_fail (error, 241, "Unsupported conversion from %s to %s in $convert with no onError value",
                    simq_type_name (a->value_type), target == 'I' ? "int" : (target == 'L' ? "long" : "double"));
         goto cleanup;
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
         goto cleanup;
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
   } else {
      simq_fail (error, 168, "Unrecognized expression '%s'", op);
   }

cleanup:
   simq_free_vals (vals, nvals);
   if (!ok) {
      simq_value_free (out);
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
         ok = simq_eval (bson_iter_value (&it), ctx, &v, error);
         if (ok) {
            simq_append_value (&built, key, (int) bson_iter_key_len (&it), &v);
         }
         simq_value_free (&v);
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
         simq_value_free (&v);
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
