/* The query engine's matcher: MongoDB query filters ({ a: 1 }, { "b.c": { $gt: 5 } }, $and/$or/$nor, $expr, ...)
 * evaluated against one document with the server's array traversal, type bracketing and null/missing rules.
 *
 * $regex runs on POSIX extended regular expressions (regcomp, REG_EXTENDED): \d \D are rewritten to bracket
 * expressions, \w \W \s \S \b rely on the GNU extensions, flag i maps to REG_ICASE, m to REG_NEWLINE, x strips
 * unescaped whitespace and #-comments, s is accepted. Known differences from PCRE: without m, '.' also matches a
 * newline; with both m and s, '.' does not; lookaround, backreferences in alternations, possessive quantifiers and
 * \A \z are not available (the pattern fails to compile and the query fails with 51091, never a silent mismatch);
 * lazy quantifiers behave greedily, which does not change whether a string matches. */
#include "tests/shardsim/query/simq_int.h"

#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static bool
simq_match_doc (const bson_t *doc, const bson_t *filter, const simq_ectx_t *ctx, bool *matched, bson_error_t *error);

/* ---- regular expressions ---- */

/* Translates a PCRE-flavoured pattern to POSIX ERE (see the file comment). Caller frees. */
static char *
simq_regex_translate (const char *pattern, bool extended)
{
   size_t len = strlen (pattern);
   char *out = bson_malloc (len * 12 + 1);
   size_t o = 0;
   bool in_class = false;

   for (size_t i = 0; i < len; i++) {
      char c = pattern[i];
      if (c == '\\' && i + 1 < len) {
         char n = pattern[++i];
         const char *rep = NULL;
         if (n == 'd') {
            rep = in_class ? "0-9" : "[0-9]";
         } else if (n == 'D') {
            rep = in_class ? NULL : "[^0-9]";
         } else if (n == 's' && in_class) {
            rep = "[:space:]";
         } else if (n == 'w' && in_class) {
            rep = "[:alnum:]_";
         }
         if (rep) {
            size_t rl = strlen (rep);
            memcpy (out + o, rep, rl);
            o += rl;
         } else if (in_class) {
            /* Inside a bracket expression a backslash is literal in POSIX: keep only the escaped char. */
            out[o++] = n;
         } else {
            out[o++] = '\\';
            out[o++] = n;
         }
         continue;
      }
      if (in_class) {
         if (c == ']') {
            in_class = false;
         }
         out[o++] = c;
         continue;
      }
      if (c == '[') {
         in_class = true;
         out[o++] = c;
         if (i + 1 < len && pattern[i + 1] == '^') {
            out[o++] = pattern[++i];
         }
         if (i + 1 < len && pattern[i + 1] == ']') {
            out[o++] = pattern[++i];
         }
         continue;
      }
      if (extended && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')) {
         continue;
      }
      if (extended && c == '#') {
         while (i + 1 < len && pattern[i + 1] != '\n') {
            i++;
         }
         continue;
      }
      out[o++] = c;
   }
   out[o] = '\0';
   return out;
}

/* A compiled regex; false with 51108 / 51091 when the options or the pattern are invalid. */
static bool
simq_regex_compile (const char *pattern, const char *options, regex_t *re, bson_error_t *error)
{
   int cflags = REG_EXTENDED | REG_NOSUB;
   bool extended = false;
   char *translated;
   int rc;

   for (const char *o = options; *o; o++) {
      switch (*o) {
      case 'i':
         cflags |= REG_ICASE;
         break;
      case 'm':
         cflags |= REG_NEWLINE;
         break;
      case 'x':
         extended = true;
         break;
      case 's':
      case 'u':
         break;
      default:
         return simq_fail (error, 51108, "invalid flag in regex options: %c", *o);
      }
   }
   translated = simq_regex_translate (pattern, extended);
   rc = regcomp (re, translated, cflags);
   bson_free (translated);
   if (rc != 0) {
      char msg[128];
      regerror (rc, re, msg, sizeof msg);
      return simq_fail (error, 51091, "Regular expression is invalid: %s", msg);
   }
   return true;
}

