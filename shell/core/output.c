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
#include "shell/lib/bsonvalid.h"

/* One document or array being laid out. Its entries are formatted straight into the shared buffer one after
 * another from start on; at its end reduce() rewrites that span in the layout util.inspect picks. As soon as the
 * entries seen make it certain the container neither fits on one line nor groups into columns, it is committed:
 * the span is rewritten at once as one entry per line and later entries are written in place after their ",\n"
 * and indentation, so nothing is copied again; when every open container is committed the buffer is final and
 * goes to the sink in large writes. */
typedef struct output_frame {
   struct output_frame *parent;
   size_t start;    /* where the container's text begins */
   size_t *entries; /* where each entry begins (while not committed): first in few, then on the heap */
   size_t few[8];   /* the first entries' starts: most containers are small, so no allocation for them */
   size_t n, cap;   /* entries begun */
   int indent;      /* the container's indentation */
   double total;    /* String.length of the entries measured so far */
   bool is_array;
   bool barrier;   /* a fresh inspection whose text is re-indented afterwards: never committed, holds the output */
   bool committed; /* one entry per line, written in place */
   bool no_fit;    /* certain not to fit on one line */
   bool no_group;  /* certain not to be grouped into columns */
} output_frame_t;

/* The buffer of one output_inspect call and where it goes. */
struct output_writer {
   bson_string_t *out;
   bson_string_t *scratch; /* where a span is rebuilt before it replaces the original (kept for the whole call) */
   FILE *sink;             /* NULL: the caller takes the whole string */
   output_frame_t *top;    /* innermost open container */
   int pending;            /* open containers not committed (barriers included) */
   bool failed;            /* a write to the sink failed */
};

#ifndef OUTPUT_FLUSH_BYTES /* a test build sets 1 to write at every chance */
#define OUTPUT_FLUSH_BYTES (256 * 1024)
#endif

static void
output_inspect (output_ctx_t *ctx, const bson_value_t *value, int recurse_times, const char *key);

/* Writes the buffer to the sink when it is final (no container open that may still be rewritten). */
static void
output_flush (struct output_writer *w, bool force)
{
   if (!w->sink || w->pending > 0 || w->out->len == 0 || (!force && w->out->len < OUTPUT_FLUSH_BYTES)) {
      return;
   }
   if (fwrite (w->out->str, 1, w->out->len, w->sink) != w->out->len) {
      w->failed = true;
   }
   w->out->len = 0;
   w->out->str[0] = '\0';
}

/* The text of entry i of f (which is not committed) and its length. */
static const char *
output_entry (const output_frame_t *f, const bson_string_t *out, size_t i, size_t *len)
{
   size_t end = i + 1 < f->n ? f->entries[i + 1] : out->len;

   *len = end - f->entries[i];
   return out->str + f->entries[i];
}

/* Frees f's entry starts when they outgrew f->few. */
static void
output_frame_free_entries (output_frame_t *f)
{
   if (f->entries != f->few) {
      bson_free (f->entries);
   }
   f->entries = NULL;
}

/* The writer's scratch string, emptied, for rebuilding a span. */
static bson_string_t *
output_scratch (struct output_writer *w)
{
   w->scratch->len = 0;
   w->scratch->str[0] = '\0';
   return w->scratch;
}

/* Replaces everything from start on with the contents of text (the scratch string, left as it is). */
static void
output_replace_tail (bson_string_t *out, size_t start, const bson_string_t *text)
{
   out->len = (uint32_t) start;
   output_append_n (out, text->str, text->len);
}

/* Rewrites f's span as the one-entry-per-line layout (the last entry may still be in progress) and writes later
 * entries in place from now on. Containers around it whose current entry now holds a line break and which cannot
 * group commit too. */
