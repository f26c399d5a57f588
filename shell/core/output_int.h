/* The output formatter's private interface, shared by output.c (documents, arrays and the layout util.inspect gives
 * them, JSON mode, the public entry points) and output_scalar.c (strings, numbers, dates, binary, regexes and keys,
 * each formatted and coloured as mongosh prints it). Not for use outside shell/core. Every function appends to a
 * bson_string_t the caller owns. */
#ifndef SHARDSH_OUTPUT_INT_H
#define SHARDSH_OUTPUT_INT_H

#include <bson/bson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "shell/core/output.h"

#define OUTPUT_COMPACT 3            /* util.inspect's compact: inner levels joined on one line */
#define OUTPUT_MIN_LINE_LENGTH 16   /* strings shorter than this are never split at newlines */
#define OUTPUT_MAX_ARRAY_LENGTH 100 /* util.inspect's maxArrayLength when the depth is limited */
#define OUTPUT_MAX_STRING_LENGTH 10000
#define OUTPUT_JS_DATE_LIMIT 8640000000000000LL /* |ms| beyond this is an Invalid Date in JS */

/* util.inspect's style names and the SGR codes Node gives them (inspect.styles / inspect.colors). */
typedef enum {
   OUTPUT_STYLE_NONE = 0,
   OUTPUT_STYLE_STRING,    /* green */
   OUTPUT_STYLE_NUMBER,    /* yellow, also booleans */
   OUTPUT_STYLE_NULL,      /* bold */
   OUTPUT_STYLE_UNDEFINED, /* grey */
   OUTPUT_STYLE_SPECIAL,   /* cyan: [Object], [Array] */
   OUTPUT_STYLE_DATE,      /* magenta: only 'Invalid Date'; mongosh's ISODate('…') is plain */
   OUTPUT_STYLE_REGEXP,    /* red */
} output_style_t;

struct output_writer; /* output.c's buffer of one call and the containers open in it */

/* The state util.inspect threads through one call. */
typedef struct {
   const output_opts_t *opts;
   struct output_writer *writer; /* where the text goes (the buffer every function below appends to) */
   double break_length;          /* INFINITY when opts->break_length <= 0 */
   int depth;                    /* < 0: unlimited */
   int max_array_length;         /* < 0: unlimited */
   int max_string_length;        /* < 0: unlimited */
   int indentation_lvl;          /* columns the current value is indented by */
   int current_depth;            /* depth of the innermost container entered most recently (ctx.currentDepth) */
} output_ctx_t;

/* Appends text wrapped in the SGR codes of style when colours are on. */
void
output_stylize (bson_string_t *out, const output_ctx_t *ctx, const char *text, output_style_t style);

/* output_stylize for the len bytes at text. */
void
output_stylize_n (bson_string_t *out, const output_ctx_t *ctx, const char *text, size_t len, output_style_t style);

/* Appends n spaces (none when n <= 0). */
void
output_spaces (bson_string_t *out, long n);

/* Grows out so that n more bytes (and the NUL) fit; output_reserve's slow path. */
void
output_grow (bson_string_t *out, size_t n);

/* Makes room for n more bytes (and the NUL) in out. The formatter's appenders below are inline and track the
 * length themselves (no strlen, no call into libbson per piece): they are its hot path. */
static inline void
output_reserve (bson_string_t *out, size_t n)
{
   if ((size_t) out->len + n + 1 > out->alloc) {
      output_grow (out, n);
   }
}

/* Appends the len bytes at s. */
static inline void
output_append_n (bson_string_t *out, const char *s, size_t len)
{
   output_reserve (out, len);
   memcpy (out->str + out->len, s, len);
   out->len += (uint32_t) len;
   out->str[out->len] = '\0';
}

/* Appends the NUL-terminated s. */
static inline void
output_append (bson_string_t *out, const char *s)
{
   output_append_n (out, s, strlen (s));
}

