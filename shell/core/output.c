/* Output formatting: a re-implementation, for BSON, of what mongosh prints for a value. mongosh hands the
 * deserialized JS value to Node's util.inspect (breakLength 80, compact 3, depth 6, maxArrayLength 100,
 * maxStringLength 10000) with its own inspectors for the BSON classes; the functions below follow the same
 * rules: which key needs quotes, which quote a string gets, when a document fits on one line, how arrays of
 * short entries are grouped into columns, and which ANSI colour each kind of value gets. JSON mode is libbson's
 * relaxed Extended JSON. This file lays out documents and arrays; output_scalar.c formats the values inside them.
 * Everything here builds strings; nothing is written. */
#include "shell/core/output.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shell/core/output_int.h"

/* The formatted entries of one document or array. */
typedef struct {
   char **items;
   size_t len;
   size_t cap;
} output_list_t;

static char *
output_inspect (output_ctx_t *ctx, const bson_value_t *value, int recurse_times, const char *key);

static void
output_list_push (output_list_t *list, char *item)
{
   if (list->len == list->cap) {
      list->cap = list->cap ? list->cap * 2 : 8;
      list->items = bson_realloc (list->items, list->cap * sizeof *list->items);
   }
   list->items[list->len++] = item;
}

static void
output_list_destroy (output_list_t *list)
{
   for (size_t i = 0; i < list->len; i++) {
      bson_free (list->items[i]);
   }
   bson_free (list->items);
   list->items = NULL;
   list->len = list->cap = 0;
}

/* groupArrayElements: when an array has more than 6 entries that are short and of similar length, several go on
 * one line in aligned columns (numbers right-aligned). Returns true and sets *grouped when it grouped. */
static bool
output_group_array (const output_ctx_t *ctx, const output_list_t *list, bool has_more, bool all_numbers,
                    output_list_t *grouped)
{
   size_t out_len = list->len - (has_more ? 1 : 0);
   size_t *data_len = bson_malloc0 ((out_len ? out_len : 1) * sizeof *data_len);
   size_t *max_line = NULL;
   double total = 0, max_length = 0, actual_max, average_bias, biased_max, columns, c1, c2;
   bool ok = false;

   for (size_t i = 0; i < out_len; i++) {
      size_t units;

      output_measure (list->items[i], &units, &data_len[i]);
      total += (double) data_len[i] + 2;
      if ((double) data_len[i] > max_length) {
         max_length = (double) data_len[i];
      }
   }
   actual_max = max_length + 2;
   if (!(actual_max * 3 + ctx->indentation_lvl < ctx->break_length && (total / actual_max > 5 || max_length <= 6))) {
      goto done;
   }
   average_bias = sqrt (actual_max - total / (double) list->len);
   biased_max = fmax (actual_max - 3 - average_bias, 1);
   c1 = floor (sqrt (2.5 * biased_max * (double) out_len) / biased_max + 0.5);
   c2 = floor ((ctx->break_length - ctx->indentation_lvl) / actual_max);
   columns = fmin (fmin (c1, c2), fmin (OUTPUT_COMPACT * 4, 15));
   if (columns <= 1) {
      goto done;
   }

   {
      size_t cols = (size_t) columns;

      max_line = bson_malloc0 (cols * sizeof *max_line);
      for (size_t i = 0; i < cols; i++) {
         for (size_t j = i; j < out_len; j += cols) {
            if (data_len[j] > max_line[i]) {
               max_line[i] = data_len[j];
            }
         }
         max_line[i] += 2;
      }
      for (size_t i = 0; i < out_len; i += cols) {
         size_t max = BSON_MIN (i + cols, out_len);
         bson_string_t *row = bson_string_new (NULL);
         size_t j = i;

         for (; j < max - 1; j++) {
            long pad = (long) max_line[j - i] - (long) data_len[j] - 2;

            if (all_numbers) {
               output_spaces (row, pad);
            }
            bson_string_append (row, list->items[j]);
            bson_string_append (row, ", ");
            if (!all_numbers) {
               output_spaces (row, pad);
            }
         }
         if (all_numbers) {
            output_spaces (row, (long) max_line[j - i] - (long) data_len[j] - 2);
         }
         bson_string_append (row, list->items[j]);
         output_list_push (grouped, bson_string_free (row, false));
      }
      if (has_more) {
         output_list_push (grouped, bson_strdup (list->items[list->len - 1]));
      }
   }
   ok = true;

done:
   bson_free (data_len);
   bson_free (max_line);
   return ok;
}