static void
output_commit (struct output_writer *w, output_frame_t *f)
{
   for (; f && !f->committed && !f->barrier && f->no_group; f = f->parent) {
      bson_string_t *out = w->out;
      size_t pad = (size_t) f->indent + 2, grow = 1, end = out->len, total;

      /* In place, from the last entry back: each moves right by the separators and indents before it, so a
       * move never reaches an entry not yet moved (entries are contiguous from f->start). */
      BSON_ASSERT (f->n == 0 || f->entries[0] == f->start);
      for (size_t i = 0; i < f->n; i++) {
         grow += (i ? 2 : 1) + pad;
      }
      total = grow;
      output_reserve (out, total);
      for (size_t i = f->n; i-- > 0;) {
         size_t len = end - f->entries[i], sep = i ? 2 : 1;
         char *dst = out->str + f->entries[i] + grow;

         memmove (dst, out->str + f->entries[i], len);
         memset (dst - pad, ' ', pad);
         memcpy (dst - pad - sep, i ? ",\n" : "\n", sep);
         grow -= sep + pad;
         end = f->entries[i];
      }
      BSON_ASSERT (grow == 1);
      out->str[f->start] = f->is_array ? '[' : '{';
      out->len = (uint32_t) (out->len + total);
      out->str[out->len] = '\0';
      f->committed = true;
      f->no_fit = true;
      output_frame_free_entries (f);
      w->pending--;
      if (f->parent) {
         f->parent->no_fit = true; /* its current entry now holds a line break */
      }
   }
}

/* Whether f is now certain to be laid out one entry per line (reduceToSingleString's tests are all monotone in
 * the entries seen, apart from the compact-depth one which only ever adds line breaks); commits it then. */
static void
output_frame_check (output_ctx_t *ctx, output_frame_t *f)
{
   double n = (double) f->n;

   if (2 * n + f->indent + 11 + f->total > ctx->break_length || 3 * n + f->indent + 11 > ctx->break_length) {
      f->no_fit = true;
   }
   if (f->no_fit && f->no_group) {
      output_commit (ctx->writer, f);
   }
}

static void
output_frame_begin (output_ctx_t *ctx, output_frame_t *f, bool is_array, bool barrier)
{
   struct output_writer *w = ctx->writer;

   memset (f, 0, sizeof *f);
   f->entries = f->few;
   f->cap = sizeof f->few / sizeof f->few[0];
   f->parent = w->top;
   f->start = w->out->len;
   f->indent = ctx->indentation_lvl;
   f->is_array = is_array;
   f->barrier = barrier;
   f->no_fit = ctx->opts->expanded;
   f->no_group = ctx->opts->expanded || !is_array;
   w->top = f;
   w->pending++;
   if (!barrier) {
      output_frame_check (ctx, f);
   }
}

/* Pops f (its span already laid out) and writes out what is final. */
static void
output_frame_pop (output_ctx_t *ctx, output_frame_t *f)
{
   struct output_writer *w = ctx->writer;

   w->top = f->parent;
   if (!f->committed) {
      w->pending--;
   }
   output_frame_free_entries (f);
   output_flush (w, false);
}

static void
output_entry_begin (output_ctx_t *ctx, output_frame_t *f)
{
   bson_string_t *out = ctx->writer->out;

   if (f->committed) {
      output_append_n (out, f->n ? ",\n" : "\n", f->n ? 2 : 1);
      output_spaces (out, f->indent + 2);
   } else {
      if (f->n == f->cap) {
         f->cap *= 2;
         if (f->entries == f->few) {
            f->entries = bson_malloc (f->cap * sizeof *f->entries);
            memcpy (f->entries, f->few, sizeof f->few);
         } else {
            f->entries = bson_realloc (f->entries, f->cap * sizeof *f->entries);
         }
      }
      f->entries[f->n] = out->len;
   }
   f->n++;
}

/* After entry f->n - 1: measures it (when that can still change the layout) and commits f when it can. measure is
 * false for the "... more items" entry, which ends the array anyway. */
static void
output_entry_end (output_ctx_t *ctx, output_frame_t *f, bool measure)
{
   size_t len, units, width;
   const char *s;

   if (f->committed) {
      output_flush (ctx->writer, false);
      return;
   }
   if (!measure || (f->no_fit && f->no_group)) {
      return;
   }
   s = output_entry (f, ctx->writer->out, f->n - 1, &len);
   output_measure_n (s, len, &units, &width);
   f->total += (double) units;
   if (memchr (s, '\n', len)) {
      f->no_fit = true;
   }
   if (((double) width + 2) * 3 + f->indent >= ctx->break_length) {
      f->no_group = true; /* groupArrayElements needs every entry short */
   }
   output_frame_check (ctx, f);
}