/* Does any value reached satisfy the regex (pattern, options)? Strings and symbols are matched; a regex value
 * matches when it is the same regex. The pattern is compiled even when nothing is a string, so a bad pattern or
 * option fails for every document. */
static bool
simq_regex_pvals (const simq_pvals_t *pv, const char *pattern, const char *options, bool *out, bson_error_t *error)
{
   regex_t re;

   *out = false;
   if (!simq_regex_compile (pattern, options, &re, error)) {
      return false;
   }
   for (size_t i = 0; i < pv->n && !*out; i++) {
      const bson_value_t *v = &pv->v[i].v;
      const char *s = NULL;
      if (v->value_type == BSON_TYPE_REGEX) {
         *out = strcmp (v->value.v_regex.regex, pattern) == 0 && strcmp (v->value.v_regex.options, options) == 0;
         continue;
      }
      if (v->value_type == BSON_TYPE_UTF8) {
         s = v->value.v_utf8.str;
      } else if (v->value_type == BSON_TYPE_SYMBOL) {
         s = v->value.v_symbol.symbol;
      }
      if (s) {
         *out = regexec (&re, s, 0, NULL, 0) == 0;
      }
   }
   regfree (&re);
   return true;
}

/* ---- per-value predicates ---- */

static bool
simq_is_nan (const bson_value_t *v)
{
   return (v->value_type == BSON_TYPE_DOUBLE || v->value_type == BSON_TYPE_DECIMAL128) && isnan (simq_to_double (v));
}

typedef enum { SIMQ_EQ, SIMQ_LT, SIMQ_LTE, SIMQ_GT, SIMQ_GTE } simq_cmp_op_t;

/* ComparisonMatchExpression on one value: type bracketing (only values of the operand's canonical type compare,
 * except for MinKey / MaxKey operands), NaN equal only to NaN. */
static bool
simq_cmp_value (const bson_value_t *v, const bson_value_t *x, simq_cmp_op_t op)
{
   int c;
   if (hashkey_canonical_type (v->value_type) != hashkey_canonical_type (x->value_type)) {
      if (x->value_type != BSON_TYPE_MINKEY && x->value_type != BSON_TYPE_MAXKEY) {
         return false;
      }
   } else if (simq_is_nan (v) || simq_is_nan (x)) {
      bool both = simq_is_nan (v) && simq_is_nan (x);
      return both && (op == SIMQ_EQ || op == SIMQ_LTE || op == SIMQ_GTE);
   }
   c = order_values (v, x);
   switch (op) {
   case SIMQ_EQ:
      return c == 0;
   case SIMQ_LT:
      return c < 0;
   case SIMQ_LTE:
      return c <= 0;
   case SIMQ_GT:
      return c > 0;
   case SIMQ_GTE:
      return c >= 0;
   }
   return false;
}

/* A comparison over everything the path reached; a null operand with $eq/$lte/$gte also matches a missing path. */
static bool
simq_cmp_pvals (const simq_pvals_t *pv, const bson_value_t *x, simq_cmp_op_t op)
{
   if (x->value_type == BSON_TYPE_NULL && op != SIMQ_LT && op != SIMQ_GT && (pv->missing || pv->n == 0)) {
      return true;
   }
   for (size_t i = 0; i < pv->n; i++) {
      if (simq_cmp_value (&pv->v[i].v, x, op)) {
         return true;
      }
   }
   return false;
}

/* Equality or, for a regex operand, a regex match: what { a: x } and the elements of $in / $all mean. */
static bool
simq_eq_or_regex (const simq_pvals_t *pv, const bson_value_t *x, bool *out, bson_error_t *error)
{
   *out = false;
   if (x->value_type == BSON_TYPE_REGEX) {
      return simq_regex_pvals (pv, x->value.v_regex.regex, x->value.v_regex.options, out, error);
   }
   *out = simq_cmp_pvals (pv, x, SIMQ_EQ);
   return true;
}