/* reduceToSingleString: "{ a, b }" when the entries fit in the break length and the container has at most
 * OUTPUT_COMPACT levels below it, otherwise one entry (or one group of array entries) per line. */
static char *
output_reduce (output_ctx_t *ctx, output_list_t *list, bool is_array, bool has_more, bool all_numbers,
               int recurse_times)
{
   const char *open = is_array ? "[" : "{";
   const char *close = is_array ? "]" : "}";
   output_list_t grouped = { 0 };
   output_list_t *entries = list;
   bson_string_t *out = bson_string_new (NULL);

   if (!ctx->opts->expanded && is_array && list->len > 6 &&
       output_group_array (ctx, list, has_more, all_numbers, &grouped)) {
      entries = &grouped;
   }
   if (!ctx->opts->expanded && ctx->current_depth - recurse_times < OUTPUT_COMPACT && entries == list) {
      double start = (double) list->len + ctx->indentation_lvl + 1 + 10;
      double total = (double) list->len + start;
      bool fits = total + (double) list->len <= ctx->break_length;
      bool has_newline = false;

      for (size_t i = 0; fits && i < list->len; i++) {
         total += (double) output_units (list->items[i]);
         if (total > ctx->break_length) {
            fits = false;
         }
         if (strchr (list->items[i], '\n')) {
            has_newline = true;
         }
      }
      if (fits && !has_newline) {
         bson_string_append_printf (out, "%s ", open);
         for (size_t i = 0; i < list->len; i++) {
            bson_string_append_printf (out, "%s%s", i ? ", " : "", list->items[i]);
         }
         bson_string_append_printf (out, " %s", close);
         goto done;
      }
   }

   bson_string_append (out, open);
   for (size_t i = 0; i < entries->len; i++) {
      bson_string_append (out, i ? ",\n" : "\n");
      output_spaces (out, ctx->indentation_lvl + 2);
      bson_string_append (out, entries->items[i]);
   }
   bson_string_append_c (out, '\n');
   output_spaces (out, ctx->indentation_lvl);
   bson_string_append (out, close);

done:
   output_list_destroy (&grouped);
   return bson_string_free (out, false);
}

/* A key as formatProperty prints it: bare when an identifier, ['__proto__'] for that key, otherwise quoted. */
static void
output_key (bson_string_t *out, const output_ctx_t *ctx, const char *key)
{
   if (strcmp (key, "__proto__") == 0) {
      bson_string_append (out, "['__proto__']");
   } else if (output_is_identifier (key)) {
      bson_string_append (out, key);
   } else {
      output_quoted (out, ctx, key);
   }
}

/* One property "key: value" (or just the value in an array), the value indented two more columns. */
static char *
output_property (output_ctx_t *ctx, const char *key, bson_iter_t *iter, int recurse_times, bool is_array)
{
   bson_string_t *out = bson_string_new (NULL);
   char *value;

   ctx->indentation_lvl += 2;
   value = output_inspect (ctx, bson_iter_value (iter), recurse_times, key);
   ctx->indentation_lvl -= 2;
   if (!is_array) {
      output_key (out, ctx, key);
      bson_string_append (out, ": ");
   }
   bson_string_append (out, value);
   bson_free (value);
   return bson_string_free (out, false);
}

/* Where one element starts, so an iterator can be rebuilt there (bson_iter_t needs 128-byte alignment, which a
 * heap array of them would not have). */
typedef struct {
   uint32_t offset;
   uint32_t key_len;
   uint32_t index; /* the value of an array-index key */
} output_slot_t;

static output_slot_t
output_slot (bson_iter_t *iter, uint32_t index)
{
   output_slot_t slot;

   slot.offset = bson_iter_offset (iter);
   slot.key_len = bson_iter_key_len (iter);
   slot.index = index;
   return slot;
}

/* Orders a document's keys as a JS object holds them: array-index keys ascending first, then the rest in
 * insertion order. Sets *order (caller frees with bson_free) and *count; returns false on corrupt BSON. */
