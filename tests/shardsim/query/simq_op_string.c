/* The query engine's string operators: $concat, $split, $substr/$substrBytes/$substrCP, $toLower/$toUpper,
 * $strLenBytes/$strLenCP. Each follows its simq_op_*_fn_t contract in simq_ops.h. */
#include "tests/shardsim/query/simq_ops.h"

#include "shell/lib/hashkey.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool
simq_op_concat (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                bson_error_t *error)
{
   bool ok = false;
   (void) op;
   (void) args;
   size_t total = 0, pos = 0;
   char *s;
   for (size_t i = 0; i < nvals; i++) {
      if (simq_nullish (&vals[i])) {
         simq_set_null (out);
         ok = true;
         return ok;
      }
      if (vals[i].value_type != BSON_TYPE_UTF8) {
         simq_fail (error, 16702, "$concat only supports strings, not %s", simq_type_name (vals[i].value_type));
         return ok;
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
   return ok;
}

bool
simq_op_split (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
               bson_error_t *error)
{
   bool ok = false;
   (void) nvals;
   bson_t arr = BSON_INITIALIZER;
   const char *s, *d, *p;
   size_t slen, dlen;
   uint32_t k = 0;
   char key[24];
   if (!simq_arity (op, args, 2, error)) {
      bson_destroy (&arr);
      return ok;
   }
   if (simq_nullish (&vals[0]) || simq_nullish (&vals[1])) {
      simq_set_null (out);
      ok = true;
      bson_destroy (&arr);
      return ok;
   }
   if (vals[0].value_type != BSON_TYPE_UTF8) {
      simq_fail (error, 40085,
                 "$split requires an expression that evaluates to a string as a first argument, found: %s",
                 simq_type_name (vals[0].value_type));
      bson_destroy (&arr);
      return ok;
   }
   if (vals[1].value_type != BSON_TYPE_UTF8) {
      simq_fail (error, 40086,
                 "$split requires an expression that evaluates to a string as a second argument, found: %s",
                 simq_type_name (vals[1].value_type));
      bson_destroy (&arr);
      return ok;
   }
   s = vals[0].value.v_utf8.str;
   slen = vals[0].value.v_utf8.len;
   d = vals[1].value.v_utf8.str;
   dlen = vals[1].value.v_utf8.len;
   if (dlen == 0) {
      simq_fail (error, 40087, "$split requires a non-empty separator");
      bson_destroy (&arr);
      return ok;
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
   return ok;
}

bool
simq_op_substr (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                bson_error_t *error)
{
   bool ok = false;
   (void) nvals;
   bool cp = strcmp (op, "$substrCP") == 0;
   int64_t start, count;
   const char *s = "";
   size_t slen = 0, b0, b1;
   bson_value_t str;
   if (!simq_arity (op, args, 3, error)) {
      return ok;
   }
   if (!simq_nullish (&vals[0])) {
      if (!simq_to_string (&vals[0], &str, error)) {
         return ok;
      }
      simq_value_destroy (&vals[0]);
      vals[0] = str;
      s = vals[0].value.v_utf8.str;
      slen = vals[0].value.v_utf8.len;
   }
   if (!simq_is_number (&vals[1]) || !simq_is_number (&vals[2])) {
      simq_fail (error, cp ? 34450 : 16034, "%s: starting index and length must be numeric types", op);
      return ok;
   }
   start = (int64_t) simq_to_double (&vals[1]);
   count = (int64_t) simq_to_double (&vals[2]);
   if (start < 0) {
      simq_fail (error, cp ? 34455 : 50752, "%s: starting index must be non-negative", op);
      return ok;
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
         return ok;
      }
   }
   simq_set_string (out, s + b0, b1 - b0);
   ok = true;
   return ok;
}

bool
simq_op_to_lower_upper (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                        bson_error_t *error)
{
   bool ok = false;
   (void) nvals;
   bson_value_t str;
   if (!simq_arity (op, args, 1, error)) {
      return ok;
   }
   if (simq_nullish (&vals[0])) {
      simq_set_string (out, "", 0);
      ok = true;
      return ok;
   }
   if (!simq_to_string (&vals[0], &str, error)) {
      return ok;
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
   return ok;
}

bool
simq_op_str_len (const char *op, const simq_args_t *args, bson_value_t *vals, size_t nvals, bson_value_t *out,
                 bson_error_t *error)
{
   bool ok = false;
   (void) nvals;
   int32_t n = 0;
   if (!simq_arity (op, args, 1, error)) {
      return ok;
   }
   if (vals[0].value_type != BSON_TYPE_UTF8) {
      simq_fail (error, op[7] == 'B' ? 34473 : 34471, "%s requires a string argument, found: %s", op,
                 simq_type_name (vals[0].value_type));
      return ok;
   }
   for (uint32_t i = 0; i < vals[0].value.v_utf8.len; i++) {
      if (op[7] == 'B' || (vals[0].value.v_utf8.str[i] & 0xC0) != 0x80) {
         n++;
      }
   }
   simq_set_int32 (out, n);
   ok = true;
   return ok;
}