static const struct {
   const char *name;
   int code;
} simq_type_aliases[] = {
   { "double", 1 },    { "string", 2 },     { "object", 3 },      { "array", 4 },    { "binData", 5 },
   { "undefined", 6 }, { "objectId", 7 },   { "bool", 8 },        { "date", 9 },     { "null", 10 },
   { "regex", 11 },    { "dbPointer", 12 }, { "javascript", 13 }, { "symbol", 14 },  { "javascriptWithScope", 15 },
   { "int", 16 },      { "timestamp", 17 }, { "long", 18 },       { "decimal", 19 }, { "minKey", -1 },
   { "maxKey", 127 },  { "number", 1000 },
};

/* Parses one $type operand into a type code (1000 for "number"). */
static bool
simq_parse_type (const bson_value_t *v, int *code, bson_error_t *error)
{
   int64_t n;
   if (v->value_type == BSON_TYPE_UTF8) {
      for (size_t i = 0; i < sizeof simq_type_aliases / sizeof simq_type_aliases[0]; i++) {
         if (strcmp (simq_type_aliases[i].name, v->value.v_utf8.str) == 0) {
            *code = simq_type_aliases[i].code;
            return true;
         }
      }
      return simq_fail (error, 2, "Unknown type name alias: %s", v->value.v_utf8.str);
   }
   if (simq_is_integral_number (v, &n)) {
      if ((n >= 1 && n <= 19) || n == -1 || n == 127) {
         *code = (int) n;
         return true;
      }
      return simq_fail (error, 2, "Invalid numerical type code: %lld", (long long) n);
   }
   return simq_fail (error, 14, "type must be represented as a number or a string");
}

static bool
simq_has_type (const bson_value_t *v, int code)
{
   if (code == 1000) {
      return simq_is_number (v);
   }
   if (code == -1) {
      return v->value_type == BSON_TYPE_MINKEY;
   }
   return (int) v->value_type == code;
}

/* ---- operators on a field ---- */

static bool
simq_match_ops (const bson_t *doc, const char *path, const simq_pvals_t *pv, const bson_t *ops, const simq_ectx_t *ctx,
                bool *matched, bson_error_t *error);

static bool
simq_in (const simq_pvals_t *pv, const bson_value_t *arg, const char *op, bool *out, bson_error_t *error)
{
   bson_t arr;
   bson_iter_t it;

   *out = false;
   if (arg->value_type != BSON_TYPE_ARRAY || !simq_value_as_doc (arg, &arr) || !bson_iter_init (&it, &arr)) {
      return simq_fail (error, 2, "%s needs an array", op);
   }
   while (bson_iter_next (&it)) {
      const bson_value_t *x = bson_iter_value (&it);
      bool m;
      if (x->value_type == BSON_TYPE_DOCUMENT) {
         bson_t sub;
         bson_iter_t si;
         if (simq_value_as_doc (x, &sub) && bson_iter_init (&si, &sub) && bson_iter_next (&si) &&
             bson_iter_key (&si)[0] == '$') {
            return simq_fail (error, 2, "cannot nest $ under %s", op);
         }
      }
      if (!simq_eq_or_regex (pv, x, &m, error)) {
         return false;
      }
      *out = *out || m;
   }
   return true;
}

/* $elemMatch: some element of an array at the path satisfies the sub-filter (object form) or the operators
 * (value form, when the argument's first key is an operator other than $and/$or/$nor/$expr). */