static bool
output_key_order (const bson_t *doc, output_slot_t **order, size_t *count)
{
   bson_iter_t iter;
   size_t n = 0, k = 0, nindex = 0;
   output_slot_t *slots = NULL;
   bool ok = false;

   *order = NULL;
   *count = 0;
   if (!bson_iter_init (&iter, doc)) {
      goto done;
   }
   while (bson_iter_next (&iter)) {
      n++;
   }
   slots = bson_malloc0 ((n ? n : 1) * sizeof *slots);
   /* Pass 1: index keys, insertion-sorted by value (documents rarely have more than a few). */
   bson_iter_init (&iter, doc);
   while (bson_iter_next (&iter)) {
      uint32_t v;

      if (output_index_key (bson_iter_key (&iter), &v)) {
         size_t j = nindex++;

         while (j > 0 && slots[j - 1].index > v) {
            slots[j] = slots[j - 1];
            j--;
         }
         slots[j] = output_slot (&iter, v);
      }
   }
   k = nindex;
   bson_iter_init (&iter, doc);
   while (bson_iter_next (&iter)) {
      uint32_t v;

      if (!output_index_key (bson_iter_key (&iter), &v)) {
         slots[k++] = output_slot (&iter, 0);
      }
   }
   *order = slots;
   *count = n;
   slots = NULL;
   ok = true;

done:
   bson_free (slots);
   return ok;
}

/* The fresh util.inspect call behind sh.status's chunk rows: breakLength Infinity, indentation 0, the full depth
 * again (the inspector passes on the caller's options, whose depth is the original one); the result is
 * re-indented to the current column. */
static char *
output_one_line (output_ctx_t *ctx, const bson_value_t *value)
{
   output_ctx_t sub = *ctx;
   bson_string_t *out = bson_string_new (NULL);
   char *inner;

   sub.break_length = INFINITY;
   sub.indentation_lvl = 0;
   sub.current_depth = 0;
   inner = output_inspect (&sub, value, 0, NULL);
   for (const char *p = inner; *p; p++) {
      bson_string_append_c (out, *p);
      if (*p == '\n') {
         output_spaces (out, ctx->indentation_lvl);
      }
   }
   bson_free (inner);
   return bson_string_free (out, false);
}

/* formatRaw for a document or array. */
static char *
output_inspect_container (output_ctx_t *ctx, const uint8_t *data, uint32_t data_len, bool is_array, int recurse_times,
                          const char *key)
{
   bson_t doc;
   bson_iter_t iter;
   output_slot_t *order = NULL;
   size_t count = 0;
   output_list_t list = { 0 };
   bool has_more = false, all_numbers = true;
   bson_string_t *tmp;
   char *result = NULL;

   if (!bson_init_static (&doc, data, data_len) || !bson_iter_init (&iter, &doc)) {
      result = bson_strdup (is_array ? "[]" : "{}");
      goto done;
   }
   if (bson_count_keys (&doc) == 0) {
      result = bson_strdup (is_array ? "[]" : "{}");
      goto done;
   }
   if (ctx->depth >= 0 && recurse_times > ctx->depth) {
      tmp = bson_string_new (NULL);
      output_stylize (tmp, ctx, is_array ? "[Array]" : "[Object]", OUTPUT_STYLE_SPECIAL);
      result = bson_string_free (tmp, false);
      goto done;
   }
   recurse_times++;
   ctx->current_depth = recurse_times;

   if (is_array) {
      size_t n = 0, total = bson_count_keys (&doc);
      bool one_line = key && ctx->opts->one_line_key && strcmp (key, ctx->opts->one_line_key) == 0;

      while (bson_iter_next (&iter)) {
         bson_type_t t = bson_iter_type (&iter);

         if (ctx->max_array_length >= 0 && n >= (size_t) ctx->max_array_length) {
            if (t != BSON_TYPE_INT32 && t != BSON_TYPE_DOUBLE) {
               all_numbers = false; /* util.inspect also looks at the first element not shown */
            }
            break;
         }
         if (t != BSON_TYPE_INT32 && t != BSON_TYPE_DOUBLE) {
            all_numbers = false;
         }
         if (one_line && t == BSON_TYPE_DOCUMENT) {
            ctx->indentation_lvl += 2;
            output_list_push (&list, output_one_line (ctx, bson_iter_value (&iter)));
            ctx->indentation_lvl -= 2;
         } else {
            output_list_push (&list, output_property (ctx, NULL, &iter, recurse_times, true));
         }
         n++;
      }
      if (n < total) {
         size_t remaining = total - n;

         tmp = bson_string_new (NULL);
         bson_string_append_printf (tmp, "... %zu more item%s", remaining, remaining > 1 ? "s" : "");
         output_list_push (&list, bson_string_free (tmp, false));
         has_more = true;
      }
   } else {
      if (!output_key_order (&doc, &order, &count)) {
         result = bson_strdup ("{}");
         goto done;
      }
      for (size_t i = 0; i < count; i++) {
         bson_iter_t at;

         if (!bson_iter_init_from_data_at_offset (&at, data, data_len, order[i].offset, order[i].key_len)) {
            continue;
         }
         output_list_push (&list, output_property (ctx, bson_iter_key (&at), &at, recurse_times, false));
      }
   }
   result = output_reduce (ctx, &list, is_array, has_more, all_numbers, recurse_times);

done:
   bson_free (order);
   output_list_destroy (&list);
   return result;
}