/* groupArrayElements: when an array has more than 6 entries that are short and of similar length, several go on
 * one line in aligned columns (numbers right-aligned). Returns the grouped rows (caller frees) or NULL. */
static bson_string_t *
output_group_array (const output_ctx_t *ctx, const output_frame_t *f, bool has_more, bool all_numbers)
{
   const bson_string_t *buf = ctx->writer->out;
   size_t out_len = f->n - (has_more ? 1 : 0);
   size_t *data_len = bson_malloc0 ((out_len ? out_len : 1) * sizeof *data_len);
   size_t *max_line = NULL;
   double total = 0, max_length = 0, actual_max, average_bias, biased_max, columns, c1, c2;
   bson_string_t *rows = NULL;
   const char *s;
   size_t len;

   for (size_t i = 0; i < out_len; i++) {
      size_t units;

      s = output_entry (f, buf, i, &len);
      output_measure_n (s, len, &units, &data_len[i]);
      total += (double) data_len[i] + 2;
      if ((double) data_len[i] > max_length) {
         max_length = (double) data_len[i];
      }
   }
   actual_max = max_length + 2;
   if (!(actual_max * 3 + ctx->indentation_lvl < ctx->break_length && (total / actual_max > 5 || max_length <= 6))) {
      goto done;
   }
   average_bias = sqrt (actual_max - total / (double) f->n);
   biased_max = fmax (actual_max - 3 - average_bias, 1);
   c1 = floor (sqrt (2.5 * biased_max * (double) out_len) / biased_max + 0.5);
   c2 = floor ((ctx->break_length - ctx->indentation_lvl) / actual_max);
   columns = fmin (fmin (c1, c2), fmin (OUTPUT_COMPACT * 4, 15));
   if (columns <= 1) {
      goto done;
   }

   {
      size_t cols = (size_t) columns;

      rows = bson_string_new (NULL);
      max_line = bson_malloc0 (cols * sizeof *max_line);
      for (size_t i = 0; i < cols; i++) {
         for (size_t j = i; j < out_len; j += cols) {
            if (data_len[j] > max_line[i]) {
               max_line[i] = data_len[j];
            }
         }
         max_line[i] += 2;
      }
      /* rows are joined as reduceToSingleString joins entries: ",\n" and the indentation between them */
      for (size_t i = 0; i < out_len; i += cols) {
         size_t max = BSON_MIN (i + cols, out_len);
         size_t j = i;

         output_append_n (rows, i ? ",\n" : "\n", i ? 2 : 1);
         output_spaces (rows, ctx->indentation_lvl + 2);
         for (; j < max - 1; j++) {
            long pad = (long) max_line[j - i] - (long) data_len[j] - 2;

            if (all_numbers) {
               output_spaces (rows, pad);
            }
            s = output_entry (f, buf, j, &len);
            output_append_n (rows, s, len);
            OUTPUT_LIT (rows, ", ");
            if (!all_numbers) {
               output_spaces (rows, pad);
            }
         }
         if (all_numbers) {
            output_spaces (rows, (long) max_line[j - i] - (long) data_len[j] - 2);
         }
         s = output_entry (f, buf, j, &len);
         output_append_n (rows, s, len);
      }
      if (has_more) {
         s = output_entry (f, buf, f->n - 1, &len);
         OUTPUT_LIT (rows, ",\n");
         output_spaces (rows, ctx->indentation_lvl + 2);
         output_append_n (rows, s, len);
      }
   }

done:
   bson_free (data_len);
   bson_free (max_line);
   return rows;
}

/* reduceToSingleString for a container not committed: "{ a, b }" when the entries fit in the break length and the
 * container has at most OUTPUT_COMPACT levels below it, otherwise one entry (or one group of array entries) per
 * line. Rewrites f's span; a committed container just gets its closing line. */