static bool
simq_elem_match (const simq_pvals_t *pv, const bson_value_t *arg, const simq_ectx_t *ctx, bool *out,
                 bson_error_t *error)
{
   bson_t sub;
   bson_iter_t it;
   bool value_form = false;

   *out = false;
   if (arg->value_type != BSON_TYPE_DOCUMENT || !simq_value_as_doc (arg, &sub)) {
      return simq_fail (error, 2, "$elemMatch needs an Object");
   }
   if (bson_iter_init (&it, &sub) && bson_iter_next (&it)) {
      const char *k = bson_iter_key (&it);
      value_form = k[0] == '$' && strcmp (k, "$and") != 0 && strcmp (k, "$or") != 0 && strcmp (k, "$nor") != 0 &&
                   strcmp (k, "$expr") != 0 && strcmp (k, "$where") != 0;
   }
   for (size_t i = 0; i < pv->n; i++) {
      bson_t arr;
      bson_iter_t ai;
      if (pv->v[i].expanded || pv->v[i].v.value_type != BSON_TYPE_ARRAY || !simq_value_as_doc (&pv->v[i].v, &arr) ||
          !bson_iter_init (&ai, &arr)) {
         continue;
      }
      while (bson_iter_next (&ai)) {
         bool m = false;
         if (value_form) {
            simq_pvals_t one = { 0 };
            simq_pv_t item = { *bson_iter_value (&ai), false };
            one.v = &item;
            one.n = 1;
            one.cap = 1;
            if (!simq_match_ops (NULL, "", &one, &sub, ctx, &m, error)) {
               return false;
            }
         } else if (BSON_ITER_HOLDS_DOCUMENT (&ai)) {
            bson_t elem;
            simq_value_as_doc (bson_iter_value (&ai), &elem);
            if (!simq_match_doc (&elem, &sub, ctx, &m, error)) {
               return false;
            }
         }
         if (m) {
            *out = true;
            return true;
         }
      }
   }
   return true;
}

static bool
simq_all (const simq_pvals_t *pv, const bson_value_t *arg, const simq_ectx_t *ctx, bool *out, bson_error_t *error)
{
   bson_t arr;
   bson_iter_t it;
   bool any = false;

   *out = false;
   if (arg->value_type != BSON_TYPE_ARRAY || !simq_value_as_doc (arg, &arr) || !bson_iter_init (&it, &arr)) {
      return simq_fail (error, 2, "$all needs an array");
   }
   *out = true;
   while (bson_iter_next (&it)) {
      const bson_value_t *x = bson_iter_value (&it);
      bool m = false;
      bson_t sub;
      bson_iter_t si;
      any = true;
      if (x->value_type == BSON_TYPE_DOCUMENT && simq_value_as_doc (x, &sub) && bson_iter_init (&si, &sub) &&
          bson_iter_next (&si) && strcmp (bson_iter_key (&si), "$elemMatch") == 0) {
         if (!simq_elem_match (pv, bson_iter_value (&si), ctx, &m, error)) {
            return false;
         }
      } else if (!simq_eq_or_regex (pv, x, &m, error)) {
         return false;
      }
      *out = *out && m;
   }
   if (!any) {
      *out = false;
   }
   return true;
}

static bool
simq_mod (const simq_pvals_t *pv, const bson_value_t *arg, bool *out, bson_error_t *error)
{
   bson_t arr;
   bson_iter_t it;
   bson_value_t d, r;
   int64_t div, rem;
   uint32_t n;

   *out = false;
   if (arg->value_type != BSON_TYPE_ARRAY || !simq_value_as_doc (arg, &arr)) {
      return simq_fail (error, 2, "malformed mod, needs to be an array");
   }
   n = bson_count_keys (&arr);
   if (n < 2) {
      return simq_fail (error, 2, "malformed mod, not enough elements");
   }
   if (n > 2) {
      return simq_fail (error, 2, "malformed mod, too many elements");
   }
   bson_iter_init (&it, &arr);
   bson_iter_next (&it);
   d = *bson_iter_value (&it);
   bson_iter_next (&it);
   r = *bson_iter_value (&it);
   if (!simq_is_number (&d)) {
      return simq_fail (error, 2, "malformed mod, divisor not a number");
   }
   if (!simq_is_number (&r)) {
      return simq_fail (error, 2, "malformed mod, remainder not a number");
   }
   div = (int64_t) simq_to_double (&d);
   rem = (int64_t) simq_to_double (&r);
   if (div == 0) {
      return simq_fail (error, 2, "divisor cannot be 0");
   }
   for (size_t i = 0; i < pv->n; i++) {
      const bson_value_t *v = &pv->v[i].v;
      double x;
      if (!simq_is_number (v)) {
         continue;
      }
      x = simq_to_double (v);
      if (isnan (x) || isinf (x)) {
         continue;
      }
      if (x >= 9223372036854775807.0 || x <= -9223372036854775807.0) {
         continue;
      }
      if (div == -1 ? rem == 0 : ((int64_t) x) % div == rem) {
         *out = true;
      }
   }
   return true;
}