/* Appends one byte. */
static inline void
output_append_c (bson_string_t *out, char c)
{
   output_reserve (out, 1);
   out->str[out->len++] = c;
   out->str[out->len] = '\0';
}

/* Appends a string literal, its length known at compile time. */
#define OUTPUT_LIT(out, lit) output_append_n ((out), "" lit, sizeof (lit) - 1)

/* v in decimal, written at the end of buf (size >= 21); returns where it starts. */
const char *
output_int_str (char *buf, size_t size, int64_t v);

/* Measures s as JS would after removeColors(): *units is String.length (UTF-16 code units) and *width the
 * number of code points (our stand-in for getStringWidth, which also knows wide and zero-width characters). */
void
output_measure (const char *s, size_t *units, size_t *width);

/* output_measure for the len bytes at s (which need not be NUL-terminated). */
void
output_measure_n (const char *s, size_t len, size_t *units, size_t *width);

/* Decodes one UTF-8 sequence at s (n bytes left). Returns its length in bytes and sets *cp; an invalid byte
 * decodes as U+FFFD of length 1, as TextDecoder does in the JS driver. */
size_t
output_utf8_next (const unsigned char *s, size_t n, uint32_t *cp);

/* A string value inside a document or array (formatPrimitive): cut at maxStringLength, split after each
 * newline when it is too long for the line, each piece escaped and coloured green. */
void
output_inspect_string (bson_string_t *out, const output_ctx_t *ctx, const char *s, size_t len);

/* Appends a plain string quoted as util.inspect quotes it (no splitting, no limit), coloured green. */
void
output_quoted (bson_string_t *out, const output_ctx_t *ctx, const char *s);

/* Number.prototype.toString of a finite d: the shortest digits that read back as d ("19.7"), uncoloured. */
void
output_shortest_double (bson_string_t *out, double d);

/* util.inspect's formatNumber: a JS number, yellow, with -0 kept. */
void
output_number (bson_string_t *out, const output_ctx_t *ctx, double d);

/* Date.prototype.toISOString for milliseconds since the epoch (|ms| <= 8.64e15), proleptic Gregorian. */
void
output_iso_date (bson_string_t *out, int64_t ms);

/* The bson library's Binary as mongosh prints it (the text of OUTPUT_SHOWN_TAG as it is): UUID('…') for a 16-byte
 * subtype 4, MD5('hex') for subtype 5, otherwise Binary.createFromBase64('…', subtype). */
void
output_binary (bson_string_t *out, const output_ctx_t *ctx, bson_subtype_t subtype, const uint8_t *data, uint32_t len);

/* A BSON regex as the JS driver turns it into a RegExp (options i, m kept, s becomes g, the rest dropped) and
 * RegExp.prototype.toString prints it: '/' escaped outside classes, line breaks escaped, flags in g-i-m order. */
void
output_regex (bson_string_t *out, const output_ctx_t *ctx, const char *pattern, const char *options);

/* Appends s (NUL-terminated, len bytes), which the caller vouches holds only printable ASCII other than ' and \
 * (digits, hex, a Decimal128's text), quoted as output_quoted quotes it: in single quotes, nothing escaped. */
void
output_quoted_plain (bson_string_t *out, const output_ctx_t *ctx, const char *s, size_t len);

/* keyStrRegExp: /^[a-zA-Z_][a-zA-Z_0-9]*$/ */
bool
output_is_identifier (const char *key);

/* The same for the len bytes at key. */
bool
output_is_identifier_n (const char *key, size_t len);

/* True when key is a JS array index ("0", "17", up to 2^32 - 2): such keys come first in a JS object. */
bool
output_index_key (const char *key, uint32_t *index);

/* Where one element starts, so an iterator can be rebuilt there (bson_iter_t needs 128-byte alignment, which a
 * heap array of them would not have). */
typedef struct {
   uint32_t offset;
   uint32_t key_len;
   uint32_t index; /* the value of an array-index key */
} output_slot_t;