static void
output_reduce (output_ctx_t *ctx, output_frame_t *f, bool has_more, bool all_numbers, int recurse_times)
{
   const char *open = f->is_array ? "[" : "{";
   const char *close = f->is_array ? "]" : "}";
   bson_string_t *out = ctx->writer->out;
   bson_string_t *text, *rows = NULL;
   const char *s;
   size_t len;

   if (f->committed) {
      output_append_c (out, '\n');
      output_spaces (out, ctx->indentation_lvl);
      output_append (out, close);
      return;
   }
   text = output_scratch (ctx->writer);
   output_append_c (text, open[0]);
   if (!ctx->opts->expanded && f->is_array && f->n > 6) {
      rows = output_group_array (ctx, f, has_more, all_numbers);
   }
   if (!rows && !ctx->opts->expanded && ctx->current_depth - recurse_times < OUTPUT_COMPACT) {
      double start = (double) f->n + ctx->indentation_lvl + 1 + 10;
      double total = (double) f->n + start;
      bool fits = total + (double) f->n <= ctx->break_length;

      if (!f->no_fit && !has_more) {
         /* output_entry_end measured every entry (f->total) and saw no line break: no need to measure again */
         fits = fits && total + f->total <= ctx->break_length;
      }
      for (size_t i = 0; fits && (f->no_fit || has_more) && i < f->n; i++) {
         size_t units, width;

         s = output_entry (f, out, i, &len);
         output_measure_n (s, len, &units, &width);
         total += (double) units;
         if (total > ctx->break_length || memchr (s, '\n', len)) {
            fits = false;
         }
      }
      if (fits) {
         output_append_c (text, ' ');
         for (size_t i = 0; i < f->n; i++) {
            s = output_entry (f, out, i, &len);
            if (i) {
               OUTPUT_LIT (text, ", ");
            }
            output_append_n (text, s, len);
         }
         output_append_c (text, ' ');
         output_append (text, close);
         output_replace_tail (out, f->start, text);
         return;
      }
   }
   if (rows) {
      output_append_n (text, rows->str, rows->len);
      bson_string_free (rows, true);
   } else {
      for (size_t i = 0; i < f->n; i++) {
         s = output_entry (f, out, i, &len);
         output_append_n (text, i ? ",\n" : "\n", i ? 2 : 1);
         output_spaces (text, ctx->indentation_lvl + 2);
         output_append_n (text, s, len);
      }
   }
   output_append_c (text, '\n');
   output_spaces (text, ctx->indentation_lvl);
   output_append (text, close);
   output_replace_tail (out, f->start, text);
}

/* A key as formatProperty prints it: bare when an identifier, ['__proto__'] for that key, otherwise quoted. */
static void
output_key (bson_string_t *out, const output_ctx_t *ctx, const char *key, size_t key_len)
{
   if (key_len == 9 && memcmp (key, "__proto__", 9) == 0) {
      OUTPUT_LIT (out, "['__proto__']");
   } else if (output_is_identifier_n (key, key_len)) {
      output_append_n (out, key, key_len);
   } else {
      output_quoted (out, ctx, key);
   }
}

/* One property "key: value" (or just the value in an array), the value indented two more columns. */
static void
output_property (output_ctx_t *ctx, const char *key, size_t key_len, const bson_value_t *value, int recurse_times,
                 bool is_array)
{
   if (!is_array) {
      output_key (ctx->writer->out, ctx, key, key_len);
      OUTPUT_LIT (ctx->writer->out, ": ");
   }
   ctx->indentation_lvl += 2;
   output_inspect (ctx, value, recurse_times, key);
   ctx->indentation_lvl -= 2;
}

/* Indents every line after the first of the text from start on by indent columns. */
static void
output_reindent (struct output_writer *w, size_t start, int indent)
{
   bson_string_t *out = w->out, *text;
   const char *p, *end, *nl;

   if (indent <= 0 || !memchr (out->str + start, '\n', out->len - start)) {
      return;
   }
   text = output_scratch (w);
   for (p = out->str + start, end = out->str + out->len; p < end; p = nl + 1) {
      nl = memchr (p, '\n', (size_t) (end - p));
      if (!nl) {
         output_append_n (text, p, (size_t) (end - p));
         break;
      }
      output_append_n (text, p, (size_t) (nl + 1 - p));
      output_spaces (text, indent);
   }
   output_replace_tail (out, start, text);
}

/* A fresh util.inspect call of value (indentation 0, the full depth again, break_length as given) whose text is
 * re-indented to the current column: sh.status's chunk rows (breakLength Infinity) and Code's scope. */