/* The $regex and $options of an operator document, which travel together: borrowed from ops into *regex and *options
 * (left NULL when absent); false (error 2) when either is of the wrong type or $options comes alone. */
static bool
simq_regex_args (const bson_t *ops, const char **regex, const char **options, bson_error_t *error)
{
   bson_iter_t it;
   bool have_regex = false;

   if (!bson_iter_init (&it, ops)) {
      return simq_fail (error, 2, "invalid operator document");
   }
   /* $regex and $options travel together. */
   while (bson_iter_next (&it)) {
      if (strcmp (bson_iter_key (&it), "$regex") == 0) {
         have_regex = true;
         if (BSON_ITER_HOLDS_UTF8 (&it)) {
            *regex = bson_iter_utf8 (&it, NULL);
         } else if (BSON_ITER_HOLDS_REGEX (&it)) {
            *regex = bson_iter_regex (&it, options);
         } else {
            return simq_fail (error, 2, "$regex has to be a string");
         }
      } else if (strcmp (bson_iter_key (&it), "$options") == 0) {
         if (!BSON_ITER_HOLDS_UTF8 (&it)) {
            return simq_fail (error, 2, "$options has to be a string");
         }
         *options = bson_iter_utf8 (&it, NULL);
      }
   }
   if (*options && !have_regex) {
      return simq_fail (error, 2, "$options needs a $regex");
   }
   return true;
}