/* formatValue for one BSON value. key is the key it is stored under (NULL at top level or in an array). */
static char *
output_inspect (output_ctx_t *ctx, const bson_value_t *value, int recurse_times, const char *key)
{
   bson_string_t *out = bson_string_new (NULL);
   char buf[64];

   switch (value->value_type) {
   case BSON_TYPE_DOUBLE:
      output_number (out, ctx, value->value.v_double);
      break;
   case BSON_TYPE_INT32:
      bson_snprintf (buf, sizeof buf, "%" PRId32, value->value.v_int32);
      output_stylize (out, ctx, buf, OUTPUT_STYLE_NUMBER);
      break;
   case BSON_TYPE_INT64:
      bson_snprintf (buf, sizeof buf, "%" PRId64, value->value.v_int64);
      bson_string_append (out, "Long(");
      output_quoted (out, ctx, buf);
      bson_string_append (out, ")");
      break;
   case BSON_TYPE_DECIMAL128: {
      char dec[BSON_DECIMAL128_STRING];

      bson_decimal128_to_string (&value->value.v_decimal128, dec);
      bson_string_append (out, "Decimal128(");
      output_quoted (out, ctx, dec);
      bson_string_append (out, ")");
      break;
   }
   case BSON_TYPE_UTF8:
   case BSON_TYPE_SYMBOL: /* the JS driver promotes symbols to strings */
      output_inspect_string (out, ctx, value->value.v_utf8.str, value->value.v_utf8.len);
      break;
   case BSON_TYPE_DOCUMENT:
   case BSON_TYPE_ARRAY: {
      char *s = output_inspect_container (ctx, value->value.v_doc.data, value->value.v_doc.data_len,
                                          value->value_type == BSON_TYPE_ARRAY, recurse_times, key);
      bson_string_append (out, s);
      bson_free (s);
      break;
   }
   case BSON_TYPE_BINARY:
      output_binary (out, ctx, value->value.v_binary.subtype, value->value.v_binary.data,
                     value->value.v_binary.data_len);
      break;
   case BSON_TYPE_UNDEFINED:
      output_stylize (out, ctx, "undefined", OUTPUT_STYLE_UNDEFINED);
      break;
   case BSON_TYPE_OID:
      bson_oid_to_string (&value->value.v_oid, buf);
      bson_string_append (out, "ObjectId(");
      output_quoted (out, ctx, buf);
      bson_string_append (out, ")");
      break;
   case BSON_TYPE_BOOL:
      output_stylize (out, ctx, value->value.v_bool ? "true" : "false", OUTPUT_STYLE_NUMBER);
      break;
   case BSON_TYPE_DATE_TIME: {
      int64_t ms = value->value.v_datetime;

      if (ms > OUTPUT_JS_DATE_LIMIT || ms < -OUTPUT_JS_DATE_LIMIT) {
         output_stylize (out, ctx, "Invalid Date", OUTPUT_STYLE_DATE);
      } else {
         bson_string_append (out, "ISODate('");
         output_iso_date (out, ms);
         bson_string_append (out, "')");
      }
      break;
   }
   case BSON_TYPE_NULL:
      output_stylize (out, ctx, "null", OUTPUT_STYLE_NULL);
      break;
   case BSON_TYPE_REGEX:
      output_regex (out, ctx, value->value.v_regex.regex,
                    value->value.v_regex.options ? value->value.v_regex.options : "");
      break;
   case BSON_TYPE_DBPOINTER: {
      /* The JS driver makes a DBRef; its constructor splits "db.coll" (exactly one dot) into both parts. */
      const char *ns = value->value.v_dbpointer.collection;
      const char *dot = strchr (ns, '.');
      bool split = dot && !strchr (dot + 1, '.');
      char *db = split ? bson_strndup (ns, (size_t) (dot - ns)) : NULL;

      bson_oid_to_string (&value->value.v_dbpointer.oid, buf);
      bson_string_append (out, "DBRef(");
      output_quoted (out, ctx, split ? dot + 1 : ns);
      bson_string_append (out, ", ObjectId(");
      output_quoted (out, ctx, buf);
      bson_string_append (out, ")");
      if (split) {
         bson_string_append (out, ", ");
         output_quoted (out, ctx, db);
      }
      bson_string_append (out, ")");
      bson_free (db);
      break;
   }
   case BSON_TYPE_CODE:
      bson_string_append (out, "Code(");
      output_quoted (out, ctx, value->value.v_code.code);
      bson_string_append (out, ")");
      break;
   case BSON_TYPE_CODEWSCOPE: {
      output_ctx_t sub = *ctx;
      bson_value_t scope = { .value_type = BSON_TYPE_DOCUMENT };
      char *s;

      scope.value.v_doc.data = value->value.v_codewscope.scope_data;
      scope.value.v_doc.data_len = value->value.v_codewscope.scope_len;
      sub.indentation_lvl = 0;
      sub.current_depth = 0;
      s = output_inspect (&sub, &scope, 0, NULL);
      bson_string_append (out, "Code(");
      output_quoted (out, ctx, value->value.v_codewscope.code);
      bson_string_append (out, ", ");
      for (const char *p = s; *p; p++) {
         bson_string_append_c (out, *p);
         if (*p == '\n') {
            output_spaces (out, ctx->indentation_lvl);
         }
      }
      bson_string_append (out, ")");
      bson_free (s);
      break;
   }
   case BSON_TYPE_TIMESTAMP:
      bson_string_append (out, "Timestamp({ t: ");
      bson_snprintf (buf, sizeof buf, "%" PRIu32, value->value.v_timestamp.timestamp);
      output_stylize (out, ctx, buf, OUTPUT_STYLE_NUMBER);
      bson_string_append (out, ", i: ");
      bson_snprintf (buf, sizeof buf, "%" PRIu32, value->value.v_timestamp.increment);
      output_stylize (out, ctx, buf, OUTPUT_STYLE_NUMBER);
      bson_string_append (out, " })");
      break;
   case BSON_TYPE_MINKEY:
      bson_string_append (out, "MinKey()");
      break;
   case BSON_TYPE_MAXKEY:
      bson_string_append (out, "MaxKey()");
      break;
   case BSON_TYPE_EOD:
   default:
      output_stylize (out, ctx, "undefined", OUTPUT_STYLE_UNDEFINED);
      break;
   }
   return bson_string_free (out, false);
}