static void
output_fresh (output_ctx_t *ctx, const bson_value_t *value, double break_length)
{
   output_ctx_t sub = *ctx;
   output_frame_t barrier;

   output_frame_begin (ctx, &barrier, false, true);
   sub.break_length = break_length;
   sub.indentation_lvl = 0;
   sub.current_depth = 0;
   output_inspect (&sub, value, 0, NULL);
   output_reindent (ctx->writer, barrier.start, ctx->indentation_lvl);
   output_frame_pop (ctx, &barrier);
}

/* formatRaw for a document or array. */
static void
output_inspect_container (output_ctx_t *ctx, const uint8_t *data, uint32_t data_len, bool is_array, int recurse_times,
                          const char *key)
{
   bson_string_t *out = ctx->writer->out;
   bson_t doc;
   bson_iter_t iter;
   output_saved_iter_t saved[OUTPUT_SAVED_ITERS];
   bson_value_t v;
   output_slot_t *order = NULL;
   size_t count = 0;
   output_frame_t f;
   bool has_more = false, all_numbers = true;

   /* an empty document is 5 bytes: its length and the terminating NUL */
   if (!bson_init_static (&doc, data, data_len) || data_len <= 5) {
      output_append_n (out, is_array ? "[]" : "{}", 2);
      return;
   }
   if (ctx->depth >= 0 && recurse_times > ctx->depth) {
      output_stylize (out, ctx, is_array ? "[Array]" : "[Object]", OUTPUT_STYLE_SPECIAL);
      return;
   }
   if (!is_array && (!output_key_order (&doc, saved, &order, &count) || count == 0)) {
      OUTPUT_LIT (out, "{}");
      bson_free (order);
      return;
   }
   recurse_times++;
   ctx->current_depth = recurse_times;
   output_frame_begin (ctx, &f, is_array, false);

   if (is_array) {
      size_t n = 0, more = 0;
      bool one_line = key && ctx->opts->one_line_key && strcmp (key, ctx->opts->one_line_key) == 0;

      BSON_ASSERT (bson_iter_init (&iter, &doc)); /* bson_init_static checked the header */

      while (bson_iter_next (&iter)) {
         bson_type_t t = bson_iter_type_unsafe (&iter);

         if (ctx->max_array_length >= 0 && n >= (size_t) ctx->max_array_length) {
            if (t != BSON_TYPE_INT32 && t != BSON_TYPE_DOUBLE) {
               all_numbers = false; /* util.inspect also looks at the first element not shown */
            }
            for (more = 1; bson_iter_next (&iter); more++) {
            }
            break;
         }
         if (t != BSON_TYPE_INT32 && t != BSON_TYPE_DOUBLE) {
            all_numbers = false;
         }
         output_iter_value (&iter, &v);
         output_entry_begin (ctx, &f);
         if (one_line && t == BSON_TYPE_DOCUMENT) {
            ctx->indentation_lvl += 2;
            output_fresh (ctx, &v, INFINITY);
            ctx->indentation_lvl -= 2;
         } else {
            output_property (ctx, NULL, 0, &v, recurse_times, true);
         }
         output_entry_end (ctx, &f, true);
         n++;
      }
      if (more > 0) {
         output_entry_begin (ctx, &f);
         bson_string_append_printf (out, "... %zu more item%s", more, more > 1 ? "s" : "");
         output_entry_end (ctx, &f, false);
         has_more = true;
      }
   } else {
      for (size_t i = 0; i < count; i++) {
         bson_iter_t at;

         if (!order) {
            /* the elements output_key_order walked and kept, then on from the last of them */
            bson_iter_t *cur = &iter;

            if (i < OUTPUT_SAVED_ITERS) {
               cur = &saved[i].iter;
            } else if (i == OUTPUT_SAVED_ITERS) {
               iter = saved[i - 1].iter;
            }
            if (cur == &iter && !bson_iter_next (&iter)) {
               break;
            }
            output_iter_value (cur, &v);
            output_entry_begin (ctx, &f);
            output_property (ctx, bson_iter_key_unsafe (cur), bson_iter_key_len (cur), &v, recurse_times, false);
            output_entry_end (ctx, &f, true);
            continue;
         }
         if (!bson_iter_init_from_data_at_offset (&at, data, data_len, order[i].offset, order[i].key_len)) {
            continue;
         }
         output_iter_value (&at, &v);
         output_entry_begin (ctx, &f);
         output_property (ctx, bson_iter_key (&at), order[i].key_len, &v, recurse_times, false);
         output_entry_end (ctx, &f, true);
      }
   }
   if (f.n == 0) {
      /* only when the BSON is corrupt (a valid non-empty container has entries) */
      ctx->writer->out->len = (uint32_t) f.start;
      output_append_n (ctx->writer->out, is_array ? "[]" : "{}", 2);
   } else {
      output_reduce (ctx, &f, has_more, all_numbers, recurse_times);
   }
   output_frame_pop (ctx, &f);
   bson_free (order);
}