/* Evaluates an operator document ({ $gt: 1, $lt: 5 }) against the values reached by path. */
static bool
simq_match_ops (const bson_t *doc, const char *path, const simq_pvals_t *pv, const bson_t *ops, const simq_ectx_t *ctx,
                bool *matched, bson_error_t *error)
{
   bson_iter_t it;
   const char *regex = NULL, *options = NULL;
   bool result = true;

   (void) doc;
   (void) path;
   if (!simq_regex_args (ops, &regex, &options, error)) {
      return false;
   }

   bson_iter_init (&it, ops);
   while (bson_iter_next (&it)) {
      const char *op = bson_iter_key (&it);
      const bson_value_t *arg = bson_iter_value (&it);
      bool m = false;

      if (strcmp (op, "$eq") == 0) {
         /* $eq with a regex operand compares regex values, it does not match strings. */
         m = simq_cmp_pvals (pv, arg, SIMQ_EQ);
      } else if (strcmp (op, "$ne") == 0) {
         if (arg->value_type == BSON_TYPE_REGEX) {
            return simq_fail (error, 2, "Can't have regex as arg to $ne.");
         }
         m = !simq_cmp_pvals (pv, arg, SIMQ_EQ);
      } else if (strcmp (op, "$gt") == 0) {
         m = simq_cmp_pvals (pv, arg, SIMQ_GT);
      } else if (strcmp (op, "$gte") == 0) {
         m = simq_cmp_pvals (pv, arg, SIMQ_GTE);
      } else if (strcmp (op, "$lt") == 0) {
         m = simq_cmp_pvals (pv, arg, SIMQ_LT);
      } else if (strcmp (op, "$lte") == 0) {
         m = simq_cmp_pvals (pv, arg, SIMQ_LTE);
      } else if (strcmp (op, "$in") == 0) {
         if (!simq_in (pv, arg, "$in", &m, error)) {
            return false;
         }
      } else if (strcmp (op, "$nin") == 0) {
         if (!simq_in (pv, arg, "$nin", &m, error)) {
            return false;
         }
         m = !m;
      } else if (strcmp (op, "$exists") == 0) {
         m = simq_truthy (arg) ? pv->n > 0 : pv->n == 0;
      } else if (strcmp (op, "$type") == 0) {
         int codes[32];
         size_t ncodes = 0;
         if (arg->value_type == BSON_TYPE_ARRAY) {
            bson_t arr;
            bson_iter_t ai;
            simq_value_as_doc (arg, &arr);
            bson_iter_init (&ai, &arr);
            while (bson_iter_next (&ai) && ncodes < 32) {
               if (!simq_parse_type (bson_iter_value (&ai), &codes[ncodes++], error)) {
                  return false;
               }
            }
         } else if (!simq_parse_type (arg, &codes[ncodes++], error)) {
            return false;
         }
         for (size_t i = 0; i < pv->n && !m; i++) {
            for (size_t c = 0; c < ncodes && !m; c++) {
               m = simq_has_type (&pv->v[i].v, codes[c]);
            }
         }
      } else if (strcmp (op, "$size") == 0) {
         int64_t n;
         if (!simq_is_integral_number (arg, &n)) {
            return simq_fail (error, 2, "Failed to parse $size. Expected an integer");
         }
         if (n < 0) {
            return simq_fail (error, 2, "Failed to parse $size. Expected a non-negative number");
         }
         for (size_t i = 0; i < pv->n && !m; i++) {
            bson_t arr;
            if (!pv->v[i].expanded && simq_value_as_doc (&pv->v[i].v, &arr) &&
                pv->v[i].v.value_type == BSON_TYPE_ARRAY) {
               m = bson_count_keys (&arr) == (uint32_t) n;
            }
         }
      } else if (strcmp (op, "$all") == 0) {
         if (!simq_all (pv, arg, ctx, &m, error)) {
            return false;
         }
      } else if (strcmp (op, "$elemMatch") == 0) {
         if (!simq_elem_match (pv, arg, ctx, &m, error)) {
            return false;
         }
      } else if (strcmp (op, "$mod") == 0) {
         if (!simq_mod (pv, arg, &m, error)) {
            return false;
         }
      } else if (strcmp (op, "$regex") == 0) {
         if (!simq_regex_pvals (pv, regex, options ? options : "", &m, error)) {
            return false;
         }
      } else if (strcmp (op, "$options") == 0) {
         continue;
      } else if (strcmp (op, "$not") == 0) {
         bson_t sub;
         if (arg->value_type == BSON_TYPE_REGEX) {
            bson_t tmp = BSON_INITIALIZER;
            bson_append_value (&tmp, "$regex", 6, arg);
            if (!simq_match_ops (doc, path, pv, &tmp, ctx, &m, error)) {
               bson_destroy (&tmp);
               return false;
            }
            bson_destroy (&tmp);
         } else if (arg->value_type == BSON_TYPE_DOCUMENT && simq_value_as_doc (arg, &sub)) {
            bson_iter_t si;
            if (bson_count_keys (&sub) == 0) {
               return simq_fail (error, 2, "$not cannot be empty");
            }
            if (bson_iter_init (&si, &sub) && bson_iter_next (&si) && bson_iter_key (&si)[0] != '$') {
               return simq_fail (error, 2, "unknown operator: %s", bson_iter_key (&si));
            }
            if (!simq_match_ops (doc, path, pv, &sub, ctx, &m, error)) {
               return false;
            }
         } else {
            return simq_fail (error, 2, "$not needs a regex or a document");
         }
         m = !m;
      } else if (strcmp (op, "$comment") == 0) {
         continue;
      } else {
         return simq_fail (error, 2, "unknown operator: %s", op);
      }
      result = result && m;
   }
   *matched = result;
   return true;
}