static void
output_ctx_init (output_ctx_t *ctx, const output_opts_t *opts)
{
   memset (ctx, 0, sizeof *ctx);
   ctx->opts = opts;
   ctx->break_length = opts->break_length > 0 ? (double) opts->break_length : INFINITY;
   ctx->depth = opts->depth < 0 ? -1 : opts->depth;
   /* mongosh lifts all three limits together (--eval's deep inspection), so an unlimited depth lifts these. */
   ctx->max_array_length = opts->depth < 0 ? -1 : OUTPUT_MAX_ARRAY_LENGTH;
   ctx->max_string_length = opts->depth < 0 ? -1 : OUTPUT_MAX_STRING_LENGTH;
}

/* Relaxed Extended JSON for one value: wraps it as { "v" : … } and keeps what follows the key. */
static char *
output_json_value (const bson_value_t *value)
{
   bson_t wrapper = BSON_INITIALIZER;
   char *json = NULL, *result = NULL;
   size_t len = 0;
   static const char prefix[] = "{ \"v\" : ";
   static const char suffix[] = " }";

   if (!bson_append_value (&wrapper, "v", 1, value)) {
      goto done;
   }
   json = bson_as_relaxed_extended_json (&wrapper, &len);
   if (!json || len < sizeof prefix - 1 + sizeof suffix - 1 || strncmp (json, prefix, sizeof prefix - 1) != 0) {
      goto done;
   }
   result = bson_strndup (json + sizeof prefix - 1, len - (sizeof prefix - 1) - (sizeof suffix - 1));

done:
   bson_free (json);
   bson_destroy (&wrapper);
   return result ? result : bson_strdup ("null");
}