/* formatValue for one BSON value. key is the key it is stored under (NULL at top level or in an array). */
static void
output_inspect (output_ctx_t *ctx, const bson_value_t *value, int recurse_times, const char *key)
{
   bson_string_t *out = ctx->writer->out;
   char buf[64];

   switch (value->value_type) {
   case BSON_TYPE_DOUBLE:
      output_number (out, ctx, value->value.v_double);
      break;
   case BSON_TYPE_INT32: {
      const char *digits = output_int_str (buf, sizeof buf, value->value.v_int32);

      output_stylize_n (out, ctx, digits, (size_t) (buf + sizeof buf - 1 - digits), OUTPUT_STYLE_NUMBER);
      break;
   }
   case BSON_TYPE_INT64: {
      const char *digits = output_int_str (buf, sizeof buf, value->value.v_int64);

      OUTPUT_LIT (out, "Long(");
      output_quoted_plain (out, ctx, digits, (size_t) (buf + sizeof buf - 1 - digits));
      OUTPUT_LIT (out, ")");
      break;
   }
   case BSON_TYPE_DECIMAL128: {
      char dec[BSON_DECIMAL128_STRING];

      bson_decimal128_to_string (&value->value.v_decimal128, dec);
      OUTPUT_LIT (out, "Decimal128(");
      output_quoted_plain (out, ctx, dec, strlen (dec));
      OUTPUT_LIT (out, ")");
      break;
   }
   case BSON_TYPE_UTF8:
   case BSON_TYPE_SYMBOL: /* the JS driver promotes symbols to strings */
      output_inspect_string (out, ctx, value->value.v_utf8.str, value->value.v_utf8.len);
      break;
   case BSON_TYPE_DOCUMENT:
   case BSON_TYPE_ARRAY:
      output_inspect_container (ctx, value->value.v_doc.data, value->value.v_doc.data_len,
                                value->value_type == BSON_TYPE_ARRAY, recurse_times, key);
      break;
   case BSON_TYPE_BINARY:
      output_binary (out, ctx, value->value.v_binary.subtype, value->value.v_binary.data,
                     value->value.v_binary.data_len);
      break;
   case BSON_TYPE_UNDEFINED:
      output_stylize (out, ctx, "undefined", OUTPUT_STYLE_UNDEFINED);
      break;
   case BSON_TYPE_OID:
      bson_oid_to_string (&value->value.v_oid, buf);
      OUTPUT_LIT (out, "ObjectId(");
      output_quoted_plain (out, ctx, buf, 24);
      OUTPUT_LIT (out, ")");
      break;
   case BSON_TYPE_BOOL:
      output_stylize (out, ctx, value->value.v_bool ? "true" : "false", OUTPUT_STYLE_NUMBER);
      break;
   case BSON_TYPE_DATE_TIME: {
      int64_t ms = value->value.v_datetime;

      if (ms > OUTPUT_JS_DATE_LIMIT || ms < -OUTPUT_JS_DATE_LIMIT) {
         output_stylize (out, ctx, "Invalid Date", OUTPUT_STYLE_DATE);
      } else {
         OUTPUT_LIT (out, "ISODate('");
         output_iso_date (out, ms);
         OUTPUT_LIT (out, "')");
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
      OUTPUT_LIT (out, "DBRef(");
      output_quoted (out, ctx, split ? dot + 1 : ns);
      OUTPUT_LIT (out, ", ObjectId(");
      output_quoted (out, ctx, buf);
      OUTPUT_LIT (out, ")");
      if (split) {
         OUTPUT_LIT (out, ", ");
         output_quoted (out, ctx, db);
      }
      OUTPUT_LIT (out, ")");
      bson_free (db);
      break;
   }
   case BSON_TYPE_CODE:
      OUTPUT_LIT (out, "Code(");
      output_quoted (out, ctx, value->value.v_code.code);
      OUTPUT_LIT (out, ")");
      break;
   case BSON_TYPE_CODEWSCOPE: {
      bson_value_t scope = { .value_type = BSON_TYPE_DOCUMENT };

      scope.value.v_doc.data = value->value.v_codewscope.scope_data;
      scope.value.v_doc.data_len = value->value.v_codewscope.scope_len;
      OUTPUT_LIT (out, "Code(");
      output_quoted (out, ctx, value->value.v_codewscope.code);
      OUTPUT_LIT (out, ", ");
      output_fresh (ctx, &scope, ctx->break_length);
      OUTPUT_LIT (ctx->writer->out, ")");
      break;
   }
   case BSON_TYPE_TIMESTAMP:
      OUTPUT_LIT (out, "Timestamp({ t: ");
      output_stylize (out, ctx, output_int_str (buf, sizeof buf, value->value.v_timestamp.timestamp),
                      OUTPUT_STYLE_NUMBER);
      OUTPUT_LIT (out, ", i: ");
      output_stylize (out, ctx, output_int_str (buf, sizeof buf, value->value.v_timestamp.increment),
                      OUTPUT_STYLE_NUMBER);
      OUTPUT_LIT (out, " })");
      break;
   case BSON_TYPE_MINKEY:
      OUTPUT_LIT (out, "MinKey()");
      break;
   case BSON_TYPE_MAXKEY:
      OUTPUT_LIT (out, "MaxKey()");
      break;
   case BSON_TYPE_EOD:
   default:
      output_stylize (out, ctx, "undefined", OUTPUT_STYLE_UNDEFINED);
      break;
   }
}

/* Runs util.inspect on value. With a sink, writes the text there as it becomes final and returns NULL (*ok false
 * when a write failed); without one returns the whole text (caller frees with bson_free). */
static char *
output_run (const bson_value_t *value, const output_opts_t *opts, FILE *sink, bool *ok)
{
   struct output_writer w = { .out = bson_string_new (NULL), .scratch = bson_string_new (NULL), .sink = sink };
   output_ctx_t ctx;

   memset (&ctx, 0, sizeof ctx);
   ctx.opts = opts;
   ctx.writer = &w;
   ctx.break_length = opts->break_length > 0 ? (double) opts->break_length : INFINITY;
   ctx.depth = opts->depth < 0 ? -1 : opts->depth;
   /* mongosh lifts all three limits together (--eval's deep inspection), so an unlimited depth lifts these. */
   ctx.max_array_length = opts->depth < 0 ? -1 : OUTPUT_MAX_ARRAY_LENGTH;
   ctx.max_string_length = opts->depth < 0 ? -1 : OUTPUT_MAX_STRING_LENGTH;
   output_inspect (&ctx, value, 0, NULL);
   bson_string_free (w.scratch, true);
   if (!sink) {
      return bson_string_free (w.out, false);
   }
   output_flush (&w, true);
   if (ok) {
      *ok = !w.failed;
   }
   bson_string_free (w.out, true);
   return NULL;
}

/* libbson writes a double with 20 significant digits ("19.699999999999999289"): each such number of json (a
 * relaxed Extended JSON text it wrote) is rewritten as the shortest text that reads back as the same double ("19.7"),
 * as mongosh's EJSON.stringify prints it; a number that would then look like an integer keeps ".0". Strings are left
 * alone. Takes json (bson_malloc'd, may be NULL) and returns its replacement. */
static char *
output_json_tidy (char *json)
{
   bson_string_t *out;
   const char *p, *copied;
   bool in_str = false;
   if (!json)
      return json;
   out = bson_string_new (NULL);
   copied = json;
   for (p = json; *p; p++) {
      if (in_str) {
         if (*p == '\\' && p[1])
            p++;
         else if (*p == '"')
            in_str = false;
         continue;
      }
      if (*p == '"') {
         in_str = true;
         continue;
      }
      if (!(*p == '-' || (*p >= '0' && *p <= '9')))
         continue;
      const char *q = p;
      while (*q && strchr ("+-0123456789.eE", *q))
         q++;
      size_t len = (size_t) (q - p);
      char tok[64];
      if (len > 17 && len < sizeof tok && memchr (p, '.', len)) {
         memcpy (tok, p, len);
         tok[len] = '\0';
         char *end;
         double d = strtod (tok, &end);
         if (end == tok + len && isfinite (d)) {
            size_t before;
            bson_string_append_printf (out, "%.*s", (int) (p - copied), copied);
            before = out->len;
            output_shortest_double (out, d);
            if (!strpbrk (out->str + before, ".eE"))
               bson_string_append (out, ".0");
            copied = q;
         }
      }
      p = q - 1;
   }
   bson_string_append (out, copied);
   bson_free (json);
   return bson_string_free (out, false);
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

   if ((value->value_type == BSON_TYPE_DOCUMENT || value->value_type == BSON_TYPE_ARRAY) &&
       output_has_shown (value->value.v_doc.data, value->value.v_doc.data_len)) {
      bson_t plain;
      bool arr = value->value_type == BSON_TYPE_ARRAY;

      if (arr ? !bson_append_array_begin (&wrapper, "v", 1, &plain)
              : !bson_append_document_begin (&wrapper, "v", 1, &plain)) {
         goto done;
      }
      output_shown_plain (value->value.v_doc.data, value->value.v_doc.data_len, arr, &plain);
      if (arr ? !bson_append_array_end (&wrapper, &plain) : !bson_append_document_end (&wrapper, &plain)) {
         goto done;
      }
   } else if (!bson_append_value (&wrapper, "v", 1, value)) {
      goto done;
   }
   json = output_json_tidy (bson_as_relaxed_extended_json (&wrapper, NULL));
   len = json ? strlen (json) : 0;
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
   bson_value_t value = { .value_type = BSON_TYPE_DOCUMENT };
   char *json;

   if (!doc) {
      return bson_strdup ("null");
   }
   if (opts->mode == OUTPUT_JSON) {
      value.value.v_doc.data = (uint8_t *) bson_get_data (doc);
      value.value.v_doc.data_len = doc->len;
      if (bsonvalid_bson (doc) && output_has_shown (value.value.v_doc.data, value.value.v_doc.data_len)) {
         return output_json_value (&value); /* a script's Int32, Double or function printed (output_int.h) */
      }
      json = output_json_tidy (bson_as_relaxed_extended_json (doc, NULL));
      return json ? json : bson_strdup (OUTPUT_INVALID_BSON);
   }
   if (!bsonvalid_bson (doc)) {
      return bson_strdup (OUTPUT_INVALID_BSON);
   }
   value.value.v_doc.data = (uint8_t *) bson_get_data (doc);
   value.value.v_doc.data_len = doc->len;
   return output_run (&value, opts, NULL, NULL);
}

char *
output_format_array (const bson_t *array, const output_opts_t *opts)
{
   bson_value_t value = { .value_type = BSON_TYPE_ARRAY };

   if (!array) {
      return bson_strdup ("null");
   }
   if (!bsonvalid_bson (array)) {
      return bson_strdup (OUTPUT_INVALID_BSON);
   }
   value.value.v_doc.data = (uint8_t *) bson_get_data (array);
   value.value.v_doc.data_len = array->len;
   if (opts->mode == OUTPUT_JSON) {
      return output_json_value (&value);
   }
   return output_run (&value, opts, NULL, NULL);
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
      if (!bsonvalid_data (value->value.v_doc.data, value->value.v_doc.data_len)) {
         return bson_strdup (OUTPUT_INVALID_BSON);
      }
   }
   return output_run (value, opts, NULL, NULL);
}

bool
output_write_value (FILE *fp, const bson_value_t *value, const output_opts_t *opts)
{
   bool ok = true;
   char *s;

   if (value && opts->mode == OUTPUT_PRETTY &&
       (value->value_type == BSON_TYPE_DOCUMENT || value->value_type == BSON_TYPE_ARRAY)) {
      output_run (value, opts, fp, &ok);
      return ok;
   }
   s = output_format_value (value, opts);
   ok = fputs (s, fp) >= 0;
   bson_free (s);
   return ok;
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