/* How many elements' iterators output_key_order keeps, so that the formatter does not walk them a second time. */
#define OUTPUT_SAVED_ITERS 8

/* One kept iterator: wrapped so that an array of them is allowed (bson_iter_t's alignment exceeds its size). */
typedef struct {
   bson_iter_t iter;
} output_saved_iter_t;

/* Orders a document's keys as a JS object holds them: array-index keys ascending first, then the rest in
 * insertion order. Sets *order (caller frees with bson_free; NULL when no key is an array index: insertion order
 * then) and *count; returns false on corrupt BSON. In insertion order, saved[i] (OUTPUT_SAVED_ITERS of them) holds an
 * iterator on element i for i < *count: the caller goes on from the last of them with bson_iter_next. */
bool
output_key_order (const bson_t *doc, output_saved_iter_t *saved, output_slot_t **order, size_t *count);

/* Points *v at the value of the element iter is on (after bson_iter_next returned true, which checked its bounds), as
 * bson_iter_value would, without the copy into the iterator: libbson's inline accessors for the types the formatter
 * meets most, its other accessors for the rest. The strings, documents and bytes *v points to are the document's. */
static inline void
output_iter_value (bson_iter_t *iter, bson_value_t *v)
{
   size_t len;

   v->value_type = bson_iter_type_unsafe (iter);
   switch (v->value_type) {
   case BSON_TYPE_UTF8:
      v->value.v_utf8.str = (char *) bson_iter_utf8_unsafe (iter, &len);
      v->value.v_utf8.len = (uint32_t) len;
      break;
   case BSON_TYPE_DOCUMENT:
      bson_iter_document (iter, &v->value.v_doc.data_len, (const uint8_t **) &v->value.v_doc.data);
      break;
   case BSON_TYPE_ARRAY:
      bson_iter_array (iter, &v->value.v_doc.data_len, (const uint8_t **) &v->value.v_doc.data);
      break;
   case BSON_TYPE_INT32:
      v->value.v_int32 = bson_iter_int32_unsafe (iter);
      break;
   case BSON_TYPE_INT64:
      v->value.v_int64 = bson_iter_int64_unsafe (iter);
      break;
   case BSON_TYPE_DOUBLE:
      v->value.v_double = bson_iter_double_unsafe (iter);
      break;
   case BSON_TYPE_BOOL:
      v->value.v_bool = bson_iter_bool_unsafe (iter);
      break;
   case BSON_TYPE_OID:
      v->value.v_oid = *bson_iter_oid_unsafe (iter);
      break;
   case BSON_TYPE_DECIMAL128:
      bson_iter_decimal128_unsafe (iter, &v->value.v_decimal128);
      break;
   case BSON_TYPE_DATE_TIME:
      v->value.v_datetime = bson_iter_date_time (iter);
      break;
   case BSON_TYPE_TIMESTAMP:
      bson_iter_timestamp (iter, &v->value.v_timestamp.timestamp, &v->value.v_timestamp.increment);
      break;
   case BSON_TYPE_NULL:
   case BSON_TYPE_UNDEFINED:
   case BSON_TYPE_MINKEY:
   case BSON_TYPE_MAXKEY:
      break;
   default:
      *v = *bson_iter_value (iter); /* binary, regex, code, symbol, DBPointer, code with scope */
      break;
   }
}

/* Whether the document or array data holds an OUTPUT_SHOWN_TAG value at any depth. */
bool
output_has_shown (const uint8_t *data, uint32_t len);

/* Copies the document or array data (appended to dst, which the caller owns) with every OUTPUT_SHOWN_TAG value as
 * JSON had the script's value: Int32(n) and Double(x) as their numbers, anything else (a function) left out of a
 * document and null in an array. */
void
output_shown_plain (const uint8_t *data, uint32_t len, bool is_array, bson_t *dst);

#endif