/* One top-level (or $elemMatch-level) clause path: value. */
static bool
simq_match_field (const bson_t *doc, const char *path, const bson_value_t *cond, const simq_ectx_t *ctx, bool *matched,
                  bson_error_t *error)
{
   simq_pvals_t pv;
   bson_t sub;
   bool ok = true;

   simq_path_values (doc, path, &pv);
   *matched = false;
   if (cond->value_type == BSON_TYPE_DOCUMENT && simq_value_as_doc (cond, &sub)) {
      bson_iter_t it;
      if (bson_iter_init (&it, &sub) && bson_iter_next (&it) && bson_iter_key (&it)[0] == '$') {
         ok = simq_match_ops (doc, path, &pv, &sub, ctx, matched, error);
         goto cleanup;
      }
   }
   ok = simq_eq_or_regex (&pv, cond, matched, error);
cleanup:
   simq_pvals_destroy (&pv);
   return ok;
}

/* $and / $or / $nor: a non-empty array of filter documents. */
static bool
simq_match_logical (const bson_t *doc, const char *op, const bson_value_t *arg, const simq_ectx_t *ctx, bool *matched,
                    bson_error_t *error)
{
   bson_t arr;
   bson_iter_t it;
   bool any = false, all = true, seen = false;

   if (arg->value_type != BSON_TYPE_ARRAY || !simq_value_as_doc (arg, &arr) || bson_count_keys (&arr) == 0) {
      return simq_fail (error, 2, "%s must be a nonempty array", op);
   }
   bson_iter_init (&it, &arr);
   while (bson_iter_next (&it)) {
      bson_t sub;
      bool m;
      if (!BSON_ITER_HOLDS_DOCUMENT (&it)) {
         return simq_fail (error, 2, "$or/$and/$nor entries need to be full objects");
      }
      simq_value_as_doc (bson_iter_value (&it), &sub);
      if (!simq_match_doc (doc, &sub, ctx, &m, error)) {
         return false;
      }
      seen = true;
      any = any || m;
      all = all && m;
   }
   if (strcmp (op, "$and") == 0) {
      *matched = seen && all;
   } else if (strcmp (op, "$or") == 0) {
      *matched = any;
   } else {
      *matched = !any;
   }
   return true;
}

static bool
simq_match_doc (const bson_t *doc, const bson_t *filter, const simq_ectx_t *ctx, bool *matched, bson_error_t *error)
{
   bson_iter_t it;
   bool result = true;

   *matched = false;
   if (!bson_iter_init (&it, filter)) {
      return simq_fail (error, 2, "invalid filter");
   }
   /* Every clause is evaluated (no short-circuit), so a bad operator anywhere is reported for every document. */
   while (bson_iter_next (&it)) {
      const char *key = bson_iter_key (&it);
      const bson_value_t *arg = bson_iter_value (&it);
      bool m = true;

      if (key[0] == '$') {
         if (strcmp (key, "$and") == 0 || strcmp (key, "$or") == 0 || strcmp (key, "$nor") == 0) {
            if (!simq_match_logical (doc, key, arg, ctx, &m, error)) {
               return false;
            }
         } else if (strcmp (key, "$expr") == 0) {
            simq_ectx_t local = { doc, doc, NULL, NULL };
            bson_value_t r;
            if (ctx) {
               local.env = ctx->env;
               local.vars = ctx->vars;
            }
            if (!simq_eval (arg, &local, &r, error)) {
               return false;
            }
            m = simq_truthy (&r);
            simq_value_destroy (&r);
         } else if (strcmp (key, "$comment") == 0) {
            m = true;
         } else if (strcmp (key, "$alwaysTrue") == 0) {
            m = true;
         } else if (strcmp (key, "$alwaysFalse") == 0) {
            m = false;
         } else {
            return simq_fail (error, 2, "unknown top level operator: %s", key);
         }
      } else if (!simq_match_field (doc, key, arg, ctx, &m, error)) {
         return false;
      }
      result = result && m;
   }
   *matched = result;
   return true;
}

bool
simq_match_ctx (const bson_t *doc, const bson_t *filter, const simq_ectx_t *ctx, bool *matched, bson_error_t *error)
{
   return simq_match_doc (doc, filter, ctx, matched, error);
}

bool
simq_match (const bson_t *doc, const bson_t *filter, bool *matched, bson_error_t *error)
{
   return simq_match_doc (doc, filter, NULL, matched, error);
}