output_opts_t
output_opts_default (output_mode_t mode, bool color)
{
   output_opts_t opts;

   memset (&opts, 0, sizeof opts);
   opts.mode = mode;
   opts.color = color;
   opts.break_length = 80;
   opts.depth = 6;
   opts.one_line_key = NULL;
   opts.expanded = false;
   return opts;
}

char *
output_format_doc (const bson_t *doc, const output_opts_t *opts)
{
   output_ctx_t ctx;
   bson_value_t value = { .value_type = BSON_TYPE_DOCUMENT };
   char *json;

   if (!doc) {
      return bson_strdup ("null");
   }
   if (opts->mode == OUTPUT_JSON) {
      json = bson_as_relaxed_extended_json (doc, NULL);
      return json ? json : bson_strdup (OUTPUT_INVALID_BSON);
   }
   if (!bson_validate (doc, BSON_VALIDATE_NONE, NULL)) {
      return bson_strdup (OUTPUT_INVALID_BSON);
   }
   output_ctx_init (&ctx, opts);
   value.value.v_doc.data = (uint8_t *) bson_get_data (doc);
   value.value.v_doc.data_len = doc->len;
   return output_inspect (&ctx, &value, 0, NULL);
}

char *
output_format_array (const bson_t *array, const output_opts_t *opts)
{
   output_ctx_t ctx;
   bson_value_t value = { .value_type = BSON_TYPE_ARRAY };

   if (!array) {
      return bson_strdup ("null");
   }
   if (!bson_validate (array, BSON_VALIDATE_NONE, NULL)) {
      return bson_strdup (OUTPUT_INVALID_BSON);
   }
   value.value.v_doc.data = (uint8_t *) bson_get_data (array);
   value.value.v_doc.data_len = array->len;
   if (opts->mode == OUTPUT_JSON) {
      return output_json_value (&value);
   }
   output_ctx_init (&ctx, opts);
   return output_inspect (&ctx, &value, 0, NULL);
}

/* mongosh's formatSimpleType: CONTROL_CHAR_REGEXP_ALLOW_SIMPLE, controls other than \t and \n. */
static bool
output_has_control (const char *s, size_t len)
{
   for (size_t i = 0; i < len;) {
      uint32_t cp;

      i += output_utf8_next ((const unsigned char *) s + i, len - i, &cp);
      if ((cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7f && cp <= 0x9f)) {
         return true;
      }
   }
   return false;
}

char *
output_format_value (const bson_value_t *value, const output_opts_t *opts)
{
   output_ctx_t ctx;

   if (!value) {
      return bson_strdup ("");
   }
   if (opts->mode == OUTPUT_JSON) {
      return output_json_value (value);
   }
   if (value->value_type == BSON_TYPE_UTF8 && !output_has_control (value->value.v_utf8.str, value->value.v_utf8.len)) {
      return bson_strndup (value->value.v_utf8.str, value->value.v_utf8.len);
   }
   if (value->value_type == BSON_TYPE_UNDEFINED) {
      return bson_strdup ("");
   }
   if (value->value_type == BSON_TYPE_DOCUMENT || value->value_type == BSON_TYPE_ARRAY) {
      bson_t check;

      if (!bson_init_static (&check, value->value.v_doc.data, value->value.v_doc.data_len) ||
          !bson_validate (&check, BSON_VALIDATE_NONE, NULL)) {
         return bson_strdup (OUTPUT_INVALID_BSON);
      }
   }
   output_ctx_init (&ctx, opts);
   return output_inspect (&ctx, value, 0, NULL);
}

void
output_format_value_line (const bson_value_t *value, char *buf, size_t len)
{
   output_opts_t o = output_opts_default (OUTPUT_PRETTY, false);
   char *s;
   o.break_length = 0; /* 0: no limit, so nothing breaks */
   s = output_format_value (value, &o);
   bson_strncpy (buf, s, len);
   bson_free (s);
}

void
output_format_doc_line (const bson_t *doc, char *buf, size_t len)
{
   output_opts_t o = output_opts_default (OUTPUT_PRETTY, false);
   char *s;
   o.break_length = 0;
   s = output_format_doc (doc, &o);
   bson_strncpy (buf, s, len);
   bson_free (s);
}
